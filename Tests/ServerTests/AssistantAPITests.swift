import ChatStore
import Foundation
import FoundationModels
import LocalEngine
import TestSupport
import Testing

@testable import AssistantServer
@testable import Server
@testable import ServerKit

/// The assistant's routes: every one refuses another user's ids, conversations are kept with
/// their settings and dividers, search and export; then answers on a real model that stream,
/// stop, and refuse a turn that would not fit.
@Suite struct AssistantAPITests {
    static let noModel = ServerModel.unavailable(
        .turnedOff, message: "The local model is turned off on this server (SOTTO_MODEL=off). To turn it on, restart.")

    func conversation(_ server: TestServer, _ user: UserID, _ body: [String: Any] = [:]) async throws -> String {
        let created = try await server.client(user).post("/api/assistant/conversations", body)
        #expect(created.status == 201, "\(created.text)")
        return try #require(try created.json()["id"] as? String)
    }

    @Test func everyRouteRefusesAnotherUsersConversation() async throws {
        let server = try await TestServer(model: Self.noModel)
        defer { server.server.stop() }
        let (alice, bob, _) = try await server.pair()
        let id = try await conversation(server, alice)
        let message = try await server.store.appendAssistantMessage(
            .init(role: .user, text: "alice secret zucchini"), to: id, for: alice)
        let path = "/api/assistant/conversations/\(id)"
        let bobClient = server.client(bob)
        let attempts: [(String, String, Any?)] = [
            ("GET", path, nil),
            ("PATCH", path, ["title": "mine now"]),
            ("PUT", path + "/settings", ["persona": "concise"]),
            ("GET", path + "/export", nil),
            ("POST", path + "/messages", ["text": "hello"]),
            ("POST", path + "/regenerate", nil),
            ("POST", path + "/stop", nil),
            ("POST", path + "/continue", nil),
            ("POST", path + "/summary", nil),
            ("POST", path + "/messages/\(message.id)/translation", ["language": "fr"]),
            ("DELETE", path, nil),
        ]
        for (method, route, body) in attempts {
            let answer = try await bobClient.request(method, route, json: body)
            #expect(answer.status == 404, "\(method) \(route): \(answer.status) \(answer.text)")
            #expect(!answer.text.contains("zucchini"))
            // Without a token, nothing at all.
            await #expect(try server.client(nil).request(method, route, json: body).status == 401)
        }
        await #expect(try bobClient.get("/api/assistant/search?q=zucchini").json()["results"] as? [Any] != nil)
        await #expect(
            (try bobClient.get("/api/assistant/search?q=zucchini").json()["results"] as? [Any])?.isEmpty == true)
        await #expect(
            (try bobClient.get("/api/assistant/conversations").json()["conversations"] as? [Any])?.isEmpty == true)
        await #expect(try bobClient.get("/api/assistant").json()["last_conversation_id"] == nil)
        // Alice still has it all.
        let detail = try await server.client(alice).get(path).json()
        #expect((detail["conversation"] as? [String: Any])?["title"] as? String == "New chat")
        #expect((detail["messages"] as? [[String: Any]])?.map { $0["text"] as? String } == ["alice secret zucchini"])
        await #expect(
            (try server.client(alice).get("/api/assistant/search?q=zucchini").json()["results"] as? [Any])?.count == 1)
        // A malformed id is a 400, not a lookup.
        await #expect(try bobClient.get("/api/assistant/conversations/..%2Fetc").status == 400)
        // Alice's own message: a bad language is named; a good one needs the model (off here);
        // a message id that is not in this conversation is not found.
        let translation = path + "/messages/\(message.id)/translation"
        let badLanguage = try await server.client(alice).post(translation, ["language": "xx"])
        #expect(badLanguage.status == 400 && badLanguage.text.contains("language"))
        let noModel = try await server.client(alice).post(translation, ["language": "fr"])
        #expect(noModel.status == 409 && noModel.text.contains("model_unavailable"), "\(noModel.text)")
        await #expect(try server.client(alice).post(path + "/messages/m-none/translation", [:]).status == 404)
    }

    @Test func conversationsAreKeptRenamedExportedAndDeleted() async throws {
        let server = try await TestServer(model: Self.noModel)
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let older = try await conversation(server, alice, ["title": "Lisbon trip"])
        _ = try await server.store.appendAssistantMessage(
            .init(role: .user, text: "Trams in Lisbon?"), to: older, for: alice)
        _ = try await server.store.appendAssistantMessage(
            .init(
                role: .assistant, text: "Take **tram 28**.\n\n```swift\nlet a = 1 < 2\n```\n<script>x()</script>",
                outputTokens: 12, model: "test"), to: older, for: alice)
        let newer = try await conversation(server, alice, ["persona": "concise"])
        let list = try await client.get("/api/assistant/conversations").json()["conversations"] as? [[String: Any]]
        #expect(list?.map { $0["id"] as? String } == [newer, older])
        await #expect(try client.get("/api/assistant").json()["last_conversation_id"] as? String == newer)

        // Opening the older one makes it the one the assistant opens next (a second browser too).
        let detail = try await client.get("/api/assistant/conversations/\(older)").json()
        await #expect(try client.get("/api/assistant").json()["last_conversation_id"] as? String == older)
        let messages = try #require(detail["messages"] as? [[String: Any]])
        #expect(messages[0]["html"] == nil)  // the user's own text: shown escaped by the page
        let html = try #require(messages[1]["html"] as? String)
        #expect(html.contains("<strong>tram 28</strong>") && html.contains("class=\"language-swift\""))
        #expect(html.contains("1 &lt; 2") && !html.contains("<script"))
        #expect(messages[1]["output_tokens"] as? Int == 12)

        let hits = try await #require(
            try client.get("/api/assistant/search?q=trams").json()["results"] as? [[String: Any]])
        #expect(hits.count == 1 && hits[0]["conversation_title"] as? String == "Lisbon trip")
        #expect(hits[0]["highlights"] as? [[Int]] == [[0, 5]])
        await #expect(try client.get("/api/assistant/search?q=%21%21").status == 400)
        await #expect(try client.get("/api/assistant/search").status == 400)

        let renamed = try await client.request(
            "PATCH", "/api/assistant/conversations/\(older)", json: ["title": "Portugal"])
        #expect(try renamed.json()["title"] as? String == "Portugal")
        await #expect(
            try client.request("PATCH", "/api/assistant/conversations/\(older)", json: ["title": " "]).status == 400)

        let export = try await client.get("/api/assistant/conversations/\(older)/export")
        #expect(export.status == 200 && export.headers["content-type"] == "text/markdown; charset=utf-8")
        #expect(export.headers["content-disposition"] == "attachment; filename=\"portugal.md\"")
        #expect(export.text.hasPrefix("# Portugal\n"))
        #expect(export.text.contains("**You:**\n\nTrams in Lisbon?") && export.text.contains("Take **tram 28**."))

        await #expect(try client.request("DELETE", "/api/assistant/conversations/\(older)").status == 204)
        await #expect(try client.get("/api/assistant/conversations/\(older)").status == 404)
        await #expect((try client.get("/api/assistant/search?q=trams").json()["results"] as? [Any])?.isEmpty == true)
    }

    @Test func newSettingsStoreADividerAndBadSettingsAreRefused() async throws {
        let server = try await TestServer(model: Self.noModel)
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let id = try await conversation(server, alice)
        let path = "/api/assistant/conversations/\(id)/settings"
        let same = try await client.request("PUT", path, json: ["persona": "general"]).json()
        #expect(same["divider"] == nil)
        let changed = try await client.request(
            "PUT", path, json: ["persona": "custom", "instructions": "Talk like a pirate.", "temperature": 0.3]
        ).json()
        #expect((changed["conversation"] as? [String: Any])?["instructions"] as? String == "Talk like a pirate.")
        let divider = try #require(changed["divider"] as? [String: Any])
        #expect(divider["role"] as? String == "divider" && divider["summary"] as? Bool == false)
        #expect((divider["text"] as? String)?.contains("memory was reset") == true)
        await #expect(try client.request("PUT", path, json: ["temperature": 3]).status == 400)
        await #expect(try client.request("PUT", path, json: ["persona": "wizard"]).status == 400)
        await #expect(try client.request("PUT", path, json: ["persona": "concise", "instructions": "x"]).status == 400)
        await #expect(try client.request("PUT", path, json: ["language": "xx"]).status == 400)
        await #expect(try client.request("PUT", path, json: ["persona": "custom", "instructions": " "]).status == 400)

        let settings = try await client.request(
            "PUT", "/api/assistant/settings", json: ["appearance": "dark", "show_token_counts": false]
        ).json()
        #expect(settings["appearance"] as? String == "dark" && settings["show_token_counts"] as? Bool == false)
        #expect(settings["stream_responses"] as? Bool == true)
        await #expect(try client.request("PUT", "/api/assistant/settings", json: ["appearance": "neon"]).status == 400)

        // Without a model, work is refused saying why; bad input first.
        let refused = try await client.post("/api/assistant/conversations/\(id)/messages", ["text": "hi"])
        #expect(
            refused.status == 409 && refused.errorCode == "model_unavailable" && refused.text.contains("SOTTO_MODEL"))
        await #expect(try client.post("/api/assistant/conversations/\(id)/messages", ["text": "  "]).status == 400)
        let long = String(repeating: "a", count: 4001)
        await #expect(try client.post("/api/assistant/conversations/\(id)/messages", ["text": long]).status == 400)
        await #expect(try client.post("/api/assistant/conversations/\(id)/messages", ["txt": "hi"]).status == 400)
    }

    @Test(.onTestThreads) func repeatedSmartRepliesAreShownOnce() {
        #expect(
            AssistantEngine.distinct(["Tell me more", "tell me more ", "What else?"]) == ["Tell me more", "What else?"])
        #expect(AssistantEngine.distinct(["a", "b", "c"]) == ["a", "b", "c"])
    }

    @Test(.onTestThreads) func everyGenerationErrorHasItsOwnMessage() {
        let context = LanguageModelSession.GenerationError.Context(debugDescription: "test")
        let errors: [LanguageModelSession.GenerationError] = [
            .exceededContextWindowSize(context), .assetsUnavailable(context), .guardrailViolation(context),
            .unsupportedGuide(context), .unsupportedLanguageOrLocale(context), .decodingFailure(context),
            .rateLimited(context), .concurrentRequests(context), .refusal(.init(transcriptEntries: []), context),
        ]
        let described = errors.map(AssistantErrorText.describe)
        #expect(Set(described.map(\.code)).count == errors.count)
        #expect(Set(described.map(\.message)).count == errors.count)
        #expect(described[0].code == "context_full" && described[0].message.contains("Continue in a new session"))
    }

    /// After a restart there is no session: it is rebuilt from the stored messages after the last
    /// divider, with the instructions the conversation has now (response language and the
    /// summary a continuation left included); kept while nothing changes, remade when it does.
    @Test func sessionsAreRebuiltFromTheStoredMessages() async throws {
        let server = try await TestServer(model: Self.noModel)
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let store = server.store
        var conversation = try await store.createAssistantConversation(
            for: alice, settings: .init(persona: "concise", instructions: "Be brief.", temperature: 0.2, language: "fr")
        )
        _ = try await store.appendAssistantMessage(
            .init(role: .user, text: "old question"), to: conversation.id, for: alice)
        _ = try await store.appendAssistantMessage(
            .init(role: .divider, text: AssistantEngine.summaryPrefix + "They talked about trams."),
            to: conversation.id,
            for: alice)
        _ = try await store.appendAssistantMessage(.init(role: .user, text: "Hello"), to: conversation.id, for: alice)
        _ = try await store.appendAssistantMessage(
            .init(role: .assistant, text: "Bonjour"), to: conversation.id, for: alice)
        conversation = try await store.assistantConversation(conversation.id, for: alice)
        let model = SystemLanguageModel(model: .path(server.folder + "/no-model.gguf"))
        // A new engine, as after a restart of the server.
        let engine = AssistantEngine(store: store, model: .ready(model, name: "test")) { _, _ in }
        let messages = try await store.assistantMessages(in: conversation.id, for: alice)
        let (divider, history) = AssistantEngine.currentSession(of: messages)
        let session = await engine.session(for: conversation, divider: divider, history: history, model: model)
        let entries = Array(session.transcript)
        #expect(entries.count == 3)
        guard case .instructions(let instructions) = entries.first else {
            Issue.record("no instructions entry")
            return
        }
        let text = instructions.segments.map(\.description).joined()
        #expect(text.hasPrefix("Be brief.") && text.contains("Always answer in French"))
        #expect(text.contains("They talked about trams.") && !text.contains("old question"))
        #expect(entries.dropFirst().map(\.description) == ["(Prompt) Hello", "(Response) Bonjour"])
        // Kept while it matches; a new one for new settings.
        await #expect(engine.session(for: conversation, divider: divider, history: history, model: model) === session)
        var warmer = conversation
        warmer.temperature = 0.9
        await #expect(engine.session(for: warmer, divider: divider, history: history, model: model) !== session)
    }

    /// On the real 135M model, in this process as in `sotto serve`.
    @Test func answersStreamStopAndRefuseWhatWouldNotFit() async throws {
        let model = LocalLanguageModel(model: .path(try RealModels.path(RealModels.smollm))).system
        let server = try await TestServer(model: .ready(model, name: RealModels.smollm))
        defer { server.server.stop() }
        let (alice, bob, _) = try await server.pair()
        let socket = try await server.socket(alice)
        let bobSocket = try await server.socket(bob)
        _ = try await socket.receiveJSON()
        _ = try await bobSocket.receiveJSON()
        let client = server.client(alice)
        let id = try await server.store.createAssistantConversation(
            for: alice, settings: .init(persona: "general", instructions: "You are helpful.", temperature: 0.7)
        ).id
        let path = "/api/assistant/conversations/\(id)"
        let status = { (frame: [String: Any]) in (frame["turn"] as? [String: Any])?["status"] as? String }

        // An answer streams to its owner and is stored with its token counts.
        let started = try await client.post(path + "/messages", ["text": "Name three colors."])
        #expect(started.status == 202, "\(started.text)")
        let frames = try await {
            var frames: [[String: Any]] = []
            while true {
                let frame = try await socket.receive(
                    until: { $0["type"] as? String == "assistant.updated" }, timeout: 120)
                frames.append(frame)
                if status(frame) != "streaming" { return frames }
            }
        }()
        let last = try #require(frames.last?["turn"] as? [String: Any])
        #expect(last["status"] as? String == "done", "\(last)")
        let message = try #require(last["message"] as? [String: Any])
        #expect((message["output_tokens"] as? Int ?? 0) > 0 && (message["input_tokens"] as? Int ?? 0) > 0)
        #expect(message["model"] as? String == RealModels.smollm)
        let context = try #require(frames.last?["context"] as? [String: Any])
        #expect((context["used"] as? Int ?? 0) > 0 && context["size"] as? Int == model.contextSize)
        #expect(frames.count >= 2, "no streamed progress")
        let bobSaw = try? await {
            try await bobSocket.receive(until: { $0["type"] as? String == "assistant.updated" }, timeout: 1)
        }()
        #expect(bobSaw == nil)

        // Stop keeps the partial answer as a finished message marked stopped…
        let stopped = try await {
            _ = try await client.post(path + "/messages", ["text": "Write a long story about a dragon and a knight."])
            _ = try await socket.receive(until: { status($0) == "streaming" }, timeout: 120)
            return try await client.post(path + "/stop", [String: Any]()).json()
        }()
        #expect(stopped["stopped"] as? Bool == true)
        let afterStop = try #require((stopped["conversation"] as? [String: Any])?["messages"] as? [[String: Any]])
        #expect(afterStop.last?["role"] as? String == "assistant" && afterStop.last?["stopped"] as? Bool == true)
        #expect((stopped["conversation"] as? [String: Any])?["answering"] as? Bool == false)
        // …and the next prompt is taken at once.
        let next = try await {
            let next = try await client.post(path + "/messages", ["text": "Thanks."])
            _ = try await client.post(path + "/stop", [String: Any]())
            return next
        }()
        #expect(next.status == 202, "\(next.text)")

        // A turn that would not fit is refused before any work, naming the numbers…
        let full = try await server.store.createAssistantConversation(
            for: alice, settings: .init(persona: "general", instructions: "You are helpful.", temperature: 0.7)
        ).id
        let paragraph = String(repeating: "The quick brown fox jumps over the lazy dog again and again. ", count: 60)
        for _ in 0..<4 {
            _ = try await server.store.appendAssistantMessage(.init(role: .user, text: paragraph), to: full, for: alice)
            _ = try await server.store.appendAssistantMessage(
                .init(role: .assistant, text: paragraph), to: full, for: alice)
        }
        let fullPath = "/api/assistant/conversations/\(full)"
        let refused = try await client.post(fullPath + "/messages", ["text": "And then?"])
        #expect(refused.status == 409 && refused.errorCode == "context_full", "\(refused.text)")
        #expect(refused.text.contains("of 4,096 tokens") && refused.text.contains("Continue in a new session"))
        await #expect(try server.store.assistantMessages(in: full, for: alice).count == 8)
        // …and "Continue in a new session" starts one from a summary, after which it fits.
        let summary = try await {
            _ = try await client.post(fullPath + "/continue", [String: Any]())
            return try await socket.receive(
                until: {
                    ($0["turn"] as? [String: Any])?["kind"] as? String == "continuation" && status($0) != "streaming"
                }, timeout: 180)
        }()
        let divider = try #require((summary["turn"] as? [String: Any])?["message"] as? [String: Any])
        #expect(divider["role"] as? String == "divider" && divider["summary"] as? Bool == true)
        let used = try #require((summary["context"] as? [String: Any])?["used"] as? Int)
        #expect(used < 1500, "the new session holds \(used) tokens")
        let resumed = try await {
            let resumed = try await client.post(fullPath + "/messages", ["text": "And then?"])
            _ = try await client.post(fullPath + "/stop", [String: Any]())
            return resumed
        }()
        #expect(resumed.status == 202, "\(resumed.text)")
    }
}
