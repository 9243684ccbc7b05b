import Foundation
import HTTPCore
import Synchronization

/// An OpenAI-compatible endpoint on loopback that answers every streamed chat completion at
/// once with the same few chunks and `data: [DONE]`, or, while `holding`, keeps each stream
/// open until released: a real server (HTTPCore, real sockets) standing in for a model, so that
/// a test can run hundreds of turns in seconds.
final class FakeEndpoint: HTTPResponder, Sendable {
    static let answer = ["Hello", " from", " the", " fake", " endpoint."]

    private let server = Mutex<HTTPServer?>(nil)
    private let served = Mutex(0)
    private let held = Mutex<(holding: Bool, streams: [HTTPBodyStream])>((false, []))
    let port: Int

    init() throws {
        // A client that hangs up while the endpoint writes (the tests' early leavers) must not
        // stop the test process: writes then fail with EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        let configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
        let placeholder = Box()
        let http = HTTPServer(configuration: configuration, responder: placeholder)
        port = try http.start()
        server.withLock { $0 = http }
        placeholder.target.withLock { $0 = self }
    }

    deinit { server.withLock { $0?.stop() } }

    func stop() { server.withLock { $0?.stop() } }

    /// Completions answered so far.
    var requests: Int { served.withLock { $0 } }

    /// While true, streams are kept open after their first chunk until `release()`.
    func hold(_ holding: Bool) { held.withLock { $0.holding = holding } }

    /// Ends every held stream.
    func release() {
        let streams = held.withLock { state in
            defer { state.streams = [] }
            return state.streams
        }
        for stream in streams { finish(stream) }
    }

    var heldStreams: Int { held.withLock { $0.streams.count } }

    /// What `/images/generations` answers (status, body), and the requests it got.
    let imageAnswer = Mutex<(status: Int, body: String)>((404, #"{"error": {"message": "no images here"}}"#))
    let imageRequests = Mutex<[HTTPRequest]>([])

    func respond(to request: HTTPRequest) -> HTTPResponse {
        if request.method == "POST", request.path.hasSuffix("/images/generations") {
            imageRequests.withLock { $0.append(request) }
            let (status, body) = imageAnswer.withLock { $0 }
            return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        }
        if request.method == "GET", request.path.hasSuffix("/models") {
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                body: Array(#"{"object": "list", "data": [{"id": "fake", "object": "model"}]}"#.utf8))
        }
        guard request.method == "POST", request.path.hasSuffix("/chat/completions") else {
            return HTTPResponse(status: 404, body: Array(#"{"error": {"message": "no such route"}}"#.utf8))
        }
        served.withLock { $0 += 1 }
        let stream = HTTPBodyStream()
        let holding = held.withLock { state in
            if state.holding { state.streams.append(stream) }
            return state.holding
        }
        DispatchQueue.global().async { [self] in
            stream.send(Self.chunk(#"{"role": "assistant", "content": ""}"#))
            if !holding { finish(stream) }
        }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            stream: stream)
    }

    private func finish(_ stream: HTTPBodyStream) {
        for piece in Self.answer {
            stream.send(Self.chunk(#"{"content": \#(Self.quoted(piece))}"#))
        }
        stream.send(Self.chunk(#"{}"#, finish: "stop"))
        stream.send(Array("data: [DONE]\n\n".utf8))
        stream.finish()
    }

    private static func chunk(_ delta: String, finish: String? = nil) -> [UInt8] {
        let reason = finish.map { "\"\($0)\"" } ?? "null"
        return Array(
            #"data: {"id": "fake", "object": "chat.completion.chunk", "created": 0, "model": "fake", "choices": [{"index": 0, "delta": \#(delta), "finish_reason": \#(reason)}]}"#
                .utf8) + Array("\n\n".utf8)
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast()
            .description
    }

    /// The responder the server is made with, pointing at the endpoint once it exists.
    private final class Box: HTTPResponder, Sendable {
        let target = Mutex<FakeEndpoint?>(nil)
        func respond(to request: HTTPRequest) -> HTTPResponse {
            target.withLock { $0 }?.respond(to: request) ?? HTTPResponse(status: 503)
        }
    }
}
