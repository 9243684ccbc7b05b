import FoundationModels
import Guidance

extension GenerationSchema {
    /// The schema in the form the constrained-decoding engine compiles: references inlined
    /// (recursion unrolled `maximumDepth` times), every guide carried over.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/unsupportedGuide(_:)`` when the schema
    ///   has a part the engine cannot enforce (any JSON value, an undefined reference, a
    ///   recursion that cannot end).
    package func guidanceSchema(maximumDepth: Int = 3) throws -> Schema {
        if !problems.isEmpty {
            throw LanguageModelSession.GenerationError.unsupportedGuide(
                .init(debugDescription: problems.joined(separator: "; ")))
        }
        return try inlinedRoot(maximumDepth: maximumDepth).guidanceSchema(path: "$")
    }
}

extension SchemaNode {
    /// The same tree as a Guidance schema. `path` names this node in error messages.
    package func guidanceSchema(path: String = "$") throws -> Schema {
        switch self {
        case .object(let object):
            return .object(
                try object.properties.map { property in
                    Schema.Property(
                        property.name, try property.node.guidanceSchema(path: path + "." + property.name),
                        isOptional: property.isOptional)
                })
        case .array(let element, let minimumCount, let maximumCount):
            return .array(
                try element.guidanceSchema(path: path + "[*]"), minCount: minimumCount, maxCount: maximumCount)
        case .string(let constraints):
            return .string(pattern: constraints.pattern, choices: constraints.choices)
        case .integer(let minimum, let maximum):
            return .integer(min: minimum, max: maximum)
        case .number(let minimum, let maximum):
            return .number(min: minimum, max: maximum)
        case .boolean:
            return .boolean
        case .null:
            return .null
        case .enumeration(let name, _, let cases):
            guard !cases.isEmpty else {
                throw LanguageModelSession.GenerationError.unsupportedGuide(
                    .init(debugDescription: "at \(path): the enumeration \(name ?? "") has no cases"))
            }
            return .string(choices: cases)
        case .anyOf(let name, _, let choices):
            guard !choices.isEmpty else {
                throw LanguageModelSession.GenerationError.unsupportedGuide(
                    .init(debugDescription: "at \(path): the union \(name ?? "") has no choices"))
            }
            return .anyOf(try choices.enumerated().map { try $1.guidanceSchema(path: path + "|\($0)") })
        case .reference(let name):
            throw LanguageModelSession.GenerationError.unsupportedGuide(
                .init(debugDescription: "at \(path): the reference '\(name)' was not inlined"))
        case .anyObject:
            return .anyObject(maximumDepth: Schema.anyObjectDepth)
        case .anyValue:
            throw LanguageModelSession.GenerationError.unsupportedGuide(
                .init(
                    debugDescription:
                        "at \(path): any JSON value (GeneratedContent) cannot be generated under constraint; "
                        + "use a @Generable type or a GenerationSchema with fixed properties"))
        }
    }
}

extension GuidanceError {
    /// The error as the API reports a schema the engine cannot compile.
    var asGenerationError: LanguageModelSession.GenerationError {
        .unsupportedGuide(.init(debugDescription: description))
    }
}
