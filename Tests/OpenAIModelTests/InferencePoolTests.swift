import Foundation
import FoundationModels
import OpenAIModel
import Synchronization
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

    @Test func theLocalModelIsOneMoreMemberChosenByTheSameRule() async throws {
        let server = try FakeEndpoint()
        defer { server.stop() }
        let local = LocalModel()
        let pool = InferencePool(endpoints: [Self.endpoint(server)], beside: local, named: "q")
        #expect(pool.name == "q here and fake on a pool of 1 server")
        #expect(pool.status.map(\.url) == [Self.endpoint(server).displayURL, "this server (q)"])
        let model = PooledModel(pool: pool)
        // Four held open: two here, two on the server, whatever the order they came in.
        server.hold(true)
        local.gate.hold(true)
        let streams = (0..<4).map { _ in
            Task { try await LanguageModelSession(model: model).respond(to: "Say hello").content }
        }
        while server.heldStreams + local.gate.held < 4 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.heldStreams == 2 && local.gate.held == 2)
        #expect(pool.status.map(\.inFlight) == [2, 2])
        server.hold(false)
        server.release()
        local.gate.hold(false)
        var answers: [String] = []
        for stream in streams { answers.append(try await stream.value) }
        #expect(
            answers.sorted()
                == [LocalModel.answer, LocalModel.answer, FakeEndpoint.answer.joined(), FakeEndpoint.answer.joined()]
                .sorted())
        #expect(pool.status.map(\.served) == [2, 2])
        #expect(local.gate.served == 2)
        // What the server's feature asks for (its priority and user) reaches the local model.
        _ = try await LanguageModelSession(model: model).respond(
            to: "Hi", metadata: ["sotto.priority": "suggestion"])
        _ = try await LanguageModelSession(model: model).respond(
            to: "Hi", metadata: ["sotto.priority": "suggestion"])
        #expect(local.gate.priorities.last == "suggestion")
        // A session's prewarm reaches the local model (the servers prewarm their own).
        LanguageModelSession(model: model).prewarm()
        while local.gate.prewarms == 0 { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func whenTheServersAreGoneTheLocalModelAnswers() async throws {
        let gone = try FakeEndpoint()
        let port = gone.port
        gone.stop()
        let local = LocalModel()
        let pool = InferencePool(endpoints: [Self.endpoint(gone, port: port)], beside: local, named: "q")
        await pool.checkHealth(timeout: 5)
        #expect(pool.status.map(\.up) == [false, true], "the local model is not health-checked")
        for _ in 0..<3 {
            #expect(
                try await LanguageModelSession(model: PooledModel(pool: pool)).respond(to: "Hi").content
                    == LocalModel.answer)
        }
        #expect(pool.status.map(\.served) == [0, 3])
        #expect(pool.status[0].failed == 0, "nothing was sent to the server that is down")
    }
}

/// This server's own model, as a pool holds it: answers `answer`, holding requests while its
/// gate says so; counts what it served and prewarmed.
struct LocalModel: LanguageModel {
    typealias Executor = LocalModelExecutor
    static let answer = "Hello from here."

    final class Gate: Sendable {
        private let state = Mutex<(holding: Bool, held: Int, served: Int, prewarms: Int, priorities: [String])>(
            (false, 0, 0, 0, []))
        func hold(_ on: Bool) { state.withLock { $0.holding = on } }
        var holding: Bool { state.withLock { $0.holding } }
        var held: Int { state.withLock { $0.held } }
        var served: Int { state.withLock { $0.served } }
        var prewarms: Int { state.withLock { $0.prewarms } }
        var priorities: [String] { state.withLock { $0.priorities } }
        func change(
            _ body: (inout (holding: Bool, held: Int, served: Int, prewarms: Int, priorities: [String])) -> Void
        ) {
            state.withLock { body(&$0) }
        }
    }

    let gate = Gate()
    var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(capabilities: [.guidedGeneration, .toolCalling])
    }
    var executorConfiguration: ObjectIdentifier { ObjectIdentifier(gate) }
}

struct LocalModelExecutor: LanguageModelExecutor {
    typealias Model = LocalModel
    init(configuration: ObjectIdentifier) {}

    func prewarm(model: LocalModel, transcript: Transcript) {
        model.gate.change { $0.prewarms += 1 }
    }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: LocalModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let priority = request.metadata["sotto.priority"].flatMap { try? String($0) }
        model.gate.change {
            $0.held += 1
            if let priority { $0.priorities.append(priority) }
        }
        while model.gate.holding { try await Task.sleep(for: .milliseconds(5)) }
        model.gate.change {
            $0.held -= 1
            $0.served += 1
        }
        await channel.send(.response(action: .appendText(LocalModel.answer, tokenCount: 1)))
    }
}
