import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The lines of a streamed HTTP answer, as they arrive, through URLSession's data delegate.
/// An answer that is not 2xx throws ``OpenAIEndpointError`` with its status and the error's
/// message; cancelling the reading task cancels the request, which the server sees as a
/// hang-up (a Sotto server then stops generating).
enum EventStreamClient {
    static func lines(of request: URLRequest) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            let delegate = LineDelegate(continuation: continuation)
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            let running = RunningRequest(session: session, task: session.dataTask(with: request))
            continuation.onTermination = { _ in running.cancel() }
            running.task.resume()
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
    public var description: String {
        status == 0 ? "the endpoint did not answer: \(message)" : "the endpoint answered \(status): \(message)"
    }
}

/// A request in flight, cancelled when its reader stops reading.
private final class RunningRequest: @unchecked Sendable {
    // @unchecked Sendable: both properties are immutable, and URLSession's `cancel` and
    // `invalidateAndCancel` may be called from any thread.
    let session: URLSession
    let task: URLSessionDataTask

    init(session: URLSession, task: URLSessionDataTask) {
        self.session = session
        self.task = task
    }

    func cancel() {
        task.cancel()
        session.invalidateAndCancel()
    }
}

/// Splits the body into lines and hands them on; collects a failed answer's body to report it.
private final class LineDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: URLSession calls a session's delegate one callback at a time, on its
    // own serial queue; nothing else touches `buffer` or `errorBody`.
    private let continuation: AsyncThrowingStream<String, any Error>.Continuation
    private var buffer = Data()
    private var errorBody = Data()

    init(continuation: AsyncThrowingStream<String, any Error>.Continuation) {
        self.continuation = continuation
    }

    private func status(of task: URLSessionTask) -> Int {
        (task.response as? HTTPURLResponse)?.statusCode ?? 0
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard (200..<300).contains(status(of: dataTask)) else {
            if errorBody.count < 64 * 1024 { errorBody.append(data) }
            return
        }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: 0x0A) {
            var line = buffer[buffer.startIndex..<newline]
            if line.last == 0x0D { line = line.dropLast() }
            continuation.yield(String(decoding: line, as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        defer { session.finishTasksAndInvalidate() }
        if let error {
            continuation.finish(throwing: OpenAIEndpointError(status: 0, message: error.localizedDescription))
            return
        }
        let status = status(of: task)
        guard (200..<300).contains(status) else {
            let object = (try? JSONSerialization.jsonObject(with: errorBody)) as? [String: Any]
            let inner = object?["error"] as? [String: Any]
            let message = inner?["message"] as? String ?? String(decoding: errorBody.prefix(500), as: UTF8.self)
            continuation.finish(
                throwing: OpenAIEndpointError(status: status, message: message, code: inner?["code"] as? String))
            return
        }
        if !buffer.isEmpty { continuation.yield(String(decoding: buffer, as: UTF8.self)) }
        continuation.finish()
    }
}
