import CLibUV
import Foundation

/// One libuv event loop on its own thread, with its share of the listening socket and of the
/// connections. Everything that touches a connection's handle runs on this thread; other
/// threads hand work over with `post(_:)`.
final class IOLoop: @unchecked Sendable {
    // @unchecked Sendable: `jobs` is only touched inside `lock`; every other property is used
    // only on the loop's own thread (after `start`, which runs before that thread exists).

    let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
    private let wakeup = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
    private let sweeper = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private let listener = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
    /// One read buffer for the whole loop: libuv hands each read to its callback before the
    /// next allocation, so connections never need their own.
    let readBuffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let readBufferSize = 64 * 1024
    private let lock = NSLock()
    private var jobs: [() -> Void] = []
    /// Sockets with something in their outbox, in the order they were sent to (see
    /// `scheduleFlush`).
    private var flushes: [(WebSocket, Connection)] = []
    private var connections: [ObjectIdentifier: Connection] = [:]
    private var stopping = false
    /// Set (inside `lock`) when `wakeup` is closed: no more jobs.
    private var closed = false
    private let done = DispatchSemaphore(value: 0)
    unowned let core: ServerCore

    init(core: ServerCore) {
        self.core = core
    }

    deinit {
        loop.deallocate()
        wakeup.deallocate()
        sweeper.deallocate()
        listener.deallocate()
        readBuffer.deallocate()
    }

    /// Sets the loop up on the calling thread, listening on its own copy of `socket`, then runs
    /// it on a new thread named `name`.
    func start(listening socket: Int32, name: String) throws {
        try check(uv_loop_init(loop), "uv_loop_init")
        loop.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        try check(
            uv_async_init(loop, wakeup) { handle in
                IOLoop.of(handle!.pointee.loop).runJobs()
            }, "uv_async_init")
        try check(uv_timer_init(loop, sweeper), "uv_timer_init")
        try check(
            uv_timer_start(
                sweeper,
                { handle in IOLoop.of(handle!.pointee.loop).sweep() }, 250, 250), "uv_timer_start")
        try check(uv_tcp_init(loop, listener), "uv_tcp_init")
        try check(uv_tcp_open(listener, dup(socket)), "uv_tcp_open")
        try check(
            uv_listen(sotto_uv_stream(listener), 1024) { server, status in
                guard status == 0, let server else { return }
                IOLoop.of(server.pointee.loop).accept(from: server)
            }, "uv_listen")
        let thread = Thread { [self] in
            uv_run(loop, UV_RUN_DEFAULT)
            uv_loop_close(loop)
            done.signal()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    static func of(_ loop: UnsafeMutablePointer<uv_loop_t>?) -> IOLoop {
        Unmanaged<IOLoop>.fromOpaque(loop!.pointee.data).takeUnretainedValue()
    }

    /// Runs `job` on the loop's thread soon; dropped once the loop has shut down (a handler
    /// that finishes after `stop` has no connection left to answer).
    func post(_ job: @escaping () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        jobs.append(job)
        // Inside the lock: the closing job closes `wakeup` under the same lock.
        if jobs.count + flushes.count == 1 { uv_async_send(wakeup) }
    }

    /// Has `connection` write `socket`'s outbox soon. Like `post { connection.flush(socket) }`
    /// without a closure per call: an event to twenty recipients schedules twenty flushes.
    func scheduleFlush(of socket: WebSocket, on connection: Connection) {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        flushes.append((socket, connection))
        if jobs.count + flushes.count == 1 { uv_async_send(wakeup) }
    }

    /// Milliseconds on the loop's clock (cached per loop iteration).
    var now: UInt64 { uv_now(loop) }

    /// Closes the listener and every connection, ends the loop, and waits for its thread.
    func stop() {
        post { [self] in
            stopping = true
            uv_timer_stop(sweeper)
            uv_close(sotto_uv_handle(listener), nil)
            uv_close(sotto_uv_handle(sweeper), nil)
            for connection in connections.values { connection.abort() }
            lock.lock()
            closed = true
            jobs.removeAll()
            flushes.removeAll()
            uv_close(sotto_uv_handle(wakeup), nil)
            lock.unlock()
        }
        done.wait()
    }

    func remove(_ connection: Connection) {
        connections[ObjectIdentifier(connection)] = nil
    }

    private func runJobs() {
        lock.lock()
        let batch = jobs
        jobs.removeAll(keepingCapacity: true)
        let sockets = flushes
        flushes.removeAll(keepingCapacity: true)
        lock.unlock()
        // Flushes first: a job may close a socket after what it was sent (a close frame follows
        // the outbox either way, as `closeWebSocket` writes the outbox first).
        for (socket, connection) in sockets { connection.flush(socket) }
        for job in batch { job() }
    }

    private func sweep() {
        let now = self.now
        for connection in connections.values { connection.checkDeadlines(now: now) }
    }

    private func accept(from server: UnsafeMutablePointer<uv_stream_t>) {
        let tcp = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        uv_tcp_init(loop, tcp)
        guard uv_accept(server, sotto_uv_stream(tcp)) == 0, !stopping else {
            uv_close(sotto_uv_handle(tcp)) { handle in handle?.deallocate() }
            return
        }
        let address = Self.peerAddress(tcp)
        if let refusal = core.limiter.acquire(address) {
            // One write of a short answer, then close; no state is kept for this client.
            var bytes = core.errorBytes(
                HTTPFramingError(status: 503, code: "too_many_connections", message: refusal), keepAlive: false)
            bytes.withUnsafeMutableBytes { raw in
                var buffer = uv_buf_init(raw.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(raw.count))
                _ = uv_try_write(sotto_uv_stream(tcp), &buffer, 1)
            }
            uv_close(sotto_uv_handle(tcp)) { handle in handle?.deallocate() }
            return
        }
        uv_tcp_nodelay(tcp, 1)
        var descriptor: uv_os_fd_t = -1
        if uv_fileno(sotto_uv_handle(tcp), &descriptor) == 0 {
            var size = Int32(clamping: core.configuration.socketSendBufferBytes)
            setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let connection = Connection(tcp: tcp, loop: self, address: address)
        connections[ObjectIdentifier(connection)] = connection
        connection.startReading()
    }

    private static func peerAddress(_ tcp: UnsafeMutablePointer<uv_tcp_t>) -> String {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getpeername(tcp, $0, &length) }
        }
        guard found == 0 else { return "unknown" }
        var text = [CChar](repeating: 0, count: 64)
        let family = storage.ss_family
        withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { _ = uv_ip6_name($0, &text, text.count) }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { _ = uv_ip4_name($0, &text, text.count) }
            }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

func check(_ code: Int32, _ call: String) throws {
    guard code >= 0 else { throw HTTPServerError(description: "\(call) failed: \(String(cString: uv_strerror(code)))") }
}
