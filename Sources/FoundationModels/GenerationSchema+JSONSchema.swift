import Foundation

// A schema written as JSON Schema: for the prompt (so the model sees the shape and the
// descriptions) and for `Codable`. Named types go in `$defs` and are referred to with `$ref`.
// `x-order` (only in the `Codable` form) keeps property order, which JSON objects do not carry
// through every decoder.

extension GenerationSchema {
    /// The schema as JSON Schema text, compact, properties in generation order.
    package var jsonSchemaString: String { jsonSchema(includeOrder: false).jsonString }

    package func jsonSchema(includeOrder: Bool) -> GeneratedContent {
        var pairs = Self.jsonSchema(for: root, includeOrder: includeOrder)
        if !definitions.isEmpty {
            let definitionPairs = definitions.map {
                ($0.name, Self.object(Self.jsonSchema(for: $0.node, includeOrder: includeOrder)))
            }
            pairs.append(("$defs", Self.object(definitionPairs)))
        }
        return Self.object(pairs)
    }

    private static func jsonSchema(for node: SchemaNode, includeOrder: Bool) -> [(String, GeneratedContent)] {
        var pairs: [(String, GeneratedContent)] = []
        func add(_ key: String, _ value: GeneratedContent?) { if let value { pairs.append((key, value)) } }
        func string(_ text: String?) -> GeneratedContent? { text.map { GeneratedContent(kind: .string($0)) } }
        func number<N: BinaryInteger>(_ value: N?) -> GeneratedContent? {
            value.map { GeneratedContent(kind: .number(Double($0))) }
        }
        func number(_ value: Double?) -> GeneratedContent? { value.map { GeneratedContent(kind: .number($0)) } }
        func strings(_ values: [String]) -> GeneratedContent {
            GeneratedContent(kind: .array(values.map { GeneratedContent(kind: .string($0)) }))
        }

        switch node {
        case .object(let object):
            add("type", string("object"))
            add("title", string(object.name))
            add("description", string(object.description))
            let properties = object.properties.map { property -> (String, GeneratedContent) in
                var schema = jsonSchema(for: property.node, includeOrder: includeOrder)
                if let description = property.description {
                    schema.removeAll { $0.0 == "description" }
                    schema.insert(("description", GeneratedContent(kind: .string(description))), at: 0)
                }
                return (property.name, Self.object(schema))
            }
            add("properties", Self.object(properties))
            add("required", strings(object.properties.filter { !$0.isOptional }.map(\.name)))
            add("additionalProperties", GeneratedContent(kind: .bool(false)))
            if includeOrder { add("x-order", strings(object.properties.map(\.name))) }
        case .array(let element, let minimum, let maximum):
            add("type", string("array"))
            add("items", Self.object(jsonSchema(for: element, includeOrder: includeOrder)))
            add("minItems", number(minimum))
            add("maxItems", number(maximum))
        case .string(let constraints):
            add("type", string("string"))
            if let choices = constraints.choices {
                if choices.count == 1 { add("const", string(choices[0])) } else { add("enum", strings(choices)) }
            }
            add("pattern", string(constraints.pattern))
        case .integer(let minimum, let maximum):
            add("type", string("integer"))
            add("minimum", number(minimum))
            add("maximum", number(maximum))
        case .number(let minimum, let maximum):
            add("type", string("number"))
            add("minimum", number(minimum))
            add("maximum", number(maximum))
        case .boolean:
            add("type", string("boolean"))
        case .null:
            add("type", string("null"))
        case .enumeration(let name, let description, let cases):
            add("type", string("string"))
            add("title", string(name))
            add("description", string(description))
            add("enum", strings(cases))
        case .anyOf(let name, let description, let choices):
            add("title", string(name))
            add("description", string(description))
            add(
                "anyOf",
                GeneratedContent(
                    kind: .array(choices.map { Self.object(jsonSchema(for: $0, includeOrder: includeOrder)) })))
        case .reference(let name):
            add("$ref", string("#/$defs/\(name)"))
        case .anyValue:
            break
        case .anyObject:
            add("type", string("object"))
            add("additionalProperties", GeneratedContent(kind: .bool(true)))
        }
        return pairs
    }

    private static func object(_ pairs: [(String, GeneratedContent)]) -> GeneratedContent {
        GeneratedContent(
            kind: .structure(
                properties: Dictionary(pairs, uniquingKeysWith: { _, last in last }), orderedKeys: pairs.map(\.0)))
    }
}

// MARK: - Reading JSON Schema back

extension GenerationSchema {
    /// Reads the JSON Schema this type writes.
    package init(jsonSchema content: GeneratedContent) throws {
        let properties = try content.properties()
        var definitions: [SchemaDefinition] = []
        if let defs = properties["$defs"], case .structure(let values, let keys) = defs.kind {
            for key in keys {
                guard let value = values[key] else { continue }
                definitions.append(SchemaDefinition(name: key, node: try Self.node(from: value, at: "$defs.\(key)")))
            }
        }
        self.init(root: try Self.node(from: content, at: "$"), definitions: definitions)
    }

    private static func node(from content: GeneratedContent, at path: String) throws -> SchemaNode {
        guard case .structure(let fields, _) = content.kind else {
            throw SchemaReadingError(path: path, message: "expected an object")
        }
        func string(_ key: String) -> String? {
            if case .string(let value)? = fields[key]?.kind { return value }
            return nil
        }
        func double(_ key: String) -> Double? {
            if case .number(let value)? = fields[key]?.kind { return value }
            return nil
        }
        func int(_ key: String) -> Int? { double(key).flatMap { Int(exactly: $0) } }
        func strings(_ key: String) -> [String]? {
            guard case .array(let elements)? = fields[key]?.kind else { return nil }
            return elements.compactMap { if case .string(let value) = $0.kind { value } else { nil } }
        }

        if let reference = string("$ref") {
            return .reference(String(reference.dropFirst(reference.hasPrefix("#/$defs/") ? 8 : 0)))
        }
        if case .array(let choices)? = fields["anyOf"]?.kind {
            let nodes = try choices.enumerated().map { try node(from: $1, at: "\(path).anyOf[\($0)]") }
            return .anyOf(name: string("title"), description: string("description"), choices: nodes)
        }
        switch string("type") {
        case "object":
            guard case .structure(let values, let keys)? = fields["properties"]?.kind else {
                // Free keys are only ever written by ``SchemaNode/anyObject``; a fixed object
                // always writes its properties, even none.
                if case .bool(true)? = fields["additionalProperties"]?.kind { return .anyObject }
                return .object(ObjectNode(name: string("title"), description: string("description"), properties: []))
            }
            let required = Set(strings("required") ?? [])
            let order = strings("x-order") ?? keys
            let properties = try order.compactMap { key -> SchemaProperty? in
                guard let value = values[key] else { return nil }
                var description: String?
                if case .string(let text)? = (try? value.properties())?["description"]?.kind { description = text }
                var node = try node(from: value, at: "\(path).\(key)")
                // A property's description was merged into its schema; keep it on the property only.
                if description != nil, case .object(var object) = node, object.description == description {
                    object.description = nil
                    node = .object(object)
                }
                return SchemaProperty(
                    name: key, description: description, node: node, isOptional: !required.contains(key))
            }
            return .object(
                ObjectNode(name: string("title"), description: string("description"), properties: properties))
        case "array":
            let items = try fields["items"].map { try node(from: $0, at: "\(path).items") } ?? .anyValue
            return .array(element: items, minimumCount: int("minItems"), maximumCount: int("maxItems"))
        case "string":
            if let cases = strings("enum"), string("title") != nil {
                return .enumeration(name: string("title"), description: string("description"), cases: cases)
            }
            let choices = string("const").map { [$0] } ?? strings("enum")
            return .string(StringConstraints(choices: choices, pattern: string("pattern")))
        case "integer":
            return .integer(minimum: int("minimum"), maximum: int("maximum"))
        case "number":
            return .number(minimum: double("minimum"), maximum: double("maximum"))
        case "boolean":
            return .boolean
        case "null":
            return .null
        case nil:
            return .anyValue
        case let other?:
            throw SchemaReadingError(path: path, message: "unsupported type '\(other)'")
        }
    }
}

/// A JSON Schema that ``GenerationSchema`` cannot read, with the path of the offending node.
struct SchemaReadingError: Error, CustomStringConvertible {
    let path: String
    let message: String
    var description: String { "cannot read schema at \(path): \(message)" }
}

// MARK: - Codable

extension GenerationSchema: Codable {
    public init(from decoder: any Decoder) throws {
        let content = try JSONValue(from: decoder).content
        do {
            try self.init(jsonSchema: content)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath, debugDescription: String(describing: error), underlyingError: error)
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValue(jsonSchema(includeOrder: true)).encode(to: encoder)
    }
}
