import Foundation
import FoundationModels

/// The body of a streamed `POST /chat/completions` for one request of the seam: the transcript
/// as `messages`, the enabled tools as `tools`, the schema as `response_format`, the options as
/// sampling parameters.
enum ChatRequestBody {
    /// A request the endpoint cannot be asked.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func make(for request: LanguageModelExecutorGenerationRequest, model: String) throws -> Data {
        var body: [String: Any] = [
            "model": model, "stream": true, "stream_options": ["include_usage": true],
            "messages": try messages(request.transcript),
        ]
        if !request.enabledToolDefinitions.isEmpty {
            body["tools"] = try request.enabledToolDefinitions.map { definition -> [String: Any] in
                [
                    "type": "function",
                    "function": [
                        "name": definition.name, "description": definition.description,
                        "parameters": try json(definition.parameters.jsonSchemaString),
                    ],
                ]
            }
            switch request.generationOptions.toolCallingMode?.kind {
            case .required? where !toolsAnswered(request.transcript):
                // Required until the tools have answered once in this response, as the local
                // engine does; asking again would call them forever.
                body["tool_choice"] = "required"
            case .disallowed?: body["tool_choice"] = "none"
            default: body["tool_choice"] = "auto"
            }
        }
        if let schema = request.schema {
            body["response_format"] = [
                "type": "json_schema",
                "json_schema": [
                    "name": jsonSchemaName(schema.root.definedName ?? "response"), "strict": true,
                    "schema": try json(schema.jsonSchemaString),
                ],
            ]
        }
        let options = request.generationOptions
        if let temperature = options.temperature { body["temperature"] = temperature }
        if let maximum = options.maximumResponseTokens { body["max_tokens"] = maximum }
        switch options.sampling?.kind {
        case .greedy?:
            body["temperature"] = 0
        case .randomTopK(_, let seed)?:
            // OpenAI's API has no top-k; the seed is kept.
            if let seed { body["seed"] = Int64(bitPattern: seed) }
        case .randomProbabilityThreshold(let threshold, let seed)?:
            body["top_p"] = threshold
            if let seed { body["seed"] = Int64(bitPattern: seed) }
        case nil:
            break
        }
        return try JSONSerialization.data(withJSONObject: body, options: [.withoutEscapingSlashes])
    }

    /// Whether tools have answered since the last prompt.
    static func toolsAnswered(_ transcript: Transcript) -> Bool {
        let start = transcript.lastIndex { if case .prompt = $0 { true } else { false } } ?? transcript.startIndex
        return transcript[start...].contains { if case .toolOutput = $0 { true } else { false } }
    }

    /// The transcript as OpenAI messages.
    static func messages(_ transcript: Transcript) throws -> [[String: Any]] {
        var messages: [[String: Any]] = []
        for entry in transcript {
            switch entry {
            case .instructions(let instructions):
                let text = try self.text(instructions.segments)
                if !text.isEmpty { messages.append(["role": "system", "content": text]) }
            case .prompt(let prompt):
                messages.append(["role": "user", "content": try text(prompt.segments)])
            case .response(let response):
                messages.append(["role": "assistant", "content": try text(response.segments)])
            case .toolCalls(let calls):
                messages.append([
                    "role": "assistant", "content": NSNull(),
                    "tool_calls": calls.map { call -> [String: Any] in
                        [
                            "id": call.id, "type": "function",
                            "function": ["name": call.toolName, "arguments": call.arguments.jsonString],
                        ]
                    },
                ])
            case .toolOutput(let output):
                messages.append(["role": "tool", "tool_call_id": output.id, "content": try text(output.segments)])
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

    private static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    /// OpenAI's schema names are `^[a-zA-Z0-9_-]{1,64}$`.
    private static func jsonSchemaName(_ name: String) -> String {
        let cleaned = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" }.prefix(64))
        return cleaned.isEmpty ? "response" : cleaned
    }
}
