import Foundation

/// A response body written progressively, from any thread or task, while the client reads it
/// (server-sent events, streamed completions).
///
/// Return it in `HTTPResponse(status:headers:stream:)`; the server writes the head, then each
/// `write` as it comes (HTTP/1.1 as one chunk of `Transfer-Encoding: chunked` per flush, HTTP/1.0
/// delimited by the close), and closes the connection after `finish()`. A streamed response is
/// the last on its connection.
///
/// Backpressure: bytes written but not yet taken by the kernel count against `maxQueuedBytes`;
/// `write` suspends while they are over it, so a producer runs at the client's pace. When the
/// client hangs up, `write` returns false, waiting writes resume with false, and the
/// `onHangUp` handlers run once, so the producer can stop its work (a generation, a query).
///
/// ```swift
/// let stream = HTTPBodyStream()
/// Task {
///     for await event in events { guard await stream.write("data: \(event)\n\n") else { return } }
///     stream.finish()
/// }
/// return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], stream: stream)
/// ```
public final class HTTPBodyStream: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is only touched inside `lock`; `sink`'s
    // connection is only used on its loop's thread, reached through `IOLoop.post`.

    /// Unsent bytes past which `write` waits.
    public let maxQueuedBytes: Int
    private let lock = NSLock()
    /// Bytes written and not yet handed to the connection.
    private var pending: [UInt8] = []
    /// Bytes written and not yet taken by the kernel (pending included).
    private var queuedBytes = 0
    private var finishRequested = false
    private var hungUp = false
    private var flushScheduled = false
    private var sink: (connection: Connection, loop: IOLoop)?
    private var waiters: [CheckedContinuation<Bool, Never>] = []
    private var hangUpHandlers: [@Sendable () -> Void] = []

    public init(maxQueuedBytes: Int = 256 * 1024) {
        precondition(maxQueuedBytes > 0, "maxQueuedBytes must be positive")
        self.maxQueuedBytes = maxQueuedBytes
    }

    /// Queues `bytes` for the client; waits while more than `maxQueuedBytes` are unsent. False
    /// once the client has hung up (the bytes are dropped) or after `finish()`.
    @discardableResult
    public func write(_ bytes: [UInt8]) async -> Bool {
        guard enqueue(bytes) else { return false }
        return await waitUntilDrained()
    }

    /// Queues UTF-8 text; see `write(_:)` for bytes.
    @discardableResult
    public func write(_ text: String) async -> Bool {
        await write(Array(text.utf8))
    }

    /// Queues `bytes` without waiting (for a producer that bounds its own output); false once
    /// the client has hung up or after `finish()`.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        enqueue(bytes)
    }

    /// Ends the body once what is queued is written; later writes return false.
    public func finish() {
        lock.lock()
        guard !finishRequested, !hungUp else {
            lock.unlock()
            return
        }
        finishRequested = true
        let schedule = scheduleFlushLocked()
        lock.unlock()
        schedule?()
    }

    /// Whether the client is still there and `finish()` has not been called.
    public var isOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !hungUp && !finishRequested
    }

    /// Whether the client went away before the body was finished.
    public var clientHungUp: Bool {
        lock.lock()
        defer { lock.unlock() }
        return hungUp
    }

    /// Bytes written and not yet taken by the kernel.
    public var unsentBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return queuedBytes
    }

    /// Runs `handler` once when the client hangs up before `finish()` (at once, on this thread,
    /// if it already has). It runs on the connection's I/O thread: keep it short (cancel a task,
    /// set a flag).
    public func onHangUp(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        if hungUp {
            lock.unlock()
            handler()
            return
        }
        hangUpHandlers.append(handler)
        lock.unlock()
    }

    // MARK: The connection's side (on its loop thread)

    /// The connection that writes this body; what was written before is flushed now.
    func attach(to connection: Connection, on loop: IOLoop) {
        lock.lock()
        sink = (connection, loop)
        let schedule = scheduleFlushLocked()
        lock.unlock()
        schedule?()
    }

    /// What is pending, and whether the body ends after it.
    func take() -> (bytes: [UInt8], finished: Bool) {
        lock.lock()
        defer { lock.unlock() }
        flushScheduled = false
        let bytes = pending
        pending = []
        let finished = finishRequested
        if finished { sink = nil }
        return (bytes, finished)
    }

    /// `count` bytes reached the kernel.
    func written(_ count: Int) {
        lock.lock()
        queuedBytes -= count
        let belowLimit = queuedBytes <= maxQueuedBytes
        let resumed = belowLimit ? takeWaitersLocked() : []
        lock.unlock()
        for waiter in resumed { waiter.resume(returning: true) }
    }

    /// The client went away (or the server is stopping) before the body was finished.
    func markHungUp() {
        lock.lock()
        guard !hungUp, !finishRequested || sink != nil else {
            lock.unlock()
            return
        }
        hungUp = true
        sink = nil
        pending = []
        let handlers = hangUpHandlers
        hangUpHandlers = []
        let resumed = takeWaitersLocked()
        lock.unlock()
        for waiter in resumed { waiter.resume(returning: false) }
        for handler in handlers { handler() }
    }

    // MARK: Private

    private func enqueue(_ bytes: [UInt8]) -> Bool {
        lock.lock()
        guard !hungUp, !finishRequested else {
            lock.unlock()
            return false
        }
        guard !bytes.isEmpty else {
            lock.unlock()
            return true
        }
        pending += bytes
        queuedBytes += bytes.count
        let schedule = scheduleFlushLocked()
        lock.unlock()
        schedule?()
        return true
    }

    private func waitUntilDrained() async -> Bool {
        await withCheckedContinuation { continuation in
            lock.lock()
            if hungUp {
                lock.unlock()
                continuation.resume(returning: false)
            } else if queuedBytes <= maxQueuedBytes {
                lock.unlock()
                continuation.resume(returning: true)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    private func takeWaitersLocked() -> [CheckedContinuation<Bool, Never>] {
        let taken = waiters
        waiters = []
        return taken
    }

    /// A job that posts one flush to the connection's loop, if one is attached and none is
    /// posted yet; to be run after unlocking.
    private func scheduleFlushLocked() -> (() -> Void)? {
        guard let sink, !flushScheduled else { return nil }
        flushScheduled = true
        return { sink.loop.post { sink.connection.flushStream(self) } }
    }
}
