import CCivetWeb
import Foundation

/// Handles WebSocket connections for one path. Callbacks for one socket arrive one at a
/// time, on that socket's worker thread; different sockets run concurrently.
public protocol WebSocketResponder: Sendable {
    /// Decides on an upgrade request: `nil` accepts it, a response refuses it (e.g. 401).
    func shouldAccept(_ request: HTTPRequest) -> HTTPResponse?
    /// The handshake finished; the socket can send.
    func opened(_ socket: WebSocket)
    /// A complete text message arrived.
    func received(text: String, on socket: WebSocket)
    /// The socket closed (either side); sending is no longer possible.
    func closed(_ socket: WebSocket)
}

/// One server-side WebSocket connection. Safe to send from any thread.
public final class WebSocket: @unchecked Sendable, Hashable {
    // @unchecked Sendable: `connection`, `fragments` and `fragmentOpcode` are only touched
    // inside `lock` (fragments only on the socket's own worker thread, too).

    /// Largest incoming message; bigger ones close the socket with 1009.
    public static let maxMessageBytes = 64 * 1024

    /// Unique among the sockets of this process.
    public let id: Int
    /// The upgrade request (path, query, headers).
    public let request: HTTPRequest
    private let lock = NSLock()
    private var connection: OpaquePointer?
    private var fragments: [UInt8] = []
    private var fragmentOpcode: Int32 = 0

    private static let counterLock = NSLock()
    nonisolated(unsafe) private static var counter = 0

    init(request: HTTPRequest, connection: OpaquePointer) {
        Self.counterLock.lock()
        Self.counter += 1
        id = Self.counter
        Self.counterLock.unlock()
        self.request = request
        self.connection = connection
    }

    /// Sends a text message; false once the socket is closed or the write failed.
    @discardableResult
    public func send(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        return write(opcode: Int32(MG_WEBSOCKET_OPCODE_TEXT), &bytes)
    }

    /// Starts the closing handshake with `code` and a short `reason`.
    public func close(code: UInt16 = 1000, reason: String = "") {
        var payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(120))
        write(opcode: Int32(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE), &payload)
    }

    /// Whether the socket is still open for sending.
    public var isOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return connection != nil
    }

    @discardableResult
    private func write(opcode: Int32, _ bytes: inout [UInt8]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let connection else { return false }
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(buffer.count, 1)) {
                mg_websocket_write(connection, opcode, $0, buffer.count)
            }
        }
        return written > 0
    }

    fileprivate func markClosed() {
        lock.lock()
        connection = nil
        lock.unlock()
    }

    /// Adds one frame; returns the complete message when the frame ends one.
    fileprivate func assemble(opcode: Int32, final: Bool, payload: UnsafeBufferPointer<UInt8>) -> (Int32, [UInt8])?? {
        lock.lock()
        defer { lock.unlock() }
        if opcode != 0 {
            fragmentOpcode = opcode
            fragments.removeAll(keepingCapacity: true)
        }
        guard fragments.count + payload.count <= Self.maxMessageBytes else { return .some(nil) }
        fragments.append(contentsOf: payload)
        guard final else { return nil }
        let message = fragments
        fragments.removeAll()
        return .some((fragmentOpcode, message))
    }

    public static func == (lhs: WebSocket, rhs: WebSocket) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

let webSocketConnectCallback: mg_websocket_connect_handler = { connection, data in
    guard let connection else { return 1 }
    let server = HTTPServer.server(from: data)
    guard let responder = server.webSocketResponder,
        case .success(let request) = HTTPServer.request(from: connection, readBody: false, maxBodyBytes: 0)
    else { return 1 }
    if let refusal = server.onWorker({ responder.shouldAccept(request) }) {
        // Nothing has been sent yet, so a plain HTTP answer reaches the client.
        HTTPServer.writeRaw(refusal, to: connection)
        return 1
    }
    let socket = WebSocket(request: request, connection: connection)
    mg_set_user_connection_data(connection, Unmanaged.passRetained(socket).toOpaque())
    return 0
}

private func socket(of connection: OpaquePointer?) -> WebSocket? {
    guard let connection, let raw = mg_get_user_connection_data(connection) else { return nil }
    return Unmanaged<WebSocket>.fromOpaque(raw).takeUnretainedValue()
}

let webSocketReadyCallback: mg_websocket_ready_handler = { connection, data in
    guard let socket = socket(of: connection) else { return }
    let server = HTTPServer.server(from: data)
    server.onWorker { server.webSocketResponder?.opened(socket) }
}

let webSocketDataCallback: mg_websocket_data_handler = { connection, bits, bytes, length, data in
    guard let connection, let socket = socket(of: connection) else { return 0 }
    let opcode = bits & 0x0F
    switch opcode {
    case Int32(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE):
        return 0
    case Int32(MG_WEBSOCKET_OPCODE_PING):
        _ = mg_websocket_write(connection, Int32(MG_WEBSOCKET_OPCODE_PONG), bytes, length)
        return 1
    case Int32(MG_WEBSOCKET_OPCODE_PONG):
        return 1
    default:
        break
    }
    let payload = UnsafeRawBufferPointer(start: bytes, count: length).bindMemory(to: UInt8.self)
    guard let outcome = socket.assemble(opcode: opcode, final: bits & 0x80 != 0, payload: payload) else { return 1 }
    guard let (messageOpcode, message) = outcome else {
        socket.close(code: 1009, reason: "message too big")
        return 0
    }
    guard messageOpcode == Int32(MG_WEBSOCKET_OPCODE_TEXT), let text = String(validating: message, as: UTF8.self)
    else {
        socket.close(code: 1003, reason: "text messages only")
        return 0
    }
    let server = HTTPServer.server(from: data)
    server.onWorker { server.webSocketResponder?.received(text: text, on: socket) }
    return 1
}

let webSocketCloseCallback: mg_websocket_close_handler = { connection, data in
    guard let connection, let raw = mg_get_user_connection_data(connection) else { return }
    let socket = Unmanaged<WebSocket>.fromOpaque(raw).takeRetainedValue()
    mg_set_user_connection_data(connection, nil)
    socket.markClosed()
    let server = HTTPServer.server(from: data)
    server.onWorker { server.webSocketResponder?.closed(socket) }
}
