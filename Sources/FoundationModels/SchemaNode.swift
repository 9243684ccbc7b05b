/// A schema as a plain tree, for the constrained-decoding engine and the prompt.
///
/// Every guide is already applied: string choices and patterns, numeric bounds, array counts.
/// Properties keep declaration order. Named types used inside another type are stored once in
/// ``GenerationSchema``'s definitions and referred to by name with ``reference(_:)`` (which is
/// also how a recursive type refers to itself).
package indirect enum SchemaNode: Sendable, Equatable, Hashable {
    /// An object with properties in generation order.
    case object(ObjectNode)
    /// An array; counts are inclusive bounds.
    case array(element: SchemaNode, minimumCount: Int?, maximumCount: Int?)
    /// A string, possibly restricted to choices or a pattern.
    case string(StringConstraints)
    /// A whole number (JSON number without fraction or exponent); bounds are inclusive.
    case integer(minimum: Int?, maximum: Int?)
    /// Any JSON number; bounds are inclusive.
    case number(minimum: Double?, maximum: Double?)
    /// `true` or `false`.
    case boolean
    /// `null` (the value of an optional property that is present but empty).
    case null
    /// A named type whose values are a fixed set of strings (a `@Generable` enum of plain cases).
    case enumeration(name: String?, description: String?, cases: [String])
    /// Exactly one of several schemas.
    case anyOf(name: String?, description: String?, choices: [SchemaNode])
    /// The definition with this name in the enclosing ``GenerationSchema``.
    case reference(String)
    /// Any JSON value (the schema of ``GeneratedContent`` itself).
    case anyValue
    /// Any JSON object, of free keys and values (what OpenAI's `response_format: json_object`
    /// asks for). The engine enforces it with a bounded nesting depth.
    case anyObject

    /// The type name this node defines, if it is a named object, enumeration or union.
    package var definedName: String? {
        switch self {
        case .object(let object): object.name
        case .enumeration(let name, _, _), .anyOf(let name, _, _): name
        default: nil
        }
    }

    /// The description given for this node's type, if any.
    package var typeDescription: String? {
        switch self {
        case .object(let object): object.description
        case .enumeration(_, let description, _), .anyOf(_, let description, _): description
        default: nil
        }
    }

    /// Every name this node refers to, directly or through its children.
    package var references: Set<String> {
        switch self {
        case .reference(let name): [name]
        case .object(let object): object.properties.reduce(into: []) { $0.formUnion($1.node.references) }
        case .array(let element, _, _): element.references
        case .anyOf(_, _, let choices): choices.reduce(into: []) { $0.formUnion($1.references) }
        default: []
        }
    }
}

/// An object type: a name (its Swift type name when it comes from a type), a description, and
/// properties in the order they are generated.
package struct ObjectNode: Sendable, Equatable, Hashable {
    package var name: String?
    package var description: String?
    package var properties: [SchemaProperty]

    package init(name: String?, description: String?, properties: [SchemaProperty]) {
        self.name = name
        self.description = description
        self.properties = properties
    }
}

/// One property of an object.
package struct SchemaProperty: Sendable, Equatable, Hashable {
    package var name: String
    package var description: String?
    package var node: SchemaNode
    /// An optional property may be left out of the object.
    package var isOptional: Bool

    package init(name: String, description: String?, node: SchemaNode, isOptional: Bool) {
        self.name = name
        self.description = description
        self.node = node
        self.isOptional = isOptional
    }
}

/// What a generated string may be: one of `choices` (when set), and matching `pattern` (when
/// set; a regular expression the whole string must match, in the syntax of Swift's `Regex` as
/// `Regex._literalPattern` prints it: for example `/[0-9]{3}-[0-9]{4}/` becomes `[0-9]{3}\-[0-9]{4}`).
package struct StringConstraints: Sendable, Equatable, Hashable {
    package var choices: [String]?
    package var pattern: String?

    package init(choices: [String]? = nil, pattern: String? = nil) {
        self.choices = choices
        self.pattern = pattern
    }
}

/// A named type referenced from a schema.
package struct SchemaDefinition: Sendable, Equatable, Hashable {
    package var name: String
    package var node: SchemaNode

    package init(name: String, node: SchemaNode) {
        self.name = name
        self.node = node
    }
}
