import Foundation
import Testing

@testable import Server

/// Echoes the request back as JSON.
private struct EchoResponder: HTTPResponder {
    func respond(to request: HTTPRequest) -> HTTPResponse {
        let object: [String: Any] = [
            "method": request.method, "path": request.path, "segments": request.pathSegments ?? ["<invalid>"],
            "query": request.query, "body": String(decoding: request.body, as: UTF8.self),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return .json(bytes: Array(data))
    }
}

/// Accepts sockets whose query has `ok=1` and echoes text back upper-cased.
private final class EchoSockets: WebSocketResponder, @unchecked Sendable {
    func shouldAccept(_ request: HTTPRequest) -> HTTPResponse? {
        request.query["ok"] == "1" ? nil : .text("no", status: 401)
    }
    func opened(_ socket: WebSocket) { socket.send("hello \(socket.id)") }
    func received(text: String, on socket: WebSocket) { socket.send(text.uppercased()) }
    func closed(_ socket: WebSocket) {}
}

@Suite struct HTTPCoreTests {
    static func start() throws -> (HTTPServer, Int) {
        var configuration = HTTPServer.Configuration(port: 0)
        configuration.threads = 8
        configuration.maxBodyBytes = 1024
        let server = HTTPServer(
            configuration: configuration, responder: EchoResponder(), webSocket: ("/ws", EchoSockets()))
        return (server, try server.start())
    }

    @Test func requestsArriveWithPathQueryAndBody() throws {
        let (server, port) = try Self.start()
        defer { server.stop() }
        let client = HTTPClient(port: port)
        let response = try client.request(
            "POST", "/api/channels/messaging%3Ahike/x?limit=5&q=a+b%21", body: Array("hello".utf8))
        #expect(response.status == 200)
        let json = try response.json()
        #expect(json["path"] as? String == "/api/channels/messaging%3Ahike/x")
        #expect(json["segments"] as? [String] == ["api", "channels", "messaging:hike", "x"])
        #expect(json["query"] as? [String: String] == ["limit": "5", "q": "a b!"])
        #expect(json["body"] as? String == "hello")
    }

    @Test func oversizedBodiesGet413() throws {
        let (server, port) = try Self.start()
        defer { server.stop() }
        let client = HTTPClient(port: port)
        let big = try client.request("POST", "/x", body: [UInt8](repeating: 65, count: 5000))
        #expect(big.status == 413)
        let chunked = try client.raw(
            Array("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                + Array("800\r\n".utf8) + [UInt8](repeating: 66, count: 0x800) + Array("\r\n0\r\n\r\n".utf8))
        #expect(chunked.status == 413)
        let fits = try client.request("POST", "/x", body: [UInt8](repeating: 65, count: 1024))
        #expect(fits.status == 200)
    }

    @Test func webSocketsEchoAndRefusalsAreHTTPAnswers() throws {
        let (server, port) = try Self.start()
        defer { server.stop() }
        let refused = try WebSocketClient(port: port, path: "/ws")
        #expect(refused.refusal?.status == 401)
        #expect(refused.refusal?.text == "no")
        let socket = try WebSocketClient(port: port, path: "/ws?ok=1")
        #expect(socket.refusal == nil)
        #expect(try socket.receive()?.hasPrefix("hello ") == true)
        try socket.send("abc")
        #expect(try socket.receive() == "ABC")
        // A message split over three frames arrives whole.
        try socket.sendFrame(opcode: 1, payload: Array("de".utf8), final: false)
        try socket.sendFrame(opcode: 0, payload: Array("f".utf8), final: false)
        try socket.sendFrame(opcode: 0, payload: Array("g".utf8), final: true)
        #expect(try socket.receive() == "DEFG")
        try socket.send(String(repeating: "x", count: 70_000))
        #expect(try socket.receive() == nil)  // closed: message too big
    }
}
