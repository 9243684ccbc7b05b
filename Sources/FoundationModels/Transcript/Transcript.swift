import Foundation

/// The record of a session: its instructions, then each prompt, tool call, tool output and
/// response, in order.
///
/// A session keeps its transcript up to date as it responds, and can be created from one to
/// continue an earlier conversation.
///
/// Past 500 lines, as an exception: the entry and segment types nested in `Transcript` are
/// declared here as Apple's SDK nests them, so the file reads like the API it mirrors.
public struct Transcript: Sendable, Equatable, RandomAccessCollection {
    public typealias Index = Int

    package var entries: [Entry]

    /// Creates a transcript from entries.
    public init(entries: some Sequence<Entry> = [Entry]()) {
        self.entries = Array(entries)
    }

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }

    public subscript(index: Int) -> Entry {
        get { entries[index] }
        set { entries[index] = newValue }
    }
}

// The 27 SDK makes a transcript editable.
extension Transcript: MutableCollection, RangeReplaceableCollection {
    public init() {
        entries = []
    }

    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == Entry {
        entries.replaceSubrange(subrange, with: newElements)
    }

    /// The entries after a leading instructions entry: the conversation itself. Setting it
    /// replaces them and keeps the instructions.
    public var history: HistoryView {
        get { HistoryView(entries: Array(entries[historyStart...])) }
        set { entries.replaceSubrange(historyStart..., with: newValue.entries) }
    }

    /// Where the history starts: after a leading instructions entry.
    private var historyStart: Int {
        if case .instructions? = entries.first { 1 } else { 0 }
    }

    /// The entries `isIncluded` keeps, as an array.
    ///
    /// In the 27 SDK a transcript is a `RangeReplaceableCollection`, whose `filter` returns a
    /// transcript; code written for 26.4 expects the array a `Sequence`'s `filter` returns.
    /// This overload keeps that code compiling: without a type from context `filter` gives an
    /// array, as in 26.4, and where the context asks for a `Transcript` (an assignment to
    /// `session.transcript`, a `transcript:` argument) the collection's `filter` is chosen, as
    /// in 27. See `docs/Porting.md`.
    public func filter(_ isIncluded: (Entry) throws -> Bool) rethrows -> [Entry] {
        try entries.filter(isIncluded)
    }
}

extension Transcript {
    /// The conversational entries of a transcript (those after its instructions), as a
    /// collection to read and edit: a ``Transcript/history`` to trim, filter or extend and set
    /// back.
    public struct HistoryView: Sendable, Equatable, RandomAccessCollection, MutableCollection,
        RangeReplaceableCollection, ExpressibleByArrayLiteral
    {
        public typealias Element = Transcript.Entry
        public typealias Index = Int
        public typealias SubSequence = ArraySlice<Transcript.Entry>

        package var entries: [Transcript.Entry]

        package init(entries: [Transcript.Entry]) {
            self.entries = entries
        }

        public init() {
            entries = []
        }

        public init(arrayLiteral elements: Transcript.Entry...) {
            entries = elements
        }

        public var startIndex: Int { entries.startIndex }
        public var endIndex: Int { entries.endIndex }

        public subscript(position: Int) -> Transcript.Entry {
            get { entries[position] }
            set { entries[position] = newValue }
        }

        /// The entries within `bounds`.
        public subscript(bounds: Range<Int>) -> ArraySlice<Transcript.Entry> {
            get { entries[bounds] }
            set { entries[bounds] = newValue }
        }

        public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
        where C.Element == Transcript.Entry {
            entries.replaceSubrange(subrange, with: newElements)
        }

        /// Adds an entry to the end.
        public mutating func append(_ newElement: Transcript.Entry) {
            entries.append(newElement)
        }

        /// Adds the entries of a sequence to the end.
        public mutating func append<S: Sequence>(contentsOf newElements: S) where S.Element == Transcript.Entry {
            entries.append(contentsOf: newElements)
        }
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
        /// The model's reasoning before a response (27 SDK; Sotto's local models do not reason,
        /// but another model's executor may send reasoning).
        case reasoning(Reasoning)

        public var id: String {
            switch self {
            case .instructions(let entry): entry.id
            case .prompt(let entry): entry.id
            case .toolCalls(let entry): entry.id
            case .toolOutput(let entry): entry.id
            case .response(let entry): entry.id
            case .reasoning(let entry): entry.id
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
            case .reasoning(let entry): "(Reasoning) \(entry.segments.text)"
            }
        }

        /// The entry's segments (none for tool calls).
        package var segments: [Segment] {
            switch self {
            case .instructions(let entry): entry.segments
            case .prompt(let entry): entry.segments
            case .toolCalls: []
            case .toolOutput(let entry): entry.segments
            case .response(let entry): entry.segments
            case .reasoning(let entry): entry.segments
            }
        }
    }

    /// A piece of an entry's content: text, a structured value, an attachment, or a segment type
    /// of the app's own.
    public enum Segment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        case text(TextSegment)
        case structure(StructuredSegment)
        /// An image (27 SDK).
        case attachment(AttachmentSegment)
        /// A segment of the app's own type (27 SDK).
        case custom(any CustomSegment)

        public var id: String {
            switch self {
            case .text(let segment): segment.id
            case .structure(let segment): segment.id
            case .attachment(let segment): segment.id
            case .custom(let segment): segment.id
            }
        }

        public var description: String { text }

        /// The segment as text; a structured value as its JSON, an attachment as its
        /// description.
        package var text: String {
            switch self {
            case .text(let segment): segment.content
            case .structure(let segment): segment.content.jsonString
            case .attachment(let segment): segment.description
            case .custom(let segment): segment.description
            }
        }

        package static func structure(source: String, content: GeneratedContent) -> Segment {
            .structure(StructuredSegment(source: source, content: content))
        }

        public static func == (lhs: Segment, rhs: Segment) -> Bool {
            switch (lhs, rhs) {
            case (.text(let a), .text(let b)): a == b
            case (.structure(let a), .structure(let b)): a == b
            case (.attachment(let a), .attachment(let b)): a == b
            case (.custom(let a), .custom(let b)): a.isEqual(to: b)
            default: false
            }
        }
    }

    /// Text.
    public struct TextSegment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var content: String

        public init(id: String = UUID().uuidString, content: String) {
            self.id = id
            self.content = content
        }

        public var description: String { content }
    }

    /// A structured value, with the name of the type or schema it came from.
    public struct StructuredSegment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        /// The name of the type or schema of the content (the 27 SDK renames it ``schemaName``).
        public var source: String
        public var content: GeneratedContent

        /// The name of the type or schema of the content.
        public var schemaName: String {
            get { source }
            set { source = newValue }
        }

        public init(id: String = UUID().uuidString, source: String, content: GeneratedContent) {
            self.id = id
            self.source = source
            self.content = content
        }

        public init(id: String = UUID().uuidString, schemaName: String, content: GeneratedContent) {
            self.init(id: id, source: schemaName, content: content)
        }

        public var description: String { content.jsonString }
    }

    /// The instructions entry: segments, and the tools the model may call.
    public struct Instructions: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var segments: [Segment]
        public var toolDefinitions: [ToolDefinition]

        public init(id: String = UUID().uuidString, segments: [Segment], toolDefinitions: [ToolDefinition]) {
            self.id = id
            self.segments = segments
            self.toolDefinitions = toolDefinitions
        }

        public var description: String { segments.text }
    }

    /// A tool as the model sees it: name, description, and the schema of its arguments.
    public struct ToolDefinition: Sendable, Equatable {
        public var name: String
        public var description: String
        /// The schema of the tool's arguments (public in the 27 SDK).
        public var parameters: GenerationSchema

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
    public struct Prompt: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var segments: [Segment]
        public var options: GenerationOptions
        /// The request's context options (27 SDK).
        public var contextOptions: ContextOptions
        /// What the app attached to the request (27 SDK).
        public var metadata: [String: GeneratedContent]
        public var responseFormat: ResponseFormat?

        public init(
            id: String = UUID().uuidString, segments: [Segment], options: GenerationOptions = GenerationOptions(),
            responseFormat: ResponseFormat? = nil
        ) {
            self.init(id: id, metadata: [:], segments: segments, options: options, responseFormat: responseFormat)
        }

        public init(
            id: String = UUID().uuidString, metadata: [String: any ConvertibleToGeneratedContent] = [:],
            segments: [Segment], options: GenerationOptions = GenerationOptions(),
            responseFormat: ResponseFormat? = nil, contextOptions: ContextOptions = ContextOptions()
        ) {
            self.id = id
            self.metadata = metadata.mapValues(\.generatedContent)
            self.segments = segments
            self.options = options
            self.responseFormat = responseFormat
            self.contextOptions = contextOptions
        }

        public static func == (lhs: Prompt, rhs: Prompt) -> Bool {
            lhs.id == rhs.id && lhs.segments == rhs.segments && lhs.options == rhs.options
                && lhs.contextOptions == rhs.contextOptions && lhs.responseFormat == rhs.responseFormat
                && lhs.metadata == rhs.metadata
        }

        public var description: String { segments.text }
    }

    /// The structure a response must have: a `Generable` type's schema, or a schema given directly.
    public struct ResponseFormat: Sendable, Equatable, CustomStringConvertible {
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

        public var description: String { name }
    }

    /// The tool calls the model made at one point in the session.
    public struct ToolCalls: Sendable, Identifiable, Equatable, RandomAccessCollection, CustomStringConvertible {
        public var id: String
        package var calls: [ToolCall]

        public init<S: Sequence>(id: String = UUID().uuidString, _ calls: S) where S.Element == ToolCall {
            self.id = id
            self.calls = Array(calls)
        }

        public var startIndex: Int { calls.startIndex }
        public var endIndex: Int { calls.endIndex }
        public subscript(index: Int) -> ToolCall { calls[index] }

        public var description: String { calls.map(\.description).joined(separator: ", ") }
    }

    /// One call of a tool, with its arguments.
    public struct ToolCall: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var toolName: String
        public var arguments: GeneratedContent
        /// What the model provider attached to the call (27 SDK).
        public var metadata: [String: GeneratedContent]

        public init(id: String, toolName: String, arguments: GeneratedContent) {
            self.init(id: id, metadata: [:], toolName: toolName, arguments: arguments)
        }

        public init(
            id: String, metadata: [String: any ConvertibleToGeneratedContent], toolName: String,
            arguments: GeneratedContent
        ) {
            self.id = id
            self.metadata = metadata.mapValues(\.generatedContent)
            self.toolName = toolName
            self.arguments = arguments
        }

        public static func == (lhs: ToolCall, rhs: ToolCall) -> Bool {
            lhs.id == rhs.id && lhs.toolName == rhs.toolName && lhs.arguments == rhs.arguments
                && lhs.metadata == rhs.metadata
        }

        public var description: String { "\(toolName)(\(arguments.jsonString))" }
    }

    /// What a tool returned for a call (`id` is the call's).
    public struct ToolOutput: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var toolName: String
        public var segments: [Segment]

        public init(id: String, toolName: String, segments: [Segment]) {
            self.id = id
            self.toolName = toolName
            self.segments = segments
        }

        public var description: String { segments.text }
    }

    /// The model's response.
    public struct Response: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var assetIDs: [String]
        public var segments: [Segment]
        /// What the model provider attached to the response (27 SDK: read-only, as
        /// `[String: GeneratedContent]`).
        public package(set) var metadata: [String: GeneratedContent]

        public init(id: String = UUID().uuidString, assetIDs: [String], segments: [Segment]) {
            self.id = id
            self.assetIDs = assetIDs
            self.segments = segments
            self.metadata = [:]
        }

        public init(
            id: String = UUID().uuidString, metadata: [String: any ConvertibleToGeneratedContent] = [:],
            segments: [Segment]
        ) {
            self.id = id
            self.assetIDs = []
            self.segments = segments
            self.metadata = metadata.mapValues(\.generatedContent)
        }

        public static func == (lhs: Response, rhs: Response) -> Bool {
            lhs.id == rhs.id && lhs.assetIDs == rhs.assetIDs && lhs.segments == rhs.segments
                && lhs.metadata == rhs.metadata
        }

        public var description: String { segments.text }
    }

    /// What the model thought before it responded (27 SDK).
    public struct Reasoning: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var segments: [Segment]
        /// An opaque signature some providers attach, to be sent back with the transcript.
        public var signature: Data?
        /// Metadata the model produced with the entry.
        public var metadata: [String: GeneratedContent]

        public init(
            id: String = UUID().uuidString, metadata: [String: any ConvertibleToGeneratedContent] = [:],
            segments: [Segment], signature: Data? = nil
        ) {
            self.id = id
            self.metadata = metadata.mapValues(\.generatedContent)
            self.segments = segments
            self.signature = signature
        }

        public static func == (lhs: Reasoning, rhs: Reasoning) -> Bool {
            lhs.id == rhs.id && lhs.segments == rhs.segments && lhs.signature == rhs.signature
                && lhs.metadata == rhs.metadata
        }

        public var description: String { segments.text }
    }

    /// A segment of an app's own type (27 SDK): it appears in prompts and instructions as its
    /// description.
    public protocol CustomSegment: InstructionsRepresentable, PromptRepresentable, CustomStringConvertible, Equatable,
        Identifiable, Sendable
    {
        associatedtype Content: Codable & Equatable & Sendable
        var id: String { get }
        var content: Content { get }
    }
}

extension Transcript.CustomSegment {
    public var promptRepresentation: Prompt { return Prompt(segments: [.custom(self)]) }

    public var instructionsRepresentation: Instructions { return Instructions(segments: [.custom(self)]) }

    public var description: String { "\(content)" }

    /// Whether `other` is the same segment: the same type, and equal.
    public func isEqual(to other: some Transcript.CustomSegment) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

extension [Transcript.Segment] {
    /// The segments' text, joined by newlines.
    package var text: String { map(\.text).joined(separator: "\n") }
}
