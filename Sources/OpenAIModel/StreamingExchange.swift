import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One streamed request: its session, its task and the lines it yields, with the task's whole
/// lifecycle on one serial queue, the session's delegate queue.
///
/// URLSession calls the delegate on that queue, and ``cancel()`` runs there too, so a cancel
/// never races the task's completion: it sees whether the task has completed and leaves a
/// finished task alone; and the session has no cache (see ``configuration``). (In
/// swift-corelibs-foundation, `URLSessionTask.cancel` on a task that is completing looks the
/// task up in the session's registry after the session removed it, and stops the process:
/// `TaskRegistry.swift: Fatal error … not in the registry`.)
final class StreamingExchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `task`, `completed`, `buffer` and `errorBody` are only touched on
    // `queue` (a serial OperationQueue: URLSession's delegate callbacks, `start` and `cancel`
    // all run there); `request` and `continuation` are immutable (a continuation may be used
    // from any thread).
    private let request: URLRequest
    private let continuation: AsyncThrowingStream<String, any Error>.Continuation
    private let queue: OperationQueue
    private var task: URLSessionDataTask?
    /// The task reported completion (or was cancelled): it is never touched again.
    private var completed = false
    private var buffer = Data()
    private var errorBody = Data()

    init(request: URLRequest, continuation: AsyncThrowingStream<String, any Error>.Continuation) {
        self.request = request
        self.continuation = continuation
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "sotto.openai.exchange"
        super.init()
    }

    /// No cache, cookies or credential storage: a completion is never answered from a cache,
    /// and without a `URLCache` a task makes its protocol at once, on its own queue. With one,
    /// `URLSessionTask` looks the request up in the cache on a background queue first, and a
    /// cancel in that window reports its failure from there, unordered against the task's
    /// removal from the session's registry (the same fatal error).
    private static var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.urlCredentialStorage = nil
        return configuration
    }

    /// Starts the request (on the queue).
    func start() {
        queue.addOperation { [self] in
            guard !completed else { return }  // cancelled before it started
            // The session holds its delegate (this exchange) until it is invalidated, which
            // `didCompleteWithError` does: the exchange lives as long as its request.
            let session = URLSession(configuration: Self.configuration, delegate: self, delegateQueue: queue)
            let task = session.dataTask(with: request)
            self.task = task
            task.resume()
        }
    }

    /// Stops the request if it is still running; nothing when it has completed.
    func cancel() {
        queue.addOperation { [self] in
            guard !completed else { return }
            completed = true
            task?.cancel()  // URLSession then reports the cancellation to `didCompleteWithError`
        }
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
        completed = true
        defer { session.finishTasksAndInvalidate() }
        if let error {
            continuation.finish(throwing: OpenAIEndpointError(status: 0, message: Self.describe(error)))
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

    /// A transport error in words that name no address: what failed (refused, timed out, name
    /// not found, …), never the URL, whose host and credentials stay with the request.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "the connection failed" }
        switch error.code {
        case .cannotConnectToHost: return "the connection was refused"
        case .cannotFindHost, .dnsLookupFailed: return "its host name was not found"
        case .timedOut: return "it did not answer in time"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "there is no network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid:
            return "the secure connection failed"
        case .cancelled: return "the request was cancelled"
        case .badServerResponse: return "it answered with something that is not HTTP"
        default: return "the connection failed (URL error \(error.code.rawValue))"
        }
    }
}
