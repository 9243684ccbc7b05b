/// The input to one request of a session: text and structured values.
///
/// ```swift
/// let prompt = Prompt {
///     "Suggest three replies to:"
///     lastMessage
/// }
/// ```
public struct Prompt: Sendable {
    package var segments: [Transcript.Segment]

    package init(segments: [Transcript.Segment]) {
        self.segments = segments
    }

    /// Creates a prompt from a representable value.
    public init(_ content: some PromptRepresentable) {
        self = content.promptRepresentation
    }

    /// Creates a prompt from the components a builder closure lists.
    public init(@PromptBuilder _ content: () throws -> Prompt) rethrows {
        self = try content()
    }

    /// The prompt's text: its segments joined by newlines, structured ones as JSON.
    package var text: String { segments.map(\.text).joined(separator: "\n") }
}

/// A type that can be part of a prompt.
///
/// Implementations that build a `Prompt` directly must `return` it: the requirement's
/// `@PromptBuilder` otherwise applies to the body, and `self` would be built from itself.
public protocol PromptRepresentable {
    /// This value as a prompt.
    @PromptBuilder var promptRepresentation: Prompt { get }
}

extension Prompt: PromptRepresentable {
    public var promptRepresentation: Prompt { return self }
}

extension String: PromptRepresentable {
    public var promptRepresentation: Prompt { return Prompt(segments: [.text(Transcript.TextSegment(content: self))]) }
}

extension Array: PromptRepresentable where Element: PromptRepresentable {
    /// The elements' prompts, one after another.
    public var promptRepresentation: Prompt { return Prompt(segments: flatMap(\.promptRepresentation.segments)) }
}

/// Builds a ``Prompt`` from the components listed in a closure.
@resultBuilder
public struct PromptBuilder {
    public static func buildBlock<each P: PromptRepresentable>(_ components: repeat each P) -> Prompt {
        var segments: [Transcript.Segment] = []
        for component in repeat each components {
            segments += component.promptRepresentation.segments
        }
        return Prompt(segments: segments)
    }

    public static func buildArray(_ prompts: [some PromptRepresentable]) -> Prompt {
        Prompt(segments: prompts.flatMap(\.promptRepresentation.segments))
    }

    public static func buildEither(first component: some PromptRepresentable) -> Prompt {
        component.promptRepresentation
    }

    public static func buildEither(second component: some PromptRepresentable) -> Prompt {
        component.promptRepresentation
    }

    public static func buildOptional(_ component: Prompt?) -> Prompt {
        component ?? Prompt(segments: [])
    }

    public static func buildLimitedAvailability(_ prompt: some PromptRepresentable) -> Prompt {
        prompt.promptRepresentation
    }

    @_disfavoredOverload
    public static func buildExpression<P: PromptRepresentable>(_ expression: P) -> P {
        expression
    }

    public static func buildExpression(_ expression: Prompt) -> Prompt {
        expression
    }
}
