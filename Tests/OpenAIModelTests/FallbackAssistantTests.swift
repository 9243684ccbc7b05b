import ChatStore
import Foundation
import FoundationModels
import OpenAIModel
import Server
import ServerKit
import Synchronization
import TestSupport
import Testing

/// The assistant on a fallback endpoint (`FakeEndpoint`), as `sotto serve --model off
/// --fallback-url …` runs it: a hundred streamed turns across eight conversations end without
/// a crash, one user's turns at once are capped (429 with `Retry-After`), and the endpoint's
/// credentials are shown nowhere.
@Suite(.serialized) struct FallbackAssistantTests {
    final class Setup: Sendable {
        let endpoint: FakeEndpoint
        let server: ChatServer
        let port: Int
        let folder: URL
        let name: String

        init() async throws {
            endpoint = try FakeEndpoint()
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "sotto-fallback-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let store = try await ChatStore.open(path: folder.appendingPathComponent("chat.sqlite").path)
            let url = URL(string: "http://operator:hunter2@127.0.0.1:\(endpoint.port)/v1")!
            let model = OpenAICompatibleModel(
                endpoint: .init(baseURL: url, model: "fake", apiKey: "sk-secret", name: "the fallback server"))
            // As an embedding app might: the raw URL in the name, which the server redacts.
            name = "fake at \(url.absoluteString)"
            server = ChatServer(
                store: store, secret: "fallback-secret-0123456789abcdef", suggester: nil,
                model: ServerModel.turnedOffByFlag.withFallback(model, name: name),
                configuration: ChatServer.Configuration(port: 0))
            port = try await server.start()
        }

        func client(_ user: String) -> HTTPClient {
            HTTPClient(port: port, token: server.tokens.token(for: UserID(rawValue: user), lifetime: 3600))
        }

        func stop() {
            server.stop()
            endpoint.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Waits until the conversation is not answering; its messages then.
    static func settled(_ client: HTTPClient, _ id: String) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let detail = try await client.get("/api/assistant/conversations/\(id)").json()
            if detail["answering"] as? Bool == false { return detail["messages"] as? [[String: Any]] ?? [] }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("conversation \(id) still answering after 30 s")
        return []
    }

    @Test func aHundredStreamedTurnsAcrossEightConversations() async throws {
        let setup = try await Setup()
        defer { setup.stop() }
        // Four users with two conversations each: every turn is admitted (two at once per user).
        var conversations: [(user: String, id: String)] = []
        for index in 0..<8 {
            let user = "user\(index / 2)"
            let made = try await setup.client(user).post("/api/assistant/conversations", [String: Any]())
            conversations.append((user, try #require(made.json()["id"] as? String, "\(made.text)")))
        }
        let failures = FailureLog()
        await withTaskGroup(of: Void.self) { group in
            for (index, (user, id)) in conversations.enumerated() {
                group.addTask {
                    let client = setup.client(user)
                    for turn in 0..<13 {
                        do {
                            let sent = try await client.post(
                                "/api/assistant/conversations/\(id)/messages", ["text": "turn \(turn)", "stream": true])
                            guard sent.status == 202 else {
                                failures.add("turn \(turn) of \(index): \(sent.status) \(sent.text)")
                                continue
                            }
                            _ = try await Self.settled(client, id)
                        } catch {
                            failures.add("turn \(turn) of \(index): \(error)")
                        }
                    }
                }
            }
        }
        #expect(failures.entries.isEmpty, "\(failures.entries.prefix(5))")
        #expect(setup.endpoint.requests >= 104)
        let first = setup.client(conversations[0].user)
        let messages = try await Self.settled(first, conversations[0].id)
        let answers = messages.filter { $0["role"] as? String == "assistant" }
        #expect(answers.count == 13)
        #expect(answers.allSatisfy { $0["text"] as? String == FakeEndpoint.answer.joined() })
        // The name shown and stored has no credentials.
        let shown = "fake at http://127.0.0.1:\(setup.endpoint.port)/v1"
        #expect(answers.allSatisfy { $0["model"] as? String == shown }, "\(answers.first ?? [:])")
        let me = try await first.get("/api/me").text
        #expect(me.contains(shown) && !me.contains("hunter2") && !me.contains("operator"), "\(me)")
        let model = try await first.get("/api/model").text
        #expect(!model.contains("hunter2"), "\(model)")
    }

    @Test func aUsersTurnsAtOnceAreCapped() async throws {
        let setup = try await Setup()
        defer { setup.stop() }
        setup.endpoint.hold(true)
        let client = setup.client("carol")
        var ids: [String] = []
        for _ in 0..<3 {
            ids.append(
                try await #require(client.post("/api/assistant/conversations", [String: Any]()).json()["id"] as? String)
            )
        }
        for id in ids.prefix(2) {
            #expect(try await client.post("/api/assistant/conversations/\(id)/messages", ["text": "hi"]).status == 202)
        }
        let third = try await client.post("/api/assistant/conversations/\(ids[2])/messages", ["text": "hi"])
        #expect(third.status == 429, "\(third.text)")
        #expect(third.errorCode == "too_many_turns")
        #expect(Int(third.headers["retry-after"] ?? "") ?? 0 > 0)
        // Another user is not held up by carol's turns.
        let dave = setup.client("dave")
        let daves = try await #require(
            dave.post("/api/assistant/conversations", [String: Any]()).json()["id"] as? String)
        #expect(try await dave.post("/api/assistant/conversations/\(daves)/messages", ["text": "hi"]).status == 202)
        setup.endpoint.hold(false)
        setup.endpoint.release()
        for id in ids.prefix(2) { _ = try await Self.settled(client, id) }
        _ = try await Self.settled(dave, daves)
        #expect(try await client.post("/api/assistant/conversations/\(ids[2])/messages", ["text": "hi"]).status == 202)
        _ = try await Self.settled(client, ids[2])
    }
}

/// Failures noted from several threads.
final class FailureLog: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ entry: String) { list.withLock { $0.append(entry) } }
    var entries: [String] { list.withLock { $0 } }
}
