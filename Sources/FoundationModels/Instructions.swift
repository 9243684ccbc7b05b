/// What a session's model should do, in every request: its role, rules, and style. Fixed when the
/// session is created, and placed before everything else in the context.
///
/// ```swift
/// let session = LanguageModelSession {
///     "You suggest short, friendly replies to chat messages."
///     "Never use emoji."
/// }
/// ```
public struct Instructions: Sendable {
    package var segments: [Transcript.Segment]

    package init(segments: [Transcript.Segment]) {
        self.segments = segments
    }

    /// Creates instructions from a representable value.
    public init(_ content: some InstructionsRepresentable) {
        self = content.instructionsRepresentation
    }

    /// Creates instructions from the components a builder closure lists.
    public init(@InstructionsBuilder _ content: () throws -> Instructions) rethrows {
        self = try content()
    }

    /// The instructions' text: segments joined by newlines, structured ones as JSON.
    package var text: String { segments.map(\.text).joined(separator: "\n") }
}

/// A type that can be part of instructions.
public protocol InstructionsRepresentable {
    /// This value as instructions.
    @InstructionsBuilder var instructionsRepresentation: Instructions { get }
}

extension Instructions: InstructionsRepresentable {
    public var instructionsRepresentation: Instructions { return self }
}

extension String: InstructionsRepresentable {
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: [.text(Transcript.TextSegment(content: self))])
    }
}

extension Array: InstructionsRepresentable where Element: InstructionsRepresentable {
    /// The elements' instructions, one after another.
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: flatMap(\.instructionsRepresentation.segments))
    }
}

/// Builds ``Instructions`` from the components listed in a closure.
@resultBuilder
public struct InstructionsBuilder {
    public static func buildBlock<each I: InstructionsRepresentable>(_ components: repeat each I) -> Instructions {
        var segments: [Transcript.Segment] = []
        for component in repeat each components {
            segments += component.instructionsRepresentation.segments
        }
        return Instructions(segments: segments)
    }

    public static func buildArray(_ instructions: [some InstructionsRepresentable]) -> Instructions {
        Instructions(segments: instructions.flatMap(\.instructionsRepresentation.segments))
    }

    public static func buildEither(first component: some InstructionsRepresentable) -> Instructions {
        component.instructionsRepresentation
    }

    public static func buildEither(second component: some InstructionsRepresentable) -> Instructions {
        component.instructionsRepresentation
    }

    public static func buildOptional(_ instructions: Instructions?) -> Instructions {
        instructions ?? Instructions(segments: [])
    }

    public static func buildLimitedAvailability(_ instructions: some InstructionsRepresentable) -> Instructions {
        instructions.instructionsRepresentation
    }

    @_disfavoredOverload
    public static func buildExpression<I: InstructionsRepresentable>(_ expression: I) -> I {
        expression
    }

    public static func buildExpression(_ expression: Instructions) -> Instructions {
        expression
    }
}

extension Optional: InstructionsRepresentable, PromptRepresentable where Wrapped: ConvertibleToGeneratedContent {}
