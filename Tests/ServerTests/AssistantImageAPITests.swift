import ChatStore
import Foundation
import FoundationModels
import LocalEngine
import TestSupport
import Testing

@testable import AssistantServer
@testable import Server

/// The assistant's images through the API: PNG and JPEG are taken (their first bytes decide),
/// anything else is a clear 400, an oversized body a 413 before it is read; only the owner
/// reaches them; they go with the conversation; and on the real model a message's image is
/// read into its prompt.
@Suite struct AssistantImageAPITests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 40)
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 9, count: 40)

    func conversation(_ server: TestServer, _ user: UserID) async throws -> String {
        let created = try await server.client(user).post("/api/assistant/conversations", [String: Any]())
        #expect(created.status == 201, "\(created.text)")
        return try #require(try created.json()["id"] as? String)
    }

    func upload(_ client: HTTPClient, _ conversation: String, _ bytes: [UInt8], type: String = "image/png") async throws
        -> WireResponse
    {
        try await client.request(
            "POST", "/api/assistant/conversations/\(conversation)/images", body: bytes, headers: ["Content-Type": type])
    }

    @Test func pngAndJpegAreAttachedAndAnythingElseIsAClearError() async throws {
        let server = try await TestServer(model: AssistantAPITests.noModel)
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let id = try await conversation(server, alice)
        let path = "/api/assistant/conversations/\(id)"

        let png = try await upload(client, id, Self.png)
        #expect(png.status == 201, "\(png.text)")
        let pngInfo = try png.json()
        #expect(pngInfo["mime_type"] as? String == "image/png" && pngInfo["byte_count"] as? Int == Self.png.count)
        // The first bytes decide, not the Content-Type the client claims.
        let jpeg = try await upload(client, id, Self.jpeg, type: "application/octet-stream")
        let jpegType = try jpeg.json()["mime_type"] as? String
        #expect(jpeg.status == 201 && jpegType == "image/jpeg", "\(jpeg.text)")
        for (name, bytes) in [
            ("text", Array("Error 4012: disk quota exceeded\n".utf8)), ("gif", Array("GIF89a....".utf8)),
            ("empty", []), ("png signature cut short", Array(Self.png.prefix(5))),
        ] {
            let refused = try await upload(client, id, bytes)
            #expect(refused.status == 400 && refused.errorCode == "not_an_image", "\(name): \(refused.text)")
            #expect(refused.text.contains("That file is not a PNG or JPEG image."), "\(name)")
        }
        // Both wait in the conversation, as thumbnails the owner can fetch.
        let detail = try await client.get(path).json()
        let pending = try #require(detail["pending_images"] as? [[String: Any]])
        let pngID = try #require(pngInfo["id"] as? String)
        let jpegID = try jpeg.json()["id"] as? String
        #expect(pending.map { $0["id"] as? String } == [pngID, jpegID])
        let fetched = try await client.get(path + "/images/\(pngID)")
        #expect(fetched.status == 200 && fetched.body == Self.png)
        #expect(fetched.headers["content-type"] == "image/png")
        #expect(fetched.headers["cache-control"] == "no-store")
        // Removing one before sending.
        await #expect(try client.request("DELETE", path + "/images/\(pngID)").status == 204)
        await #expect(try client.get(path + "/images/\(pngID)").status == 404)
        await #expect((try client.get(path).json()["pending_images"] as? [Any])?.count == 1)
        // A malformed image id is a 400, an unknown one sent with a message a 404 before any work.
        await #expect(try client.get(path + "/images/..%2Fx").status == 400)
        let unknown = try await client.post(path + "/messages", ["text": "What is this?", "image_ids": ["nope"]])
        #expect(unknown.status == 404, "\(unknown.text)")
        await #expect(try server.store.assistantMessages(in: id, for: alice).isEmpty)
        // The state tells the web app the limit.
        await #expect(try client.get("/api/assistant").json()["max_image_bytes"] as? Int == 8 * 1024 * 1024)
    }

    /// Images may be sent without text (the model is asked what they show); text alone may not be empty.
    @Test func imagesMayGoWithoutText() async throws {
        let server = try await TestServer(model: AssistantAPITests.noModel)
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let id = try await conversation(server, alice)
        let path = "/api/assistant/conversations/\(id)/messages"
        let empty = try await client.post(path, ["text": "  "])
        #expect(empty.status == 400 && empty.text.contains("text must not be empty"), "\(empty.text)")
        let imageID = try await #require(try upload(client, id, Self.png).json()["id"] as? String)
        // Past the text check, the next refusal is this server's: it has no model.
        let withImage = try await client.post(path, ["text": "", "image_ids": [imageID]])
        #expect(withImage.status == 409 && withImage.errorCode == "model_unavailable", "\(withImage.text)")

        #expect(AssistantEngine.question(" ", images: 1) == "What does this image show?")
        #expect(AssistantEngine.question("", images: 2) == "What do these images show?")
        #expect(AssistantEngine.question("Which room?", images: 1) == "Which room?")
        #expect(AssistantEngine.question("", images: 0) == "")
    }

    @Test func onlyTheImageRouteTakesALargeBodyAndTooLargeIsRefusedBeforeItIsRead() async throws {
        let server = try await TestServer(model: AssistantAPITests.noModel) { $0.maxImageBytes = 256 * 1024 }
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let id = try await conversation(server, alice)
        // 200 KB: over every other route's 64 KB, within the image route's 256 KB.
        let big = Self.png + Array(repeating: 1, count: 200 * 1024)
        let taken = try await upload(client, id, big)
        #expect(taken.status == 201, "\(taken.text)")
        #expect(try taken.json()["byte_count"] as? Int == big.count)
        let elsewhere = try await client.request(
            "POST", "/api/assistant/conversations/\(id)/messages", body: big,
            headers: ["Content-Type": "application/json"])
        #expect(elsewhere.status == 413)
        // Over the image limit: 413 on the head alone, with nothing of the body sent or stored.
        let socket = try TestSocket(port: server.port)
        try await socket.write(
            Array(
                ("POST /api/assistant/conversations/\(id)/images HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(server.token(alice))\r\nContent-Type: image/png\r\n"
                    + "Content-Length: \(256 * 1024 + 1)\r\n\r\n").utf8))
        let refused = try await HTTPClient.readResponse(from: socket)
        #expect(refused.status == 413 && refused.errorCode == "body_too_large", "\(refused.text)")
        // Without a valid token the route takes no more than any other: nobody unknown may make
        // the server hold megabytes.
        let anonymous = try TestSocket(port: server.port)
        try await anonymous.write(
            Array(
                ("POST /api/assistant/conversations/\(id)/images HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer not-a-token\r\nContent-Type: image/png\r\n"
                    + "Content-Length: \(100 * 1024)\r\n\r\n").utf8))
        let unknown = try await HTTPClient.readResponse(from: anonymous)
        #expect(unknown.status == 413 && unknown.text.contains("65536"), "\(unknown.text)")
        await #expect(
            (try client.get("/api/assistant/conversations/\(id)").json()["pending_images"] as? [Any])?.count == 1)
    }

    @Test func anotherUsersConversationAndImagesAreNotFound() async throws {
        let server = try await TestServer(model: AssistantAPITests.noModel)
        defer { server.server.stop() }
        let (alice, bob, _) = try await server.pair()
        let id = try await conversation(server, alice)
        let bobsOwn = try await conversation(server, bob)
        let imageID = try await #require(try upload(server.client(alice), id, Self.png).json()["id"] as? String)
        let bobClient = server.client(bob)
        let path = "/api/assistant/conversations/\(id)"
        await #expect(try upload(bobClient, id, Self.png).status == 404)
        await #expect(try bobClient.get(path + "/images/\(imageID)").status == 404)
        await #expect(try bobClient.request("DELETE", path + "/images/\(imageID)").status == 404)
        // Nor through a conversation of his own.
        await #expect(try bobClient.get("/api/assistant/conversations/\(bobsOwn)/images/\(imageID)").status == 404)
        let sent = try await bobClient.post(
            "/api/assistant/conversations/\(bobsOwn)/messages", ["text": "mine?", "image_ids": [imageID]])
        #expect(sent.status == 404, "\(sent.text)")
        // Without a token, nothing.
        await #expect(try server.client(nil).get(path + "/images/\(imageID)").status == 401)
        await #expect(try upload(server.client(nil), id, Self.png).status == 401)
        await #expect(try server.client(alice).get(path + "/images/\(imageID)").body == Self.png)
    }

    @Test func deletingTheConversationDeletesItsImages() async throws {
        let server = try await TestServer(model: AssistantAPITests.noModel)
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let id = try await conversation(server, alice)
        let path = "/api/assistant/conversations/\(id)"
        let sentID = try await #require(try upload(client, id, Self.png).json()["id"] as? String)
        let waitingID = try await #require(try upload(client, id, Self.jpeg).json()["id"] as? String)
        _ = try await server.store.appendAssistantMessage(
            .init(role: .user, text: "What does it say?"), to: id, for: alice, attaching: [sentID])
        let messages = try await #require(try client.get(path).json()["messages"] as? [[String: Any]])
        #expect((messages.first?["images"] as? [[String: Any]])?.map { $0["id"] as? String } == [sentID])
        await #expect(try client.get(path + "/images/\(sentID)").body == Self.png)
        // A sent image stays with its message: it cannot be removed as a waiting one.
        await #expect(try client.request("DELETE", path + "/images/\(sentID)").status == 404)

        await #expect(try client.request("DELETE", path).status == 204)
        await #expect(try client.get(path + "/images/\(sentID)").status == 404)
        await #expect(try client.get(path + "/images/\(waitingID)").status == 404)
        let left = try await server.store.read { db in
            try db.row("SELECT (SELECT COUNT(*) FROM assistant_images) + (SELECT COUNT(*) FROM assistant_uploads)") {
                $0.int(0)
            }
        }
        #expect(left == 0)
    }

    /// On the real 0.5B model, in this process: the screenshot of a calendar goes through
    /// `FoundationModels`' image attachment, and the answer names what is written in it.
    @Test func theModelAnswersFromTheTextInAnAttachedImage() async throws {
        let model = LocalLanguageModel(model: .path(try RealModels.path(RealModels.qwen))).system
        let server = try await TestServer(model: .ready(model, name: RealModels.qwen))
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let socket = try await server.socket(alice)
        _ = try await socket.receiveJSON()
        let client = server.client(alice)
        let id = try await server.store.createAssistantConversation(
            for: alice,
            settings: .init(
                persona: "custom", instructions: "Answer from the image context in one short sentence.",
                temperature: 0)
        ).id
        let path = "/api/assistant/conversations/\(id)"
        let screenshot = try [UInt8](Data(contentsOf: Self.fixture("screenshot.png")))
        let imageID = try await #require(try upload(client, id, screenshot).json()["id"] as? String)

        let (started, frame) = try await {
            let started = try await client.post(
                path + "/messages",
                ["text": "Which room is the design review in, and on which day?", "image_ids": [imageID]])
            let frame = try await socket.receive(
                until: {
                    $0["type"] as? String == "assistant.updated"
                        && ($0["turn"] as? [String: Any])?["status"] as? String != "streaming"
                }, timeout: 180)
            return (started, frame)
        }()
        #expect(started.status == 202, "\(started.text)")
        let message = (try? started.json())?["message"] as? [String: Any]
        #expect((message?["images"] as? [[String: Any]])?.map { $0["id"] as? String } == [imageID])
        let turn = try #require(frame["turn"] as? [String: Any])
        let text = turn["text"] as? String ?? ""
        #expect(turn["status"] as? String == "done", "\(turn)")
        #expect(text.contains("Aurora"), "the answer was: \(text)")
        // The image's words were read into the prompt: far more input than the question alone.
        #expect((turn["input_tokens"] as? Int ?? 0) > 60, "\(turn)")
        // The session's prompt holds the image as an attachment, as rebuilt after a restart too.
        let messages = try await server.store.assistantMessages(in: id, for: alice)
        #expect(messages.first?.images.map(\.id) == [imageID])
        let conversation = try await server.store.assistantConversation(id, for: alice)
        let engine = AssistantEngine(store: server.store, model: .ready(model, name: "test")) { _, _ in }
        let session = await engine.session(for: conversation, divider: nil, history: messages, model: model)
        let attachments = session.transcript.compactMap { entry -> Int? in
            guard case .prompt(let prompt) = entry else { return nil }
            return prompt.segments.filter { if case .attachment = $0 { true } else { false } }.count
        }
        #expect(attachments == [1])
        await #expect((try client.get(path).json()["pending_images"] as? [Any])?.isEmpty == true)

        // Regenerate writes the answer again from a session rebuilt from the stored messages:
        // the image is read again from the store into the prompt.
        let again = try await {
            let started = try await client.post(path + "/regenerate", [String: Any]())
            let frame = try await socket.receive(
                until: {
                    $0["type"] as? String == "assistant.updated"
                        && ($0["turn"] as? [String: Any])?["status"] as? String != "streaming"
                }, timeout: 180)
            return (started.status, frame["turn"] as? [String: Any] ?? [:])
        }()
        #expect(again.0 == 202)
        #expect((again.1["text"] as? String ?? "").contains("Aurora"), "the answer was: \(again.1)")
    }

    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("LocalEngineTests/Fixtures/images/\(name)")
    }
}
