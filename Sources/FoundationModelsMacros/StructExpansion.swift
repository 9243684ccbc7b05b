import SwiftSyntax

/// The code `@Generable` writes for a struct.
///
/// Members: `generationSchema`, `generatedContent` and a nested `PartiallyGenerated` whose
/// properties are all optional. The extension holds `init(_:)` so the implicit memberwise
/// initializer survives. No stored property is added to the type.
struct StructExpansion {
    let typeName: String
    let options: GenerableOptions
    let properties: [StoredProperty]

    private var access: String { options.access }
    /// The properties that appear in the schema and the content (not `GenerationID` ones).
    private var generated: [StoredProperty] { properties.filter { !$0.isGenerationID } }
    /// The `GenerationID` property that carries the content's id, if any.
    private var idProperty: StoredProperty? { properties.first { $0.isGenerationID } }

    func members() -> [DeclSyntax] {
        [schema(), generatedContent(), partiallyGenerated()]
    }

    func initializer() -> DeclSyntax {
        var lines: [String] = []
        for property in properties {
            if property.isGenerationID {
                let value = property.isOptional ? "content.id" : "content.id ?? FoundationModels.GenerationID()"
                lines.append("self.\(property.identifier) = \(value)")
            } else {
                lines.append("self.\(property.identifier) = try content.value(forProperty: \(literal(property.name)))")
            }
        }
        return """
            \(raw: access)nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
            \(raw: indent(lines, by: 1))
            }
            """
    }

    private func schema() -> DeclSyntax {
        var arguments = ["type: Self.self"]
        if let description = options.description { arguments.append("description: \(description)") }
        if let explicitNil = options.explicitNil {
            arguments.append("representNilExplicitlyInGeneratedContent: \(explicitNil)")
        }
        arguments.append("properties: \(propertyList(generated))")
        return """
            \(raw: access)nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                FoundationModels.GenerationSchema(
            \(raw: indent(arguments.joined(separator: ",\n"), by: 2))
                )
            }
            """
    }

    private func generatedContent() -> DeclSyntax {
        var lines: [String] = []
        let declaration = generated.isEmpty ? "let" : "var"
        lines.append(
            "\(declaration) properties: [(Swift.String, any FoundationModels.ConvertibleToGeneratedContent)] = []")
        for property in generated {
            let key = literal(property.name)
            let value = "self.\(property.identifier)"
            switch (property.isOptional, options.explicitNilLiteral) {
            case (false, _), (true, true?):
                lines.append("properties.append((\(key), \(value)))")
            case (true, false?):
                lines.append("if let value = \(value) {\n    properties.append((\(key), value))\n}")
            case (true, nil):
                lines.append(
                    "if let value = \(value) {\n    properties.append((\(key), value))\n} else if \(options.explicitNil ?? "false") {\n    properties.append((\(key), FoundationModels.GeneratedContent(kind: .null)))\n}"
                )
            }
        }
        let id = idProperty.map { "self.\($0.identifier)" } ?? "nil"
        lines.append(
            "return FoundationModels.GeneratedContent(\n    properties: properties,\n    id: \(id),\n    uniquingKeysWith: { _, second in\n        second\n    }\n)"
        )
        return """
            \(raw: access)nonisolated var generatedContent: FoundationModels.GeneratedContent {
            \(raw: indent(lines, by: 1))
            }
            """
    }

    private func partiallyGenerated() -> DeclSyntax {
        // A user property named `id` that is not a GenerationID takes the name; Identifiable is
        // then left out, since its type may not be Hashable.
        let userOwnsID = properties.contains { $0.name == "id" && !$0.isGenerationID }
        var conformances = ["FoundationModels.ConvertibleFromGeneratedContent"]
        var declarations: [String] = []
        var assignments: [String] = []
        if !userOwnsID {
            conformances.insert("Identifiable", at: 0)
            declarations.append("\(access)var id: FoundationModels.GenerationID")
            assignments.append("self.id = content.id ?? FoundationModels.GenerationID()")
        }
        for property in properties {
            if property.isGenerationID {
                if property.name == "id" { continue }  // the `id` above
                declarations.append("\(access)var \(property.identifier): FoundationModels.GenerationID")
                assignments.append("self.\(property.identifier) = content.id ?? FoundationModels.GenerationID()")
                continue
            }
            let base = TypeAnalysis.partiallyGeneratedSpelling(of: property.wrappedType ?? property.type)
            declarations.append("\(access)var \(property.identifier): \(base)?")
            assignments.append(
                "self.\(property.identifier) = try content.value(forProperty: \(literal(property.name)))")
        }
        let initializer = """
            \(access)nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
            \(indent(assignments, by: 1))
            }
            """
        return """
            \(raw: access)nonisolated struct PartiallyGenerated: \(raw: conformances.joined(separator: ", ")) {
            \(raw: indent(declarations + ["", initializer], by: 1))
            }
            """
    }
}

/// `[Property(…), …]` for a list of properties (shared with enum payloads).
func propertyList(_ properties: [StoredProperty]) -> String {
    guard !properties.isEmpty else { return "[]" }
    let items = properties.map { property -> String in
        var arguments = ["name: \(literal(property.name))"]
        if let description = property.guideDescription { arguments.append("description: \(description)") }
        arguments.append("type: \(TypeAnalysis.metatypeSpelling(of: property.type)).self")
        if !property.guides.isEmpty {
            arguments.append("guides: [\(property.guides.map(\.trimmedDescription).joined(separator: ", "))]")
        }
        return "FoundationModels.GenerationSchema.Property(\(arguments.joined(separator: ", ")))"
    }
    return "[\n" + indent(items.map { $0 + "," }, by: 1) + "\n]"
}

/// A Swift string literal for `text`.
func literal(_ text: String) -> String {
    var escaped = ""
    for character in text.unicodeScalars {
        switch character {
        case "\\": escaped += "\\\\"
        case "\"": escaped += "\\\""
        case "\n": escaped += "\\n"
        default: escaped.unicodeScalars.append(character)
        }
    }
    return "\"\(escaped)\""
}

/// Indents every line of `lines` (each possibly multi-line) by four spaces per level.
func indent(_ lines: [String], by level: Int) -> String {
    indent(lines.joined(separator: "\n"), by: level)
}

func indent(_ text: String, by level: Int) -> String {
    let prefix = String(repeating: "    ", count: level)
    return text.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.isEmpty ? "" : prefix + $0 }
        .joined(separator: "\n")
}
