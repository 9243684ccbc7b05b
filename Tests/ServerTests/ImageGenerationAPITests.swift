import ChatStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AssistantServer
@testable import Server

/// Images made on request by a configured image model (`sotto serve --image-url`), through the
/// API with a stand-in model: the image waits in the conversation naming its model; bad prompts
/// and sizes are 400s before the model is asked; one at a time per user; a failing model is a
/// 502 that says why; with none configured, `/api/me` says so and the route is a 404.
@Suite struct ImageGenerationAPITests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 5, count: 64)

    /// What the stand-in model was asked, and what it answers.
    final class StandIn: Sendable {
        let asked = Mutex<[(prompt: String, size: String?)]>([])
        let answer = Mutex<Result<(bytes: [UInt8], mimeType: String), Failure>>(.success((png, "image/png")))
        /// While set, a request waits until it is released.
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let holding = Mutex(false)

        struct Failure: Error, CustomStringConvertible {
            var description: String
        }

        var generation: ImageGeneration {
            ImageGeneration(model: "fake-diffusion", sizes: ["256x256", "512x512"]) { [self] prompt, size in
                asked.withLock { $0.append((prompt, size)) }
                if holding.withLock({ $0 }) {
                    await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } }
                }
                return try answer.withLock { $0 }.get()
            }
        }

        func release() {
            holding.withLock { $0 = false }
            gate.withLock { $0 }?.resume()
        }
    }

    func conversation(_ server: TestServer, _ user: UserID) async throws -> String {
        let created = try await server.client(user).post("/api/assistant/conversations", [String: Any]())
        return try #require(try created.json()["id"] as? String, "\(created.text)")
    }

    @Test func anImageIsMadeAndWaitsInTheConversationNamingItsModel() async throws {
        let model = StandIn()
        let server = try await TestServer(model: AssistantAPITests.noModel) { $0.imageGeneration = model.generation }
        defer { server.server.stop() }
        let (alice, bob, _) = try await server.pair()
        let client = server.client(alice)
        let images = try #require(try await client.get("/api/me").json()["images"] as? [String: Any])
        #expect(images["available"] as? Bool == true && images["model"] as? String == "fake-diffusion")
        #expect(images["sizes"] as? [String] == ["256x256", "512x512"])

        let id = try await conversation(server, alice)
        let path = "/api/assistant/conversations/\(id)"
        let made = try await client.post(
            path + "/images/generations", ["prompt": "  a lighthouse at dusk ", "size": "256x256"])
        #expect(made.status == 201, "\(made.text)")
        let info = try made.json()
        #expect(info["generated_by"] as? String == "fake-diffusion" && info["byte_count"] as? Int == Self.png.count)
        #expect(info["mime_type"] as? String == "image/png")
        let asked = model.asked.withLock { $0 }
        #expect(asked.count == 1 && asked.first?.prompt == "a lighthouse at dusk" && asked.first?.size == "256x256")
        let imageID = try #require(info["id"] as? String)
        let pending = try #require(try await client.get(path).json()["pending_images"] as? [[String: Any]])
        #expect(pending.map { $0["generated_by"] as? String } == ["fake-diffusion"])
        let fetched = try await client.get(path + "/images/\(imageID)")
        #expect(fetched.status == 200 && fetched.body == Self.png)
        // Another user's conversation is not found, and its model is not asked.
        let elsewhere = try await server.client(bob).post(path + "/images/generations", ["prompt": "a cat"])
        #expect(elsewhere.status == 404, "\(elsewhere.text)")
        #expect(model.asked.withLock { $0.count } == 1)
    }

    @Test func badPromptsAndSizesAreRefusedBeforeTheModelIsAsked() async throws {
        let model = StandIn()
        let server = try await TestServer(model: AssistantAPITests.noModel) { $0.imageGeneration = model.generation }
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let path = "/api/assistant/conversations/\(try await conversation(server, alice))/images/generations"
        for (name, body) in [
            ("empty", ["prompt": " \n"]), ("too long", ["prompt": String(repeating: "a", count: 1001)]),
            ("unknown size", ["prompt": "a cat", "size": "4096x4096"]),
        ] {
            let refused = try await client.post(path, body)
            #expect(refused.status == 400, "\(name): \(refused.text)")
        }
        let malformed = try await client.request(
            "POST", path, body: Array("{\"prompt\":".utf8), headers: ["Content-Type": "application/json"])
        #expect(malformed.status == 400, "\(malformed.text)")
        #expect(model.asked.withLock { $0.isEmpty })
    }

    @Test func aFailingModelIsA502ThatSaysWhyAndNothingIsKept() async throws {
        let model = StandIn()
        let server = try await TestServer(model: AssistantAPITests.noModel) { $0.imageGeneration = model.generation }
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let id = try await conversation(server, alice)
        let path = "/api/assistant/conversations/\(id)/images/generations"
        model.answer.withLock { $0 = .failure(.init(description: "the image server answered 500: out of memory")) }
        let failed = try await client.post(path, ["prompt": "a cat"])
        #expect(failed.status == 502 && failed.errorCode == "image_endpoint_failed", "\(failed.text)")
        #expect(failed.text.contains("the image server answered 500: out of memory"))
        // An answer that is not an image is refused by the server too.
        model.answer.withLock { $0 = .success((Array("<html>".utf8), "image/png")) }
        let notImage = try await client.post(path, ["prompt": "a cat"])
        #expect(notImage.status == 502 && notImage.errorCode == "image_endpoint_failed", "\(notImage.text)")
        await #expect(try server.store.assistantUploads(in: id, for: alice).isEmpty)
    }

    @Test func oneImageAtATimePerUser() async throws {
        let model = StandIn()
        model.holding.withLock { $0 = true }
        let server = try await TestServer(model: AssistantAPITests.noModel) { $0.imageGeneration = model.generation }
        defer { server.server.stop() }
        let (alice, bob, _) = try await server.pair()
        let path = "/api/assistant/conversations/\(try await conversation(server, alice))/images/generations"
        let first = Task { try await server.client(alice).post(path, ["prompt": "a slow cat"]) }
        let deadline = Date().addingTimeInterval(10)
        while model.gate.withLock({ $0 == nil }), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let second = try await server.client(alice).post(path, ["prompt": "another cat"])
        #expect(second.status == 429 && second.errorCode == "image_in_progress", "\(second.text)")
        #expect(second.headers["retry-after"] != nil)
        // Someone else is not held up.
        let bobPath = "/api/assistant/conversations/\(try await conversation(server, bob))/images/generations"
        model.holding.withLock { $0 = false }
        let bobs = try await server.client(bob).post(bobPath, ["prompt": "a dog"])
        #expect(bobs.status == 201, "\(bobs.text)")
        model.release()
        #expect(try await first.value.status == 201)
        let again = try await server.client(alice).post(path, ["prompt": "a third cat"])
        #expect(again.status == 201, "\(again.text)")
    }

    @Test func withNoImageModelMeSaysSoAndTheRouteIsA404() async throws {
        let server = try await TestServer(model: AssistantAPITests.noModel)
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        let images = try #require(try await client.get("/api/me").json()["images"] as? [String: Any])
        #expect(images["available"] as? Bool == false && images["model"] == nil)
        let path = "/api/assistant/conversations/\(try await conversation(server, alice))/images/generations"
        let off = try await client.post(path, ["prompt": "a cat"])
        #expect(off.status == 404 && off.errorCode == "images_off", "\(off.text)")
    }
}
