import Foundation
import FoundationModels
import OpenAIModel
import TestSupport
import Testing

/// A pool of OpenAI-compatible servers (issue 26): real servers on loopback (`FakeEndpoint`),
/// sessions on the pool's model. Requests spread over the least-loaded servers; a server that is
/// gone is skipped, its request answered by another; a health check finds it back.
@Suite struct InferencePoolTests {
    static func endpoint(_ fake: FakeEndpoint, port: Int? = nil) -> OpenAICompatibleModel.Endpoint {
        OpenAICompatibleModel.Endpoint(
            baseURL: URL(string: "http://127.0.0.1:\(port ?? fake.port)/v1")!, model: "fake", timeout: 5,
            name: "an inference server")
    }

    @Test func requestsGoToTheLeastLoadedServer() async throws {
        let (a, b) = (try FakeEndpoint(), try FakeEndpoint())
        defer {
            a.stop()
            b.stop()
        }
        let pool = InferencePool(endpoints: [Self.endpoint(a), Self.endpoint(b)])
        let model = PooledModel(pool: pool)
        // Four streams held open: two on each server, whatever the order they came in.
        a.hold(true)
        b.hold(true)
        let streams = (0..<4).map { _ in
            Task { try await LanguageModelSession(model: model).respond(to: "Say hello").content }
        }
        while a.heldStreams + b.heldStreams < 4 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(a.heldStreams == 2 && b.heldStreams == 2)
        #expect(pool.status.map(\.inFlight) == [2, 2])
        a.hold(false)
        b.hold(false)
        a.release()
        b.release()
        for stream in streams { #expect(try await stream.value == FakeEndpoint.answer.joined()) }
        #expect(pool.status.map(\.inFlight) == [0, 0])
        #expect(pool.status.map(\.served) == [2, 2])
        // Idle again: the next two go one to each.
        _ = try await LanguageModelSession(model: model).respond(to: "Hi")
        _ = try await LanguageModelSession(model: model).respond(to: "Hi")
        #expect(pool.status.map(\.served) == [3, 3])
    }

    @Test func aServerThatIsGoneIsSkippedAndItsRequestsAnsweredByAnother() async throws {
        let alive = try FakeEndpoint()
        defer { alive.stop() }
        let gone = try FakeEndpoint()
        let port = gone.port
        gone.stop()
        let pool = InferencePool(endpoints: [Self.endpoint(gone, port: port), Self.endpoint(alive)])
        let model = PooledModel(pool: pool)
        for _ in 0..<4 {
            #expect(
                try await LanguageModelSession(model: model).respond(to: "Hi").content == FakeEndpoint.answer.joined())
        }
        let status = pool.status
        #expect(status[0].up == false)
        #expect(status[0].failed == 1, "tried once, then left alone: \(status)")
        #expect(status[0].lastError.contains("an inference server did not answer"), "\(status[0].lastError)")
        #expect(!status[0].lastError.contains("\(port)"))
        #expect(status[1].served == 4)
        #expect(alive.requests == 4)
    }

    @Test func whenEveryServerIsGoneTheErrorSaysSo() async throws {
        let gone = try FakeEndpoint()
        let port = gone.port
        gone.stop()
        let pool = InferencePool(endpoints: [Self.endpoint(gone, port: port)])
        await #expect(throws: LanguageModelSession.GenerationError.self) {
            try await LanguageModelSession(model: PooledModel(pool: pool)).respond(to: "Hi")
        }
        #expect(pool.status[0].up == false)
    }

    @Test func aHealthCheckMarksServersDownAndUp() async throws {
        let alive = try FakeEndpoint()
        defer { alive.stop() }
        let gone = try FakeEndpoint()
        let port = gone.port
        gone.stop()
        let pool = InferencePool(endpoints: [Self.endpoint(alive), Self.endpoint(gone, port: port)])
        await pool.checkHealth(timeout: 5)
        #expect(pool.status.map(\.up) == [true, false])
        #expect(pool.status[1].lastError == "the health check got no answer")
        // Nothing is sent to the one that is down while another is up.
        _ = try await LanguageModelSession(model: PooledModel(pool: pool)).respond(to: "Hi")
        #expect(pool.status.map(\.served) == [1, 0])
        #expect(pool.status[1].failed == 0)
        #expect(pool.name == "fake on a pool of 2 servers")
    }
}
