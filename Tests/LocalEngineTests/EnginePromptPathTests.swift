import FoundationModels
import Inference
import TestSupport
import Testing

@testable import LocalEngine

/// One prompt path: `sotto chat` (a `Model` loaded from its file, its messages through
/// `ChatFormat`) and the server (a session's transcript through the engine's `PromptRenderer`)
/// build the same tokens for the same conversation, and the engine loads a model's weights with
/// the chat format its header already built.
extension EngineTests {
    @Suite
    struct PromptPath {
        /// A conversation with instructions and an earlier exchange, as `sotto chat` keeps it and
        /// as a session's transcript holds it.
        static let messages = [
            ChatMessage(role: "system", content: "You are terse."),
            ChatMessage(role: "user", content: "What is the capital of France?"),
            ChatMessage(role: "assistant", content: "Paris."),
            ChatMessage(role: "user", content: "And of Italy? ☀️"),
        ]

        static var transcript: Transcript {
            Transcript(entries: [
                .instructions(
                    Transcript.Instructions(segments: [.text(.init(content: "You are terse."))], toolDefinitions: [])),
                .prompt(Transcript.Prompt(segments: [.text(.init(content: "What is the capital of France?"))])),
                .response(Transcript.Response(assetIDs: [], segments: [.text(.init(content: "Paris."))])),
                .prompt(Transcript.Prompt(segments: [.text(.init(content: "And of Italy? ☀️"))])),
            ])
        }

        @Test(.onTestThreads, arguments: [RealModels.smollm, RealModels.qwen])
        func theCommandLineAndTheServerBuildTheSamePromptTokens(id: String) throws {
            let path = try RealModels.path(id)
            // `sotto chat`: the model loaded from its file (without repacking: only the format
            // matters here), the conversation through its chat format.
            let model = try Model(path: path, repacking: false)
            let chat = try model.chatFormat.promptTokens(for: Self.messages)
            // The server: the engine's header, the transcript through the request renderer.
            let header = try ModelHeader(path: path)
            let server = try header.renderer.tokens(
                for: LanguageModelExecutorGenerationRequest(transcript: Self.transcript))
            #expect(chat == server)
            #expect(!chat.isEmpty)
            // Neither adds a BOS these models do not ask for (`add_bos_token` false).
            #expect(!model.chatFormat.addsBOS)
            #expect(!header.chatFormat.addsBOS)
        }

        @Test func theLoadedModelUsesTheHeadersChatFormat() async throws {
            let path = try RealModels.path(RealModels.smollm)
            let loaded = try await LocalEngineHost.shared.registry.model(path: path)
            // The same tokenizer object: built once, for the header, and handed to the model.
            #expect(loaded.model.tokenizer === loaded.header.tokenizer)
        }
    }
}
