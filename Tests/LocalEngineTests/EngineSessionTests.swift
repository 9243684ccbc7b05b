import Foundation
import FoundationModels
import GenerableFixtures
import LocalEngine
import Synchronization
import TestSupport
import Testing

/// Sessions on a real model: tools, context limits, concurrency, KV-cache reuse.
extension EngineTests {
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
            log.record(arguments.city)
            return "It is 21 °C and sunny in \(arguments.city)."
        }
    }

    /// The cities a tool was called with.
    final class CallLog: Sendable {
        private let state = Mutex<[String]>([])
        func record(_ city: String) { state.withLock { $0.append(city) } }
        var cities: [String] { state.withLock { $0 } }
    }

    @Suite
    struct Tools {
        @Test func theModelCallsAToolAndAnswersWithItsOutput() async throws {
            let tool = WeatherTool()
            let session = LanguageModelSession(
                model: try EngineModels.model(EngineModels.qwen), tools: [tool],
                instructions: "Use the tools to answer questions about the weather.")
            let response = try await session.respond(
                to: "What is the weather like in Paris right now?",
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 40))
            let calls = tool.log.cities
            #expect(calls.count >= 1)
            #expect(calls.first?.lowercased().contains("paris") == true)
            let entries = Array(response.transcriptEntries)
            let callEntry = entries.first { if case .toolCalls = $0 { true } else { false } }
            guard case .toolCalls(let recorded)? = callEntry else {
                Issue.record("no tool calls in \(entries)")
                return
            }
            #expect(recorded.first?.toolName == "getWeather")
            #expect(entries.contains { if case .toolOutput = $0 { true } else { false } })
            guard case .response? = entries.last else {
                Issue.record("the request did not end with a response: \(entries)")
                return
            }
            // (What the answer says is up to the model; 0.5B models often repeat the call as text.)
            #expect(!response.content.isEmpty)
            // The answer's turn reused the cache of the call's turn.
            #expect(response.usage.input.cachedTokenCount > 0)
        }

        @Test func aStructuredAnswerCanFollowAToolCall() async throws {
            let tool = WeatherTool()
            let session = LanguageModelSession(
                model: try EngineModels.model(EngineModels.qwen), tools: [tool],
                instructions: "Use the tools to answer questions about the weather.")
            let response = try await session.respond(
                to: "Check the weather in Oslo, then suggest three short replies to a friend asking about it.",
                generating: ReplySuggestions.self,
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 120))
            #expect(response.content.replies.count == 3)
        }
    }

    @Suite
    struct Sessions {
        @Test func aPromptLongerThanTheContextFailsBeforeGenerating() async throws {
            let model = try EngineModels.model(EngineModels.smollm, contextSize: 128)
            #expect(model.contextSize == 128)
            let session = LanguageModelSession(model: model)
            let prompt = String(repeating: "Tell me everything about the history of tea. ", count: 30)
            await #expect {
                try await session.respond(to: prompt)
            } throws: { error in
                guard case LanguageModelSession.GenerationError.exceededContextWindowSize(let context) = error else {
                    return false
                }
                return context.debugDescription.contains("exceeds the maximum allowed context size of 128")
            }
            #expect(session.usage.output.totalTokenCount == 0)
            #expect(session.transcript.isEmpty)
        }

        @Test func aResponseThatRunsOutOfContextThrows() async throws {
            let model = try EngineModels.model(EngineModels.smollm, contextSize: 48)
            let session = LanguageModelSession(model: model)
            await #expect {
                try await session.respond(
                    to: "Write a long story about a dragon.", options: GenerationOptions(sampling: .greedy))
            } throws: { error in
                guard case LanguageModelSession.GenerationError.exceededContextWindowSize(let context) = error else {
                    return false
                }
                return context.debugDescription.contains("ran out of context")
            }
        }

        @Test func aSecondRequestWhileTheFirstRunsIsRefused() async throws {
            let session = LanguageModelSession(model: try EngineModels.model(EngineModels.smollm))
            let first = session.streamResponse(
                to: "Write a haiku about rain.",
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 30))
            await #expect {
                try await session.respond(to: "And one about snow.")
            } throws: { error in
                if case LanguageModelSession.GenerationError.concurrentRequests = error { return true }
                return false
            }
            let response = try await first.collect()
            #expect(!response.content.isEmpty)
            #expect(!session.isResponding)
        }

        @Test func aFollowUpReusesTheKVCacheOfEarlierTurns() async throws {
            let session = LanguageModelSession(
                model: try EngineModels.model(EngineModels.smollm), instructions: "You answer in one short sentence.")
            let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 24)
            let first = try await session.respond(to: "What color is the sky?", options: options)
            let second = try await session.respond(to: "And the grass?", options: options)
            // The second prompt starts with the first turn, prompt and answer, all in the cache.
            #expect(second.usage.input.totalTokenCount > first.usage.input.totalTokenCount)
            #expect(second.usage.input.cachedTokenCount >= first.usage.input.totalTokenCount)
            #expect(session.usage.input.cachedTokenCount >= second.usage.input.cachedTokenCount)
        }

        @Test func aStructuredTurnIsCachedForTheNextOne() async throws {
            let session = LanguageModelSession(model: try EngineModels.model(EngineModels.smollm))
            let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 60)
            let first = try await session.respond(
                to: "Suggest replies to: 'Coffee?'", generating: ReplySuggestions.self, options: options)
            let second = try await session.respond(
                to: "Now three more, shorter.", generating: ReplySuggestions.self, options: options)
            // The JSON answer is rendered back in the layout it was generated in, so the cache
            // covers the first prompt and most of the answer (sampled tokens need not be the
            // ones the tokenizer would choose for the same text).
            let firstTurn = first.usage.input.totalTokenCount + first.usage.output.totalTokenCount
            #expect(
                second.usage.input.cachedTokenCount >= first.usage.input.totalTokenCount + first.usage.output
                    .totalTokenCount / 2)
            #expect(second.usage.input.cachedTokenCount <= firstTurn)
        }

        @Test func sessionsRunSideBySideAndKeepTheirOwnCaches() async throws {
            let model = try EngineModels.model(EngineModels.smollm)
            let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 10)
            let cats = LanguageModelSession(model: model, instructions: "You talk about cats.")
            let dogs = LanguageModelSession(model: model, instructions: "You talk about dogs.")
            async let first = cats.respond(to: "Describe a cat.", options: options)
            async let second = dogs.respond(to: "Describe a dog.", options: options)
            let (cat, dog) = try await (first, second)
            #expect(!cat.content.isEmpty && !dog.content.isEmpty)
            // Each follow-up finds its own conversation still cached.
            async let catAgain = cats.respond(to: "And its tail?", options: options)
            async let dogAgain = dogs.respond(to: "And its tail?", options: options)
            let (catFollowUp, dogFollowUp) = try await (catAgain, dogAgain)
            #expect(catFollowUp.usage.input.cachedTokenCount >= cat.usage.input.totalTokenCount)
            #expect(dogFollowUp.usage.input.cachedTokenCount >= dog.usage.input.totalTokenCount)
        }

        /// Concurrent requests on one model decode together (one forward pass per step for all
        /// of them), and each answers exactly what it answers alone.
        @Test func concurrentRequestsDecodeInOneBatchAndAnswerAsTheyDoAlone() async throws {
            // A context size of its own: a runtime (and engine counters) of its own.
            let model = try EngineModels.model(EngineModels.smollm, contextSize: 1536)
            let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 16)
            let topics = ["cats", "dogs", "rain", "the sea"]
            @Sendable func answer(_ topic: String) async throws -> String {
                let session = LanguageModelSession(model: model, instructions: "You talk about \(topic).")
                return try await session.respond(to: "Describe \(topic) in a sentence.", options: options).content
            }
            var alone: [String] = []
            for topic in topics { alone.append(try await answer(topic)) }
            let backend = try await model.runtime()
            #expect(backend.status.largestBatchSize == 1)

            let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, topic) in topics.enumerated() { group.addTask { (index, try await answer(topic)) } }
                var answers = Array(repeating: "", count: topics.count)
                for try await (index, text) in group { answers[index] = text }
                return answers
            }
            #expect(together == alone)
            #expect(backend.status.largestBatchSize >= 2)
        }

        @Test func aPrewarmedPromptIsServedFromTheCache() async throws {
            let model = try EngineModels.model(EngineModels.smollm)
            let backend = try await model.runtime()
            let instructions = Transcript.Entry.instructions(
                Transcript.Instructions(
                    segments: [.text(.init(content: "You are terse. \(UUID())"))], toolDefinitions: []))
            let prompt = Transcript.Entry.prompt(
                Transcript.Prompt(segments: [.text(.init(content: "Name three colors."))]))
            await backend.prewarm(
                LanguageModelExecutorGenerationRequest(transcript: Transcript(entries: [instructions, prompt])))
            let session = LanguageModelSession(model: model, transcript: Transcript(entries: [instructions]))
            let response = try await session.respond(
                to: "Name three colors.", options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 8))
            // All but the last token, evaluated again for its logits (slots keep no logits: the
            // engine's forward pass shares its logit rows between them).
            #expect(response.usage.input.cachedTokenCount == response.usage.input.totalTokenCount - 1)
        }

        @Test func greedyIsRepeatableAndSeedsAre() async throws {
            let model = try EngineModels.model(EngineModels.smollm)
            func answer(_ options: GenerationOptions) async throws -> String {
                try await LanguageModelSession(model: model).respond(to: "Name a fruit.", options: options).content
            }
            let greedy = GenerationOptions(sampling: .greedy, maximumResponseTokens: 12)
            #expect(try await answer(greedy) == answer(greedy))
            let seeded = GenerationOptions(
                sampling: .random(top: 20, seed: 42), temperature: 0.9, maximumResponseTokens: 12)
            #expect(try await answer(seeded) == answer(seeded))
        }

        @Test func textStreamsInPiecesThatAddUpToTheResponse() async throws {
            let session = LanguageModelSession(model: try EngineModels.model(EngineModels.smollm))
            let stream = session.streamResponse(
                to: "Say hello in French and in Japanese.",
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 24))
            var snapshots: [String] = []
            for try await snapshot in stream { snapshots.append(snapshot.content) }
            let response = try await stream.collect()
            #expect(snapshots.count > 1)
            #expect(snapshots.last == response.content)
            for (earlier, later) in zip(snapshots, snapshots.dropFirst()) { #expect(later.hasPrefix(earlier)) }
            #expect(response.content.unicodeScalars.allSatisfy { $0 != "\u{FFFD}" })
        }

        @Test func anyValueSchemasAreRefusedClearly() async throws {
            let session = LanguageModelSession(model: try EngineModels.model(EngineModels.smollm))
            await #expect {
                try await session.respond(to: "Anything.", generating: GeneratedContent.self)
            } throws: { error in
                guard case LanguageModelSession.GenerationError.unsupportedGuide(let context) = error else {
                    return false
                }
                return context.debugDescription.contains("any JSON value")
            }
        }
    }
}
