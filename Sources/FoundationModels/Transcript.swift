import Foundation

/// The record of a session: its instructions, then each prompt, tool call, tool output and
/// response, in order.
///
/// A session keeps its transcript up to date as it responds, and can be created from one to
/// continue an earlier conversation.
public struct Transcript: Sendable, Equatable, RandomAccessCollection {
    package var entries: [Entry]

    /// Creates a transcript from entries.
    public init(entries: some Sequence<Entry> = [Entry]()) {
        self.entries = Array(entries)
    }

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(index: Int) -> Entry { entries[index] }

    /// The entries after a leading instructions entry.
    package var history: ArraySlice<Entry> {
        if case .instructions? = entries.first { return entries.dropFirst() }
        return entries[...]
    }
}

extension Transcript: CustomStringConvertible {
    public var description: String { entries.map(\.description).joined(separator: "\n") }
}

extension Transcript {
    /// One step of a session.
    public enum Entry: Sendable, Identifiable, Equatable, CustomStringConvertible {
        /// The session's instructions, with the tools it may call.
        case instructions(Instructions)
        /// A request to the model.
        case prompt(Prompt)
        /// Tools the model decided to call.
        case toolCalls(ToolCalls)
        /// What a tool returned.
        case toolOutput(ToolOutput)
        /// The model's response.
        case response(Response)

        public var id: String {
            switch self {
            case .instructions(let entry): entry.id
            case .prompt(let entry): entry.id
            case .toolCalls(let entry): entry.id
            case .toolOutput(let entry): entry.id
            case .response(let entry): entry.id
            }
        }

        public var description: String {
            switch self {
            case .instructions(let entry): "(Instructions) \(entry.segments.text)"
            case .prompt(let entry): "(Prompt) \(entry.segments.text)"
            case .toolCalls(let entry):
                "(Tool calls) " + entry.map { "\($0.toolName)(\($0.arguments.jsonString))" }.joined(separator: ", ")
            case .toolOutput(let entry): "(Tool output: \(entry.toolName)) \(entry.segments.text)"
            case .response(let entry): "(Response) \(entry.segments.text)"
            }
        }
    }

    /// A piece of an entry's content: text, or a structured value.
    public enum Segment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        case text(TextSegment)
        case structure(StructuredSegment)

        public var id: String {
            switch self {
            case .text(let segment): segment.id
            case .structure(let segment): segment.id
            }
        }

        public var description: String { text }

        /// The segment as text; a structured value as its JSON.
        package var text: String {
            switch self {
            case .text(let segment): segment.content
            case .structure(let segment): segment.content.jsonString
            }
        }

        package static func structure(source: String, content: GeneratedContent) -> Segment {
            .structure(StructuredSegment(source: source, content: content))
        }
    }

    /// Text.
    public struct TextSegment: Sendable, Identifiable, Equatable {
        public var id: String
        public var content: String

        public init(id: String = UUID().uuidString, content: String) {
            self.id = id
            self.content = content
        }
    }

    /// A structured value, with the name of the type or schema it came from.
    public struct StructuredSegment: Sendable, Identifiable, Equatable {
        public var id: String
        /// The name of the type or schema of the content.
        public var source: String
        public var content: GeneratedContent

        public init(id: String = UUID().uuidString, source: String, content: GeneratedContent) {
            self.id = id
            self.source = source
            self.content = content
        }
    }

    /// The instructions entry: segments, and the tools the model may call.
    public struct Instructions: Sendable, Identifiable, Equatable {
        public var id: String
        public var segments: [Segment]
        public var toolDefinitions: [ToolDefinition]

        public init(id: String = UUID().uuidString, segments: [Segment], toolDefinitions: [ToolDefinition]) {
            self.id = id
            self.segments = segments
            self.toolDefinitions = toolDefinitions
        }
    }

    /// A tool as the model sees it: name, description, and the schema of its arguments.
    public struct ToolDefinition: Sendable, Equatable {
        public var name: String
        public var description: String
        package var parameters: GenerationSchema

        public init(name: String, description: String, parameters: GenerationSchema) {
            self.name = name
            self.description = description
            self.parameters = parameters
        }

        /// The definition of `tool`.
        public init(tool: some Tool) {
            self.init(name: tool.name, description: tool.description, parameters: tool.parameters)
        }

        public static func == (lhs: ToolDefinition, rhs: ToolDefinition) -> Bool {
            lhs.name == rhs.name && lhs.description == rhs.description && lhs.parameters.root == rhs.parameters.root
                && lhs.parameters.definitions == rhs.parameters.definitions
        }
    }

    /// A request: segments, the options it was made with, and the format the response must have.
    public struct Prompt: Sendable, Identifiable, Equatable {
        public var id: String
        public var segments: [Segment]
        public var options: GenerationOptions
        public var responseFormat: ResponseFormat?

        public init(
            id: String = UUID().uuidString, segments: [Segment], options: GenerationOptions = GenerationOptions(),
            responseFormat: ResponseFormat? = nil
        ) {
            self.id = id
            self.segments = segments
            self.options = options
            self.responseFormat = responseFormat
        }
    }

    /// The structure a response must have: a `Generable` type's schema, or a schema given directly.
    public struct ResponseFormat: Sendable, Equatable {
        /// The name of the type or schema.
        public let name: String
        package let schema: GenerationSchema

        /// The format of `type`.
        public init<Content: Generable>(type: Content.Type) {
            self.init(schema: Content.generationSchema, name: GenerationSchema.name(of: Content.self))
        }

        /// The format a schema describes.
        public init(schema: GenerationSchema) {
            self.init(schema: schema, name: schema.root.definedName ?? "GeneratedContent")
        }

        package init(schema: GenerationSchema, name: String) {
            self.schema = schema
            self.name = name
        }

        public static func == (lhs: ResponseFormat, rhs: ResponseFormat) -> Bool {
            lhs.name == rhs.name && lhs.schema.root == rhs.schema.root
                && lhs.schema.definitions == rhs.schema.definitions
        }
    }

    /// The tool calls the model made at one point in the session.
    public struct ToolCalls: Sendable, Identifiable, Equatable, RandomAccessCollection {
        public var id: String
        package var calls: [ToolCall]

        public init<S: Sequence>(id: String = UUID().uuidString, _ calls: S) where S.Element == ToolCall {
            self.id = id
            self.calls = Array(calls)
        }

        public var startIndex: Int { calls.startIndex }
        public var endIndex: Int { calls.endIndex }
        public subscript(index: Int) -> ToolCall { calls[index] }
    }

    /// One call of a tool, with its arguments.
    public struct ToolCall: Sendable, Identifiable, Equatable {
        public var id: String
        public var toolName: String
        public var arguments: GeneratedContent

        public init(id: String, toolName: String, arguments: GeneratedContent) {
            self.id = id
            self.toolName = toolName
            self.arguments = arguments
        }
    }

    /// What a tool returned for a call (`id` is the call's).
    public struct ToolOutput: Sendable, Identifiable, Equatable {
        public var id: String
        public var toolName: String
        public var segments: [Segment]

        public init(id: String, toolName: String, segments: [Segment]) {
            self.id = id
            self.toolName = toolName
            self.segments = segments
        }
    }

    /// The model's response.
    public struct Response: Sendable, Identifiable, Equatable {
        public var id: String
        public var assetIDs: [String]
        public var segments: [Segment]

        public init(id: String = UUID().uuidString, assetIDs: [String], segments: [Segment]) {
            self.id = id
            self.assetIDs = assetIDs
            self.segments = segments
        }
    }
}

extension [Transcript.Segment] {
    /// The segments' text, joined by newlines.
    package var text: String { map(\.text).joined(separator: "\n") }
}
