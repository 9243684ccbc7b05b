/// The engine behind a ``SystemLanguageModel``: tokenizes, and generates one model turn at a time.
///
/// The session owns the conversation logic (transcript, tool loop, context check, streaming,
/// decoding); a backend only turns a request into text or tool calls. A backend renders the
/// transcript with its model's chat template (``GenerationRequest/messages`` gives a neutral
/// form), constrains decoding to ``GenerationRequest/schema`` when set, and may reuse its KV
/// cache across requests whose rendered prompts share a prefix.
package protocol LanguageModelBackend: Sendable {
    /// The context window in tokens: prompt and response together.
    var contextSize: Int { get }

    /// The number of tokens `text` encodes to.
    func tokenCount(for text: String) async throws -> Int

    /// The number of tokens of the prompt `request` renders to (chat template, instructions,
    /// tool definitions, schema), before any response.
    func promptTokenCount(for request: GenerationRequest) async throws -> Int

    /// Generates the model's next turn for `request`.
    ///
    /// - Parameter onText: called with each new piece of *response* text as it is decoded (never
    ///   with the text of a tool call), so the session can stream snapshots.
    /// - Returns: the full response text, or the tool calls the model made, with token counts.
    /// - Throws: ``LanguageModelSession/GenerationError`` where one applies (for example
    ///   `exceededContextWindowSize` when the response runs out of context), or any engine error.
    func generate(_ request: GenerationRequest, onText: @escaping @Sendable (String) -> Void) async throws
        -> GenerationOutput

    /// Prepares for a request that starts like `request`: loads weights, and may prefill the
    /// rendered prompt. Failures are ignored (it is a hint).
    func prewarm(_ request: GenerationRequest) async
}

/// One model turn to generate.
package struct GenerationRequest: Sendable {
    /// The whole conversation so far: instructions (with tool definitions), earlier turns, the
    /// new prompt, and any tool calls and outputs of this request.
    package var transcript: Transcript
    /// Tools the model may call in this turn (empty: none may be called).
    package var tools: [Transcript.ToolDefinition]
    /// The schema the response must follow (as JSON), or nil for free text.
    package var schema: GenerationSchema?
    /// Whether a description of ``schema`` goes into the prompt.
    package var includeSchemaInPrompt: Bool
    /// Sampling options of the prompt.
    package var options: GenerationOptions

    package init(
        transcript: Transcript, tools: [Transcript.ToolDefinition] = [], schema: GenerationSchema? = nil,
        includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()
    ) {
        self.transcript = transcript
        self.tools = tools
        self.schema = schema
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.options = options
    }
}

/// What one model turn produced.
package struct GenerationOutput: Sendable {
    package enum Content: Sendable, Equatable {
        /// The response text (JSON when the request had a schema).
        case text(String)
        /// Tool calls, to be run before the model continues.
        case toolCalls([Transcript.ToolCall])
    }

    package var content: Content
    /// Tokens in the rendered prompt.
    package var promptTokenCount: Int
    /// Prompt tokens served from the KV cache instead of being prefilled.
    package var cachedTokenCount: Int
    /// Tokens generated.
    package var outputTokenCount: Int

    package init(content: Content, promptTokenCount: Int, cachedTokenCount: Int = 0, outputTokenCount: Int) {
        self.content = content
        self.promptTokenCount = promptTokenCount
        self.cachedTokenCount = cachedTokenCount
        self.outputTokenCount = outputTokenCount
    }
}
