/// The head of a WebSocket upgrade (RFC 6455 §4.1), as the web app's browser sends it.
func upgradeRequest(target: String, key: String) -> [UInt8] {
    Array(
        ("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
}
