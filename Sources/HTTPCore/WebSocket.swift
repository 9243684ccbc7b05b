import Foundation

/// Handles WebSocket connections for one path. Callbacks for one socket arrive one at a
/// time and in order (the next waits for the one before to return), in tasks; different
/// sockets run concurrently.
public protocol WebSocketResponder: Sendable {
    /// Decides on an upgrade request: `nil` accepts it, a response refuses it (e.g. 401).
    func shouldAccept(_ request: HTTPRequest) async -> HTTPResponse?
    /// The handshake finished; the socket can send.
    func opened(_ socket: WebSocket) async
    /// A complete text message arrived.
    func received(text: String, on socket: WebSocket) async
    /// The socket closed (either side); sending is no longer possible.
    func closed(_ socket: WebSocket) async
}

/// One server-side WebSocket connection. Safe to send from any thread.
///
/// What is sent waits in the socket's outbox until its I/O thread writes it. A client that
/// does not read lets the outbox grow; past `webSocketMaxQueuedBytes` the connection is
/// dropped (`send` returns false), and the client is expected to reconnect and resume.
public final class WebSocket: @unchecked Sendable, Hashable {
    // @unchecked Sendable: `outbox`, `queuedBytes`, `flushScheduled` and `isClosed` are only
    // touched inside `lock`; `connection` is only used on its loop's thread (through `post`),
    // where it ignores calls once closed.

    /// Unique among the sockets of this process.
    public let id: Int
    /// The upgrade request (path, query, headers).
    public let request: HTTPRequest
    let mailbox: Mailbox
    private let connection: Connection
    private let loop: IOLoop
    /// Unsent bytes past which `send` drops the socket (`webSocketMaxQueuedBytes`).
    public let maxQueuedBytes: Int
    private let lock = NSLock()
    private var outbox: [UInt8] = []
    private var queuedBytes = 0
    private var flushScheduled = false
    private var isClosed = false

    private static let counter = Counter()

    init(request: HTTPRequest, connection: Connection, core: ServerCore) {
        id = Self.counter.next()
        self.request = request
        self.connection = connection
        loop = connection.loop
        maxQueuedBytes = core.configuration.webSocketMaxQueuedBytes
        mailbox = Mailbox(capacity: core.configuration.webSocketMailboxCapacity)
    }

    /// Sends a text message; false once the socket is closed, or when this message would take
    /// the unsent bytes past the limit (the socket is then dropped).
    @discardableResult
    public func send(_ text: String) -> Bool {
        send(WebSocketFrame.Text(text))
    }

    /// Sends a message framed beforehand, as `send(_:)`.
    @discardableResult
    public func send(_ frame: WebSocketFrame.Text) -> Bool {
        let bytes = frame.bytes
        lock.lock()
        guard !isClosed else {
            lock.unlock()
            return false
        }
        guard queuedBytes + bytes.count <= maxQueuedBytes else {
            isClosed = true
            lock.unlock()
            let connection = self.connection
            loop.post { connection.abort() }
            return false
        }
        outbox += bytes
        queuedBytes += bytes.count
        let schedule = !flushScheduled
        flushScheduled = true
        lock.unlock()
        if schedule { loop.scheduleFlush(of: self, on: connection) }
        return true
    }

    /// Starts the closing handshake with `code` and a short `reason`; the TCP connection is
    /// closed once the client answers, or after two seconds.
    public func close(code: UInt16 = 1000, reason: String = "") {
        let connection = self.connection
        loop.post { connection.closeWebSocket(self, code: code, reason: reason) }
    }

    /// Whether the socket is still open for sending.
    public var isOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !isClosed
    }

    /// Bytes sent but not yet written to the kernel.
    public var unsentBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return queuedBytes
    }

    func takeOutbox() -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        flushScheduled = false
        guard !outbox.isEmpty else { return nil }
        let bytes = outbox
        outbox = []
        return bytes
    }

    func written(_ count: Int) {
        lock.lock()
        queuedBytes -= count
        lock.unlock()
    }

    func markClosed() {
        lock.lock()
        isClosed = true
        lock.unlock()
    }

    public static func == (lhs: WebSocket, rhs: WebSocket) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// A process-wide counter for socket ids.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
