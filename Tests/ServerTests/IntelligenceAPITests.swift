import ChatStore
import Foundation
import FoundationModels
import LocalEngine
import Synchronization
import TestSupport
import Testing

@testable import Server
@testable import ServerKit

/// The model features' routes: what they refuse (another user's messages, channels and jobs, bad
/// input, no model) without a model, then jobs that run on a real one and stream over the socket.
@Suite struct IntelligenceAPITests {
    static let noModel = ServerModel.unavailable(
        .turnedOff, message: "The local model is turned off on this server (SOTTO_MODEL=off). To turn it on, restart.")

    @Test func withoutAModelTheRoutesSayWhyAndSearchStillWorks() async throws {
        let server = try await TestServer(model: Self.noModel)
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        _ = try await server.client(bob).post(
            channelPath(cid, "/messages"), ["text": "Meet Saturday 8am at the trailhead"])
        let me = try await server.client(alice).get("/api/me").json()
        let model = try #require(me["model"] as? [String: Any])
        #expect(model["available"] as? Bool == false && model["reason"] as? String == "turned_off")
        #expect((model["message"] as? String)?.contains("SOTTO_MODEL=off") == true)
        #expect(
            (model["tools"] as? [[String: Any]])?.map { $0["title"] as? String } == [
                "Proofread", "Rewrite", "Make friendly", "Make professional", "Make concise", "Summarize", "Key points",
            ])

        let refused = try await server.client(alice).post(
            "/api/tools/writing", ["tool": "proofread", "text": "teh draft"])
        #expect(refused.status == 409 && refused.errorCode == "model_unavailable")
        #expect(refused.text.contains("SOTTO_MODEL=off"))
        await #expect(try server.client(alice).post("/api/search/suggestions", ["topic": "hike"]).status == 409)
        await #expect(try server.client(alice).post(channelPath(cid, "/summary"), [String: Any]()).status == 409)

        let found = try await server.client(alice).get("/api/search?q=trailhead").json()
        let results = try #require(found["results"] as? [[String: Any]])
        #expect(results.count == 1 && (results[0]["highlights"] as? [[Int]]) == [[25, 34]])
        await #expect(try server.client(alice).get("/api/search?q=%21%21").status == 400)
        await #expect(try server.client(alice).get("/api/search").status == 400)
        await #expect(try server.client(alice).get("/api/search?q=x&limit=0").status == 400)
    }

    @Test func nobodyReachesAnotherUsersMessagesChannelsOrJobs() async throws {
        let server = try await TestServer(model: Self.noModel)
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        let carol = try await server.outsider()
        let sent = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "Secret plan for Friday"])
            .json()
        let id = try #require((sent["message"] as? [String: Any])?["id"] as? String)
        // The membership check comes before the model's: an outsider learns nothing.
        let translation = try await server.client(carol).post("/api/messages/\(id)/translation", ["language": "fr"])
        #expect(translation.status == 404)
        await #expect(try server.client(carol).post("/api/messages/\(id)/event", ["time_zone": "UTC"]).status == 404)
        await #expect(try server.client(carol).post(channelPath(cid, "/summary"), ["last": 5]).status == 404)
        await #expect(
            (try server.client(carol).get("/api/search?q=secret").json()["results"] as? [Any])?.isEmpty == true)
        await #expect(try server.client(alice).get("/api/search?q=secret").json()["results"] as? [Any] != nil)
        await #expect(try server.client(carol).get("/api/jobs/0123-abcd").status == 404)
        await #expect(try server.client(carol).request("DELETE", "/api/jobs/0123-abcd").status == 404)
        await #expect(try server.client(nil).get("/api/search?q=secret").status == 401)
        // Bad input is a 400 naming what is wrong, whatever the model's state.
        let zone = try await server.client(alice).post("/api/messages/\(id)/event", ["time_zone": "Mars/Olympus"])
        #expect(zone.status == 400 && zone.text.contains("time_zone"))
        await #expect(
            try server.client(alice).post("/api/tools/writing", ["tool": "shout", "text": "x"]).status == 400)
        await #expect(
            try server.client(alice).post("/api/tools/writing", ["tool": "rewrite", "text": "  "]).status == 400)
        await #expect(
            try server.client(alice).post("/api/messages/\(id)/translation", ["language": "xx"]).status == 400)
        await #expect(try server.client(alice).post(channelPath(cid, "/summary"), ["last": 500]).status == 400)
    }

    @Test func preferencesAreRememberedPerUser() async throws {
        let server = try await TestServer(model: Self.noModel)
        defer { server.server.stop() }
        let (alice, bob, _) = try await server.pair()
        await #expect(try server.client(alice).get("/api/me/preferences").json()["translation_language"] is NSNull)
        let set = try await server.client(alice).request(
            "PUT", "/api/me/preferences", json: ["translation_language": "FR"])
        #expect(set.status == 200)
        #expect(try set.json()["translation_language"] as? String == "fr")
        await #expect(
            try server.client(alice).request("PUT", "/api/me/preferences", json: [String: Any]()).status == 200)
        await #expect(
            try server.client(alice).get("/api/me/preferences").json()["translation_language"] as? String == "fr")
        await #expect(try server.client(bob).get("/api/me/preferences").json()["translation_language"] is NSNull)
        let bad = try await server.client(alice).request(
            "PUT", "/api/me/preferences", json: ["translation_language": "klingon"])
        #expect(bad.status == 400)
        let cleared = try await server.client(alice).request(
            "PUT", "/api/me/preferences", json: ["translation_language": NSNull()])
        #expect(try cleared.json()["translation_language"] is NSNull)
    }

    /// On the real 135M model: a writing tool's job streams `job.updated` frames to its owner
    /// only, ends done with the text, and GET returns the same; a cancelled job stays cancelled.
    /// Async, its waits for the model off Swift's cooperative threads: a synchronous test that
    /// blocks on the model holds one of them, and two such tests at once on a 2-core machine
    /// leave none for the engine's actors (a deadlock that only tests can make).
    @Test func jobsRunOnTheModelAndStreamToTheirOwner() async throws {
        // The engine in this process, as in `sotto serve` (a test process has no engine service).
        let model = LocalLanguageModel(model: .path(try RealModels.path(RealModels.smollm))).system
        let server = try await TestServer(model: .ready(model, name: RealModels.smollm))
        defer { server.server.stop() }
        let (alice, bob, _) = try await server.pair()
        let aliceSocket = try await server.socket(alice)
        let bobSocket = try await server.socket(bob)
        _ = try await aliceSocket.receiveJSON()
        _ = try await bobSocket.receiveJSON()
        let started = try await server.client(alice).post(
            "/api/tools/writing", ["tool": "concise", "text": "i think that maybe we could possibly meet at 3pm"])
        #expect(started.status == 202)
        let id = try #require((try started.json()["job"] as? [String: Any])?["id"] as? String)
        let frames = try await {
            var frames: [[String: Any]] = []
            while true {
                let frame = try await aliceSocket.receive(
                    until: { $0["type"] as? String == "job.updated" }, timeout: 120)
                frames.append(frame)
                let status = (frame["job"] as? [String: Any])?["status"] as? String
                if status != "running" && status != "queued" { return frames }
            }
        }()
        var statuses: [String] = []
        var finished: [String: Any] = [:]
        for frame in frames {
            let job = try #require(frame["job"] as? [String: Any])
            #expect(job["id"] as? String == id && frame["seq"] == nil)  // live, not in the event log
            let status = try #require(job["status"] as? String)
            statuses.append(status)
            if status != "running" && status != "queued" { finished = job }
        }
        #expect(finished["status"] as? String == "done")
        let text = try #require((finished["result"] as? [String: Any])?["text"] as? String)
        #expect(!text.isEmpty)
        #expect(statuses.filter { $0 == "running" }.count >= 2, "no progress frames: \(statuses)")
        let read = try await server.client(alice).get("/api/jobs/\(id)").json()
        #expect(((read["job"] as? [String: Any])?["result"] as? [String: Any])?["text"] as? String == text)
        await #expect(try server.client(bob).get("/api/jobs/\(id)").status == 404)
        await #expect(throws: (any Error).self) {
            try await bobSocket.receive(until: { $0["type"] as? String == "job.updated" }, timeout: 1)
        }

        let second = try await server.client(alice).post("/api/search/suggestions", ["topic": "meeting"]).json()
        let secondID = try #require((second["job"] as? [String: Any])?["id"] as? String)
        let cancelled = try await server.client(alice).request("DELETE", "/api/jobs/\(secondID)").json()
        #expect((cancelled["job"] as? [String: Any])?["status"] as? String == "cancelled")
        try await Task.sleep(for: .seconds(1))
        await #expect(
            (try server.client(alice).get("/api/jobs/\(secondID)").json()["job"] as? [String: Any])?["status"]
                as? String
                == "cancelled")
    }

    /// One job at a time by default (a local model); as many as there are workers with a pool.
    @Test func jobsRunAsManyAtOnceAsThereAreWorkers() async throws {
        for workers in [1, 3] {
            let jobs = ModelJobs(workers: workers) { _, _ in }
            let gate = AsyncStream<Void>.makeStream()
            let running = Mutex((now: 0, most: 0))
            for index in 0..<4 {
                _ = try jobs.start("test", for: UserID(rawValue: "user\(index)")) { _ in
                    running.withLock {
                        $0.now += 1
                        $0.most = max($0.most, $0.now)
                    }
                    for await _ in gate.stream {}
                    running.withLock { $0.now -= 1 }
                    return JobResult()
                }
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while running.withLock({ $0.now }) < workers, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(100))  // time for a worker too many to start one
            #expect(running.withLock { $0.most } == workers)
            gate.continuation.finish()
            await jobs.waitUntilIdle()
            #expect(running.withLock { $0.now } == 0)
        }
    }

    @Test func aUserHasAtMostFourJobsAtOnce() async throws {
        let jobs = ModelJobs { _, _ in }
        let gate = AsyncStream<Void>.makeStream()
        for _ in 0..<ModelJobs.perUserLimit {
            _ = try jobs.start("test", for: "alice") { _ in
                for await _ in gate.stream {}
                return JobResult(text: "done")
            }
        }
        #expect(throws: APIError.self) { try jobs.start("test", for: "alice") { _ in JobResult() } }
        // Another user is not held up by Alice's count.
        _ = try jobs.start("test", for: "bob") { _ in JobResult(text: "bob's") }
        gate.continuation.finish()
        await jobs.waitUntilIdle()
        _ = try jobs.start("test", for: "alice") { _ in JobResult() }
    }
}

/// A suggester that streams each reply in two pieces before answering.
struct StreamingSuggester: ReplySuggester {
    func suggestions(for context: ReplyContext) async throws -> [String]? { ["Sure thing!", "Not today."] }

    func suggestions(for context: ReplyContext, partial: @escaping @Sendable ([String]) -> Void) async throws
        -> [String]?
    {
        for set in [["Sure"], ["Sure thing!"], ["Sure thing!", "Not"]] {
            partial(set)
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await suggestions(for: context)
    }
}

@Suite struct StreamingChipsTests {
    @Test func chipsStreamAsLiveFramesBeforeTheSet() async throws {
        let server = try await TestServer(suggester: StreamingSuggester())
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        let socket = try await server.socket(alice)
        _ = try await socket.receiveJSON()
        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "Coffee?"])
        let asked = try await server.client(alice).get(channelPath(cid, "/suggestions")).json()
        let signature = try #require(asked["signature"] as? String)
        var partials: [[String]] = []
        let final = try await socket.receive(until: { frame in
            if frame["type"] as? String == "suggestions.partial", frame["signature"] as? String == signature {
                #expect(frame["seq"] == nil && frame["cid"] as? String == cid.cid)
                partials.append(frame["suggestions"] as? [String] ?? [])
            }
            return frame["type"] as? String == "suggestions.updated" && frame["signature"] as? String == signature
        })
        #expect(partials == [["Sure"], ["Sure thing!"], ["Sure thing!", "Not"]])
        #expect(final["suggestions"] as? [String] == ["Sure thing!", "Not today."])
        // A socket that turned suggestions off gets no partial chips.
        let quiet = try await server.socket(alice, query: "suggestions=off")
        _ = try await quiet.receiveJSON()
        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "Tea?"])
        _ = try await server.client(alice).get(channelPath(cid, "/suggestions"))
        _ = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["status"] as? String == "ready"
        })
        await #expect(throws: (any Error).self) {
            try await quiet.receive(until: { $0["type"] as? String == "suggestions.partial" }, timeout: 1)
        }
    }
}
