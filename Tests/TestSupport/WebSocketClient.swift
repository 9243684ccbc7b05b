import Foundation

/// A minimal RFC 6455 client over a raw socket, for tests.
///
/// `@unchecked Sendable`: a test uses one client from one task, one awaited call at a time.
public final class WebSocketClient: @unchecked Sendable {
    public let socket: TestSocket
    /// The handshake response when the server refused the upgrade.
    public private(set) var refusal: WireResponse?

    /// Connects and performs the handshake; check `refusal` when the server said no.
    public init(
        port: Int, path: String, timeout: Double = 30, headers: [String: String] = [:], receiveBuffer: Int? = nil
    ) async throws {
        socket = try TestSocket(port: port, timeout: timeout, receiveBuffer: receiveBuffer)
        let socket = socket
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try await socket.write(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
                + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n")
        let head = String(decoding: try await socket.read(through: Array("\r\n\r\n".utf8)), as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        if status != 101 {
            var headers: [String: String] = [:]
            for line in head.components(separatedBy: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            var body: [UInt8] = []
            if let length = headers["content-length"].flatMap(Int.init) {
                body = (try? await socket.read(exactly: length)) ?? []
            }
            refusal = WireResponse(status: status, headers: headers, body: body)
        }
    }

    public func send(_ text: String) async throws { try await sendFrame(opcode: 1, payload: Array(text.utf8)) }

    public func send(json: [String: Any]) async throws {
        try await send(String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self))
    }

    public func sendFrame(opcode: UInt8, payload: [UInt8], final: Bool = true) async throws {
        let frame = Self.frame(opcode: opcode, payload: payload, final: final)
        try await socket.write(frame)
    }

    /// A masked client frame.
    static func frame(opcode: UInt8, payload: [UInt8], final: Bool) -> [UInt8] {
        var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// The next text message; nil when the server closed the connection.
    public func receive(timeout: Double = 10) async throws -> String? {
        socket.setTimeout(timeout)
        let socket = socket
        return try await TestIO.run { try Self.receiveNow(from: socket) }
    }

    private static func receiveNow(from socket: TestSocket) throws -> String? {
        while true {
            let head = try socket.readNow(exactly: 2)
            let opcode = head[0] & 0x0F
            var length = Int(head[1] & 0x7F)
            if length == 126 {
                let bytes = try socket.readNow(exactly: 2)
                length = Int(bytes[0]) << 8 | Int(bytes[1])
            } else if length == 127 {
                length = try socket.readNow(exactly: 8).reduce(0) { $0 << 8 | Int($1) }
            }
            let payload = try socket.readNow(exactly: length)
            switch opcode {
            case 1: return String(decoding: payload, as: UTF8.self)
            case 8: return nil
            case 9:  // closed already: the read says so next
                try? socket.writeNow(frame(opcode: 10, payload: payload, final: true))
            default: continue
            }
        }
    }

    /// The next message parsed as a JSON object; nil when closed.
    public func receiveJSON(timeout: Double = 10) async throws -> [String: Any]? {
        guard let text = try await receive(timeout: timeout) else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw SocketError(description: "not a JSON object: \(text)")
        }
        return object
    }

    /// Messages until one matches `predicate`; throws on timeout.
    public func receive(until predicate: ([String: Any]) -> Bool, timeout: Double = 10) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw SocketError(description: "no matching event within \(timeout) s") }
            guard let event = try await receiveJSON(timeout: remaining) else {
                throw SocketError(description: "socket closed while waiting")
            }
            if predicate(event) { return event }
        }
    }
}
