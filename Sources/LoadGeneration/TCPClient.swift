import CLibUV

/// The loopback address of the server under load.
struct ServerAddress: Sendable {
    let port: Int

    fileprivate var socketAddress: sockaddr_in {
        var address = sockaddr_in()
        uv_ip4_addr("127.0.0.1", Int32(port), &address)
        return address
    }
}

/// What the receivers, the sender and the attackers share about a client TCP handle on a loop:
/// connecting, reading into the loop's buffer, writing, closing. The callbacks are C functions,
/// so each finds its owner through the handle's `data`.
enum TCPClient {
    /// Told how a connect ended: the handle, and 0 or a libuv error code.
    typealias Connected = @convention(c) (UnsafeMutablePointer<uv_stream_t>?, Int32) -> Void

    /// A new handle on `loop` carrying `owner`, connecting to `address`. On a refusal at once (no
    /// descriptor left, say) the handle is closed and released, and the reason returned.
    static func connect(
        on loop: UnsafeMutablePointer<uv_loop_t>, to address: ServerAddress, owner: UnsafeMutableRawPointer,
        connected: Connected
    ) -> Result<UnsafeMutablePointer<uv_tcp_t>, LoadGeneratorError> {
        let tcp = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        let initialized = uv_tcp_init(loop, tcp)
        guard initialized == 0 else {
            tcp.deallocate()
            return .failure(LoadGeneratorError("uv_tcp_init: \(uvError(initialized))"))
        }
        tcp.pointee.data = owner
        let request = UnsafeMutablePointer<uv_connect_t>.allocate(capacity: 1)
        // The request carries the caller's function, so one callback here serves every caller.
        request.pointee.data = unsafeBitCast(connected, to: UnsafeMutableRawPointer.self)
        var socketAddress = address.socketAddress
        let status = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                uv_tcp_connect(request, tcp, $0) { request, status in
                    let connected = unsafeBitCast(request!.pointee.data, to: Connected.self)
                    let handle = request!.pointee.handle
                    request!.deallocate()
                    connected(handle, status)
                }
            }
        }
        guard status == 0 else {
            request.deallocate()
            close(tcp)
            return .failure(LoadGeneratorError("connect: \(uvError(status))"))
        }
        // Requests and pongs are small writes that must go out at once.
        uv_tcp_nodelay(tcp, 1)
        return .success(tcp)
    }

    /// Starts reading into the loop's shared buffer (see `LoopThread.readBuffer`).
    static func startReading(_ tcp: UnsafeMutablePointer<uv_tcp_t>, _ read: uv_read_cb) -> Int32 {
        uv_read_start(
            sotto_uv_stream(tcp),
            { handle, _, buffer in
                let loop = LoopThread.of(handle!.pointee.loop)
                buffer!.pointee = uv_buf_init(
                    loop.readBuffer.assumingMemoryBound(to: CChar.self), UInt32(LoopThread.readBufferSize))
            }, read)
    }

    /// Writes `bytes`: straight into the socket when it takes them all (nearly always on
    /// loopback), else the rest queued in a copy libuv owns until it is written. False when the
    /// connection is broken; the read side then reports its end.
    @discardableResult
    static func write(_ bytes: UnsafeRawBufferPointer, to tcp: UnsafeMutablePointer<uv_tcp_t>) -> Bool {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return true }
        let stream = sotto_uv_stream(tcp)
        var buffer = uv_buf_init(
            UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: CChar.self)), UInt32(bytes.count))
        let written = Int(uv_try_write(stream, &buffer, 1))
        if written == bytes.count { return true }
        // UV_EAGAIN: the socket's buffer is full or earlier writes are still queued.
        guard written >= 0 || written == Int(UV_EAGAIN.rawValue) else { return false }
        let remaining = bytes.count - max(written, 0)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: remaining, alignment: 1)
        storage.copyMemory(from: base + max(written, 0), byteCount: remaining)
        let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
        request.pointee.data = storage
        buffer = uv_buf_init(storage.assumingMemoryBound(to: CChar.self), UInt32(remaining))
        let status = uv_write(request, stream, &buffer, 1) { request, _ in
            request!.pointee.data.deallocate()
            request!.deallocate()
        }
        guard status == 0 else {
            storage.deallocate()
            request.deallocate()
            return false
        }
        return true
    }

    @discardableResult
    static func write(_ bytes: [UInt8], to tcp: UnsafeMutablePointer<uv_tcp_t>) -> Bool {
        bytes.withUnsafeBytes { write($0, to: tcp) }
    }

    /// Closes the handle and releases it once libuv is done with it.
    static func close(_ tcp: UnsafeMutablePointer<uv_tcp_t>) {
        uv_close(sotto_uv_handle(tcp)) { handle in handle?.deallocate() }
    }
}
