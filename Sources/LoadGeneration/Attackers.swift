import CLibUV

/// How many attacker connections were opened, reopenings included.
struct AttackerCounts: Sendable {
    var unauthenticated = 0
    var slow = 0
}

/// Connections that cost the server without ever being served, on a loop of their own: 260
/// WebSocket upgrades of `/api/connect` with no token, held open, and 300 requests whose head
/// never ends (a header line every 0.5 s). When the server closes one, another opens.
final class Attackers: @unchecked Sendable {
    // @unchecked Sendable: apart from `thread` (itself Sendable) and `address`, every property is
    // used only on the loop's thread; the orchestrating thread calls only `start` and `stop`,
    // which `post` their work there.

    let thread: LoopThread
    let address: ServerAddress
    var random = FastRandom()
    private var connections: [AttackerConnection] = []
    private var counts = AttackerCounts()
    private(set) var stopping = false
    /// Connections whose connect failed, opened again on the next retry tick (0.1 s).
    private var retrying: [AttackerConnection] = []
    private let trickleTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private let retryTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)

    static let unauthenticatedCount = 260
    static let slowCount = 300
    static let slowHead = Array("GET /api/health HTTP/1.1\r\nHost: x\r\n".utf8)
    static let slowLine = Array("X-Slow: 1\r\n".utf8)

    init(address: ServerAddress) throws {
        thread = try LoopThread(name: "attackers")
        self.address = address
        try check(uv_timer_init(thread.loop, trickleTimer), "uv_timer_init")
        try check(uv_timer_init(thread.loop, retryTimer), "uv_timer_init")
        connections =
            (0..<Self.unauthenticatedCount).map { _ in AttackerConnection(owner: self, kind: .unauthenticated) }
            + (0..<Self.slowCount).map { _ in AttackerConnection(owner: self, kind: .slow) }
        trickleTimer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        retryTimer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        trickleTimer.deallocate()
        retryTimer.deallocate()
    }

    private static func of(_ timer: UnsafeMutablePointer<uv_timer_t>?) -> Attackers {
        Unmanaged<Attackers>.fromOpaque(timer!.pointee.data).takeUnretainedValue()
    }

    func start() {
        thread.start()
        thread.post { [self] in
            for connection in connections { connection.open() }
            uv_timer_start(trickleTimer, { Attackers.of($0).trickle() }, 500, 500)
            uv_timer_start(retryTimer, { Attackers.of($0).retry() }, 100, 100)
        }
    }

    /// Closes every connection, lets the loop end, and hands over the counts.
    func stop(reporting done: Handoff<AttackerCounts>) {
        thread.post { [self] in
            stopping = true
            uv_close(sotto_uv_handle(trickleTimer), nil)
            uv_close(sotto_uv_handle(retryTimer), nil)
            for connection in connections { connection.close() }
            thread.finish()
            done.put(counts)
        }
    }

    func opened(_ kind: AttackerConnection.Kind) {
        switch kind {
        case .unauthenticated: counts.unauthenticated += 1
        case .slow: counts.slow += 1
        }
    }

    func retryLater(_ connection: AttackerConnection) {
        retrying.append(connection)
    }

    private func trickle() {
        for connection in connections { connection.trickle() }
    }

    private func retry() {
        let due = retrying
        retrying.removeAll()
        for connection in due { connection.open() }
    }
}

/// One attacker connection; opened again each time the server cuts it.
///
/// Not thread-safe: lives on the attackers' thread, which holds the only strong reference.
final class AttackerConnection {
    enum Kind {
        case unauthenticated, slow
    }

    unowned let owner: Attackers
    let kind: Kind
    private var tcp: UnsafeMutablePointer<uv_tcp_t>?
    private var isConnected = false

    init(owner: Attackers, kind: Kind) {
        self.owner = owner
        self.kind = kind
    }

    private static func of(_ pointer: UnsafeMutableRawPointer?) -> AttackerConnection {
        Unmanaged<AttackerConnection>.fromOpaque(pointer!).takeUnretainedValue()
    }

    func open() {
        guard !owner.stopping, tcp == nil else { return }
        let opened = TCPClient.connect(
            on: owner.thread.loop, to: owner.address, owner: Unmanaged.passUnretained(self).toOpaque()
        ) { handle, status in AttackerConnection.of(handle!.pointee.data).connected(handle!, status) }
        switch opened {
        case .success(let tcp): self.tcp = tcp
        case .failure: owner.retryLater(self)
        }
    }

    private func connected(_ handle: UnsafeMutablePointer<uv_stream_t>, _ status: Int32) {
        guard let tcp, sotto_uv_stream(tcp) == handle else { return }
        guard status == 0 else {
            close()
            owner.retryLater(self)
            return
        }
        isConnected = true
        switch kind {
        case .unauthenticated:
            TCPClient.write(upgradeRequest(target: "/api/connect", key: owner.random.webSocketKey()), to: tcp)
        case .slow:
            // The head's start and its first extra line at once, then a line every 0.5 s.
            TCPClient.write(Attackers.slowHead + Attackers.slowLine, to: tcp)
        }
        owner.opened(kind)
        let reading = TCPClient.startReading(tcp) { stream, count, _ in
            // What the server says is not read; its closing the connection is the news.
            guard count < 0 else { return }
            let connection = AttackerConnection.of(stream!.pointee.data)
            connection.close()
            connection.open()
        }
        if reading != 0 {
            close()
            open()
        }
    }

    func trickle() {
        guard kind == .slow, isConnected, let tcp else { return }
        TCPClient.write(Attackers.slowLine, to: tcp)
    }

    func close() {
        guard let tcp else { return }
        TCPClient.close(tcp)
        self.tcp = nil
        isConnected = false
    }
}
