import AppPatterns
import ChatStore
import Foundation
import FoundationModels
import LocalEngine
import Server
import TestSupport
import Testing

/// The app's patterns on the real 0.5B model: `ChatCompletionsLanguageModel` against a Sotto
/// server's OpenAI-compatible API on loopback (a real server, real sockets), the rolling window
/// on the local engine, and a screenshot read through the `CGImage` stand-in.
@Suite(.serialized) struct RealModelTests {
    /// A Sotto server on loopback serving the 0.5B model, and the app's chat-completions model
    /// pointed at it.
    final class Endpoint: Sendable {
        let server: ChatServer
        let folder: URL
        let model: ChatCompletionsLanguageModel

        init() async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let store = try await ChatStore.open(path: folder.appendingPathComponent("chat.sqlite").path)
            let system = LocalLanguageModel(model: .path(try RealModels.path(RealModels.qwen))).system
            server = ChatServer(
                store: store, secret: "app-patterns-secret-0123456789ab", suggester: nil,
                model: .ready(system, name: RealModels.qwen), configuration: ChatServer.Configuration(port: 0))
            let port = try await server.start()
            let token = server.tokens.token(for: "alice", lifetime: 3600)
            model = ChatCompletionsLanguageModel(
                name: RealModels.qwen, url: URL(string: "http://127.0.0.1:\(port)")!,
                additionalHeaders: ["Authorization": "Bearer \(token)"])
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func chatCompletionsAnswersInText() async throws {
        let endpoint = try await Endpoint()
        let session = LanguageModelSession(model: endpoint.model, instructions: "Answer in a few words.")
        let response = try await session.respond(
            to: "Name a color.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 12))
        #expect(!response.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(response.usage.input.totalTokenCount > 0)
        #expect(response.usage.output.totalTokenCount > 0)
    }

    @Test func chatCompletionsGeneratesAndStreamsStructuredAnswers() async throws {
        let endpoint = try await Endpoint()
        let session = LanguageModelSession(model: endpoint.model)
        let answer = try await session.respond(
            to: "Is Lisbon in Portugal?", generating: QuickAnswer.self,
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 60)
        ).content
        #expect(!answer.answer.isEmpty)
        #expect((0...1).contains(answer.confidence))
        let stream = LanguageModelSession(model: endpoint.model).streamResponse(
            to: "Is Porto in Spain?", generating: QuickAnswer.self,
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 60))
        var snapshots = 0
        for try await _ in stream { snapshots += 1 }
        let streamed = try await stream.collect().content
        #expect(snapshots >= 1)
        #expect((0...1).contains(streamed.confidence))
    }

    @Test func aRollingWindowKeepsAnsweringOnTheLocalEngine() async throws {
        let model = LocalLanguageModel(model: .path(try RealModels.path(RealModels.qwen)))
        let profile = LanguageModelSession.Profile { Instructions("Answer in one word.") }
            .rollingWindow(entries: 3)
            .samplingMode(.greedy)
            .maximumResponseTokens(8)
            .model(model)
        let session = LanguageModelSession(profile: profile)
        for question in ["Name a fruit.", "Name a tree.", "Name a river."] {
            let answer = try await session.respond(to: question).content
            #expect(!answer.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        }
        #expect(session.transcript.count == 7)  // the instructions and three exchanges, whole
    }

    @Test func aScreenshotIsReadThroughTheCGImageStandIn() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("LocalEngineTests/Fixtures/images/screenshot.png")
        let image = try #require(CGImage(contentsOf: fixture))
        #expect(image.width > 0 && image.height > 0)
        let model = LocalLanguageModel(model: .path(try RealModels.path(RealModels.qwen)))
        let summary = try await ScreenshotReader(model: model).summary(
            of: image, question: "Which room is the design review in?")
        #expect(summary.contains("Aurora"), "\(summary)")
    }
}
