import ChatStore
import Foundation
import FoundationModels
import LocalEngine
import OpenAIModel
import Server
import Synchronization
import TestSupport
import Testing

/// A second Sotto server on loopback, serving the real 0.5B model through its OpenAI-compatible
/// API (a real server, real sockets, not a mock), and a session on `OpenAICompatibleModel`
/// pointed at it.
final class RemoteServer: Sendable {
    let server: ChatServer
    let port: Int
    let token: String
    let folder: URL

    init(model: String = RealModels.qwen) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sotto-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try await ChatStore.open(path: folder.appendingPathComponent("chat.sqlite").path)
        let system = LocalLanguageModel(model: .path(try RealModels.path(model))).system
        server = ChatServer(
            store: store, secret: "remote-secret-0123456789abcdef", suggester: nil, model: .ready(system, name: model),
            configuration: ChatServer.Configuration(port: 0))
        port = try await server.start()
        token = server.tokens.token(for: "alice", lifetime: 3600)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    func model(key: String? = nil) -> OpenAICompatibleModel {
        OpenAICompatibleModel(
            baseURL: URL(string: "http://127.0.0.1:\(port)/v1")!, model: RealModels.qwen, apiKey: key ?? token)
    }
}

@Generable
struct CityFacts {
    @Guide(description: "The city's name")
    var city: String
    @Guide(description: "Its country")
    var country: String
    @Guide(.range(1...50_000_000))
    var population: Int
    var size: CitySize
}

@Generable
enum CitySize {
    case small, medium, large
}

struct WeatherTool: Tool {
    let name = "getWeather"
    let description = "Gets the current weather in a city."
    let log = CallLog()

    @Generable
    struct Arguments {
        @Guide(description: "The city's name")
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        await log.record(arguments.city)
        return "It is 21 °C and sunny in \(arguments.city)."
    }
}

/// The cities a tool was called with.
final class CallLog: Sendable {
    private let state = Mutex<[String]>([])
    func record(_ city: String) async { state.withLock { $0.append(city) } }
    var cities: [String] { state.withLock { $0 } }
}

@Suite(.serialized) struct RemoteModelTests {
    static let remote = Task { try await RemoteServer() }

    @Test func aSessionStreamsText() async throws {
        let remote = try await Self.remote.value
        let session = LanguageModelSession(model: remote.model(), instructions: "Answer briefly.")
        var snapshots: [String] = []
        let stream = session.streamResponse(
            to: "Count from one to five in words.",
            options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 24))
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        let response = try await stream.collect()
        #expect(snapshots.count >= 2, "the text did not arrive in pieces: \(snapshots)")
        #expect(!response.content.isEmpty)
        #expect(snapshots.last == response.content)
        #expect(response.usage.output.totalTokenCount > 0)
        guard case .response? = session.transcript.last else {
            Issue.record("no response in \(session.transcript)")
            return
        }
    }

    @Test func aSessionFollowsAGenerableSchema() async throws {
        let remote = try await Self.remote.value
        let session = LanguageModelSession(model: remote.model())
        let facts = try await session.respond(
            to: "Give facts about Lyon.", generating: CityFacts.self,
            options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 120)
        ).content
        #expect(!facts.city.isEmpty && !facts.country.isEmpty)
        #expect((1...50_000_000).contains(facts.population))
    }

    @Test func aSessionCallsATool() async throws {
        let remote = try await Self.remote.value
        let tool = WeatherTool()
        let session = LanguageModelSession(
            model: remote.model(), tools: [tool], instructions: "Use the tools to answer questions about the weather.")
        let response = try await session.respond(
            to: "What is the weather like in Paris right now?",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40, toolCallingMode: .required))
        #expect(tool.log.cities.count >= 1)
        let entries = Array(response.transcriptEntries)
        #expect(entries.contains { if case .toolCalls = $0 { true } else { false } })
        #expect(entries.contains { if case .toolOutput = $0 { true } else { false } })
        guard case .response? = entries.last else {
            Issue.record("the request did not end with a response: \(entries)")
            return
        }
    }

    @Test func aBadKeyIsAnUnavailableModel() async throws {
        let remote = try await Self.remote.value
        let session = LanguageModelSession(model: remote.model(key: "not-a-token"))
        do {
            _ = try await session.respond(to: "Hi")
            Issue.record("a bad key answered")
        } catch let error as LanguageModelSession.GenerationError {
            guard case .assetsUnavailable = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect("\(error)".contains("401"))
        }
    }
}

/// The hybrid fallback: a server without a local model drafts reply suggestions with the
/// remote model, and says which model wrote them.
@Suite(.serialized) struct FallbackSuggestionTests {
    @Test func suggestionsComeFromTheFallbackAndSaySo() async throws {
        let remote = try await RemoteModelTests.remote.value
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sotto-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await ChatStore.open(path: folder.appendingPathComponent("chat.sqlite").path)
        let name = "\(RealModels.qwen) at http://127.0.0.1:\(remote.port)/v1"
        let local = ChatServer(
            store: store, secret: "local-secret-0123456789abcdef",
            suggester: ModelSuggester(fallback: remote.model(), name: name), model: .turnedOffByFlag,
            configuration: ChatServer.Configuration(port: 0))
        let port = try await local.start()
        defer { local.stop() }
        let alice = UserID(rawValue: "alice")
        let bob = UserID(rawValue: "bob")
        _ = try await store.upsertUsers([.init(id: alice, name: "Alice"), .init(id: bob, name: "Bob")], by: nil)
        let cid = ChannelID(type: "messaging", id: "lunch")
        _ = try await store.getOrCreateChannel(cid, name: "Lunch", members: [bob], by: alice)
        let bobClient = HTTPClient(port: port, token: local.tokens.token(for: bob, lifetime: 3600))
        await #expect(
            try bobClient.post("/api/channels/messaging%3Alunch/messages", ["text": "Pizza tonight?"]).status == 201)
        let aliceClient = HTTPClient(port: port, token: local.tokens.token(for: alice, lifetime: 3600))
        // Alone this takes seconds; beside the whole suite the engine is shared with every other
        // model test of the process.
        let deadline = Date().addingTimeInterval(420)
        var answer: [String: Any] = [:]
        repeat {
            answer = try await aliceClient.get("/api/channels/messaging%3Alunch/suggestions").json()
            if answer["status"] as? String != "pending" { break }
            try? await Task.sleep(for: .seconds(0.5))
        } while Date() < deadline
        #expect(answer["status"] as? String == "ready", "\(answer)")
        #expect(!((answer["suggestions"] as? [String]) ?? []).isEmpty)
        #expect(answer["model"] as? String == name)
    }
}
