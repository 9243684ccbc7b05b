import FoundationModels

/// Reads a JSON Schema as OpenAI clients send it (`response_format.json_schema.schema`, a tool's
/// `parameters`) into a ``GenerationSchema``, so that the engine enforces it by the same
/// constrained decoding as a `@Generable` type.
///
/// The reading is done on `GeneratedContent` parsed from the request's text, which keeps the
/// order of keys: properties are generated in the order the schema lists them. Shapes
/// `GenerationSchema(jsonSchema:)` does not read are rewritten first: `"type": [T, "null"]`
/// becomes an `anyOf`, `#/definitions/` references become `#/$defs/`, `oneOf` an `anyOf`, an
/// `enum` without a type a string enum, `exclusiveMinimum`/`exclusiveMaximum` on integers the
/// next integer in. What the engine cannot enforce (any JSON value, `allOf`, `not`) is an error
/// naming the schema path.
enum JSONSchemaReader {
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var message: String
        var description: String { "\(path): \(message)" }
    }

    static func schema(from content: GeneratedContent, name: String, path: String) throws -> GenerationSchema {
        let normalized = try normalize(content, path: path)
        let schema: GenerationSchema
        do {
            schema = try GenerationSchema(jsonSchema: normalized)
        } catch {
            throw Failure(path: path, message: "\(error)")
        }
        if let problem = schema.problems.first { throw Failure(path: path, message: problem) }
        for definition in schema.definitions {
            try checkEnforceable(definition.node, path: "\(path).$defs.\(definition.name)")
        }
        try checkEnforceable(schema.root, path: path)
        return schema
    }

    /// Rejects what constrained decoding cannot generate.
    private static func checkEnforceable(_ node: SchemaNode, path: String) throws {
        switch node {
        case .anyValue:
            throw Failure(
                path: path, message: "a value without a type cannot be enforced; give every value a 'type'")
        case .object(let object):
            for property in object.properties {
                try checkEnforceable(property.node, path: "\(path).properties.\(property.name)")
            }
        case .array(let element, _, _):
            try checkEnforceable(element, path: "\(path).items")
        case .anyOf(_, _, let choices):
            for (index, choice) in choices.enumerated() {
                try checkEnforceable(choice, path: "\(path).anyOf[\(index)]")
            }
        case .enumeration(_, _, let cases) where cases.isEmpty:
            throw Failure(path: path, message: "an enum needs at least one value")
        default:
            break
        }
    }

    private static func normalize(_ content: GeneratedContent, path: String) throws -> GeneratedContent {
        guard case .structure(var fields, var keys) = content.kind else {
            throw Failure(path: path, message: "a schema must be a JSON object")
        }
        func set(_ key: String, _ value: GeneratedContent?) {
            if let value {
                if fields[key] == nil { keys.append(key) }
                fields[key] = value
            } else {
                fields[key] = nil
                keys.removeAll { $0 == key }
            }
        }
        for unsupported in ["allOf", "not", "if", "patternProperties"] where fields[unsupported] != nil {
            throw Failure(path: path, message: "'\(unsupported)' is not supported")
        }
        if let definitions = fields["definitions"], fields["$defs"] == nil {
            set("$defs", definitions)
            set("definitions", nil)
        }
        if case .structure(let definitions, let names)? = fields["$defs"]?.kind {
            var normalized: [String: GeneratedContent] = [:]
            for name in names {
                guard let definition = definitions[name] else { continue }
                normalized[name] = try normalize(definition, path: "\(path).$defs.\(name)")
            }
            set("$defs", GeneratedContent(kind: .structure(properties: normalized, orderedKeys: names)))
        }
        if case .string(let reference)? = fields["$ref"]?.kind {
            if reference.hasPrefix("#/definitions/") {
                set("$ref", GeneratedContent(kind: .string("#/$defs/" + reference.dropFirst(14))))
            } else if !reference.hasPrefix("#/$defs/") {
                throw Failure(path: path, message: "only references to '#/$defs/…' are supported, not '\(reference)'")
            }
        }
        if let oneOf = fields["oneOf"], fields["anyOf"] == nil {
            set("anyOf", oneOf)
            set("oneOf", nil)
        }
        if case .array(let choices)? = fields["anyOf"]?.kind {
            set(
                "anyOf",
                GeneratedContent(
                    kind: .array(
                        try choices.enumerated().map { try normalize($1, path: "\(path).anyOf[\($0)]") })))
        }
        // "type": ["string", "null"] (how strict schemas spell an optional value).
        if case .array(let types)? = fields["type"]?.kind {
            let names = types.compactMap { if case .string(let name) = $0.kind { name } else { nil } }
            guard names.count == types.count, !names.isEmpty else {
                throw Failure(path: path, message: "'type' must be a string or an array of strings")
            }
            var choices: [GeneratedContent] = []
            for name in names {
                var single = fields
                single["type"] = GeneratedContent(kind: .string(name))
                choices.append(
                    try normalize(GeneratedContent(kind: .structure(properties: single, orderedKeys: keys)), path: path)
                )
            }
            if choices.count == 1 { return choices[0] }
            return GeneratedContent(
                kind: .structure(properties: ["anyOf": GeneratedContent(kind: .array(choices))], orderedKeys: ["anyOf"])
            )
        }
        if fields["type"] == nil, case .array(let values)? = fields["enum"]?.kind {
            guard values.allSatisfy({ if case .string = $0.kind { true } else { false } }) else {
                throw Failure(path: path, message: "only enums of strings are supported")
            }
            set("type", GeneratedContent(kind: .string("string")))
        }
        if fields["type"] == nil, case .string? = fields["const"]?.kind {
            set("type", GeneratedContent(kind: .string("string")))
        }
        if case .string("integer")? = fields["type"]?.kind {
            if case .number(let bound)? = fields["exclusiveMinimum"]?.kind {
                set("minimum", GeneratedContent(kind: .number((bound + 1).rounded(.down))))
            }
            if case .number(let bound)? = fields["exclusiveMaximum"]?.kind {
                set("maximum", GeneratedContent(kind: .number((bound - 1).rounded(.up))))
            }
        }
        if case .string("object")? = fields["type"]?.kind,
            case .structure(let properties, let names)? = fields["properties"]?.kind
        {
            var normalized: [String: GeneratedContent] = [:]
            for name in names {
                guard let property = properties[name] else { continue }
                normalized[name] = try normalize(property, path: "\(path).properties.\(name)")
            }
            set("properties", GeneratedContent(kind: .structure(properties: normalized, orderedKeys: names)))
        }
        if case .string("array")? = fields["type"]?.kind, let items = fields["items"] {
            set("items", try normalize(items, path: "\(path).items"))
        }
        return GeneratedContent(kind: .structure(properties: fields, orderedKeys: keys))
    }
}
