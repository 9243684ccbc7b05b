import SwiftDiagnostics
import SwiftSyntax

/// One case of a `@Generable` enum.
struct EnumCase {
    /// The case name without backticks: the generated string, or the payload's key.
    var name: String
    /// The name as spelled in code.
    var identifier: String
    /// The associated values, named by label or by position (`_0`, `_1`, …); nil for a plain case.
    var payload: [StoredProperty]?

    /// The cases of an enum, in declaration order, with diagnostics for associated values whose
    /// types cannot be generated.
    static func collect(from members: MemberBlockItemListSyntax) -> (cases: [EnumCase], diagnostics: [Diagnostic]) {
        var cases: [EnumCase] = []
        var diagnostics: [Diagnostic] = []
        for member in members {
            guard let declaration = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in declaration.elements {
                let identifier = element.name.text
                var payload: [StoredProperty]?
                if let parameters = element.parameterClause?.parameters {
                    payload = []
                    for (position, parameter) in parameters.enumerated() {
                        if let (node, reason) = TypeAnalysis.unsupportedReason(parameter.type) {
                            diagnostics.append(
                                MacroDiagnostic.unsupportedType(node.trimmedDescription, reason: reason).at(node))
                            continue
                        }
                        let label = parameter.firstName.map { unescaped($0.text) }
                        let key = label.flatMap { $0 == "_" ? nil : $0 } ?? "_\(position)"
                        payload?.append(
                            StoredProperty(
                                name: key, identifier: key, type: parameter.type.trimmed,
                                wrappedType: TypeAnalysis.unwrapOptional(parameter.type)?.trimmed,
                                guideDescription: nil, guides: []))
                    }
                }
                cases.append(EnumCase(name: unescaped(identifier), identifier: identifier, payload: payload))
            }
        }
        return (cases, diagnostics)
    }
}

/// The code `@Generable` writes for an enum.
///
/// An enum of plain cases is a string with a fixed set of values (`anyOf`). When any case has
/// associated values, each such case becomes an object with a single property named after the
/// case, holding the associated values by label (`_0`, `_1`, … when unlabeled); plain cases stay
/// strings: `"none"` or `{"reply": {"text": "On my way"}}`.
struct EnumExpansion {
    let typeName: String
    let options: GenerableOptions
    let cases: [EnumCase]

    private var access: String { options.access }
    private var hasPayloads: Bool { cases.contains { $0.payload != nil } }

    func members() -> [DeclSyntax] { [schema(), generatedContent()] }

    private func schema() -> DeclSyntax {
        var arguments = ["type: Self.self"]
        if let description = options.description { arguments.append("description: \(description)") }
        if hasPayloads {
            let items = cases.map { item -> String in
                guard let payload = item.payload else {
                    return "FoundationModels.GenerationSchema._EnumCase(name: \(literal(item.name))),"
                }
                return
                    "FoundationModels.GenerationSchema._EnumCase(name: \(literal(item.name)), properties: \(propertyList(payload))),"
            }
            arguments.append("cases: [\n\(indent(items, by: 1))\n]")
        } else {
            arguments.append("anyOf: [\(cases.map { literal($0.name) }.joined(separator: ", "))]")
        }
        return """
            \(raw: access)nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                FoundationModels.GenerationSchema(
            \(raw: indent(arguments.joined(separator: ",\n"), by: 2))
                )
            }
            """
    }

    private func generatedContent() -> DeclSyntax {
        var lines = ["switch self {"]
        for item in cases {
            guard let payload = item.payload else {
                lines.append("case .\(item.identifier):")
                lines.append("    return FoundationModels.GeneratedContent(\(literal(item.name)))")
                continue
            }
            let bindings = payload.indices.map { "let value\($0)" }.joined(separator: ", ")
            let pairs = payload.enumerated().map { "\(literal($1.name)): value\($0)" }.joined(separator: ", ")
            lines.append("case .\(item.identifier)(\(bindings)):")
            lines.append(
                "    return FoundationModels.GeneratedContent(properties: [\(literal(item.name)): FoundationModels.GeneratedContent(properties: [\(pairs)])])"
            )
        }
        lines.append("}")
        return """
            \(raw: access)nonisolated var generatedContent: FoundationModels.GeneratedContent {
            \(raw: indent(lines, by: 1))
            }
            """
    }

    func initializer() -> DeclSyntax {
        let failure = { (value: String) in
            "throw FoundationModels.LanguageModelSession.GenerationError.decodingFailure(.init(debugDescription: \"\\(\(value)) is not a case of \(typeName)\"))"
        }
        let plain = cases.filter { $0.payload == nil }
        var nameSwitch = ["switch name {"]
        for item in plain {
            nameSwitch.append("case \(literal(item.name)):")
            nameSwitch.append("    self = .\(item.identifier)")
        }
        nameSwitch += ["default:", "    " + failure("name.debugDescription"), "}"]
        var lines: [String]
        if !hasPayloads {
            lines = ["let name = try content.value(Swift.String.self)"] + nameSwitch
        } else {
            lines = ["switch content.kind {"]
            if !plain.isEmpty {
                lines.append("case .string(let name):")
                lines.append(indent(nameSwitch, by: 1))
            }
            lines.append("case .structure(let properties, let orderedKeys):")
            var structure = [
                "guard orderedKeys.count == 1, let name = orderedKeys.first, let payload = properties[name] else {",
                "    " + failure("content.jsonString"),
                "}",
                "switch name {",
            ]
            for item in cases {
                guard let payload = item.payload else { continue }
                let arguments = payload.map { property -> String in
                    let value = "payload.value(forProperty: \(literal(property.name)))"
                    return property.name.hasPrefix("_") && Int(property.name.dropFirst()) != nil
                        ? value : "\(property.identifier): \(value)"
                }
                structure.append("case \(literal(item.name)):")
                structure.append("    self = try .\(item.identifier)(\(arguments.joined(separator: ", ")))")
            }
            structure += ["default:", "    " + failure("name.debugDescription"), "}"]
            lines.append(indent(structure, by: 1))
            lines += ["default:", "    " + failure("content.jsonString"), "}"]
        }
        return """
            \(raw: access)nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
            \(raw: indent(lines, by: 1))
            }
            """
    }
}
