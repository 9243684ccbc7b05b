import EngineClient
import EngineService
import Foundation
import FoundationModels
import LocalEngine
import ModelStore
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the structured test generates across the socket.
@Generable struct Color {
    @Guide(.anyOf(["red", "green", "blue"]))
    var name: String
}

/// The engine service and its client over a real Unix socket, both in this process: the
/// service runs a local engine of its own, the client is what `SystemLanguageModel` uses in an
/// app. (Starting the service from an app, as a separate process, is tested with the binary in
/// SottoCLITests.)
@Suite(.serialized) struct EngineServiceTests {
    /// A data directory with the small model in it, a service listening there, and a system
    /// model that talks to it.
    final class Service: @unchecked Sendable {
        // @unchecked Sendable: every property is a constant; the server and engine are Sendable.
        let home: URL
        let host = LocalEngineHost(registry: ModelRegistry())
        let server: EngineServer
        let model: SystemLanguageModel
        let client: EngineServiceClient

        init(contextSize: Int? = nil) throws {
            let file = try RealModels.file(RealModels.smollm)
            home = FileManager.default.temporaryDirectory.appendingPathComponent("svc-\(UUID().uuidString.prefix(8))")
            let models = home.appendingPathComponent("models")
            try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
            let linked = models.appendingPathComponent("smollm2-135m.gguf")
            if link(file.path, linked.path) != 0 { try FileManager.default.copyItem(at: file.url, to: linked) }
            server = EngineServer(home: home, engine: host)
            try server.start()
            // No binary to start a service with: the one above must be the one reached.
            client = EngineServiceClient(
                home: home, launcher: EngineLauncher(home: home, environment: ["PATH": "/nonexistent"]))
            model = SystemLanguageModel(
                model: .id("smollm2-135m"), contextSize: contextSize,
                backend: SystemModelBackend(locator: StoreModelLocator(store: ModelStore(home: home)), engine: client))
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(at: home)
        }

        var target: SystemModelTarget { get throws { try model.target() } }
    }

    @Test func aSessionStreamsFromTheServiceAndLearnsTheModel() async throws {
        let service = try Service()
        let model = service.model
        #expect(model.availability == .available)
        let session = LanguageModelSession(model: model, instructions: "You answer in one short sentence.")
        var snapshots = 0
        let stream = session.streamResponse(
            to: "Name a color.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8))
        for try await _ in stream { snapshots += 1 }
        let response = try await stream.collect()
        #expect(snapshots >= 2)
        #expect(!response.content.isEmpty)
        #expect(response.usage.input.totalTokenCount > 5)
        #expect(response.usage.output.totalTokenCount > 0 && response.usage.output.totalTokenCount <= 8)
        #expect(session.transcript.count == 3)
        // What the service said about the model: its context size, and that it is loaded.
        #expect(model.contextSize == 4096)
        // (The state arrives as the service's own frame, which may come after the answer.)
        let target = try service.target
        let client = service.client
        #expect(await eventually(timeout: 10) { client.state(of: target) == .loaded })
        // Token counts go through the service too, with the model's own tokenizer.
        let direct = try await service.host.tokenCount(
            .segments(Prompt("Name a color.").segments), model: service.target)
        #expect(try await model.tokenCount(for: "Name a color.") == direct)
        // A follow-up reuses the service's KV cache of the first turn.
        let again = try await session.respond(
            to: "Another?", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        #expect(again.usage.input.cachedTokenCount >= response.usage.input.totalTokenCount)
    }

    @Test func aStructuredResponseAndItsErrorsCrossTheSocket() async throws {
        let service = try Service(contextSize: 128)
        let session = LanguageModelSession(model: service.model)
        let color = try await session.respond(to: "Pick a color.", generating: Color.self).content
        #expect(["red", "green", "blue"].contains(color.name))
        // A prompt too long for the 128-token context: the engine's error, thrown again here.
        let long = String(repeating: "word ", count: 300)
        do {
            _ = try await LanguageModelSession(model: service.model).respond(to: long)
            Issue.record("expected exceededContextWindowSize")
        } catch LanguageModelSession.GenerationError.exceededContextWindowSize(let context) {
            #expect(context.debugDescription.contains("exceeds the maximum allowed context size of 128"))
        }
    }

    /// Breaking out of a stream sends `cancel`: the service's engine stops within a token, and
    /// the usage it reports counts what it generated.
    @Test func breakingOutOfAStreamStopsTheServiceWithinAToken() async throws {
        let service = try Service()
        let runtime = try await service.host.runtime(for: service.target)
        let engineTokens = Mutex(0)
        let observation = runtime.observeTokens { count in engineTokens.withLock { $0 = max($0, count) } }
        defer { withExtendedLifetime(observation) {} }
        let session = LanguageModelSession(model: service.model)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 400)
        var atBreak = 0
        let clock = ContinuousClock()
        var brokeAt = clock.now
        for try await snapshot in session.streamResponse(to: "Write a long story about a dragon.", options: options) {
            if snapshot.usage.output.totalTokenCount >= 6 {
                atBreak = engineTokens.withLock { $0 }
                brokeAt = clock.now
                break
            }
        }
        for _ in 0..<400 where session.isResponding { try await Task.sleep(for: .milliseconds(5)) }
        let freed = clock.now - brokeAt
        #expect(!session.isResponding)
        let final = engineTokens.withLock { $0 }
        #expect(final - atBreak <= 1, "the engine generated \(final - atBreak) tokens after the break")
        #expect(session.usage.output.totalTokenCount == final)
        print(
            "service stream: broke at engine token \(atBreak), engine stopped at \(final), session free after \(freed)")
    }

    /// A client that hangs up mid-request (an app that quits) stops the request too.
    @Test func aClientThatHangsUpStopsItsRequest() async throws {
        let service = try Service()
        let runtime = try await service.host.runtime(for: service.target)
        let engineTokens = Mutex(0)
        let observation = runtime.observeTokens { count in engineTokens.withLock { $0 = max($0, count) } }
        defer { withExtendedLifetime(observation) {} }
        let socket = try UnixSocket.connect(to: service.server.socketPath)
        let request = LanguageModelExecutorGenerationRequest(
            id: UUID(),
            transcript: Transcript(entries: [.prompt(Transcript.Prompt(segments: [.text(.init(content: "Count."))]))]),
            enabledTools: [], generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 400),
            contextOptions: ContextOptions(), metadata: [:])
        let message = EngineRequestMessage(
            kind: .respond, target: try service.target, request: try WireRequest(request))
        try socket.write(EngineFrames.frame(try JSONEncoder().encode(message)))
        var decoder = EngineFrames.Decoder()
        var events = 0
        while events < 4 {
            let bytes = try socket.read()
            if bytes.isEmpty { break }
            events += try decoder.feed(bytes).count
        }
        socket.shutdown()
        let atHangUp = engineTokens.withLock { $0 }
        try await Task.sleep(for: .milliseconds(500))
        let final = engineTokens.withLock { $0 }
        #expect(final - atHangUp <= 1, "the engine went on for \(final - atHangUp) tokens")
        #expect(final < 400)
    }

    @Test(.onTestThreads) func theSocketIsTheOwnersAndOneServiceRunsPerDirectory() throws {
        let service = try Service()
        var status = stat()
        #expect(stat(service.server.socketPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let second = EngineServer(home: service.home, engine: service.host)
        #expect(throws: EngineServer.StartError.self) { try second.start() }
        // A version this service does not speak is refused with a clear error.
        let socket = try UnixSocket.connect(to: service.server.socketPath)
        var message = EngineRequestMessage(kind: .tokenCount, target: try service.target)
        message.version = 99
        try socket.write(EngineFrames.frame(try JSONEncoder().encode(message)))
        var decoder = EngineFrames.Decoder()
        var replies: [EngineReplyMessage] = []
        while true {
            let bytes = try socket.read()
            if bytes.isEmpty { break }
            replies += try decoder.feed(bytes).map { try JSONDecoder().decode(EngineReplyMessage.self, from: $0) }
        }
        let error = try #require(replies.last?.error?.error)
        #expect("\(error)".contains("engine protocol 99"))
    }
}
