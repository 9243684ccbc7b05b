import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The lines of a streamed HTTP answer, as they arrive, through URLSession's data delegate.
/// An answer that is not 2xx throws ``OpenAIEndpointError`` with its status and the error's
/// message; a reader that stops reading (cancelled, or done at `[DONE]`) cancels the request,
/// which the server sees as a hang-up (a Sotto server then stops generating).
enum EventStreamClient {
    static func lines(of request: URLRequest) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            let exchange = StreamingExchange(request: request, continuation: continuation)
            continuation.onTermination = { termination in
                // Finished: the exchange itself ended the stream, its task is done. Cancelled:
                // the reader left, and the task may be running, or finishing at this moment.
                if case .cancelled = termination { exchange.cancel() }
            }
            exchange.start()
        }
    }
}

/// What went wrong talking to an OpenAI-compatible endpoint: the HTTP status (0 when no answer
/// came) and the endpoint's message.
public struct OpenAIEndpointError: Error, CustomStringConvertible, Sendable {
    public var status: Int
    public var message: String
    /// OpenAI's error code, when the answer had one (`invalid_api_key`, `context_length_exceeded`).
    public var code: String?
    public var description: String { description(naming: "the endpoint") }

    /// The error with the endpoint called `endpoint` ("the fallback server").
    public func description(naming endpoint: String) -> String {
        status == 0 ? "\(endpoint) did not answer: \(message)" : "\(endpoint) answered \(status): \(message)"
    }
}
