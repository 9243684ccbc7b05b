import CLibUV
import Foundation

/// Answers HTTP requests. Each request is answered in a task of its own, on Swift's cooperative
/// pool: a responder awaits what takes time (the store, the engine) and never blocks its thread.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

/// A failure starting the server.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(description: String) { self.description = description }
}

/// An event-driven HTTP/1.1 and WebSocket server on libuv, with picohttpparser reading heads.
///
/// A fixed number of I/O threads (one libuv loop each) own every connection; no thread waits
/// on a client. Each complete request is answered by the responder in a task of its own (at
/// most `maxRequestsInFlight` at once; more get 503); requests for `webSocketPath`
/// that ask for an upgrade go to the WebSocket responder. Framing errors, timeouts and limits
/// are answered here, in the shape `Configuration.errorResponse` gives, and close the
/// connection.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), responder: app, webSocket: ("/api/connect", hub))
/// let port = try server.start()
/// ```
public final class HTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `core` is written only by start()/stop(), which the owner calls
    // from one thread.

    public struct Configuration: Sendable {
        /// Address to listen on; loopback unless told otherwise.
        public var host: String = "127.0.0.1"
        /// Port; 0 picks a free one (see `start()`'s result).
        public var port: Int = 8080
        /// Event-loop threads.
        public var ioThreads = 2
        /// Requests being answered at once (WebSocket upgrades included); more get 503.
        public var maxRequestsInFlight = 4096
        /// Request head and body limits (431, 413).
        public var limits = HTTPRequestDecoder.Limits()
        /// From a request's first byte to the end of its head (408).
        public var headerTimeoutMilliseconds: UInt64 = 10_000
        /// From the end of the head to the end of the body (408; the request is not handled).
        public var bodyTimeoutMilliseconds: UInt64 = 10_000
        /// An idle keep-alive connection is closed after this.
        public var keepAliveTimeoutMilliseconds: UInt64 = 15_000
        /// Open connections in all, and from one client address (more are answered 503).
        public var maxConnections = 20_000
        public var maxConnectionsPerAddress = 512
        /// Largest incoming WebSocket message (1009 beyond).
        public var webSocketMaxMessageBytes = 64 * 1024
        /// Unsent bytes a socket may hold before it is dropped (a client that does not read).
        public var webSocketMaxQueuedBytes = 1 << 20
        /// The kernel's send buffer per connection (`SO_SNDBUF`; Linux doubles it). Fixed, so
        /// that what a client that does not read can hold back is bounded: this plus
        /// `webSocketMaxQueuedBytes`, not the several megabytes autotuning would grow to.
        public var socketSendBufferBytes = 128 * 1024
        /// Messages of one socket waiting for the handler before it is closed (1008).
        public var webSocketMailboxCapacity = 256
        /// The server pings a socket that has been quiet this long…
        public var webSocketPingIntervalMilliseconds: UInt64 = 30_000
        /// …and closes one that has sent nothing, pongs included, for this long.
        public var webSocketIdleTimeoutMilliseconds: UInt64 = 75_000
        /// Headers every response carries unless it sets them itself.
        public var defaultHeaders: [(name: String, value: String)] = [("X-Content-Type-Options", "nosniff")]
        /// The answer to a request the server refuses on its own (framing, timeouts, limits).
        public var errorResponse: @Sendable (HTTPFramingError) -> HTTPResponse = { error in
            let escaped = error.message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"")
            return .json(
                bytes: Array(
                    #"{"error":{"status":\#(error.status),"code":"\#(error.code)","message":"\#(escaped)"}}"#.utf8),
                status: error.status)
        }

        public init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    public let configuration: Configuration
    private let responder: any HTTPResponder
    private let webSocket: (path: String, responder: any WebSocketResponder)?
    private var core: ServerCore?

    public init(
        configuration: Configuration, responder: any HTTPResponder,
        webSocket: (path: String, responder: any WebSocketResponder)? = nil
    ) {
        self.configuration = configuration
        self.responder = responder
        self.webSocket = webSocket
    }

    deinit { stop() }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() throws -> Int {
        precondition(core == nil, "server already started")
        let (socket, port) = try Self.listen(host: configuration.host, port: configuration.port)
        defer { close(socket) }
        let core = ServerCore(configuration: configuration, responder: responder, webSocket: webSocket)
        do {
            for index in 0..<max(1, configuration.ioThreads) {
                let loop = IOLoop(core: core)
                try loop.start(listening: socket, name: "sotto.io.\(index)")
                core.loops.append(loop)
            }
        } catch {
            core.stop()
            throw error
        }
        self.core = core
        return port
    }

    /// Stops listening, closes every connection and waits for the threads.
    public func stop() {
        guard let core else { return }
        core.stop()
        self.core = nil
    }

    /// Open connections (for stats and tests).
    public var connectionCount: Int { core?.limiter.open ?? 0 }

    /// A listening TCP socket on `host:port` and the port it got.
    private static func listen(host: String, port: Int) throws -> (Int32, Int) {
        var storage = sockaddr_storage()
        let isIPv6 = host.contains(":")
        let parsed = withUnsafeMutablePointer(to: &storage) { pointer in
            isIPv6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { uv_ip6_addr(host, Int32(port), $0) }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { uv_ip4_addr(host, Int32(port), $0) }
        }
        guard parsed == 0 else { throw HTTPServerError(description: "'\(host)' is not an IPv4 or IPv6 address") }
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError(description: "socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let length = socklen_t(isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, Glibc.listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HTTPServerError(description: "could not listen on \(host):\(port): \(reason)")
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        let boundPort = withUnsafePointer(to: &actual) { pointer in
            isIPv6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
        }
        return (fd, boundPort)
    }
}

/// What the loops of one running server share.
final class ServerCore: @unchecked Sendable {
    // @unchecked Sendable: `loops` is filled by start() before any loop thread runs, and read
    // only by stop(); `stopping` is only touched inside `lock`; the rest is immutable or
    // thread-safe itself.

    let configuration: HTTPServer.Configuration
    let responder: any HTTPResponder
    let webSocketPath: String?
    let webSocketResponder: (any WebSocketResponder)?
    let admission: RequestAdmission
    let limiter: ConnectionLimiter
    var loops: [IOLoop] = []
    private let lock = NSLock()
    private var stopping = false

    init(
        configuration: HTTPServer.Configuration, responder: any HTTPResponder,
        webSocket: (path: String, responder: any WebSocketResponder)?
    ) {
        self.configuration = configuration
        self.responder = responder
        webSocketPath = webSocket?.path
        webSocketResponder = webSocket?.responder
        admission = RequestAdmission(limit: configuration.maxRequestsInFlight)
        limiter = ConnectionLimiter(
            maxTotal: configuration.maxConnections, maxPerAddress: configuration.maxConnectionsPerAddress)
    }

    var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// Answers `request` in a task of its own and hands the answer to `answered`; false (and
    /// nothing started) when `maxRequestsInFlight` are being answered.
    func answer(
        _ request: HTTPRequest, with work: @escaping @Sendable () async -> HTTPResponse?,
        then answered: @escaping @Sendable (HTTPResponse?) -> Void
    ) -> Bool {
        guard admission.enter() else { return false }
        Task {
            let response = await work()
            admission.leave()
            answered(response)
        }
        return true
    }

    static let overloaded = HTTPFramingError(
        status: 503, code: "overloaded", message: "the server is busy, retry shortly")

    func errorResponse(_ error: HTTPFramingError) -> HTTPResponse {
        configuration.errorResponse(error)
    }

    func errorBytes(_ error: HTTPFramingError, keepAlive: Bool) -> [UInt8] {
        errorResponse(error).serialized(keepAlive: keepAlive, extraHeaders: configuration.defaultHeaders)
    }

    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        for loop in loops { loop.stop() }
        loops.removeAll()
    }
}
