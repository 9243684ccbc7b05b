import Foundation

/// The `components.schemas` of an OpenAPI document: leaf schemas written by hand (identifiers
/// with their patterns, times) and object schemas generated from the Swift types the API answers
/// with. A type's schema is read from an example: a recording encoder sees every key the type
/// writes, each value's type, and which keys may be left out (optionals are written with
/// `encodeIfPresent`); a field of a named type becomes a `$ref` to it.
package struct WireSchemas {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    private var known: [ObjectIdentifier: [String: Any]] = [:]
    private var leaves: [String: [String: Any]] = [:]
    private var generated: [(name: String, make: (Recorder.Context) throws -> [String: Any])] = []

    package init() {}

    /// Names a type whose schema is written by hand (`UserID`: a string with a pattern).
    package mutating func leaf(_ type: Any.Type, _ name: String, _ schema: [String: Any]) {
        known[ObjectIdentifier(type)] = Self.ref(name)
        leaves[name] = schema
    }

    /// A type whose schema is written in place wherever it is met (an enum's cases).
    package mutating func inline(_ type: Any.Type, _ schema: [String: Any]) {
        known[ObjectIdentifier(type)] = schema
    }

    /// An enum written as one of its raw strings, in place: its cases listed.
    package mutating func inline<E: CaseIterable & RawRepresentable>(_ type: E.Type) where E.RawValue == String {
        inline(type, ["type": "string", "enum": type.allCases.map(\.rawValue)])
    }

    /// Names `T`, whose schema is generated from `example`: a value with every optional field set
    /// and every array holding an element, so that the shape of each is seen. `notes` add what
    /// the type cannot say about a field, by its JSON key path (`"result.event.start"`,
    /// `"results[].score"`): a description, bounds, `nullable`.
    package mutating func add<T: Encodable>(_ name: String, example: T, notes: [String: [String: Any]] = [:]) {
        known[ObjectIdentifier(T.self)] = Self.ref(name)
        generated.append((name, { context in try Recorder.schema(of: example, notes: notes, in: context) }))
    }

    /// Every schema, generated ones included.
    ///
    /// - Throws: ``Failure`` naming a field whose shape the example does not show (a nil optional
    ///   of an unnamed type, an empty array) or a note for a field the type does not have.
    package func build() throws -> [String: Any] {
        var schemas: [String: Any] = leaves
        let context = Recorder.Context(known: known)
        for (name, make) in generated {
            do {
                schemas[name] = try make(context)
            } catch let failure as Failure {
                throw Failure(description: "\(name): \(failure.description)")
            }
        }
        return schemas
    }

    /// The `$ref` of a named type's schema.
    package static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }
}

/// A recording `Encoder`: what a value writes becomes a schema.
enum Recorder {
    struct Context {
        /// Schemas of the types written as a `$ref` or in place.
        var known: [ObjectIdentifier: [String: Any]]
    }

    /// What was seen of one value.
    final class Node {
        enum Kind {
            case unseen
            case scalar(String)
            case named([String: Any])
            case object
            case array
        }
        var kind = Kind.unseen
        /// Object fields in the order written: schema node and whether always written.
        var fields: [(key: String, node: Node, required: Bool)] = []
        var elements: [Node] = []
        var nullable = false
    }

    static func schema<T: Encodable>(of value: T, notes: [String: [String: Any]], in context: Context) throws
        -> [String: Any]
    {
        let node = Node()
        try value.encode(to: RecordingEncoder(node: node, context: context))
        var unused = Set(notes.keys)
        let schema = try render(node, path: "", notes: notes, unused: &unused, isRoot: true)
        guard unused.isEmpty else {
            throw WireSchemas.Failure(description: "notes for fields it does not have: \(unused.sorted())")
        }
        return schema
    }

    /// The schema of a value of `type` met as nil: known when the type is named or a scalar.
    static func node(forType type: Any.Type, in context: Context) -> Node {
        let node = Node()
        if let known = context.known[ObjectIdentifier(type)] {
            node.kind = .named(known)
        } else if let scalar = scalarName(type) {
            node.kind = .scalar(scalar)
        }
        return node
    }

    static func node<T: Encodable>(for value: T, in context: Context) throws -> Node {
        let node = Node()
        if let known = context.known[ObjectIdentifier(T.self)] {
            node.kind = .named(known)
        } else {
            try value.encode(to: RecordingEncoder(node: node, context: context))
        }
        return node
    }

    static func scalarName(_ type: Any.Type) -> String? {
        switch type {
        case is String.Type: "string"
        case is Bool.Type: "boolean"
        case is Double.Type, is Float.Type: "number"
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type, is UInt.Type, is UInt8.Type,
            is UInt16.Type, is UInt32.Type, is UInt64.Type:
            "integer"
        default: nil
        }
    }

    private static func render(
        _ node: Node, path: String, notes: [String: [String: Any]], unused: inout Set<String>, isRoot: Bool = false
    ) throws -> [String: Any] {
        var schema: [String: Any]
        switch node.kind {
        case .unseen:
            throw WireSchemas.Failure(
                description: "the example does not show \(path.isEmpty ? "the value" : path) (nil of an unnamed type?)")
        case .scalar(let type):
            schema = ["type": type]
        case .named(let named):
            schema = named
        case .object:
            var properties: [String: Any] = [:]
            var required: [String] = []
            for field in node.fields {
                let fieldPath = path.isEmpty ? field.key : "\(path).\(field.key)"
                properties[field.key] = try render(field.node, path: fieldPath, notes: notes, unused: &unused)
                if field.required { required.append(field.key) }
            }
            schema = ["type": "object", "properties": properties]
            if !required.isEmpty { schema["required"] = required }
        case .array:
            guard let first = node.elements.first else {
                throw WireSchemas.Failure(description: "the example's \(path) is an empty array")
            }
            schema = ["type": "array", "items": try render(first, path: path + "[]", notes: notes, unused: &unused)]
        }
        if node.nullable { schema["nullable"] = true }
        if !isRoot, let note = notes[path] {
            unused.remove(path)
            if schema["$ref"] != nil, note.keys.contains(where: { $0 != "description" }) {
                // OpenAPI 3.0 ignores a $ref's siblings; a constrained reference wraps it.
                schema = ["allOf": [schema]]
            }
            schema.merge(note) { _, new in new }
        }
        return schema
    }
}

private struct RecordingEncoder: Encoder {
    let node: Recorder.Node
    let context: Recorder.Context
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.kind = .object
        return KeyedEncodingContainer(KeyedRecorder<Key>(node: node, context: context))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.kind = .array
        return UnkeyedRecorder(node: node, context: context)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleRecorder(node: node, context: context)
    }
}

private struct KeyedRecorder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Recorder.Node
    let context: Recorder.Context
    var codingPath: [any CodingKey] = []

    private func add(_ key: Key, _ child: Recorder.Node, required: Bool) {
        node.fields.removeAll { $0.key == key.stringValue }
        node.fields.append((key.stringValue, child, required))
    }

    mutating func encodeNil(forKey key: Key) throws {
        let child = Recorder.Node()
        child.nullable = true
        add(key, child, required: true)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        add(key, try Recorder.node(for: value, in: context), required: true)
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        let child =
            try value.map { try Recorder.node(for: $0, in: context) } ?? Recorder.node(forType: T.self, in: context)
        add(key, child, required: false)
    }

    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try optional(value, key) }

    private func optional<T>(_ value: T?, _ key: Key) throws {
        let child = Recorder.Node()
        child.kind = .scalar(Recorder.scalarName(T.self) ?? "string")
        add(key, child, required: false)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = Recorder.Node()
        child.kind = .object
        add(key, child, required: true)
        return KeyedEncodingContainer(KeyedRecorder<NestedKey>(node: child, context: context))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Recorder.Node()
        child.kind = .array
        add(key, child, required: true)
        return UnkeyedRecorder(node: child, context: context)
    }

    mutating func superEncoder() -> any Encoder { RecordingEncoder(node: node, context: context) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = Recorder.Node()
        add(key, child, required: true)
        return RecordingEncoder(node: child, context: context)
    }

    // The scalar requirements: each records its type.
    private func scalar<T>(_: T, _ key: Key) {
        let child = Recorder.Node()
        child.kind = .scalar(Recorder.scalarName(T.self) ?? "string")
        add(key, child, required: true)
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { scalar(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { scalar(value, key) }
}

private struct UnkeyedRecorder: UnkeyedEncodingContainer {
    let node: Recorder.Node
    let context: Recorder.Context
    var codingPath: [any CodingKey] = []
    var count: Int { node.elements.count }

    private func append(_ kind: Recorder.Node.Kind) {
        let child = Recorder.Node()
        child.kind = kind
        node.elements.append(child)
    }

    mutating func encodeNil() throws {
        let child = Recorder.Node()
        child.nullable = true
        node.elements.append(child)
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = Recorder.scalarName(T.self) {
            append(.scalar(scalar))
        } else {
            node.elements.append(try Recorder.node(for: value, in: context))
        }
    }
    mutating func encode(_ value: Bool) throws { append(.scalar(Recorder.scalarName(Bool.self)!)) }
    mutating func encode(_ value: String) throws { append(.scalar(Recorder.scalarName(String.self)!)) }
    mutating func encode(_ value: Double) throws { append(.scalar(Recorder.scalarName(Double.self)!)) }
    mutating func encode(_ value: Float) throws { append(.scalar(Recorder.scalarName(Float.self)!)) }
    mutating func encode(_ value: Int) throws { append(.scalar(Recorder.scalarName(Int.self)!)) }
    mutating func encode(_ value: Int8) throws { append(.scalar(Recorder.scalarName(Int8.self)!)) }
    mutating func encode(_ value: Int16) throws { append(.scalar(Recorder.scalarName(Int16.self)!)) }
    mutating func encode(_ value: Int32) throws { append(.scalar(Recorder.scalarName(Int32.self)!)) }
    mutating func encode(_ value: Int64) throws { append(.scalar(Recorder.scalarName(Int64.self)!)) }
    mutating func encode(_ value: UInt) throws { append(.scalar(Recorder.scalarName(UInt.self)!)) }
    mutating func encode(_ value: UInt8) throws { append(.scalar(Recorder.scalarName(UInt8.self)!)) }
    mutating func encode(_ value: UInt16) throws { append(.scalar(Recorder.scalarName(UInt16.self)!)) }
    mutating func encode(_ value: UInt32) throws { append(.scalar(Recorder.scalarName(UInt32.self)!)) }
    mutating func encode(_ value: UInt64) throws { append(.scalar(Recorder.scalarName(UInt64.self)!)) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        append(.object)
        return KeyedEncodingContainer(
            KeyedRecorder<NestedKey>(node: node.elements[node.elements.count - 1], context: context))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        append(.array)
        return UnkeyedRecorder(node: node.elements[node.elements.count - 1], context: context)
    }
    mutating func superEncoder() -> any Encoder {
        let child = Recorder.Node()
        node.elements.append(child)
        return RecordingEncoder(node: child, context: context)
    }
}

private struct SingleRecorder: SingleValueEncodingContainer {
    let node: Recorder.Node
    let context: Recorder.Context
    var codingPath: [any CodingKey] = []

    mutating func encodeNil() throws { node.nullable = true }
    mutating func encode(_ value: Bool) throws { node.kind = .scalar(Recorder.scalarName(Bool.self)!) }
    mutating func encode(_ value: String) throws { node.kind = .scalar(Recorder.scalarName(String.self)!) }
    mutating func encode(_ value: Double) throws { node.kind = .scalar(Recorder.scalarName(Double.self)!) }
    mutating func encode(_ value: Float) throws { node.kind = .scalar(Recorder.scalarName(Float.self)!) }
    mutating func encode(_ value: Int) throws { node.kind = .scalar(Recorder.scalarName(Int.self)!) }
    mutating func encode(_ value: Int8) throws { node.kind = .scalar(Recorder.scalarName(Int8.self)!) }
    mutating func encode(_ value: Int16) throws { node.kind = .scalar(Recorder.scalarName(Int16.self)!) }
    mutating func encode(_ value: Int32) throws { node.kind = .scalar(Recorder.scalarName(Int32.self)!) }
    mutating func encode(_ value: Int64) throws { node.kind = .scalar(Recorder.scalarName(Int64.self)!) }
    mutating func encode(_ value: UInt) throws { node.kind = .scalar(Recorder.scalarName(UInt.self)!) }
    mutating func encode(_ value: UInt8) throws { node.kind = .scalar(Recorder.scalarName(UInt8.self)!) }
    mutating func encode(_ value: UInt16) throws { node.kind = .scalar(Recorder.scalarName(UInt16.self)!) }
    mutating func encode(_ value: UInt32) throws { node.kind = .scalar(Recorder.scalarName(UInt32.self)!) }
    mutating func encode(_ value: UInt64) throws { node.kind = .scalar(Recorder.scalarName(UInt64.self)!) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = Recorder.scalarName(T.self) {
            node.kind = .scalar(scalar)
        } else {
            let inner = try Recorder.node(for: value, in: context)
            node.kind = inner.kind
            node.fields = inner.fields
            node.elements = inner.elements
            node.nullable = node.nullable || inner.nullable
        }
    }
}
