import Foundation
import FoundationModels

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

extension LanguageModelExecutorGenerationRequest {
    /// A request for the engine's tests and tools: the transcript, the tools the model may call,
    /// the schema, and the options.
    package init(
        transcript: Transcript, tools: [Transcript.ToolDefinition] = [], schema: GenerationSchema? = nil,
        includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions()
    ) {
        self.init(
            id: UUID(), transcript: transcript, enabledTools: tools, schema: schema, generationOptions: options,
            contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), metadata: [:])
    }

    /// The transcript as chat messages: instructions as the system message, prompts as user
    /// messages (the last one followed by the schema when the schema goes into the prompt),
    /// responses and tool calls as assistant messages, tool outputs as tool messages. Reasoning
    /// is left out (the local models do not reason). An image is the text ``ImageContexts``
    /// gives for it.
    ///
    /// Tool definitions are not in the text: they go to the chat template, which knows the
    /// model's own format for them.
    package var messages: [RenderedMessage] { messages(images: ImageContexts()) }

    package func messages(images: ImageContexts) -> [RenderedMessage] {
        conversation(images: images).map(\.message)
    }

    /// ``messages(images:)`` with the transcript entry each message comes from.
    package func conversation(images: ImageContexts = ImageContexts()) -> [(
        entry: Transcript.Entry, message: RenderedMessage
    )] {
        var messages: [(entry: Transcript.Entry, message: RenderedMessage)] = []
        let lastPrompt = transcript.lastIndex { if case .prompt = $0 { true } else { false } }
        for (index, entry) in transcript.enumerated() {
            switch entry {
            case .instructions(let instructions):
                messages.append(
                    (entry, RenderedMessage(role: .system, content: images.text(of: instructions.segments))))
            case .prompt(let prompt):
                var text = images.text(of: prompt.segments)
                if index == lastPrompt, includesSchemaInPrompt, let schema {
                    text += "\n\n" + Self.schemaInstruction(for: schema)
                }
                messages.append((entry, RenderedMessage(role: .user, content: text)))
            case .toolCalls(let calls):
                messages.append((entry, RenderedMessage(role: .assistant, content: "", toolCalls: Array(calls))))
            case .toolOutput(let output):
                messages.append(
                    (
                        entry,
                        RenderedMessage(
                            role: .tool, content: images.text(of: output.segments), toolCallID: output.id,
                            toolName: output.toolName)
                    ))
            case .response(let response):
                messages.append((entry, RenderedMessage(role: .assistant, content: images.text(of: response.segments))))
            case .reasoning:
                continue
            }
        }
        return messages
    }

    /// The sentence and JSON Schema that tell the model the shape of its response.
    package static func schemaInstruction(for schema: GenerationSchema) -> String {
        "Respond with a JSON value that follows this JSON Schema:\n" + schema.jsonSchemaString
    }
}
