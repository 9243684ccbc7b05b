import Foundation
import FoundationModels

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A language model behind any OpenAI-compatible chat completions endpoint (another
/// `sotto serve`, llama.cpp's `llama-server`, a hosted API), for `LanguageModelSession`, in the
/// shape of the iOS 27 model seam: text streams as it is generated, a `@Generable` schema is
/// sent as `response_format` `json_schema`, and the model's `tool_calls` become the session's
/// tool calls (the session runs the tools and asks again with their output).
///
/// ```swift
/// let remote = OpenAICompatibleModel(
///     baseURL: URL(string: "http://127.0.0.1:8081/v1")!, model: "qwen2.5-coder-0.5b", apiKey: token)
/// let session = LanguageModelSession(model: remote)
/// for try await snapshot in session.streamResponse(to: "Say hello") { print(snapshot.content) }
/// ```
///
/// Nothing is sent anywhere unless such a model is made: the app decides, from its own
/// configuration.
public struct OpenAICompatibleModel: LanguageModel {
    public typealias Executor = OpenAICompatibleExecutor

    /// Where requests go and as whom.
    public struct Endpoint: Hashable, Sendable {
        /// The API's base URL, ending in `/v1` (requests go to `<baseURL>/chat/completions`).
        public var baseURL: URL
        /// The `model` of each request.
        public var model: String
        /// Sent as `Authorization: Bearer <apiKey>` when set.
        public var apiKey: String?
        /// How long to wait for the first byte of an answer, and between bytes of a stream.
        public var timeout: TimeInterval
        /// How errors name the endpoint ("the fallback server"): they reach users, so they name
        /// no address.
        public var name: String

        public init(
            baseURL: URL, model: String, apiKey: String? = nil, timeout: TimeInterval = 120,
            name: String = "the endpoint"
        ) {
            self.baseURL = baseURL
            self.model = model
            self.apiKey = apiKey
            self.timeout = timeout
            self.name = name
        }

        /// The base URL as it may be shown or stored: without the user and password a URL such
        /// as `http://user:pass@host/v1` carries (those stay in ``baseURL``, where the request
        /// is made), and without a query or fragment.
        public var displayURL: String { Self.display(baseURL) }

        /// `url` without user info, query or fragment.
        public static func display(_ url: URL) -> String {
            guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(an endpoint)" }
            parts.user = nil
            parts.password = nil
            parts.query = nil
            parts.fragment = nil
            return parts.string ?? "(an endpoint)"
        }
    }

    public let endpoint: Endpoint

    public init(endpoint: Endpoint) {
        self.endpoint = endpoint
    }

    public init(baseURL: URL, model: String, apiKey: String? = nil) {
        self.init(endpoint: Endpoint(baseURL: baseURL, model: model, apiKey: apiKey))
    }

    /// Guided generation (by `response_format` `json_schema`) and tool calling; no images.
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(capabilities: [.guidedGeneration, .toolCalling])
    }

    public var executorConfiguration: Endpoint { endpoint }
}

/// Runs an ``OpenAICompatibleModel``'s requests: one streamed `POST /chat/completions` per
/// model turn.
public struct OpenAICompatibleExecutor: LanguageModelExecutor {
    public typealias Model = OpenAICompatibleModel
    public typealias Configuration = OpenAICompatibleModel.Endpoint

    private let endpoint: OpenAICompatibleModel.Endpoint

    public init(configuration: Configuration) {
        endpoint = configuration
    }

    nonisolated(nonsending) public func respond(
        to request: LanguageModelExecutorGenerationRequest, model: OpenAICompatibleModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let body = try ChatRequestBody.make(for: request, model: model.endpoint.model)
        var urlRequest = URLRequest(url: model.endpoint.baseURL.appendingPathComponent("chat/completions"))
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = body
        urlRequest.timeoutInterval = model.endpoint.timeout
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let key = model.endpoint.apiKey { urlRequest.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        var decoder = ChunkDecoder()
        do {
            for try await line in EventStreamClient.lines(of: urlRequest) {
                guard line.hasPrefix("data:") else { continue }
                let data = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                if data == "[DONE]" { break }
                for event in try decoder.events(fromChunk: Data(data.utf8)) {
                    await channel.send(event)
                }
            }
        } catch let error as OpenAIEndpointError {
            try Task.checkCancellation()
            throw Self.generationError(error, endpoint: model.endpoint.name)
        }
        for event in decoder.finish() { await channel.send(event) }
    }

    /// An endpoint's failure as the session's errors, so that an app handles a remote model's
    /// as it does the local one's: 429 is rate limiting, a context overflow is one, anything
    /// else (no answer, a bad key, a 5xx) means the model cannot be used now.
    static func generationError(_ error: OpenAIEndpointError, endpoint: String = "the endpoint")
        -> LanguageModelSession.GenerationError
    {
        let context = LanguageModelSession.GenerationError.Context(
            debugDescription: error.description(naming: endpoint))
        if error.status == 429 { return .rateLimited(context) }
        if error.code == "context_length_exceeded" { return .exceededContextWindowSize(context) }
        return .assetsUnavailable(context)
    }
}
