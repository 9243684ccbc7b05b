extension GenerationSchema {
    /// The schema as one tree with every reference replaced by its definition, for engines that
    /// take no references.
    ///
    /// A recursive type is unrolled `maximumDepth` times; below that, the recursion is cut where
    /// the output stays valid: an array of the type may only be empty, an optional property of
    /// the type is left out, and a union drops the choice.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/unsupportedGuide(_:)`` when a reference
    ///   names no definition, or recursion cannot be cut (a required property of the type itself).
    package func inlinedRoot(maximumDepth: Int = 3) throws -> SchemaNode {
        var expanding: [String: Int] = [:]
        guard let node = try inline(root, expanding: &expanding, maximumDepth: maximumDepth) else {
            throw LanguageModelSession.GenerationError.unsupportedGuide(
                .init(debugDescription: "the schema \(root.definedName ?? "") only has infinitely deep values"))
        }
        return node
    }

    /// `node` with references inlined; nil when it cannot have a finite value within the depth.
    private func inline(_ node: SchemaNode, expanding: inout [String: Int], maximumDepth: Int) throws -> SchemaNode? {
        switch node {
        case .reference(let name):
            guard let definition = definitions.first(where: { $0.name == name }) else {
                throw LanguageModelSession.GenerationError.unsupportedGuide(
                    .init(debugDescription: "undefined schema reference '\(name)'"))
            }
            let depth = expanding[name, default: 0]
            if depth >= maximumDepth { return nil }
            expanding[name] = depth + 1
            defer { expanding[name] = depth }
            return try inline(definition.node, expanding: &expanding, maximumDepth: maximumDepth)
        case .object(var object):
            var properties: [SchemaProperty] = []
            for var property in object.properties {
                if let inlined = try inline(property.node, expanding: &expanding, maximumDepth: maximumDepth) {
                    property.node = inlined
                    properties.append(property)
                } else if !property.isOptional {
                    return nil
                }
            }
            object.properties = properties
            return .object(object)
        case .array(let element, let minimum, let maximum):
            if let inlined = try inline(element, expanding: &expanding, maximumDepth: maximumDepth) {
                return .array(element: inlined, minimumCount: minimum, maximumCount: maximum)
            }
            if let minimum, minimum > 0 { return nil }
            return .array(element: .null, minimumCount: 0, maximumCount: 0)
        case .anyOf(let name, let description, let choices):
            let inlined = try choices.compactMap { try inline($0, expanding: &expanding, maximumDepth: maximumDepth) }
            return inlined.isEmpty ? nil : .anyOf(name: name, description: description, choices: inlined)
        case .string, .integer, .number, .boolean, .null, .enumeration, .anyValue, .anyObject:
            return node
        }
    }
}
