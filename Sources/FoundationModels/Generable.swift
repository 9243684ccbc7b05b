/// A type that can be created from generated content.
public protocol ConvertibleFromGeneratedContent: SendableMetatype {
    /// Creates a value from generated content.
    ///
    /// - Throws: an error (usually ``LanguageModelSession/GenerationError/decodingFailure(_:)``)
    ///   when the content does not have the expected shape.
    init(_ content: GeneratedContent) throws
}

/// A type that can be represented as generated content.
public protocol ConvertibleToGeneratedContent: InstructionsRepresentable, PromptRepresentable {
    /// This value as generated content.
    var generatedContent: GeneratedContent { get }
}

extension ConvertibleToGeneratedContent {
    /// The value as instructions: its JSON.
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: [.structure(source: String(describing: Self.self), content: generatedContent)])
    }

    /// The value as a prompt: its JSON.
    public var promptRepresentation: Prompt {
        return Prompt(segments: [.structure(source: String(describing: Self.self), content: generatedContent)])
    }
}

/// A type a model can generate: it has a schema, and converts to and from generated content.
///
/// Apply the `@Generable` macro to a struct or enum to make it conform:
///
/// ```swift
/// @Generable(description: "Suggested replies to the last message")
/// struct ReplySuggestions {
///     @Guide(description: "Three short replies", .count(3))
///     var replies: [String]
/// }
/// ```
public protocol Generable: ConvertibleFromGeneratedContent, ConvertibleToGeneratedContent {
    /// The type of a value that is still being generated: for a `@Generable` struct, one whose
    /// properties are all optional.
    associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent = Self

    /// The schema a model's output must follow for this type.
    static var generationSchema: GenerationSchema { get }
}

extension Generable {
    /// This value in its partially generated form.
    public func asPartiallyGenerated() -> PartiallyGenerated {
        if let same = self as? PartiallyGenerated { return same }
        do {
            return try PartiallyGenerated(generatedContent)
        } catch {
            preconditionFailure("\(Self.self).PartiallyGenerated cannot be created from its own content: \(error)")
        }
    }
}
