import ChatTemplates
import FoundationModels
import GGUF
import Tokenizers

/// Turns a request into the prompt tokens a model reads, through the model's own chat template
/// (messages, tool definitions and earlier tool calls in the template's own format).
package struct PromptRenderer: Sendable {
    let template: ChatTemplate?
    let tokenizer: Tokenizer
    let addsBOS: Bool
    /// Template variables besides the conversation (`bos_token`, `eos_token`).
    let extra: [String: TemplateValue]
    /// Whether tool definitions are passed to the template (it renders them and the model can
    /// call tools).
    let passesTools: Bool

    /// A renderer for the model in `file`: its chat template (`templateSource`, nil when it has
    /// none or it does not parse: ChatML is used), its tokenizer and its BOS setting.
    init(file: GGUFFile, tokenizer: Tokenizer, templateSource: String?, passesTools: Bool) {
        template = templateSource.flatMap { try? ChatTemplate($0) }
        self.tokenizer = tokenizer
        addsBOS = file.bool("tokenizer.ggml.add_bos_token") ?? false
        var extra: [String: TemplateValue] = [:]
        if let bos = tokenizer.bosTokenID { extra["bos_token"] = .string(tokenizer.decode([bos])) }
        if let eos = tokenizer.eosTokenID { extra["eos_token"] = .string(tokenizer.decode([eos])) }
        self.extra = extra
        self.passesTools = passesTools
    }

    /// The prompt tokens of `request`, ending with the opening of the assistant's turn.
    ///
    /// - Throws: ``LanguageModelError/unsupportedTranscriptContent(_:)`` when the model's chat
    ///   template fails on the conversation (a template may refuse some orders of roles).
    package func tokens(
        for request: LanguageModelExecutorGenerationRequest, images: ImageContexts = ImageContexts()
    ) throws -> [Int] {
        var tokens = tokenizer.encode(try text(for: request, images: images), parseSpecial: true)
        if addsBOS, let bos = tokenizer.bosTokenID, tokens.first != bos { tokens.insert(bos, at: 0) }
        return tokens
    }

    /// The prompt text of `request`.
    package func text(
        for request: LanguageModelExecutorGenerationRequest, images: ImageContexts = ImageContexts()
    ) throws -> String {
        let messages = Self.templateMessages(for: request, images: images)
        guard let template else { return Self.chatML(messages) }
        let definitions = passesTools ? Self.renderedTools(for: request) : []
        let tools = definitions.isEmpty ? nil : definitions.map(Self.templateTool)
        do {
            return try template.render(messages: messages, tools: tools, addGenerationPrompt: true, extra: extra)
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

    /// ChatML, for a model without a template.
    static func chatML(_ messages: [TemplateValue]) -> String {
        var text = ""
        for message in messages {
            text += "<|im_start|>" + (message["role"]?.stringValue ?? "user") + "\n"
            text += (message["content"]?.stringValue ?? "") + "<|im_end|>\n"
        }
        return text + "<|im_start|>assistant\n"
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
