/// One message of a conversation in the neutral form chat templates take.
package struct RenderedMessage: Sendable, Equatable {
    package enum Role: String, Sendable {
        case system, user, assistant, tool
    }

    package var role: Role
    package var content: String
    /// For an assistant message: the tool calls it made.
    package var toolCalls: [Transcript.ToolCall]
    /// For a tool message: the id of the call it answers, and the tool's name.
    package var toolCallID: String?
    package var toolName: String?

    package init(
        role: Role, content: String, toolCalls: [Transcript.ToolCall] = [], toolCallID: String? = nil,
        toolName: String? = nil
    ) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
        self.toolName = toolName
    }
}

extension GenerationRequest {
    /// The transcript as chat messages: instructions as the system message, prompts as user
    /// messages (the last one followed by the schema when ``includeSchemaInPrompt`` is set),
    /// responses and tool calls as assistant messages, tool outputs as tool messages.
    ///
    /// Tool definitions are not in the text: pass ``tools`` to the chat template, which knows the
    /// model's own format for them.
    package var messages: [RenderedMessage] {
        var messages: [RenderedMessage] = []
        let lastPrompt = transcript.entries.lastIndex { if case .prompt = $0 { true } else { false } }
        for (index, entry) in transcript.entries.enumerated() {
            switch entry {
            case .instructions(let instructions):
                messages.append(RenderedMessage(role: .system, content: instructions.segments.text))
            case .prompt(let prompt):
                var text = prompt.segments.text
                if index == lastPrompt, includeSchemaInPrompt, let schema {
                    text += "\n\n" + Self.schemaInstruction(for: schema)
                }
                messages.append(RenderedMessage(role: .user, content: text))
            case .toolCalls(let calls):
                messages.append(RenderedMessage(role: .assistant, content: "", toolCalls: Array(calls)))
            case .toolOutput(let output):
                messages.append(
                    RenderedMessage(
                        role: .tool, content: output.segments.text, toolCallID: output.id, toolName: output.toolName))
            case .response(let response):
                messages.append(RenderedMessage(role: .assistant, content: response.segments.text))
            }
        }
        return messages
    }

    /// The sentence and JSON Schema that tell the model the shape of its response.
    package static func schemaInstruction(for schema: GenerationSchema) -> String {
        "Respond with a JSON value that follows this JSON Schema:\n" + schema.jsonSchemaString
    }
}
