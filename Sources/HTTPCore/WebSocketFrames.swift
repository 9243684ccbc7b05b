/// WebSocket opcodes (RFC 6455 §5.2).
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA
}

/// What a client's frames amount to, one complete message or control frame at a time.
public enum WebSocketEvent: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame: its code (1005 when none was given) and reason.
    case close(code: UInt16, reason: String)
}

/// A frame the server must answer by closing with `code` (1002 protocol error, 1007 invalid
/// UTF-8, 1009 too big).
public struct WebSocketProtocolError: Error, Equatable, Sendable {
    public var code: UInt16
    public var reason: String
}

/// Reads a client's frames (RFC 6455 §5): masked, no reserved bits, control frames short and
/// unfragmented, continuations only inside a fragmented message, messages up to
/// `maxMessageBytes`, text valid UTF-8. A state machine without I/O, like `HTTPRequestDecoder`.
public struct WebSocketFrameDecoder {
    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var message: [UInt8] = []
    private var messageOpcode: WebSocketOpcode?
    private var failed = false

    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(contentsOf: bytes) }
    public mutating func append(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// The next event, a protocol error, or nil when more bytes are needed.
    public mutating func next() -> Result<WebSocketEvent, WebSocketProtocolError>? {
        while !failed {
            guard let frame = nextFrame() else { return nil }
            switch frame {
            case .failure(let error):
                failed = true
                return .failure(error)
            case .success(let (final, opcode, payload)):
                if let event = assemble(final: final, opcode: opcode, payload: payload) { return event }
            }
        }
        return nil
    }

    private mutating func assemble(final: Bool, opcode: WebSocketOpcode, payload: [UInt8])
        -> Result<WebSocketEvent, WebSocketProtocolError>?
    {
        func error(_ code: UInt16, _ reason: String) -> Result<WebSocketEvent, WebSocketProtocolError> {
            failed = true
            return .failure(WebSocketProtocolError(code: code, reason: reason))
        }
        switch opcode {
        case .ping: return .success(.ping(payload))
        case .pong: return .success(.pong(payload))
        case .close:
            guard payload.count != 1 else { return error(1002, "close frame of one byte") }
            guard payload.count >= 2 else { return .success(.close(code: 1005, reason: "")) }
            let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
            guard let reason = String(validating: payload[2...], as: UTF8.self) else {
                return error(1007, "close reason is not UTF-8")
            }
            return .success(.close(code: code, reason: reason))
        case .text, .binary:
            guard messageOpcode == nil else { return error(1002, "new message inside a fragmented one") }
            messageOpcode = opcode
            message = payload
        case .continuation:
            guard messageOpcode != nil else { return error(1002, "continuation without a message") }
            guard message.count + payload.count <= maxMessageBytes else {
                return error(1009, "message over \(maxMessageBytes) bytes")
            }
            message += payload
        }
        guard final, let kind = messageOpcode else { return nil }
        messageOpcode = nil
        let complete = message
        message = []
        if kind == .binary { return .success(.binary(complete)) }
        guard let text = String(validating: complete, as: UTF8.self) else {
            return error(1007, "text message is not UTF-8")
        }
        return .success(.text(text))
    }

    private mutating func nextFrame() -> Result<(Bool, WebSocketOpcode, [UInt8]), WebSocketProtocolError>? {
        let available = buffer.count - start
        guard available >= 2 else { return compact() }
        let first = buffer[start]
        let second = buffer[start + 1]
        guard first & 0x70 == 0 else { return .failure(.init(code: 1002, reason: "reserved bits set")) }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            return .failure(.init(code: 1002, reason: "unknown opcode \(first & 0x0F)"))
        }
        let final = first & 0x80 != 0
        guard second & 0x80 != 0 else { return .failure(.init(code: 1002, reason: "client frames must be masked")) }
        var length = Int(second & 0x7F)
        var offset = 2
        if length == 126 {
            guard available >= 4 else { return compact() }
            length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            offset = 4
        } else if length == 127 {
            guard available >= 10 else { return compact() }
            var value: UInt64 = 0
            for index in 2..<10 { value = value << 8 | UInt64(buffer[start + index]) }
            guard value <= UInt64(maxMessageBytes) else {
                return .failure(.init(code: 1009, reason: "message over \(maxMessageBytes) bytes"))
            }
            length = Int(value)
            offset = 10
        }
        let isControl = opcode.rawValue & 0x8 != 0
        if isControl {
            guard final, length <= 125 else {
                return .failure(.init(code: 1002, reason: "control frames are short and unfragmented"))
            }
        } else if length > maxMessageBytes {
            return .failure(.init(code: 1009, reason: "message over \(maxMessageBytes) bytes"))
        }
        guard available >= offset + 4 + length else { return compact() }
        let mask = Array(buffer[(start + offset)..<(start + offset + 4)])
        let payloadStart = start + offset + 4
        var payload = Array(buffer[payloadStart..<(payloadStart + length)])
        for index in payload.indices { payload[index] ^= mask[index & 3] }
        start = payloadStart + length
        return .success((final, opcode, payload))
    }

    /// Drops consumed bytes once they make up most of the buffer; returns nil (need more).
    private mutating func compact() -> Result<(Bool, WebSocketOpcode, [UInt8]), WebSocketProtocolError>? {
        if start > 0 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return nil
    }
}

/// Server-to-client frames (unmasked, RFC 6455 §5.1).
public enum WebSocketFrame {
    /// A text message framed once, to be sent on any number of sockets (an event's recipients
    /// all get the same bytes).
    public struct Text: Sendable {
        let bytes: [UInt8]

        public init(_ text: String) {
            bytes = WebSocketFrame.encode(.text, Array(text.utf8))
        }
    }

    public static func encode(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode.rawValue]
        frame.reserveCapacity(payload.count + 10)
        if payload.count < 126 {
            frame.append(UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        frame += payload
        return frame
    }

    /// A close frame with `code` and a reason cut to fit a control frame.
    public static func close(code: UInt16, reason: String) -> [UInt8] {
        var payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var cut = Substring(reason)
        while cut.utf8.count > 123 { cut = cut.dropLast() }
        payload += Array(cut.utf8)
        return encode(.close, payload)
    }
}
