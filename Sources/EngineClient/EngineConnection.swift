import Foundation
import FoundationModels
import Synchronization

/// One connection to the engine service: the request goes out, replies come in on a reader
/// thread. Reading replies does not stop when the reading task is cancelled, so that a
/// cancelled request can still receive what the service sent before it stopped.
final class EngineConnection: Sendable {
    private let socket: UnixSocket
    private let replies = ReplyQueue()
    private let writeLock = Mutex(())

    init(socket: UnixSocket) {
        self.socket = socket
        let replies = self.replies
        let thread = Thread {
            var decoder = EngineFrames.Decoder()
            let json = JSONDecoder()
            do {
                while true {
                    let bytes = try socket.read()
                    if bytes.isEmpty { break }
                    for frame in try decoder.feed(bytes) {
                        replies.push(try json.decode(EngineReplyMessage.self, from: frame))
                    }
                }
                replies.finish(nil)
            } catch {
                replies.finish(error)
            }
        }
        thread.name = "sotto.engine-client"
        thread.start()
    }

    deinit {
        socket.shutdown()
    }

    /// Sends `message`.
    func send(_ message: EngineRequestMessage) throws {
        let frame = EngineFrames.frame(try JSONEncoder().encode(message))
        try writeLock.withLock { _ in try socket.write(frame) }
    }

    /// The next reply; nil when the service closed the connection.
    func next() async throws -> EngineReplyMessage? {
        try await replies.next()
    }

    /// Ends the connection: a blocked read returns, and the service sees the end of the stream.
    func close() {
        socket.shutdown()
    }
}

/// Replies in order, for one reader; not cancellation-aware (see ``EngineConnection``).
private final class ReplyQueue: Sendable {
    private struct State {
        var items: [EngineReplyMessage] = []
        var finished = false
        var failure: (any Swift.Error)?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func push(_ item: EngineReplyMessage) {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.items.append(item)
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    func finish(_ error: (any Swift.Error)?) {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    func next() async throws -> EngineReplyMessage? {
        while true {
            let (item, finished, failure) = state.withLock { state -> (EngineReplyMessage?, Bool, (any Swift.Error)?) in
                if !state.items.isEmpty { return (state.items.removeFirst(), false, nil) }
                return (nil, state.finished, state.failure)
            }
            if let item { return item }
            if finished {
                if let failure { throw failure }
                return nil
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if !state.items.isEmpty || state.finished { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}
