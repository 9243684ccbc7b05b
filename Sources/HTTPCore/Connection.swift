import CLibUV
import Foundation

/// One client connection, owned by its loop: reads requests (or, after an upgrade, frames),
/// hands each to the responder in a task of its own, writes the answers, and enforces the timeouts.
///
/// Not thread-safe: every method runs on the loop's thread. Other threads reach it only
/// through `IOLoop.post` (the handler pool's answers) or a `WebSocket`'s outbox.
final class Connection: @unchecked Sendable {
    // @unchecked Sendable: used only on its loop's thread; handler threads and sockets carry the
    // reference back to that thread through `IOLoop.post` and never call it themselves.
    enum Phase {
        /// Reading requests; `busy` while one is being answered.
        case http(busy: Bool)
        case webSocket(WebSocket)
        /// Writing a streamed body; reading only to notice the client hang up.
        case streaming(HTTPBodyStream, chunked: Bool)
        /// The last bytes are written; waiting for the client to close, until `deadline`.
        case closing
    }

    let tcp: UnsafeMutablePointer<uv_tcp_t>
    unowned let loop: IOLoop
    let address: String
    private var core: ServerCore { loop.core }
    private var decoder: HTTPRequestDecoder
    private var frames: WebSocketFrameDecoder
    private var phase = Phase.http(busy: false)
    private var closed = false
    /// The hang-up signal of the request being answered (``HTTPHangUp``).
    private var handling: HTTPHangUp?
    /// The client's side ended while its request was with the handler: answer, then close.
    private var clientEnded = false
    /// When the current deadline started counting (loop milliseconds).
    private var idleSince: UInt64
    private var headStartedAt: UInt64?
    private var bodyStartedAt: UInt64?
    private var lastReceivedAt: UInt64
    private var lastPingAt: UInt64
    private var closingDeadline: UInt64 = 0

    init(tcp: UnsafeMutablePointer<uv_tcp_t>, loop: IOLoop, address: String) {
        self.tcp = tcp
        self.loop = loop
        self.address = address
        decoder = HTTPRequestDecoder(limits: loop.core.configuration.limits, remoteAddress: address)
        frames = WebSocketFrameDecoder(maxMessageBytes: loop.core.configuration.webSocketMaxMessageBytes)
        let now = loop.now
        idleSince = now
        lastReceivedAt = now
        lastPingAt = now
        tcp.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    private static func of(_ stream: UnsafeMutablePointer<uv_stream_t>?) -> Connection {
        Unmanaged<Connection>.fromOpaque(stream!.pointee.data).takeUnretainedValue()
    }

    func startReading() {
        guard !closed else { return }
        uv_read_start(
            sotto_uv_stream(tcp),
            { handle, _, buffer in
                let loop = IOLoop.of(handle!.pointee.loop)
                buffer!.pointee = uv_buf_init(
                    loop.readBuffer.assumingMemoryBound(to: CChar.self), UInt32(loop.readBufferSize))
            },
            { stream, count, buffer in
                let connection = Connection.of(stream)
                if count < 0 {
                    connection.readEnded()
                } else if count > 0 {
                    connection.received(UnsafeRawBufferPointer(start: buffer!.pointee.base, count: count))
                }
            })
    }

    private func stopReading() {
        uv_read_stop(sotto_uv_stream(tcp))
    }

    /// The client's side ended (closed, reset, or shut for sending). While a handler makes the
    /// answer to its request, the handler is told (``HTTPHangUp``) and the answer is still
    /// written; otherwise the connection closes.
    private func readEnded() {
        if case .http(busy: true) = phase, let handling {
            stopReading()
            clientEnded = true
            handling.signal()
            return
        }
        abort()
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        lastReceivedAt = loop.now
        switch phase {
        case .http(let busy):
            decoder.append(bytes)
            if !busy {
                processRequests()
            } else if decoder.bufferedByteCount > core.configuration.limits.maxHeaderBytes {
                // Reading goes on while a handler works only to see a hang-up: a client that
                // pipelines more than a head meanwhile waits for the answer, as TCP makes it.
                stopReading()
            }
        case .webSocket(let socket):
            frames.append(bytes)
            processFrames(socket)
        case .streaming:
            break  // a streamed response is the last on its connection: nothing more is read
        case .closing:
            break  // draining what the client still sends before it sees our close
        }
    }

    // MARK: HTTP

    private func processRequests() {
        guard case .http(busy: false) = phase, !closed else { return }
        guard let result = decoder.next() else {
            let now = loop.now
            if decoder.isIdle {
                headStartedAt = nil
                bodyStartedAt = nil
            } else {
                if headStartedAt == nil { headStartedAt = now }
                if decoder.isReadingBody && bodyStartedAt == nil { bodyStartedAt = now }
            }
            return
        }
        headStartedAt = nil
        bodyStartedAt = nil
        switch result {
        case .failure(let error):
            finish(with: core.errorBytes(error, keepAlive: false))
        case .success(let request):
            phase = .http(busy: true)
            if let path = core.webSocketPath, WebSocketHandshake.isUpgrade(request),
                request.path == path
            {
                stopReading()
                upgrade(request)
            } else {
                var request = request
                let hangUp = HTTPHangUp()
                request.hangUp = hangUp
                handling = hangUp
                handle(request)  // reading goes on, to see the client hang up meanwhile
            }
        }
    }

    private func handle(_ request: HTTPRequest) {
        let core = self.core
        let loop = self.loop
        let accepted = core.answer(request) {
            await core.responder.respond(to: request)
        } then: { [self] response in
            loop.post { self.answered(request, response!) }
        }
        if !accepted { answered(request, core.errorResponse(ServerCore.overloaded)) }
    }

    private func answered(_ request: HTTPRequest, _ response: HTTPResponse) {
        handling = nil
        guard !closed else {
            response.stream?.markHungUp()
            return
        }
        if let stream = response.stream {
            startStreaming(request, response, stream)
            return
        }
        let keepAlive = request.wantsKeepAlive && !core.isStopping && !clientEnded
        let bytes = response.serialized(
            keepAlive: keepAlive, extraHeaders: core.configuration.defaultHeaders, omitBody: request.method == "HEAD")
        guard keepAlive else {
            finish(with: bytes)
            return
        }
        write(bytes)
        phase = .http(busy: false)
        idleSince = loop.now
        startReading()
        processRequests()  // a pipelined request may be waiting already
    }

    // MARK: Streamed bodies

    private func startStreaming(_ request: HTTPRequest, _ response: HTTPResponse, _ stream: HTTPBodyStream) {
        let chunked = request.minorVersion >= 1
        let head = response.serializedStreamHead(chunked: chunked, extraHeaders: core.configuration.defaultHeaders)
        guard request.method != "HEAD" else {
            stream.markHungUp()  // nobody will read the body: its producer can stop
            finish(with: head)
            return
        }
        write(head)
        phase = .streaming(stream, chunked: chunked)
        stream.attach(to: self, on: loop)
        startReading()  // to see the client hang up while the body is produced
    }

    /// Writes what the stream holds, as one chunk; ends the response when the stream is finished.
    func flushStream(_ stream: HTTPBodyStream) {
        guard !closed, case .streaming(let current, let chunked) = phase, current === stream else { return }
        let (bytes, finished) = stream.take()
        if !bytes.isEmpty {
            write(chunked ? HTTPResponse.chunk(bytes) : bytes) { stream.written(bytes.count) }
        }
        if finished { finish(with: chunked ? HTTPResponse.lastChunk : []) }
    }

    private func upgrade(_ request: HTTPRequest) {
        let accept: String
        switch WebSocketHandshake.accept(request) {
        case .failure(let error):
            finish(with: core.errorBytes(error, keepAlive: false))
            return
        case .success(let value):
            accept = value
        }
        guard let responder = core.webSocketResponder else { return }
        let core = self.core
        let loop = self.loop
        let accepted = core.answer(request) {
            await responder.shouldAccept(request)
        } then: { [self] refusal in
            loop.post { self.upgraded(request, accept: accept, refusal: refusal) }
        }
        if !accepted { finish(with: core.errorBytes(ServerCore.overloaded, keepAlive: false)) }
    }

    private func upgraded(_ request: HTTPRequest, accept: String, refusal: HTTPResponse?) {
        guard !closed else { return }
        if let refusal {
            finish(with: refusal.serialized(keepAlive: false, extraHeaders: core.configuration.defaultHeaders))
            return
        }
        write(WebSocketHandshake.response(accept: accept))
        let socket = WebSocket(request: request, connection: self, core: core)
        phase = .webSocket(socket)
        openedSocket = socket
        let now = loop.now
        lastReceivedAt = now
        lastPingAt = now
        frames.append(decoder.takeBuffered())
        let responder = core.webSocketResponder
        socket.mailbox.enqueue(force: true) { await responder?.opened(socket) }
        startReading()
        processFrames(socket)
    }

    // MARK: WebSocket

    private func processFrames(_ socket: WebSocket) {
        while !closed, case .webSocket = phase, let result = frames.next() {
            switch result {
            case .failure(let error):
                closeWebSocket(socket, code: error.code, reason: error.reason)
            case .success(.ping(let payload)):
                write(WebSocketFrame.encode(.pong, payload))
            case .success(.pong):
                break
            case .success(.close(let code, _)):
                // Echo the code (RFC 6455 §5.5.1), then close our side.
                closeWebSocket(socket, code: code == 1005 ? 1000 : code, reason: "")
            case .success(.binary):
                closeWebSocket(socket, code: 1003, reason: "text messages only")
            case .success(.text(let text)):
                let responder = core.webSocketResponder
                let queued = socket.mailbox.enqueue { await responder?.received(text: text, on: socket) }
                if !queued { closeWebSocket(socket, code: 1008, reason: "messages sent faster than handled") }
            }
        }
    }

    /// Sends whatever the socket's outbox holds, as one write.
    func flush(_ socket: WebSocket) {
        guard !closed, let bytes = socket.takeOutbox() else { return }
        write(bytes) { socket.written(bytes.count) }
    }

    /// Sends a close frame after what is queued, then closes.
    func closeWebSocket(_ socket: WebSocket, code: UInt16, reason: String) {
        guard !closed, case .webSocket = phase else { return }
        socket.markClosed()
        if let pending = socket.takeOutbox() { write(pending) }
        finish(with: WebSocketFrame.close(code: code, reason: reason))
    }

    // MARK: Writing and closing

    /// Writes `bytes`; `completion` runs on the loop when it is done or failed (at once when
    /// the kernel takes them all at once, as it mostly does).
    func write(_ bytes: [UInt8], completion: (() -> Void)? = nil) {
        guard !closed, !bytes.isEmpty else {
            completion?()
            return
        }
        // Straight to the socket when nothing is queued before: no copy and no write request
        // (uv_try_write refuses while earlier writes wait, so the order holds).
        let taken = bytes.withUnsafeBytes { raw in
            var buffer = uv_buf_init(
                UnsafeMutablePointer(mutating: raw.baseAddress!.assumingMemoryBound(to: CChar.self)), UInt32(raw.count))
            return uv_try_write(sotto_uv_stream(tcp), &buffer, 1)
        }
        if taken == Int32(bytes.count) {
            completion?()
            return
        }
        guard taken >= 0 || taken == UV_EAGAIN.rawValue else {
            abort()
            completion?()
            return
        }
        let request = WriteRequest(bytes: bytes[Int(max(0, taken))...], completion: completion)
        let status = request.start(on: sotto_uv_stream(tcp))
        if status < 0 { abort() }
    }

    /// Writes the last bytes, half-closes, and waits briefly for the client to close (closing
    /// at once could turn unread request bytes into a reset that destroys the answer).
    func finish(with bytes: [UInt8]) {
        guard !closed else { return }
        if case .closing = phase { return }
        if case .webSocket(let socket) = phase { socket.markClosed() }
        if case .streaming(let stream, _) = phase, stream.isOpen { stream.markHungUp() }
        phase = .closing
        closingDeadline = loop.now + 2000
        write(bytes) { [self] in
            guard !closed else { return }
            let shutdown = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
            if uv_shutdown(shutdown, sotto_uv_stream(tcp), { request, _ in request?.deallocate() }) != 0 {
                shutdown.deallocate()
                abort()
            }
        }
        startReading()
    }

    /// Closes the connection now.
    func abort() {
        guard !closed else { return }
        closed = true
        if case .streaming(let stream, _) = phase { stream.markHungUp() }
        handling?.signal()
        if let socket = openedSocket {
            socket.markClosed()
            let responder = core.webSocketResponder
            socket.mailbox.enqueue(force: true) { await responder?.closed(socket) }
            openedSocket = nil
        }
        uv_close(sotto_uv_handle(tcp)) { handle in
            let connection = Unmanaged<Connection>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
            connection.released()
        }
    }

    /// The connection's WebSocket once upgraded (also while closing), told `closed` at the end.
    private var openedSocket: WebSocket?

    private func released() {
        core.limiter.release(address)
        loop.remove(self)  // the last strong reference, once libuv is done with the handle
    }

    deinit { tcp.deallocate() }

    // MARK: Timeouts

    func checkDeadlines(now: UInt64) {
        guard !closed else { return }
        let configuration = core.configuration
        switch phase {
        case .http(busy: true), .streaming:
            break  // a handler or a producer is at work; a streamed body paces itself
        case .http(busy: false):
            if let bodyStartedAt, now - bodyStartedAt > configuration.bodyTimeoutMilliseconds {
                finish(
                    with: core.errorBytes(
                        HTTPFramingError(
                            status: 408, code: "body_timeout",
                            message: "the request body did not arrive in time; nothing was done",
                            path: decoder.pathBeingRead),
                        keepAlive: false))
            } else if let headStartedAt, now - headStartedAt > configuration.headerTimeoutMilliseconds {
                finish(
                    with: core.errorBytes(
                        HTTPFramingError(
                            status: 408, code: "header_timeout", message: "the request head did not arrive in time"),
                        keepAlive: false))
            } else if headStartedAt == nil, now - idleSince > configuration.keepAliveTimeoutMilliseconds {
                abort()
            }
        case .webSocket(let socket):
            if now - lastReceivedAt > configuration.webSocketIdleTimeoutMilliseconds {
                closeWebSocket(socket, code: 1001, reason: "idle")
            } else if now - max(lastReceivedAt, lastPingAt) > configuration.webSocketPingIntervalMilliseconds {
                lastPingAt = now
                write(WebSocketFrame.encode(.ping, []))
            }
        case .closing:
            if now > closingDeadline { abort() }
        }
    }
}

/// One uv_write with the bytes it must keep alive until libuv is done with them.
private final class WriteRequest {
    let storage: UnsafeMutableRawBufferPointer
    let completion: (() -> Void)?
    let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)

    init(bytes: ArraySlice<UInt8>, completion: (() -> Void)?) {
        storage = .allocate(byteCount: bytes.count, alignment: 1)
        storage.copyBytes(from: bytes)
        self.completion = completion
    }

    deinit {
        storage.deallocate()
        request.deallocate()
    }

    func start(on stream: UnsafeMutablePointer<uv_stream_t>) -> Int32 {
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        var buffer = uv_buf_init(storage.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(storage.count))
        let status = uv_write(request, stream, &buffer, 1) { request, _ in
            let write = Unmanaged<WriteRequest>.fromOpaque(request!.pointee.data).takeRetainedValue()
            write.completion?()
        }
        if status < 0 {
            Unmanaged<WriteRequest>.fromOpaque(request.pointee.data).release()
            completion?()
        }
        return status
    }
}
