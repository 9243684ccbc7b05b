import ChatStore
import Foundation
import FoundationModels
import LocalEngine
import OpenAIModel
import Server
import ServerKit
import TestSupport
import Testing

/// A server whose features run on a pool that holds its own model (`sotto serve --pool-urls`
/// with a local model, issue 26): on the real 135M model beside an inference server
/// (`FakeEndpoint`). A writing tool's job goes to the server while it is the least busy and to
/// the local model while the server is busy; the page's model state says the pool is in use.
@Suite(.serialized) struct PoolBesideLocalTests {
    @Test func eachJobRunsWhereThereIsRoomAndThePageSaysWhereThatMayBe() async throws {
        let local = LocalLanguageModel(model: .path(try RealModels.path(RealModels.smollm))).system
        let endpoint = try FakeEndpoint()
        defer { endpoint.stop() }
        let pool = InferencePool(
            endpoints: [
                OpenAICompatibleModel.Endpoint(
                    baseURL: URL(string: "http://127.0.0.1:\(endpoint.port)/v1")!, model: "fake", timeout: 300,
                    name: "an inference server")
            ], beside: local, named: RealModels.smollm)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sotto-pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await ChatStore.open(path: folder.appendingPathComponent("chat.sqlite").path)
        var configuration = ChatServer.Configuration(port: 0)
        configuration.modelJobsAtOnce = pool.status.count  // as sotto serve sets it
        let server = ChatServer(
            store: store, secret: "pool-secret-0123456789abcdef", suggester: nil,
            model: ServerModel.ready(local, name: RealModels.smollm).withPool(PooledModel(pool: pool), name: pool.name),
            configuration: configuration)
        let port = try await server.start()
        defer { server.stop() }
        let alice = HTTPClient(port: port, token: server.tokens.token(for: UserID(rawValue: "alice"), lifetime: 3600))

        let model = try #require(try await alice.get("/api/me").json()["model"] as? [String: Any])
        #expect(model["available"] as? Bool == true && model["pool"] as? Bool == true)
        #expect(model["fallback"] as? Bool == false)
        #expect(model["name"] as? String == "\(RealModels.smollm) here and fake on a pool of 1 server")

        // The server holds the first job (both idle: the server comes first), so the second
        // finds it busy and runs here.
        endpoint.hold(true)
        let first = try await Self.start(alice, "i think that maybe we could meet at 3pm")
        while endpoint.heldStreams < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let second = try await Self.start(alice, "could we possibly meet tomorrow instead")
        let here = try await Self.finished(alice, second)
        #expect(here["status"] as? String == "done", "\(here)")
        let text = (here["result"] as? [String: Any])?["text"] as? String
        #expect((here["result"] as? [String: Any])?["model"] as? String == pool.name)
        #expect(text?.isEmpty == false, "\(here)")
        #expect(
            pool.status.map(\.served) == [0, 1] && pool.status.map(\.inFlight) == [1, 0], "\(pool.status) \(here)")
        endpoint.hold(false)
        endpoint.release()
        let there = try await Self.finished(alice, first)
        #expect(there["status"] as? String != "running", "\(there)")
        #expect(pool.status.map(\.inFlight) == [0, 0] && endpoint.requests == 1)
    }

    /// Starts a "make concise" job on `text`; its id.
    static func start(_ client: HTTPClient, _ text: String) async throws -> String {
        let started = try await client.post("/api/tools/writing", ["tool": "concise", "text": text])
        #expect(started.status == 202, "\(started.text)")
        return try #require((try started.json()["job"] as? [String: Any])?["id"] as? String)
    }

    /// The job `id` once it is neither queued nor running (within two minutes).
    static func finished(_ client: HTTPClient, _ id: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(120)
        var job: [String: Any] = [:]
        repeat {
            job = try await client.get("/api/jobs/\(id)").json()["job"] as? [String: Any] ?? [:]
            if let status = job["status"] as? String, status != "queued", status != "running" { return job }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        Issue.record("job \(id) unfinished after 120 s: \(job)")
        return job
    }
}
