import Foundation
import TestSupport
import Testing

@testable import HTTPCore

/// Echoes the request back as JSON; `/slow` takes a second, `/flood` is not an HTTP route.
struct EchoResponder: HTTPResponder {
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if request.path == "/slow" { try? await Task.sleep(for: .seconds(1)) }
        let object: [String: Any] = [
            "method": request.method, "path": request.path, "segments": request.pathSegments ?? ["<invalid>"],
            "query": request.query, "body": String(decoding: request.body, as: UTF8.self),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return .json(bytes: Array(data))
    }
}

/// Accepts sockets whose query has `ok=1`, echoes text upper-cased; "flood" sends 400 messages
/// of 16 KB; records what it saw.
private final class EchoSockets: WebSocketResponder, @unchecked Sendable {
    // @unchecked Sendable: `log` is only touched inside `lock`.
    private let lock = NSLock()
    private var log: [String] = []
    private var dropped = 0

    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    var floodsDropped: Int {
        lock.lock()
        defer { lock.unlock() }
        return dropped
    }

    private func noteDropped() {
        lock.lock()
        dropped += 1
        lock.unlock()
    }

    private func note(_ text: String) {
        lock.lock()
        log.append(text)
        lock.unlock()
    }

    func shouldAccept(_ request: HTTPRequest) async -> HTTPResponse? {
        request.query["ok"] == "1" ? nil : .text("no", status: 401)
    }
    func opened(_ socket: WebSocket) async {
        note("opened \(socket.id)")
        socket.send("hello \(socket.id)")
    }
    func received(text: String, on socket: WebSocket) async {
        if text == "flood" {
            let chunk = String(repeating: "x", count: 16 * 1024)
            for _ in 0..<400 where !socket.send(chunk) {
                noteDropped()
                return
            }
            return
        }
        if text == "bye" {
            socket.close(code: 4000, reason: "asked")
            return
        }
        socket.send(text.uppercased())
    }
    func closed(_ socket: WebSocket) async { note("closed \(socket.id)") }
}

/// Waits (at most 5 s) for its request's client to hang up, and notes when it does.
private final class HangUpResponder: HTTPResponder, Sendable {
    let noticed = TestSignal()

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let gone = TestSignal()
        request.hangUp?.onHangUp { gone.signal() }
        if await gone.wait() { noticed.signal() }
        return .text("too late")
    }
}

@Suite struct ServerTests {
    private static func start(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws -> (
        HTTPServer, Int, EchoSockets
    ) {
        var configuration = HTTPServer.Configuration(port: 0)
        configuration.limits.maxBodyBytes = 1024
        configure(&configuration)
        let sockets = EchoSockets()
        let server = HTTPServer(configuration: configuration, responder: EchoResponder(), webSocket: ("/ws", sockets))
        return (server, try server.start(), sockets)
    }

    @Test func requestsArriveWithPathQueryAndBody() async throws {
        let (server, port, _) = try Self.start()
        defer { server.stop() }
        let client = HTTPClient(port: port)
        let response = try await client.request(
            "POST", "/api/channels/messaging%3Ahike/x?limit=5&q=a+b%21", body: Array("hello".utf8))
        #expect(response.status == 200)
        #expect(response.headers["x-content-type-options"] == "nosniff")
        let json = try response.json()
        #expect(json["path"] as? String == "/api/channels/messaging%3Ahike/x")
        #expect(json["segments"] as? [String] == ["api", "channels", "messaging:hike", "x"])
        #expect(json["query"] as? [String: String] == ["limit": "5", "q": "a b!"])
        #expect(json["body"] as? String == "hello")
    }

    @Test func framingErrorsAreJSONAndCloseTheConnection() async throws {
        let (server, port, _) = try Self.start()
        defer { server.stop() }
        let socket = try TestSocket(port: port)
        try await socket.write(
            "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 20\r\nContent-Length: 2\r\n\r\n{}GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n"
        )
        let response = try await HTTPClient.readResponse(from: socket)
        #expect(response.status == 400)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["connection"] == "close")
        #expect(response.headers["x-content-type-options"] == "nosniff")
        #expect(response.errorCode == "bad_request")
        #expect(await socket.isClosedByPeer())  // the smuggled request got no answer
    }

    @Test func oversizedBodiesGet413() async throws {
        let (server, port, _) = try Self.start()
        defer { server.stop() }
        let client = HTTPClient(port: port)
        let big = try await client.request("POST", "/x", body: [UInt8](repeating: 65, count: 5000))
        #expect(big.status == 413)
        let chunked = try await client.raw(
            Array("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                + Array("800\r\n".utf8) + [UInt8](repeating: 66, count: 0x800) + Array("\r\n0\r\n\r\n".utf8))
        #expect(chunked.status == 413)
        let fits = try await client.request("POST", "/x", body: [UInt8](repeating: 65, count: 1024))
        #expect(fits.status == 200)
    }

    /// A handler still making its answer hears its client hang up (the connection keeps reading
    /// while it works), so that long work for nobody can stop.
    @Test func aHandlerHearsItsClientHangUp() async throws {
        let responder = HangUpResponder()
        let server = HTTPServer(configuration: HTTPServer.Configuration(port: 0), responder: responder)
        let port = try server.start()
        defer { server.stop() }
        do {
            let socket = try TestSocket(port: port)
            try await socket.write("GET /long HTTP/1.1\r\nHost: h\r\n\r\n")
            try await Task.sleep(for: .milliseconds(300))  // the handler is waiting now
        }  // the socket closes here
        #expect(await responder.noticed.wait(timeout: 15))
    }

    @Test func keepAliveServesSeveralRequestsAndPipelines() async throws {
        let (server, port, _) = try Self.start()
        defer { server.stop() }
        let socket = try TestSocket(port: port)
        try await socket.write("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        let first = try await HTTPClient.readResponse(from: socket)
        let second = try await HTTPClient.readResponse(from: socket)
        #expect((try first.json())["path"] as? String == "/a")
        #expect((try second.json())["path"] as? String == "/b")
        try await socket.write("GET /c HTTP/1.1\r\nHost: h\r\n\r\n")
        await #expect((try HTTPClient.readResponse(from: socket).json())["path"] as? String == "/c")
    }

    @Test func slowHeadersAndShortBodiesTimeOutWith408() async throws {
        let (server, port, _) = try Self.start { configuration in
            configuration.headerTimeoutMilliseconds = 500
            configuration.bodyTimeoutMilliseconds = 500
        }
        defer { server.stop() }
        let slow = try TestSocket(port: port)
        try await slow.write("GET / HTTP/1.1\r\nHost: h\r\n")
        let slowAnswer = try await HTTPClient.readResponse(from: slow)
        #expect(slowAnswer.status == 408)
        #expect(slowAnswer.errorCode == "header_timeout")
        let short = try TestSocket(port: port)
        try await short.write("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 20\r\n\r\n{}")
        let shortAnswer = try await HTTPClient.readResponse(from: short)
        #expect(shortAnswer.status == 408)
        #expect(shortAnswer.errorCode == "body_timeout")
        #expect(await short.isClosedByPeer())
    }

    @Test func idleKeepAliveConnectionsAreClosed() async throws {
        let (server, port, _) = try Self.start { $0.keepAliveTimeoutMilliseconds = 500 }
        defer { server.stop() }
        // Closed by the 0.5 s timeout set here, not the default 15 s one: well before 12 s even on
        // a machine busy with the other tests.
        let socket = try TestSocket(port: port, timeout: 12)
        let started = Date()
        #expect(await socket.isClosedByPeer())
        #expect(Date().timeIntervalSince(started) < 12)
    }

    @Test func connectionsPerAddressAreCapped() async throws {
        let (server, port, _) = try Self.start { $0.maxConnectionsPerAddress = 3 }
        defer { server.stop() }
        let held = try (0..<3).map { _ in try TestSocket(port: port) }
        try await held[0].write("GET /held HTTP/1.1\r\nHost: h\r\n\r\n")
        await #expect(try HTTPClient.readResponse(from: held[0]).status == 200)
        let refused = try await HTTPClient(port: port).get("/x")
        #expect(refused.status == 503)
        #expect(refused.errorCode == "too_many_connections")
        withExtendedLifetime(held) {}
    }

    @Test func requestsPastTheInFlightBoundAreAnsweredWith503() async throws {
        let (server, port, _) = try Self.start { $0.maxRequestsInFlight = 1 }
        defer { server.stop() }
        let sockets = try (0..<4).map { _ in try TestSocket(port: port) }
        for socket in sockets { try await socket.write("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n") }
        var statuses: [Int] = []
        for socket in sockets { statuses.append(try await HTTPClient.readResponse(from: socket).status) }
        #expect(statuses.filter { $0 == 200 }.count >= 1)
        #expect(statuses.contains(503))
    }

    @Test func webSocketsEchoAndRefusalsAreHTTPAnswers() async throws {
        let (server, port, _) = try Self.start()
        defer { server.stop() }
        let refused = try await WebSocketClient(port: port, path: "/ws")
        #expect(refused.refusal?.status == 401)
        #expect(refused.refusal?.text == "no")
        #expect(await refused.socket.isClosedByPeer())
        let socket = try await WebSocketClient(port: port, path: "/ws?ok=1")
        #expect(socket.refusal == nil)
        await #expect(try socket.receive()?.hasPrefix("hello ") == true)
        try await socket.send("abc")
        await #expect(try socket.receive() == "ABC")
        // A message split over three frames arrives whole.
        try await socket.sendFrame(opcode: 1, payload: Array("de".utf8), final: false)
        try await socket.sendFrame(opcode: 0, payload: Array("f".utf8), final: false)
        try await socket.sendFrame(opcode: 0, payload: Array("g".utf8), final: true)
        await #expect(try socket.receive() == "DEFG")
        try await socket.send(String(repeating: "x", count: 70_000))
        await #expect(try socket.receive() == nil)  // closed: message too big
    }

    @Test func closingASocketClosesTheTCPConnection() async throws {
        let (server, port, sockets) = try Self.start()
        defer { server.stop() }
        let socket = try await WebSocketClient(port: port, path: "/ws?ok=1", timeout: 30)
        _ = try await socket.receive()
        try await socket.send("bye")
        await #expect(try socket.receive() == nil)  // the close frame
        let started = Date()
        #expect(await socket.socket.isClosedByPeer())  // and then TCP, without waiting for our close frame
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(await eventually { sockets.events.contains { $0.hasPrefix("closed") } })
    }

    @Test func aClientThatDoesNotReadIsDroppedAtTheBufferLimit() async throws {
        let (server, port, sockets) = try Self.start { $0.webSocketMaxQueuedBytes = 256 * 1024 }
        defer { server.stop() }
        let socket = try await WebSocketClient(port: port, path: "/ws?ok=1", timeout: 10, receiveBuffer: 4096)
        _ = try await socket.receive()
        try await socket.send("flood")  // 6.4 MB to a reader that reads nothing
        #expect(await eventually { sockets.floodsDropped > 0 })
        #expect(sockets.floodsDropped == 1)
        #expect(await eventually { sockets.events.contains { $0.hasPrefix("closed") } })
        #expect(server.connectionCount == 0)
    }
}

@Suite struct ConcurrentRequestTests {
    /// A handler that awaits (the store, the engine) holds no thread: slow requests do not hold
    /// up a quick one, however many there are.
    @Test func slowRequestsDoNotHoldUpOthers() async throws {
        let server = HTTPServer(configuration: HTTPServer.Configuration(port: 0), responder: EchoResponder())
        let port = try server.start()
        defer { server.stop() }
        let slow = try (0..<20).map { _ in try TestSocket(port: port) }
        for socket in slow { try await socket.write("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n") }
        let started = Date()
        let quick = try TestSocket(port: port, timeout: 10)
        try await quick.write("GET /quick HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await HTTPClient.readResponse(from: quick).status == 200)
        #expect(Date().timeIntervalSince(started) < 0.9)  // before the first slow one ends
        for socket in slow { #expect(try await HTTPClient.readResponse(from: socket).status == 200) }
    }
}
