import Foundation

/// The server side of the opening handshake (RFC 6455 §4.2).
public enum WebSocketHandshake {
    /// Whether the request asks for a WebSocket (`Upgrade: websocket`).
    public static func isUpgrade(_ request: HTTPRequest) -> Bool {
        request.headerValues("Upgrade").contains {
            $0.lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "websocket" }
        }
    }

    /// The `Sec-WebSocket-Accept` value for a valid upgrade request, or why it is not one.
    public static func accept(_ request: HTTPRequest) -> Result<String, HTTPFramingError> {
        guard request.method == "GET", request.minorVersion == 1 else {
            return .failure(.bad("a WebSocket upgrade is a GET over HTTP/1.1", code: "bad_upgrade"))
        }
        let connection = request.headerValues("Connection").flatMap { $0.lowercased().split(separator: ",") }
        guard connection.contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) else {
            return .failure(.bad("a WebSocket upgrade needs 'Connection: Upgrade'", code: "bad_upgrade"))
        }
        guard request.headerValues("Sec-WebSocket-Version") == ["13"] else {
            return .failure(.bad("only Sec-WebSocket-Version 13 is supported", code: "bad_upgrade"))
        }
        let keys = request.headerValues("Sec-WebSocket-Key")
        guard keys.count == 1, let key = Data(base64Encoded: keys[0]), key.count == 16 else {
            return .failure(.bad("Sec-WebSocket-Key must be 16 bytes in base64", code: "bad_upgrade"))
        }
        return .success(acceptValue(for: keys[0]))
    }

    static func acceptValue(for key: String) -> String {
        Data(SHA1.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// The 101 answer.
    static func response(accept: String) -> [UInt8] {
        Array(
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(accept)\r\n\r\n").utf8)
    }
}
