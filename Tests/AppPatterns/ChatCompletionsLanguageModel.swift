import Foundation
import FoundationModels

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `LanguageModel` behind any OpenAI-compatible `/chat/completions` endpoint, with the public
/// shape of the one in Apple's `foundation-models-utilities` (written here as an app would
/// write it, with the framework's public API only).
///
/// ```swift
/// let model = ChatCompletionsLanguageModel(
///     name: "qwen2.5-coder-0.5b", url: URL(string: "http://127.0.0.1:8080")!,
///     additionalHeaders: ["Authorization": "Bearer \(token)"])
/// let session = LanguageModelSession(model: model)
/// ```
public struct ChatCompletionsLanguageModel: LanguageModel {
    /// The model name sent in each request.
    public var name: String
    /// The endpoint's base URL; `/v1/chat/completions` is appended (or `/chat/completions` when
    /// the URL already has a version segment such as `v1`).
    public var url: URL
    /// Headers added to every request (an `Authorization` header, say).
    public var additionalHeaders: [String: String]
    /// Whether the endpoint enforces `response_format` JSON schemas.
    public var supportsGuidedGeneration: Bool
    /// How long a request may take (from the session configuration the app gave).
    private var timeout: TimeInterval

    public init(
        name: String, url: URL, additionalHeaders: [String: String] = [:], supportsGuidedGeneration: Bool = true,
        urlSessionConfiguration: URLSessionConfiguration? = nil
    ) {
        self.name = name
        self.url = url
        self.additionalHeaders = additionalHeaders
        self.supportsGuidedGeneration = supportsGuidedGeneration
        timeout = urlSessionConfiguration?.timeoutIntervalForRequest ?? 120
    }

    public var capabilities: LanguageModelCapabilities {
        supportsGuidedGeneration
            ? LanguageModelCapabilities([.vision, .toolCalling, .reasoning, .guidedGeneration])
            : LanguageModelCapabilities([.vision, .toolCalling, .reasoning])
    }

    public var executorConfiguration: Executor.Configuration {
        Executor.Configuration(modelName: name, url: url, additionalHeaders: additionalHeaders, timeout: timeout)
    }

    /// An error the endpoint returned in its body.
    public struct APIError: LocalizedError {
        public var message: String
        public var type: String?
        public var param: String?
        public var code: String?

        public init(message: String, type: String? = nil, param: String? = nil, code: String? = nil) {
            self.message = message
            self.type = type
            self.param = param
            self.code = code
        }

        public var errorDescription: String? { message }
    }

    /// A request that could not be made, or a response that could not be read.
    public enum RequestError: LocalizedError {
        case invalidRequest(_ description: String)
        case invalidStreamData
        case httpError(statusCode: Int, data: Data)

        public var errorDescription: String? {
            switch self {
            case .invalidRequest(let description): "Invalid request: \(description)"
            case .invalidStreamData: "Invalid streaming data received"
            case .httpError(let status, let data):
                "HTTP error with status code \(status): \(String(decoding: data, as: UTF8.self))"
            }
        }
    }

    public struct Executor: LanguageModelExecutor {
        public typealias Model = ChatCompletionsLanguageModel

        public struct Configuration: Hashable, Sendable {
            fileprivate let modelName: String
            fileprivate let url: URL
            fileprivate let additionalHeaders: [String: String]
            fileprivate let timeout: TimeInterval
        }

        private let configuration: Configuration

        public init(configuration: Configuration) {
            self.configuration = configuration
        }

        public func respond(
            to request: LanguageModelExecutorGenerationRequest, model: ChatCompletionsLanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            var urlRequest = URLRequest(url: endpoint, timeoutInterval: configuration.timeout)
            urlRequest.httpMethod = "POST"
            let headers = ["Content-Type": "application/json", "Accept": "text/event-stream"].merging(
                configuration.additionalHeaders, uniquingKeysWith: { _, custom in custom })
            for (field, value) in headers { urlRequest.setValue(value, forHTTPHeaderField: field) }
            urlRequest.httpBody = try JSONSerialization.data(withJSONObject: try body(for: request))
            let (data, response) = try await URLSession(configuration: .ephemeral).data(for: urlRequest)
            guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200 else {
                throw RequestError.httpError(statusCode: (response as? HTTPURLResponse)?.statusCode ?? 0, data: data)
            }
            var reader = ChunkReader()
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                for event in try reader.events(fromLine: String(line)) { await channel.send(event) }
            }
        }

        private var endpoint: URL {
            let versioned = configuration.url.pathComponents.contains { $0.wholeMatch(of: #/v\d+/#) != nil }
            return configuration.url.appendingPathComponent(versioned ? "chat/completions" : "v1/chat/completions")
        }

        /// The request as the endpoint's JSON.
        private func body(for request: LanguageModelExecutorGenerationRequest) throws -> [String: Any] {
            var body: [String: Any] = [
                "model": configuration.modelName, "messages": try messages(request.transcript), "stream": true,
                "stream_options": ["include_usage": true],
            ]
            let options = request.generationOptions
            if let temperature = options.temperature { body["temperature"] = temperature }
            if let maximum = options.maximumResponseTokens { body["max_completion_tokens"] = maximum }
            if let mode = options.samplingMode {
                switch mode.kind {
                case .greedy: body["temperature"] = 0
                case .randomTopK: throw RequestError.invalidRequest("Top K sampling is not supported")
                case .randomProbabilityThreshold(let threshold, _): body["top_p"] = threshold
                }
            }
            if !request.enabledToolDefinitions.isEmpty {
                body["tools"] = try request.enabledToolDefinitions.map { tool in
                    [
                        "type": "function",
                        "function": [
                            "name": tool.name, "description": tool.description,
                            "parameters": try Self.json(tool.parameters),
                        ],
                    ]
                }
                switch options.toolCallingMode?.kind {
                case .required?: body["tool_choice"] = "required"
                case .disallowed?: body["tool_choice"] = "none"
                default: body["tool_choice"] = "auto"
                }
            }
            if let schema = request.schema {
                body["response_format"] = [
                    "type": "json_schema",
                    "json_schema": ["name": schema.name, "schema": try Self.json(schema), "strict": true],
                ]
            }
            return body
        }

        private static func json(_ schema: GenerationSchema) throws -> Any {
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(schema))
        }

        /// The transcript as chat messages: instructions are the system message, tool calls
        /// ride on an assistant message, reasoning on the next assistant message.
        private func messages(_ transcript: Transcript) throws -> [[String: Any]] {
            var messages: [[String: Any]] = []
            var reasoning: String?
            for entry in transcript {
                switch entry {
                case .instructions(let instructions):
                    messages.append(["role": "system", "content": try content(instructions.segments)])
                case .prompt(let prompt):
                    messages.append(["role": "user", "content": try content(prompt.segments)])
                case .toolCalls(let calls):
                    var message: [String: Any] = [
                        "role": "assistant",
                        "tool_calls": calls.map { call in
                            [
                                "id": call.id, "type": "function",
                                "function": ["name": call.toolName, "arguments": call.arguments.jsonString],
                            ]
                        },
                    ]
                    if let pending = reasoning { message["reasoning_content"] = pending }
                    reasoning = nil
                    messages.append(message)
                case .toolOutput(let output):
                    messages.append([
                        "role": "tool", "tool_call_id": output.id, "content": try content(output.segments),
                    ])
                case .response(let response):
                    var message: [String: Any] = ["role": "assistant", "content": try content(response.segments)]
                    if let pending = reasoning { message["reasoning_content"] = pending }
                    reasoning = nil
                    messages.append(message)
                case .reasoning(let entry):
                    reasoning =
                        (reasoning ?? "")
                        + entry.segments.compactMap { segment -> String? in
                            if case .text(let text) = segment { return text.content }
                            return nil
                        }.joined()
                @unknown default:
                    continue
                }
            }
            return messages
        }

        /// Segments as message content: text alone as a string, else a list of parts.
        private func content(_ segments: [Transcript.Segment]) throws -> Any {
            let parts = try segments.map { segment -> [String: Any] in
                switch segment {
                case .text(let text): return ["type": "text", "text": text.content]
                case .structure(let structure): return ["type": "text", "text": structure.content.jsonString]
                case .attachment(let attachment):
                    switch attachment.content {
                    case .image(let image):
                        guard let data = image.cgImage.encodedData else {
                            throw RequestError.invalidRequest(
                                "the image \(attachment.label ?? attachment.id) cannot be read")
                        }
                        let type = data.starts(with: [0x89, 0x50]) ? "image/png" : "image/jpeg"
                        let url = "data:\(type);base64,\(data.base64EncodedString())"
                        return ["type": "image_url", "image_url": ["url": url]]
                    @unknown default:
                        throw RequestError.invalidRequest("an attachment of a kind this model does not take")
                    }
                case .custom(let custom): return ["type": "text", "text": custom.description]
                @unknown default:
                    throw RequestError.invalidRequest("a segment of a kind this model does not take")
                }
            }
            if parts.count == 1, let text = parts[0]["text"] as? String { return text }
            return parts
        }
    }
}

/// Turns the server-sent events of a streamed completion into channel events. Each stream's
/// response, reasoning and tool calls get one entry id each, so the session coalesces them.
/// (`nonisolated`: the executor uses it off the main actor, which an Xcode 26 app target would
/// otherwise make its home.)
nonisolated private struct ChunkReader {
    private let responseID = UUID().uuidString
    private let reasoningID = UUID().uuidString
    private let toolCallsID = UUID().uuidString
    /// The id and name of each tool call by index (later deltas carry only arguments).
    private var calls: [Int: (id: String, name: String)] = [:]

    mutating func events(fromLine line: String) throws -> [LanguageModelExecutorGenerationChannel.Event] {
        let line = line.trimmingCharacters(in: .whitespaces)
        guard line.hasPrefix("data:") else { return [] }
        let payload = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
        guard payload != "[DONE]" else { return [] }
        guard let object = try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] else {
            throw ChatCompletionsLanguageModel.RequestError.invalidStreamData
        }
        if let error = object["error"] as? [String: Any] {
            throw ChatCompletionsLanguageModel.APIError(
                message: error["message"] as? String ?? "unknown error", type: error["type"] as? String,
                param: error["param"] as? String, code: error["code"] as? String)
        }
        var events: [LanguageModelExecutorGenerationChannel.Event] = []
        let choices = object["choices"] as? [[String: Any]] ?? []
        if let delta = choices.first?["delta"] as? [String: Any] {
            if let reasoning = delta["reasoning_content"] as? String, !reasoning.isEmpty {
                events.append(.reasoning(entryID: reasoningID, action: .appendText(reasoning, tokenCount: 1)))
            }
            if let toolCalls = delta["tool_calls"] as? [[String: Any]] {
                for call in toolCalls {
                    let index = call["index"] as? Int ?? 0
                    let function = call["function"] as? [String: Any]
                    let known = calls[index] ?? ("", "")
                    let routing = (
                        id: known.id + (call["id"] as? String ?? ""),
                        name: known.name + (function?["name"] as? String ?? "")
                    )
                    calls[index] = routing
                    guard !routing.id.isEmpty, !routing.name.isEmpty else { continue }
                    events.append(
                        .toolCalls(
                            entryID: toolCallsID,
                            action: .toolCall(
                                id: routing.id, name: routing.name,
                                action: .appendArguments(function?["arguments"] as? String ?? "", tokenCount: 1))))
                }
            } else if let text = delta["content"] as? String, !text.isEmpty {
                events.append(.response(entryID: responseID, action: .appendText(text, tokenCount: 1)))
            }
        }
        if let usage = object["usage"] as? [String: Any] {
            let prompt = usage["prompt_tokens"] as? Int ?? 0
            let completion = usage["completion_tokens"] as? Int ?? 0
            let cached = (usage["prompt_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int ?? 0
            let reasoning = (usage["completion_tokens_details"] as? [String: Any])?["reasoning_tokens"] as? Int ?? 0
            events.append(
                .response(
                    entryID: responseID,
                    action: .updateUsage(
                        input: .init(totalTokenCount: prompt, cachedTokenCount: cached),
                        output: .init(totalTokenCount: completion, reasoningTokenCount: reasoning))))
        }
        return events
    }
}
