import Foundation

/// Everything an executor needs for one model turn (as in the iOS 27 SDK): the conversation so
/// far, the tools the model may call now, the schema of the response, and the options.
public struct LanguageModelExecutorGenerationRequest: Sendable {
    /// Identifies the request (each tool-calling round of a response is a request of its own).
    public var id: UUID
    /// The whole conversation: instructions (with every tool definition), earlier turns, the new
    /// prompt, and this response's tool calls and outputs so far.
    public var transcript: Transcript
    /// The tools the model may call in this turn (empty: it must answer).
    public var enabledToolDefinitions: [Transcript.ToolDefinition]
    /// The schema the response must follow; nil for text.
    public var schema: GenerationSchema?
    /// Sampling options.
    public var generationOptions: GenerationOptions
    /// Context options (whether the schema is also in the prompt).
    public var contextOptions: ContextOptions
    /// What the app attached to the request (`respond(…, metadata:)`).
    public var metadata: [String: GeneratedContent]

    public init(
        id: UUID, transcript: Transcript, enabledTools: [Transcript.ToolDefinition], schema: GenerationSchema? = nil,
        generationOptions: GenerationOptions, contextOptions: ContextOptions,
        metadata: [String: any ConvertibleToGeneratedContent]
    ) {
        self.id = id
        self.transcript = transcript
        self.enabledToolDefinitions = enabledTools
        self.schema = schema
        self.generationOptions = generationOptions
        self.contextOptions = contextOptions
        self.metadata = metadata.mapValues(\.generatedContent)
    }

    /// Whether the schema also goes into the prompt: the request's context option, else yes.
    package var includesSchemaInPrompt: Bool { contextOptions.includeSchemaInPrompt ?? true }
}
