import Foundation
import FoundationModels
import OpenAIWire

/// The body of a streamed `POST /chat/completions` for one request of the seam: the transcript
/// as `messages`, the enabled tools as `tools`, the schema as `response_format`, the options as
/// sampling parameters.
enum ChatRequestBody {
    /// A request the endpoint cannot be asked.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func make(for request: LanguageModelExecutorGenerationRequest, model: String) throws -> Data {
        var body = ChatCompletionRequest(model: model, messages: try messages(request.transcript))
        body.stream = true
        body.streamOptions = .init(includeUsage: true)
        if !request.enabledToolDefinitions.isEmpty {
            body.tools = try request.enabledToolDefinitions.map { definition in
                ChatTool(
                    function: .init(
                        name: definition.name, description: definition.description,
                        parameters: try json(definition.parameters.jsonSchemaString)))
            }
            switch request.generationOptions.toolCallingMode?.kind {
            case .required? where !toolsAnswered(request.transcript):
                // Required until the tools have answered once in this response, as the local
                // engine does; asking again would call them forever.
                body.toolChoice = .required
            case .disallowed?: body.toolChoice = ChatCompletionRequest.ToolChoice.none
            default: body.toolChoice = .auto
            }
        }
        if let schema = request.schema {
            body.responseFormat = .init(
                type: "json_schema",
                jsonSchema: .init(
                    name: jsonSchemaName(schema.root.definedName ?? "response"),
                    schema: try json(schema.jsonSchemaString), strict: true))
        }
        let options = request.generationOptions
        body.temperature = options.temperature
        body.maxTokens = options.maximumResponseTokens
        switch options.sampling?.kind {
        case .greedy?:
            body.temperature = 0
        case .randomTopK(_, let seed)?:
            // OpenAI's API has no top-k; the seed is kept.
            body.seed = seed.map { Int64(bitPattern: $0) }
        case .randomProbabilityThreshold(let threshold, let seed)?:
            body.topP = threshold
            body.seed = seed.map { Int64(bitPattern: $0) }
        case nil:
            break
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try encoder.encode(body)
    }

    /// Whether tools have answered since the last prompt.
    static func toolsAnswered(_ transcript: Transcript) -> Bool {
        let start = transcript.lastIndex { if case .prompt = $0 { true } else { false } } ?? transcript.startIndex
        return transcript[start...].contains { if case .toolOutput = $0 { true } else { false } }
    }

    /// The transcript as OpenAI messages.
    static func messages(_ transcript: Transcript) throws -> [OpenAIMessage] {
        var messages: [OpenAIMessage] = []
        for entry in transcript {
            switch entry {
            case .instructions(let instructions):
                let text = try self.text(instructions.segments)
                if !text.isEmpty { messages.append(OpenAIMessage(role: "system", content: text)) }
            case .prompt(let prompt):
                messages.append(OpenAIMessage(role: "user", content: try text(prompt.segments)))
            case .response(let response):
                messages.append(OpenAIMessage(role: "assistant", content: try text(response.segments)))
            case .toolCalls(let calls):
                messages.append(
                    OpenAIMessage(
                        role: "assistant", content: nil,
                        toolCalls: calls.map { call in
                            ToolCallValue(
                                id: call.id, function: .init(name: call.toolName, arguments: call.arguments.jsonString))
                        }))
            case .toolOutput(let output):
                messages.append(OpenAIMessage(role: "tool", content: try text(output.segments), toolCallID: output.id))
            case .reasoning:
                break  // the model's own reasoning is not sent back
            }
        }
        return messages
    }

    private static func text(_ segments: [Transcript.Segment]) throws -> String {
        try segments.map { segment -> String in
            switch segment {
            case .text(let text): return text.content
            case .structure(let structure): return structure.content.jsonString
            case .attachment:
                throw Failure(description: "an OpenAI-compatible model here takes text only, not images")
            case .custom(let custom): return custom.description
            }
        }.joined(separator: "\n")
    }

    private static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// OpenAI's schema names are `^[a-zA-Z0-9_-]{1,64}$`.
    private static func jsonSchemaName(_ name: String) -> String {
        let cleaned = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" }.prefix(64))
        return cleaned.isEmpty ? "response" : cleaned
    }
}
