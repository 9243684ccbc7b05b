import ChatTemplates
import FoundationModels
import Inference
import Tokenizers

/// Turns a request into the prompt tokens a model reads: the transcript as chat-template
/// messages (tool definitions and earlier tool calls in the template's own format), rendered and
/// tokenized by the model's ``Inference/ChatFormat``, the one prompt path every caller shares.
package struct PromptRenderer: Sendable {
    let format: ChatFormat
    /// Whether tool definitions are passed to the template (it renders them and the model can
    /// call tools).
    let passesTools: Bool

    package init(format: ChatFormat, passesTools: Bool) {
        self.format = format
        self.passesTools = passesTools
    }

    var tokenizer: Tokenizer { format.tokenizer }

    /// The prompt tokens of `request`, ending with the opening of the assistant's turn.
    ///
    /// - Throws: ``LanguageModelError/unsupportedTranscriptContent(_:)`` when the model's chat
    ///   template fails on the conversation (a template may refuse some orders of roles);
    ///   `GenerationError.assetsUnavailable` when the model's template does not parse.
    package func tokens(
        for request: LanguageModelExecutorGenerationRequest, images: ImageContexts = ImageContexts()
    ) throws -> [Int] {
        format.tokens(ofPrompt: try text(for: request, images: images))
    }

    /// The prompt text of `request` (without the BOS token the tokenizer adds, if the model adds one).
    package func text(
        for request: LanguageModelExecutorGenerationRequest, images: ImageContexts = ImageContexts()
    ) throws -> String {
        let messages = Self.templateMessages(for: request, images: images)
        let definitions = passesTools ? Self.renderedTools(for: request) : []
        let tools = definitions.isEmpty ? nil : definitions.map(Self.templateTool)
        do {
            return try format.text(messages: messages, tools: tools)
        } catch let error as InferenceError {
            throw LanguageModelSession.GenerationError.assetsUnavailable(
                .init(debugDescription: "The model cannot be used: \(error)"))
        } catch {
            // The model and its file are fine: it is this conversation the template cannot take.
            throw LanguageModelError.unsupportedTranscriptContent(
                .init(
                    unsupportedContent: Array(request.transcript),
                    debugDescription: "The model's chat template cannot render this conversation: \(error)"))
        }
    }

    /// The number of tokens `text` encodes to, as plain text.
    package func tokenCount(of text: String) -> Int {
        tokenizer.encode(text, parseSpecial: false).count
    }

    /// The tools the model is shown: those of the session's instructions (the same in every
    /// turn, so the cache of earlier turns stays valid, even in a turn that may call none), or
    /// the request's when the transcript has no instructions.
    static func renderedTools(for request: LanguageModelExecutorGenerationRequest) -> [Transcript.ToolDefinition] {
        for entry in request.transcript {
            if case .instructions(let instructions) = entry { return instructions.toolDefinitions }
        }
        return request.enabledToolDefinitions
    }

    /// The conversation as template messages. Structured responses are written in the layout
    /// constrained decoding produced them in, and earlier prompts with the schema they were
    /// sent with, so a follow-up's prompt starts with the very tokens already in the KV cache.
    /// Empty instructions are left out, so that the template uses its own default system prompt.
    static func templateMessages(
        for request: LanguageModelExecutorGenerationRequest, images: ImageContexts = ImageContexts()
    ) -> [TemplateValue] {
        let conversation = request.conversation(images: images)
        let lastPrompt = conversation.lastIndex { if case .prompt = $0.entry { true } else { false } }
        var values: [TemplateValue] = []
        for (index, (entry, message)) in conversation.enumerated() {
            var content = message.content
            switch entry {
            case .response(let response):
                content = response.segments.map { segment in
                    if case .structure(let structure) = segment {
                        structure.content.spacedJSON
                    } else {
                        images.text(of: [segment])
                    }
                }.joined(separator: "\n")
            case .prompt(let prompt) where index != lastPrompt:
                // An earlier prompt reads as it was sent (with its schema, unless it was left
                // out), so the cache of that turn still matches.
                if let format = prompt.responseFormat, prompt.contextOptions.includeSchemaInPrompt ?? true {
                    content +=
                        "\n\n" + LanguageModelExecutorGenerationRequest.schemaInstruction(for: format.schema)
                }
            default:
                break
            }
            if message.role == .system && content.isEmpty { continue }
            var pairs: [(String, TemplateValue)] = [
                ("role", .string(message.role.rawValue)), ("content", .string(content)),
            ]
            if !message.toolCalls.isEmpty {
                pairs.append(("tool_calls", .array(message.toolCalls.map(templateCall))))
            }
            if let name = message.toolName { pairs.append(("name", .string(name))) }
            if let id = message.toolCallID { pairs.append(("tool_call_id", .string(id))) }
            values.append(.object(TemplateObject(pairs)))
        }
        return values
    }

    /// A call as chat templates take it: `{type: "function", function: {name, arguments}}`.
    static func templateCall(_ call: Transcript.ToolCall) -> TemplateValue {
        .object(
            TemplateObject([
                ("type", "function"),
                (
                    "function",
                    .object(
                        TemplateObject([("name", .string(call.toolName)), ("arguments", call.arguments.templateValue)]))
                ),
            ]))
    }

    /// A tool definition as chat templates take it (OpenAI's function format).
    static func templateTool(_ tool: Transcript.ToolDefinition) -> TemplateValue {
        .object(
            TemplateObject([
                ("type", "function"),
                (
                    "function",
                    .object(
                        TemplateObject([
                            ("name", .string(tool.name)), ("description", .string(tool.description)),
                            ("parameters", tool.parameters.jsonSchema(includeOrder: false).templateValue),
                        ]))
                ),
            ]))
    }

}

extension GeneratedContent {
    /// The content as a chat-template value: whole numbers as integers (so `tojson` writes `3`,
    /// not `3.0`), properties in order.
    var templateValue: TemplateValue {
        switch kind {
        case .null: return .none
        case .bool(let value): return .bool(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { return .int(Int(value)) }
            return .double(value)
        case .string(let value): return .string(value)
        case .array(let elements): return .array(elements.map(\.templateValue))
        case .structure(let properties, let orderedKeys):
            return .object(
                TemplateObject(orderedKeys.compactMap { key in properties[key].map { (key, $0.templateValue) } }))
        }
    }

    /// The content as JSON in the layout constrained decoding writes: `": "` after a key, `", "`
    /// between members and elements.
    var spacedJSON: String {
        var output = ""
        writeJSON(to: &output, comma: ", ", colon: ": ")
        return output
    }
}
