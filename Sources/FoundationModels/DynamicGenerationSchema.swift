import Foundation

/// A schema built at runtime, for output whose shape is not known at compile time.
///
/// ```swift
/// let person = DynamicGenerationSchema(name: "Person", properties: [
///     .init(name: "name", schema: DynamicGenerationSchema(type: String.self)),
///     .init(name: "pets", schema: DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(referenceTo: "Pet"))),
/// ])
/// let pet = DynamicGenerationSchema(name: "Pet", anyOf: ["cat", "dog"])
/// let schema = try GenerationSchema(root: person, dependencies: [pet])
/// ```
public struct DynamicGenerationSchema: Sendable {
    package indirect enum Body: Sendable {
        case object(name: String, description: String?, explicitNil: Bool, properties: [Property])
        case anyOfSchemas(name: String, description: String?, choices: [DynamicGenerationSchema])
        case anyOfStrings(name: String, description: String?, choices: [String])
        case array(element: DynamicGenerationSchema, minimumCount: Int?, maximumCount: Int?)
        case generable(GenerationSchema, guides: [GuideConstraint])
        case reference(String)
        case null
    }

    package let body: Body

    private init(body: Body) {
        self.body = body
    }

    /// An object with properties, generated in the order given.
    public init(name: String, description: String? = nil, properties: [DynamicGenerationSchema.Property]) {
        body = .object(name: name, description: description, explicitNil: false, properties: properties)
    }

    /// An object with properties; with `explicitNil`, an optional property that has no value is
    /// generated as `null` instead of being left out.
    public init(
        name: String, description: String? = nil, representNilExplicitlyInGeneratedContent explicitNil: Bool,
        properties: [DynamicGenerationSchema.Property]
    ) {
        body = .object(name: name, description: description, explicitNil: explicitNil, properties: properties)
    }

    /// A value of one of several schemas.
    public init(name: String, description: String? = nil, anyOf choices: [DynamicGenerationSchema]) {
        body = .anyOfSchemas(name: name, description: description, choices: choices)
    }

    /// A string that is one of `choices`.
    public init(name: String, description: String? = nil, anyOf choices: [String]) {
        body = .anyOfStrings(name: name, description: description, choices: choices)
    }

    /// An array of values of another schema, with optional bounds on its length (inclusive).
    public init(arrayOf itemSchema: DynamicGenerationSchema, minimumElements: Int? = nil, maximumElements: Int? = nil) {
        body = .array(element: itemSchema, minimumCount: minimumElements, maximumCount: maximumElements)
    }

    /// The schema of a `Generable` type, constrained by `guides`.
    public init<Value: Generable>(type: Value.Type, guides: [GenerationGuide<Value>] = []) {
        body = .generable(Value.generationSchema, guides: guides.map(\.constraint))
    }

    /// A reference to a schema named `name`, given among the dependencies of
    /// ``GenerationSchema/init(root:dependencies:)``.
    public init(referenceTo name: String) {
        body = .reference(name)
    }

    /// The schema of `null`.
    public static var null: DynamicGenerationSchema { DynamicGenerationSchema(body: .null) }

    /// The name this schema defines, for objects and unions.
    package var name: String? {
        switch body {
        case .object(let name, _, _, _), .anyOfSchemas(let name, _, _), .anyOfStrings(let name, _, _): name
        case .generable(let schema, _): schema.root.definedName
        case .array, .reference, .null: nil
        }
    }

    /// One property of a dynamic object schema.
    public struct Property: Sendable {
        package let name: String
        package let description: String?
        package let schema: DynamicGenerationSchema
        package let isOptional: Bool

        /// A property named `name` whose value follows `schema`; an optional one may be left out.
        public init(name: String, description: String? = nil, schema: DynamicGenerationSchema, isOptional: Bool = false)
        {
            self.name = name
            self.description = description
            self.schema = schema
            self.isOptional = isOptional
        }
    }
}

extension GenerationSchema {
    /// Builds a schema from a dynamic root and the named schemas it refers to.
    ///
    /// - Throws: ``SchemaError`` when two dependencies share a name, an object repeats a
    ///   property, a union has no choices, or a reference names no dependency.
    public init(root: DynamicGenerationSchema, dependencies: [DynamicGenerationSchema]) throws {
        typealias SchemaError = GenerationSchema.SchemaError
        let rootName = root.name
        var converter = DynamicSchemaConverter(rootName: rootName)
        var seen: Set<String> = rootName.map { [$0] } ?? []
        var definitions: [SchemaDefinition] = []
        for dependency in dependencies {
            let node = try converter.node(for: dependency)
            guard let name = dependency.name else { continue }
            guard seen.insert(name).inserted else {
                throw SchemaError.duplicateType(
                    schema: rootName, type: name, context: .init(debugDescription: "two schemas are named '\(name)'"))
            }
            definitions.append(SchemaDefinition(name: name, node: node))
        }
        let rootNode = try converter.node(for: root)
        for definition in converter.builder.definitions where !seen.contains(definition.name) {
            seen.insert(definition.name)
            definitions.append(definition)
        }
        // A reference to the root itself is allowed (recursion); it needs a definition too.
        if let rootName, converter.references.contains(rootName) {
            definitions.append(SchemaDefinition(name: rootName, node: rootNode))
        }
        let undefined = converter.references.subtracting(seen).sorted()
        guard undefined.isEmpty else {
            throw SchemaError.undefinedReferences(
                schema: rootName, references: undefined,
                context: .init(
                    debugDescription: "no schema named \(undefined.map { "'\($0)'" }.joined(separator: ", "))"))
        }
        self.init(root: rootNode, definitions: definitions, problems: converter.builder.problems)
    }
}

/// Turns dynamic schemas into nodes, checking them as it goes.
private struct DynamicSchemaConverter {
    typealias SchemaError = GenerationSchema.SchemaError

    let rootName: String?
    var builder = SchemaBuilder()
    var references: Set<String> = []

    mutating func node(for schema: DynamicGenerationSchema) throws -> SchemaNode {
        switch schema.body {
        case .object(let name, let description, let explicitNil, let properties):
            var seen: Set<String> = []
            var nodes: [SchemaProperty] = []
            for property in properties {
                guard seen.insert(property.name).inserted else {
                    throw SchemaError.duplicateProperty(
                        schema: name, property: property.name,
                        context: .init(debugDescription: "'\(name)' has two properties named '\(property.name)'"))
                }
                var node = try self.node(for: property.schema)
                if property.isOptional && explicitNil {
                    node = .anyOf(name: nil, description: nil, choices: [node, .null])
                }
                nodes.append(
                    SchemaProperty(
                        name: property.name, description: property.description, node: node,
                        isOptional: property.isOptional && !explicitNil))
            }
            return .object(ObjectNode(name: name, description: description, properties: nodes))
        case .anyOfSchemas(let name, let description, let choices):
            guard !choices.isEmpty else {
                throw SchemaError.emptyTypeChoices(
                    schema: name, context: .init(debugDescription: "'\(name)' has no choices"))
            }
            return .anyOf(name: name, description: description, choices: try choices.map { try node(for: $0) })
        case .anyOfStrings(let name, let description, let choices):
            guard !choices.isEmpty else {
                throw SchemaError.emptyTypeChoices(
                    schema: name, context: .init(debugDescription: "'\(name)' has no choices"))
            }
            return .enumeration(name: name, description: description, cases: choices)
        case .array(let element, let minimum, let maximum):
            return .array(element: try node(for: element), minimumCount: minimum, maximumCount: maximum)
        case .generable(let schema, let guides):
            var node = builder.embed(schema)
            for guide in guides { node = builder.apply(guide, to: node, at: schema.root.definedName ?? "value") }
            return node
        case .reference(let name):
            references.insert(name)
            return .reference(name)
        case .null:
            return .null
        }
    }
}

extension GenerationSchema {
    /// A dynamic schema that cannot be built.
    public enum SchemaError: Error, LocalizedError {
        /// Two schemas share the name `type`.
        case duplicateType(schema: String?, type: String, context: Context)
        /// The object `schema` has two properties named `property`.
        case duplicateProperty(schema: String, property: String, context: Context)
        /// The union `schema` has no choices.
        case emptyTypeChoices(schema: String, context: Context)
        /// `references` name no schema given.
        case undefinedReferences(schema: String?, references: [String], context: Context)

        /// Details for debugging.
        public struct Context: Sendable {
            /// A description of what went wrong.
            public let debugDescription: String

            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        public var errorDescription: String? {
            switch self {
            case .duplicateType(_, let type, _): "Duplicate schema name '\(type)'."
            case .duplicateProperty(let schema, let property, _):
                "Schema '\(schema)' has more than one property named '\(property)'."
            case .emptyTypeChoices(let schema, _): "Schema '\(schema)' has no choices."
            case .undefinedReferences(_, let references, _):
                "Undefined schema references: \(references.joined(separator: ", "))."
            }
        }

        public var recoverySuggestion: String? {
            switch self {
            case .duplicateType: "Give each dependency a unique name."
            case .duplicateProperty: "Give each property a unique name."
            case .emptyTypeChoices: "Provide at least one choice."
            case .undefinedReferences: "Pass every referenced schema in `dependencies`."
            }
        }
    }
}
