import Foundation
import FoundationModels
import HTTPCore
import OpenAIWire
import ServerKit
import Synchronization

/// The OpenAI-compatible API: `GET /v1/models` and `POST /v1/chat/completions` (streamed as
/// server-sent events or whole), on the server's one model, so that OpenAI's clients, editors
/// and tools can use it. The API key is a Sotto token; errors are in OpenAI's shape.
///
/// The routes authenticate themselves (with the server's token check) so that a bad key gets
/// OpenAI's 401, not the chat API's.
package struct OpenAIAPI: Sendable {
    package let model: ServerModel
    package let authenticate: @Sendable (HTTPRequest) async throws -> TokenClaims
    /// Completions admitted at once (running or waiting for the engine); more get 429.
    package let queue: CompletionQueue

    /// How many completions a server admits at once, running or waiting for the engine: the
    /// engine decodes up to 16 sequences of a model in one batch.
    package static let defaultQueueCapacity = 16

    package init(
        model: ServerModel, authenticate: @escaping @Sendable (HTTPRequest) async throws -> TokenClaims,
        queue: CompletionQueue
    ) {
        self.model = model
        self.authenticate = authenticate
        self.queue = queue
    }

    /// Whether `path` is under the API (`/v1/…`): errors there are in OpenAI's shape, the HTTP
    /// layer's own included.
    package static func owns(_ path: String) -> Bool { path == "/v1" || path.hasPrefix("/v1/") }

    package func add(to routes: inout RouteList) {
        routes.add(
            "GET", "/v1/models", authenticated: false,
            APIOperation(
                id: "openAIListModels",
                summary:
                    "OpenAI-compatible: the model this server runs (empty when it has none). API key: a Sotto token.",
                answers: [.init(200, "The models.", OpenAISchemas.modelList)], authenticatesItself: true)
        ) { context in
            await answer(context) {
                _ = try await authenticate(context.request)
                var models: [OpenAIModelEntry] = []
                if model.model != nil, let name = model.name {
                    models.append(OpenAIModelEntry(id: name, created: 0, ownedBy: "sotto"))
                }
                // How many completions are running or waiting: a client (and the tests) can see a
                // dropped stream's generation stop.
                return JSONBody.response(OpenAIModelList(data: models)).adding(
                    "X-Sotto-Completions", String(queue.admitted))
            }
        }
        routes.add(
            "POST", "/v1/chat/completions", authenticated: false,
            APIOperation(
                id: "openAIChatCompletions",
                summary:
                    "OpenAI-compatible chat completion on the server's model: whole, or streamed as server-sent events (stream: true). API key: a Sotto token.",
                body: OpenAISchemas.chatCompletionRequest,
                answers: [
                    .init(200, "The completion (or, streamed, text/event-stream chunks).", OpenAISchemas.chatCompletion)
                ],
                errors: [404, 503], authenticatesItself: true)
        ) { context in
            await answer(context) { try await completion(context) }
        }
    }

    /// Runs `body`, answering what it throws in OpenAI's shape.
    private func answer(_ context: RequestContext, _ body: () async throws -> HTTPResponse) async -> HTTPResponse {
        do {
            return try await body()
        } catch {
            let answer = OpenAIError(error, requestID: context.requestID)
            if answer.status >= 500 && answer.status != 503 {
                Router.standardErrorLog(
                    "request \(context.requestID) \(context.request.method) \(context.request.path): \(error)")
            }
            return answer.response
        }
    }

    private func completion(_ context: RequestContext) async throws -> HTTPResponse {
        _ = try await authenticate(context.request)
        let request = try decode(context.request)
        let body =
            (try? GeneratedContent(json: String(decoding: context.request.body, as: UTF8.self)))
            ?? GeneratedContent(kind: .null)
        let plan = try request.plan(body: body)
        guard let systemModel = model.model, let name = model.name else {
            throw OpenAIError(
                status: 503, message: model.message, type: "server_error", param: nil, code: "model_unavailable")
        }
        guard request.model == name else {
            throw OpenAIError(
                status: 404, message: "The model '\(request.model)' does not exist on this server; it runs '\(name)'.",
                type: "invalid_request_error", param: "model", code: "model_not_found")
        }
        guard queue.admit() else {
            throw OpenAIError(
                status: 429, message: "The model's queue is full (\(queue.capacity) requests); retry shortly.",
                type: "rate_limit_error", param: nil, code: "queue_full")
        }
        let runner = CompletionRunner(model: systemModel)
        let id = "chatcmpl-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let created = Int(Date().timeIntervalSince1970)
        if plan.stream {
            return stream(plan, runner: runner, id: id, created: created, modelName: name)
        }
        defer { queue.leave() }
        // The handler awaits the generation (the queue bounds how many do); a client that hangs up
        // meanwhile cancels it, as a streamed one does.
        let task = Task(executorPreference: ModelExecutor.completions) {
            try await runner.run(plan) { _ in true }
        }
        context.request.hangUp?.onHangUp { task.cancel() }
        let outcome: CompletionRunner.Outcome
        do {
            outcome = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch is CancellationError where context.request.hangUp?.hasHungUp == true {
            // Nobody reads this answer; a status below 500 keeps it out of the error log.
            throw OpenAIError(
                status: 499, message: "The client hung up; the generation was stopped.", type: "invalid_request_error",
                param: nil, code: "client_closed_request")
        } catch {
            throw Self.translate(error)
        }
        let message = OpenAICompletion.Message(
            role: "assistant", content: outcome.toolCalls.isEmpty || !outcome.text.isEmpty ? outcome.text : nil,
            toolCalls: outcome.toolCalls.isEmpty ? nil : outcome.toolCalls)
        return JSONBody.response(
            OpenAICompletion(
                id: id, created: created, model: name,
                choices: [.init(index: 0, message: message, finishReason: outcome.finishReason)],
                usage: .init(outcome)))
    }

    /// A streamed completion: the response goes out at once; a task writes its chunks, and a
    /// client that hangs up cancels that task and with it the generation.
    private func stream(
        _ plan: CompletionPlan, runner: CompletionRunner, id: String, created: Int, modelName: String
    ) -> HTTPResponse {
        let stream = HTTPBodyStream()
        let queue = self.queue
        let task = Task(executorPreference: ModelExecutor.completions) {
            defer { queue.leave() }
            let send: @Sendable (OpenAIChunk) async -> Bool = { chunk in
                guard let bytes = try? JSONBody.encode(chunk) else { return false }
                return await stream.write(Array("data: ".utf8) + bytes + Array("\n\n".utf8))
            }
            let chunk: @Sendable (OpenAIChunk.Delta, String?) -> OpenAIChunk = { delta, finish in
                OpenAIChunk(
                    id: id, created: created, model: modelName,
                    choices: [.init(index: 0, delta: delta, finishReason: finish)], usage: nil)
            }
            guard await send(chunk(.init(role: "assistant", content: ""), nil)) else { return }
            do {
                let outcome: CompletionRunner.Outcome
                do {
                    outcome = try await runner.run(plan) { text in await send(chunk(.init(content: text), nil)) }
                } catch {
                    throw Self.translate(error)
                }
                for (index, call) in outcome.toolCalls.enumerated() {
                    let delta = OpenAIChunk.Delta(
                        toolCalls: [
                            .init(
                                index: index, id: call.id, type: "function",
                                function: .init(name: call.function.name, arguments: call.function.arguments))
                        ])
                    guard await send(chunk(delta, nil)) else { return }
                }
                guard await send(chunk(.init(), outcome.finishReason)) else { return }
                if plan.includeUsage {
                    let usage = OpenAIChunk(
                        id: id, created: created, model: modelName, choices: [], usage: .init(outcome))
                    guard await send(usage) else { return }
                }
            } catch is CancellationError {
                return
            } catch {
                // The head is sent: an error is one more event, as OpenAI's streams carry them.
                let answer = OpenAIError(error, requestID: id)
                struct ErrorEvent: Encodable {
                    struct Inner: Encodable {
                        var message: String
                        var type: String
                        var code: String?
                    }
                    var error: Inner
                }
                if let bytes = try? JSONBody.encode(
                    ErrorEvent(error: .init(message: answer.message, type: answer.type, code: answer.code)))
                {
                    await stream.write(Array("data: ".utf8) + bytes + Array("\n\n".utf8))
                }
            }
            await stream.write("data: [DONE]\n\n")
            stream.finish()
        }
        stream.onHangUp { task.cancel() }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            stream: stream)
    }

    /// The request body; a decoding failure names its field as `param`.
    private func decode(_ request: HTTPRequest) throws -> ChatCompletionRequest {
        if let contentType = request.header("Content-Type"), !contentType.lowercased().contains("json") {
            throw OpenAIError(
                status: 415, message: "Send the body as application/json.", type: "invalid_request_error", param: nil,
                code: "unsupported_media_type")
        }
        do {
            return try JSONDecoder().decode(ChatCompletionRequest.self, from: Data(request.body))
        } catch let error as DecodingError {
            let path: [any CodingKey]
            switch error {
            case .keyNotFound(let key, let context): path = context.codingPath + [key]
            case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
                path = context.codingPath
            @unknown default: path = []
            }
            let param = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            throw OpenAIError.invalidRequest(
                "Invalid request: \(JSONBody.reason(error))",
                param: param.isEmpty ? nil : String(param.hasPrefix(".") ? param.dropFirst() : param[...]))
        } catch {
            throw OpenAIError.invalidRequest("The body is not valid JSON.", param: nil)
        }
    }

    /// The engine's errors as OpenAI's: what the request asked for wrongly is a 400.
    package static func translate(_ error: any Error) -> any Error {
        guard let error = error as? LanguageModelSession.GenerationError else { return error }
        switch error {
        case .exceededContextWindowSize:
            return OpenAIError.invalidRequest(
                "The messages exceed the model's context window: \(error)", param: "messages",
                code: "context_length_exceeded")
        case .unsupportedGuide:
            return OpenAIError.invalidRequest("\(error)", param: "response_format")
        case .assetsUnavailable:
            return OpenAIError(
                status: 503, message: "\(error)", type: "server_error", param: nil, code: "model_unavailable")
        case .rateLimited, .concurrentRequests:
            return OpenAIError(status: 429, message: "\(error)", type: "rate_limit_error", param: nil, code: nil)
        default:
            return OpenAIError(status: 500, message: "\(error)", type: "server_error", param: nil, code: nil)
        }
    }
}

/// Completions admitted at once; beyond `capacity`, new ones are refused (429).
package final class CompletionQueue: Sendable {
    package let capacity: Int
    private let count = Mutex(0)

    package init(capacity: Int) {
        self.capacity = capacity
    }

    package func admit() -> Bool {
        count.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
    }

    package func leave() {
        count.withLock { $0 -= 1 }
    }

    /// Completions running or waiting now.
    package var admitted: Int { count.withLock { $0 } }
}
