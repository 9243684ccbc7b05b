import ChatTemplates
import Foundation

/// One rendering recorded by scripts/make-template-fixtures.py with Python jinja2.
struct GoldenCase: Sendable, CustomStringConvertible {
    var name: String
    var source: String
    var context: TemplateObject
    /// The expected output, or nil when jinja2 raised (`error` holds what it said).
    var expected: String?
    var error: String?

    var description: String { name }
}

enum GoldenFixtures {
    static let directory: URL? = Bundle.module.url(forResource: "Fixtures", withExtension: nil)

    static func text(_ relativePath: String) throws -> String {
        guard let directory else { throw CocoaError(.fileNoSuchFile) }
        return try String(contentsOf: directory.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func template(_ id: String) throws -> String { try text("templates/\(id).jinja") }

    private static func cases(_ file: String, source: (TemplateObject) throws -> String) throws -> [GoldenCase] {
        guard case .array(let entries) = try TemplateValue(json: try text(file)) else { return [] }
        return try entries.map { entry in
            guard case .object(let object) = entry, case .object(let context)? = object["context"],
                let name = object["name"]?.stringValue
            else { throw CocoaError(.fileReadCorruptFile) }
            let prefix = object["template_id"]?.stringValue.map { $0 + ": " } ?? ""
            return GoldenCase(
                name: prefix + name, source: try source(object), context: context,
                expected: object["expected"]?.stringValue, error: object["error"]?.stringValue)
        }
    }

    /// The three models' templates on a set of conversations.
    static let conversations: [GoldenCase] =
        (try? cases("conversations.json") { try template($0["template_id"]?.stringValue ?? "") }) ?? []

    /// Small templates exercising one language feature each.
    static let language: [GoldenCase] =
        (try? cases("language.json") { $0["template"]?.stringValue ?? "" }) ?? []
}

extension TemplateObject {
    var dictionary: [String: TemplateValue] {
        Dictionary(uniqueKeysWithValues: pairs.map { ($0.key, $0.value) })
    }
}
