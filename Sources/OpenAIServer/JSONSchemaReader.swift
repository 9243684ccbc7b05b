import FoundationModels
import ServerKit

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
/// naming the schema path, and so is a schema that would expand past ``SchemaExpansion/limit``
/// automaton states or nests past ``maximumDepth``: reading costs time in proportion to the
/// request's size, never to what it expands to.
package enum JSONSchemaReader {
    package struct Failure: Error, CustomStringConvertible {
        var path: String
        var message: String
        package var description: String { "\(path): \(message)" }
    }

    package static func schema(from content: GeneratedContent, name: String, path: String) throws -> GenerationSchema {
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
        guard SchemaExpansion.estimate(schema) != nil else {
            throw Failure(
                path: path,
                message:
                    "the schema is too large to enforce: with its references inlined and its arrays unrolled it needs more than \(SchemaExpansion.limit) automaton states; use fewer nested references, smaller maxItems or fewer properties"
            )
        }
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

    /// How deeply schemas may nest (objects in objects, items, choices, definitions).
    package static let maximumDepth = 32

    /// The schema rewritten into the shapes `GenerationSchema(jsonSchema:)` reads. Each node is
    /// read once: a list of types shares the node's children among its choices (already
    /// rewritten) instead of rewriting them once per type, which doubled the work at every
    /// level of `{"type": ["object", "object"], "properties": {…}}`.
    private static func normalize(_ content: GeneratedContent, path: String, depth: Int = 0) throws -> GeneratedContent
    {
        guard depth < maximumDepth else {
            throw Failure(path: path, message: "the schema nests more than \(maximumDepth) levels deep")
        }
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
                normalized[name] = try normalize(definition, path: "\(path).$defs.\(name)", depth: depth + 1)
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
                        try choices.enumerated().map {
                            try normalize($1, path: "\(path).anyOf[\($0)]", depth: depth + 1)
                        })))
        }
        // "type": ["string", "null"] (how strict schemas spell an optional value).
        var types: [String]?
        var listed = false
        if case .array(let names)? = fields["type"]?.kind {
            listed = true
            let strings = names.compactMap { if case .string(let name) = $0.kind { name } else { nil } }
            guard strings.count == names.count, !strings.isEmpty else {
                throw Failure(path: path, message: "'type' must be a string or an array of strings")
            }
            if fields["anyOf"] != nil || fields["$ref"] != nil {
                throw Failure(
                    path: path,
                    message: "a list of types together with 'anyOf', 'oneOf' or '$ref' is not supported; "
                        + "list the choices in 'anyOf' instead")
            }
            var seen = Set<String>()
            types = strings.filter { seen.insert($0).inserted }
        } else if case .string(let name)? = fields["type"]?.kind {
            types = [name]
        }
        // The children, rewritten once, whichever types follow.
        if types?.contains("object") == true, case .structure(let properties, let names)? = fields["properties"]?.kind {
            var normalized: [String: GeneratedContent] = [:]
            for name in names {
                guard let property = properties[name] else { continue }
                normalized[name] = try normalize(property, path: "\(path).properties.\(name)", depth: depth + 1)
            }
            set("properties", GeneratedContent(kind: .structure(properties: normalized, orderedKeys: names)))
        }
        if types?.contains("array") == true, let items = fields["items"] {
            set("items", try normalize(items, path: "\(path).items", depth: depth + 1))
        }
        guard listed, let types else {
            let fields = try scalarKeywords(fields, &keys, path: path)
            return GeneratedContent(kind: .structure(properties: fields, orderedKeys: keys))
        }
        var choices: [GeneratedContent] = []
        for name in types {
            var single = fields
            var singleKeys = keys
            single["type"] = GeneratedContent(kind: .string(name))
            single = try scalarKeywords(single, &singleKeys, path: path)
            choices.append(GeneratedContent(kind: .structure(properties: single, orderedKeys: singleKeys)))
        }
        if choices.count == 1 { return choices[0] }
        return GeneratedContent(
            kind: .structure(properties: ["anyOf": GeneratedContent(kind: .array(choices))], orderedKeys: ["anyOf"]))
    }

    /// The keywords of one node that need no recursion: an `enum` or `const` without a type is a
    /// string's, and an integer's exclusive bounds become the next integer in.
    private static func scalarKeywords(
        _ fields: [String: GeneratedContent], _ keys: inout [String], path: String
    ) throws -> [String: GeneratedContent] {
        var fields = fields
        func set(_ key: String, _ value: GeneratedContent) {
            if fields[key] == nil { keys.append(key) }
            fields[key] = value
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
        return fields
    }
}
