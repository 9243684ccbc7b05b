import Foundation
import TestSupport
import Testing

@testable import HTTPCore

/// What a streaming producer saw, shared with the test that reads the client's side.
private final class ProducerLog: @unchecked Sendable {
    // @unchecked Sendable: every property is only touched inside `lock`.
    private let lock = NSLock()
    private var writes = 0
    private var refused = false
    private var hangUps = 0
    let hungUp = TestSignal()
    let stopped = TestSignal()
    private var proceeding = false

    /// Lets the producer of `/events` go on past its first event.
    func proceed() {
        lock.lock()
        proceeding = true
        lock.unlock()
    }
    var mayProceed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return proceeding
    }

    func wrote() {
        lock.lock()
        writes += 1
        lock.unlock()
    }
    func writeRefused() {
        lock.lock()
        refused = true
        lock.unlock()
    }
    func sawHangUp() {
        lock.lock()
        hangUps += 1
        lock.unlock()
        hungUp.signal()
    }
    var snapshot: (writes: Int, refused: Bool, hangUps: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (writes, refused, hangUps)
    }
}

/// `/events`: three server-sent events, the second only once the test says so; `/forever`:
/// an event every 10 ms until the client goes; `/bulk`: 64 blocks of 64 KB through a 64 KB
/// window. Each from a task of its own, with `write`.
private struct StreamingResponder: HTTPResponder {
    let log: ProducerLog

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let stream = HTTPBodyStream(maxQueuedBytes: 64 * 1024)
        let log = self.log
        stream.onHangUp { log.sawHangUp() }
        switch request.path {
        case "/events":
            Task {
                defer { log.stopped.signal() }
                await stream.write("data: one\n\n")
                while !log.mayProceed { try? await Task.sleep(for: .milliseconds(5)) }
                await stream.write("data: two\n\n")
                await stream.write("data: [DONE]\n\n")
                stream.finish()
            }
        case "/forever":
            Task {
                defer { log.stopped.signal() }
                while await stream.write("data: tick\n\n") {
                    log.wrote()
                    try? await Task.sleep(for: .milliseconds(10))
                }
                log.writeRefused()
            }
        default:
            Task {
                defer { log.stopped.signal() }
                let block = [UInt8](repeating: 0x61, count: 64 * 1024)
                for _ in 0..<64 {
                    guard await stream.write(block) else { return log.writeRefused() }
                    log.wrote()
                }
                stream.finish()
            }
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], stream: stream)
    }
}

@Suite struct StreamingTests {
    private static func start() throws -> (HTTPServer, Int, ProducerLog) {
        let log = ProducerLog()
        let server = HTTPServer(configuration: .init(port: 0), responder: StreamingResponder(log: log))
        return (server, try server.start(), log)
    }

    @Test func eventsArriveChunkedAsTheyAreWritten() async throws {
        let (server, port, log) = try Self.start()
        defer { server.stop() }
        let socket = try TestSocket(port: port)
        try await socket.write("GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
        let (status, headers) = try await HTTPClient.readHead(from: socket)
        #expect(status == 200)
        #expect(headers["content-type"] == "text/event-stream")
        #expect(headers["transfer-encoding"] == "chunked")
        #expect(headers["connection"] == "close")
        #expect(headers["content-length"] == nil)
        #expect(headers["x-content-type-options"] == "nosniff")
        // The first event is on the wire while the producer still waits for the test.
        await #expect(try HTTPClient.readChunk(from: socket) == Array("data: one\n\n".utf8))
        log.proceed()
        var rest: [UInt8] = []
        while let chunk = try await HTTPClient.readChunk(from: socket) { rest += chunk }
        #expect(String(decoding: rest, as: UTF8.self) == "data: two\n\ndata: [DONE]\n\n")
        #expect(await socket.isClosedByPeer())
        #expect(await log.stopped.wait())
        #expect(log.snapshot.hangUps == 0)
    }

    @Test func http10BodiesEndWithTheConnection() async throws {
        let (server, port, log) = try Self.start()
        defer { server.stop() }
        let socket = try TestSocket(port: port)
        try await socket.write("GET /events HTTP/1.0\r\n\r\n")
        let (status, headers) = try await HTTPClient.readHead(from: socket)
        #expect(status == 200)
        #expect(headers["transfer-encoding"] == nil)
        log.proceed()
        let body = await String(decoding: try socket.readToEnd(), as: UTF8.self)
        #expect(body == "data: one\n\ndata: two\n\ndata: [DONE]\n\n")
    }

    @Test func aClientThatHangsUpStopsTheProducer() async throws {
        let (server, port, log) = try Self.start()
        defer { server.stop() }
        do {
            let socket = try TestSocket(port: port)
            try await socket.write("GET /forever HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = try await HTTPClient.readHead(from: socket)
            await #expect(try HTTPClient.readChunk(from: socket) == Array("data: tick\n\n".utf8))
        }  // the socket closes here
        #expect(await log.hungUp.wait())
        #expect(await log.stopped.wait())
        let seen = log.snapshot
        #expect(seen.refused)
        #expect(seen.hangUps == 1)
        // The server goes on serving.
        let next = try TestSocket(port: port)
        try await next.write("GET /events HTTP/1.1\r\nHost: h\r\n\r\n")
        await #expect(try HTTPClient.readHead(from: next).status == 200)
        log.proceed()
    }

    @Test func aClientThatDoesNotReadHoldsTheProducerBack() async throws {
        let (server, port, log) = try Self.start()
        defer { server.stop() }
        let socket = try TestSocket(port: port, timeout: 20, receiveBuffer: 16 * 1024)
        try await socket.write("GET /bulk HTTP/1.1\r\nHost: h\r\n\r\n")
        try? await Task.sleep(for: .seconds(1))
        // 4 MB are due; the kernel's buffers and the 64 KB window hold well under half of it.
        let early = log.snapshot.writes
        #expect(early < 32)
        #expect(await !log.stopped.wait(timeout: 0))
        let response = try await HTTPClient.readResponse(from: socket)
        #expect(response.status == 200)
        #expect(response.body.count == 64 * 64 * 1024)
        #expect(response.body.allSatisfy { $0 == 0x61 })
        #expect(await log.stopped.wait())
        #expect(log.snapshot.writes == 64)
    }

    @Test func headRequestsGetTheHeadAndStopTheProducer() async throws {
        let (server, port, log) = try Self.start()
        defer { server.stop() }
        let socket = try TestSocket(port: port)
        try await socket.write("HEAD /forever HTTP/1.1\r\nHost: h\r\n\r\n")
        let (status, headers) = try await HTTPClient.readHead(from: socket)
        #expect(status == 200)
        #expect(headers["content-type"] == "text/event-stream")
        #expect(await socket.isClosedByPeer())
        #expect(await log.stopped.wait())
        #expect(log.snapshot.refused)
    }

    @Test(.onTestThreads) func chunksAreFramedInHex() {
        let letters = [UInt8](repeating: 0x41, count: 26)
        #expect(HTTPResponse.chunk(letters) == Array("1a\r\n".utf8) + letters + [13, 10])
        #expect(HTTPResponse.lastChunk == Array("0\r\n\r\n".utf8))
    }
}
