import Foundation

/// The shape of the output a model must produce: the properties of a type and the guides that
/// constrain them.
///
/// `@Generable` types describe their schema with ``init(type:description:properties:)``; build
/// one at runtime from a ``DynamicGenerationSchema`` with ``init(root:dependencies:)``.
public struct GenerationSchema: Sendable, CustomDebugStringConvertible {
    /// The schema's top-level node.
    package let root: SchemaNode
    /// Named types the tree refers to with ``SchemaNode/reference(_:)``, each once.
    package let definitions: [SchemaDefinition]
    /// Guides that cannot be applied (for example a `Regex` with no textual form), described
    /// for the `unsupportedGuide` error a session throws.
    package let problems: [String]

    package init(root: SchemaNode, definitions: [SchemaDefinition] = [], problems: [String] = []) {
        self.root = root
        self.definitions = definitions
        self.problems = problems
    }

    package init(primitive node: SchemaNode) {
        self.init(root: node)
    }

    package init(arrayOf element: GenerationSchema) {
        var builder = SchemaBuilder()
        let node = builder.embed(element)
        self.init(root: .array(element: node, minimumCount: nil, maximumCount: nil), builder: builder)
    }

    /// A schema for a type with properties, generated in the order given.
    public init(type: any Generable.Type, description: String? = nil, properties: [GenerationSchema.Property]) {
        self.init(type: type, description: description, explicitNil: false, properties: properties)
    }

    /// A schema for a type with properties; with `explicitNil`, an optional property that has no
    /// value is generated as `null` instead of being left out.
    public init(
        type: any Generable.Type, description: String? = nil,
        representNilExplicitlyInGeneratedContent explicitNil: Bool, properties: [GenerationSchema.Property]
    ) {
        self.init(type: type, description: description, explicitNil: explicitNil, properties: properties)
    }

    /// A schema for a type whose values are one of the strings `choices`.
    public init(type: any Generable.Type, description: String? = nil, anyOf choices: [String]) {
        let name = Self.name(of: type)
        let problems = choices.isEmpty ? ["\(name) has no choices"] : []
        self.init(root: .enumeration(name: name, description: description, cases: choices), problems: problems)
    }

    /// A schema for a type whose values are a value of one of `types`.
    public init(type: any Generable.Type, description: String? = nil, anyOf types: [any Generable.Type]) {
        let name = Self.name(of: type)
        self = Self.building(name) { builder in
            if types.isEmpty { builder.problems.append("\(name) has no choices") }
            let choices = types.map { builder.embed($0.generationSchema) }
            return .anyOf(name: name, description: description, choices: choices)
        }
    }

    private init(type: any Generable.Type, description: String?, explicitNil: Bool, properties: [Property]) {
        let name = Self.name(of: type)
        self = Self.building(name) { builder in
            .object(
                ObjectNode(
                    name: name, description: description,
                    properties: builder.nodes(for: properties, in: name, explicitNil: explicitNil)))
        }
    }

    private init(root: SchemaNode, builder: SchemaBuilder) {
        self.init(root: root, definitions: builder.definitions, problems: builder.problems)
    }

    /// Builds the schema of the type `name`, or, when that type is already being built further up
    /// (a recursive type), just a reference to it.
    private static func building(_ name: String, _ body: (inout SchemaBuilder) -> SchemaNode) -> GenerationSchema {
        let inProgress = SchemaBuilder.typesInProgress
        if inProgress.contains(name) { return GenerationSchema(root: .reference(name)) }
        return SchemaBuilder.$typesInProgress.withValue(inProgress.union([name])) {
            var builder = SchemaBuilder()
            let root = body(&builder)
            // A recursive type refers to itself, so it is a definition as well as the root.
            if builder.definitions.contains(where: { $0.node.references.contains(name) })
                || root.references.contains(name)
            {
                builder.addDefinition(name: name, node: root)
            }
            return GenerationSchema(root: root, builder: builder)
        }
    }

    /// The name of the schema's root type (27 SDK); "GeneratedContent" for an unnamed one.
    public var name: String { root.definedName ?? "GeneratedContent" }

    /// The name a type has in schemas: its qualified name without the module
    /// (`Conversation.Message`).
    package static func name(of type: Any.Type) -> String {
        var text = String(reflecting: type)
        while let range = text.range(of: #"\(unknown context at \$[0-9a-f]+\)\."#, options: .regularExpression) {
            text.removeSubrange(range)
        }
        if let dot = text.firstIndex(of: "."), !text[..<dot].contains("<") {
            text = String(text[text.index(after: dot)...])
        }
        return text
    }

    /// The node a reference names, or the node itself when it is not a reference.
    package func resolve(_ node: SchemaNode) -> SchemaNode {
        guard case .reference(let name) = node else { return node }
        return definitions.first { $0.name == name }?.node ?? node
    }

    public var debugDescription: String {
        "GenerationSchema(\(jsonSchema(includeOrder: false).jsonString))"
    }
}

// MARK: - Properties

extension GenerationSchema {
    /// One property of a type's schema: its name, description, type and guides.
    public struct Property: Sendable {
        package let name: String
        package let description: String?
        package let type: any Generable.Type
        package let isOptional: Bool
        package let guides: [GuideConstraint]

        /// A property of type `Value`, constrained by `guides`.
        public init<Value: Generable>(
            name: String, description: String? = nil, type: Value.Type, guides: [GenerationGuide<Value>] = []
        ) {
            self.init(
                name: name, description: description, type: type, isOptional: false, guides: guides.map(\.constraint))
        }

        /// An optional property of type `Value`, constrained by `guides` when present.
        public init<Value: Generable>(
            name: String, description: String? = nil, type: Value?.Type, guides: [GenerationGuide<Value>] = []
        ) {
            self.init(
                name: name, description: description, type: Value.self, isOptional: true,
                guides: guides.map(\.constraint))
        }

        /// A string property that matches a regular expression (the last one given applies).
        public init<RegexOutput>(
            name: String, description: String? = nil, type: String.Type, guides: [Regex<RegexOutput>] = []
        ) {
            let patterns = guides.last.map { [GuideConstraint.pattern($0._literalPattern)] } ?? []
            self.init(name: name, description: description, type: String.self, isOptional: false, guides: patterns)
        }

        /// An optional string property that matches a regular expression when present.
        public init<RegexOutput>(
            name: String, description: String? = nil, type: String?.Type, guides: [Regex<RegexOutput>] = []
        ) {
            let patterns = guides.last.map { [GuideConstraint.pattern($0._literalPattern)] } ?? []
            self.init(name: name, description: description, type: String.self, isOptional: true, guides: patterns)
        }

        private init(
            name: String, description: String?, type: any Generable.Type, isOptional: Bool, guides: [GuideConstraint]
        ) {
            self.name = name
            self.description = description
            self.type = type
            self.isOptional = isOptional
            self.guides = guides
        }
    }

    /// One case of a `@Generable` enum with associated values: the case name, and its associated
    /// values as properties (nil for a case without any). Written by the macro.
    @_documentation(visibility: private)
    public struct _EnumCase: Sendable {
        let name: String
        let properties: [Property]?

        public init(name: String, properties: [Property]? = nil) {
            self.name = name
            self.properties = properties
        }
    }

    /// A schema for an enum with associated values: a plain case is its name as a string, and a
    /// case with values is an object with one property, named after the case, holding them.
    /// Written by the macro.
    @_documentation(visibility: private)
    public init(type: any Generable.Type, description: String? = nil, cases: [_EnumCase]) {
        let name = Self.name(of: type)
        self = Self.building(name) { builder in
            let choices = cases.map { item -> SchemaNode in
                guard let properties = item.properties else {
                    return .string(StringConstraints(choices: [item.name]))
                }
                let payload = ObjectNode(
                    name: nil, description: nil,
                    properties: builder.nodes(for: properties, in: "\(name).\(item.name)", explicitNil: false))
                return .object(
                    ObjectNode(
                        name: nil, description: nil,
                        properties: [
                            SchemaProperty(name: item.name, description: nil, node: .object(payload), isOptional: false)
                        ]))
            }
            if choices.isEmpty { builder.problems.append("\(name) has no cases") }
            return .anyOf(name: name, description: description, choices: choices)
        }
    }
}

// MARK: - Building

/// Collects the definitions of the named types a schema refers to while it is built.
struct SchemaBuilder {
    /// The types whose schemas are being built on this thread or task, outermost first; a type
    /// met again is recursive and becomes a reference.
    @TaskLocal static var typesInProgress: Set<String> = []

    var definitions: [SchemaDefinition] = []
    var problems: [String] = []

    /// The node to use for `schema` inside another schema: a reference for a named type (whose
    /// definition is kept here), the node itself otherwise.
    mutating func embed(_ schema: GenerationSchema) -> SchemaNode {
        for definition in schema.definitions { addDefinition(name: definition.name, node: definition.node) }
        problems += schema.problems.filter { !problems.contains($0) }
        guard let name = schema.root.definedName else { return schema.root }
        addDefinition(name: name, node: schema.root)
        return .reference(name)
    }

    mutating func addDefinition(name: String, node: SchemaNode) {
        if !definitions.contains(where: { $0.name == name }) {
            definitions.append(SchemaDefinition(name: name, node: node))
        }
    }

    mutating func nodes(for properties: [GenerationSchema.Property], in typeName: String, explicitNil: Bool)
        -> [SchemaProperty]
    {
        properties.map { property in
            var node = embed(property.type.generationSchema)
            for guide in property.guides {
                node = apply(guide, to: node, at: "\(typeName).\(property.name)")
            }
            if property.isOptional && explicitNil {
                node = .anyOf(name: nil, description: nil, choices: [node, .null])
            }
            return SchemaProperty(
                name: property.name, description: property.description, node: node,
                isOptional: property.isOptional && !explicitNil)
        }
    }

    /// `node` with `guide` applied; a guide that does not fit the node is recorded as a problem.
    mutating func apply(_ guide: GuideConstraint, to node: SchemaNode, at path: String) -> SchemaNode {
        switch (guide, node) {
        case (.constant(let value), .string(var constraints)):
            constraints.choices = [value]
            return .string(constraints)
        case (.anyOf(let values), .string(var constraints)):
            if values.isEmpty { problems.append("\(path): anyOf with no choices") }
            constraints.choices = values
            return .string(constraints)
        case (.pattern(let pattern), .string(var constraints)):
            guard let pattern else {
                problems.append("\(path): the regular expression has no textual form")
                return node
            }
            constraints.pattern = pattern
            return .string(constraints)
        case (.integerRange(let low, let high), .integer(let minimum, let maximum)):
            return .integer(minimum: tighter(minimum, low, by: max), maximum: tighter(maximum, high, by: min))
        case (.integerRange(let low, let high), .number(let minimum, let maximum)):
            return .number(
                minimum: tighter(minimum, low.map(Double.init), by: max),
                maximum: tighter(maximum, high.map(Double.init), by: min))
        case (.numberRange(let low, let high), .number(let minimum, let maximum)):
            return .number(minimum: tighter(minimum, low, by: max), maximum: tighter(maximum, high, by: min))
        case (.numberRange(let low, let high), .integer(let minimum, let maximum)):
            let lowInt = low.flatMap { Int(exactly: $0.rounded(.up)) }
            let highInt = high.flatMap { Int(exactly: $0.rounded(.down)) }
            return .integer(minimum: tighter(minimum, lowInt, by: max), maximum: tighter(maximum, highInt, by: min))
        case (.count(let low, let high), .array(let element, let minimum, let maximum)):
            if let low, let high, low > high { problems.append("\(path): count range \(low)...\(high) is empty") }
            return .array(
                element: element, minimumCount: tighter(minimum, low, by: max),
                maximumCount: tighter(maximum, high, by: min))
        case (.element(let inner), .array(let element, let minimum, let maximum)):
            return .array(
                element: apply(inner, to: element, at: "\(path)[]"), minimumCount: minimum, maximumCount: maximum)
        default:
            problems.append("\(path): guide \(guide) does not apply to this property's type")
            return node
        }
    }

    private func tighter<T>(_ current: T?, _ new: T?, by pick: (T, T) -> T) -> T? {
        guard let current else { return new }
        guard let new else { return current }
        return pick(current, new)
    }
}
