import Foundation
import FoundationModels
import GenerableFixtures
import Observation
import Synchronization
import TestSupport
import Testing

@Suite struct SessionTests {
    private func session(_ backend: ScriptedModel, tools: [any Tool] = [], instructions: String? = "Be brief.")
        -> LanguageModelSession
    {
        LanguageModelSession(model: backend, tools: tools, instructions: instructions)
    }

    @Test func respondRecordsPromptAndResponse() async throws {
        let backend = ScriptedModel(turns: [.text("Hi there!")])
        let session = session(backend)
        let response = try await session.respond(to: "Hello")
        #expect(response.content == "Hi there!")
        #expect(response.rawContent == GeneratedContent("Hi there!"))
        #expect(response.rawContent.id != nil)
        #expect(!session.isResponding)

        let entries = Array(session.transcript)
        #expect(entries.count == 3)
        guard case .instructions(let instructions) = entries[0], case .prompt(let prompt) = entries[1],
            case .response(let reply) = entries[2]
        else {
            Issue.record("unexpected entries \(entries)")
            return
        }
        #expect(
            instructions.segments == [
                .text(Transcript.TextSegment(id: instructions.segments[0].id, content: "Be brief."))
            ])
        #expect(prompt.segments.map(\.description) == ["Hello"])
        #expect(prompt.responseFormat == nil)
        #expect(reply.segments.map(\.description) == ["Hi there!"])
        #expect(Array(response.transcriptEntries) == Array(entries[1...]))

        let request = try #require(backend.requests.first)
        #expect(request.transcript.texts == ["Be brief.", "Hello"])
        #expect(request.schema == nil)
    }

    @Test func followUpSeesEarlierTurns() async throws {
        let backend = ScriptedModel(turns: [.text("Saturday works."), .text("At 9.")])
        let session = session(backend)
        try await session.respond(to: "When shall we hike?")
        try await session.respond(to: "What time?")
        let second = try #require(backend.requests.last)
        #expect(
            second.transcript.texts == ["Be brief.", "When shall we hike?", "Saturday works.", "What time?"])
        #expect(session.transcript.count == 5)
    }

    @Test func generatingAGenerableType() async throws {
        let json = #"{"replies": ["Sure!", "Sounds great", "Can't, sorry"]}"#
        let backend = ScriptedModel(turns: [.text(json)])
        let session = session(backend)
        let response = try await session.respond(to: "Want to hike on Saturday?", generating: ReplySuggestions.self)
        #expect(response.content.replies == ["Sure!", "Sounds great", "Can't, sorry"])

        let request = try #require(backend.requests.first)
        #expect(request.schema?.root == ReplySuggestions.generationSchema.root)
        #expect(request.contextOptions.includeSchemaInPrompt == true)

        guard case .response(let reply)? = session.transcript.last, case .structure(let segment)? = reply.segments.first
        else {
            Issue.record("expected a structured response")
            return
        }
        #expect(segment.source == "ReplySuggestions")
        #expect(segment.content == response.rawContent)
        guard case .prompt(let prompt) = session.transcript[1] else {
            Issue.record("expected the prompt")
            return
        }
        #expect(prompt.responseFormat?.name == "ReplySuggestions")
    }

    @Test func schemaCanBeLeftOutOfThePrompt() async throws {
        let backend = ScriptedModel(turns: [.text(#"{"searchTerms": ["a", "b", "c", "d"]}"#)])
        let session = session(backend)
        let response = try await session.respond(
            to: "Suggest searches", generating: SearchSuggestions.self, includeSchemaInPrompt: false)
        #expect(response.content.searchTerms.count == 4)
        let request = try #require(backend.requests.first)
        #expect(request.contextOptions.includeSchemaInPrompt == false)
        #expect(request.schema != nil)
    }

    @Test func respondingWithADynamicSchema() async throws {
        let schema = try GenerationSchema(
            root: DynamicGenerationSchema(
                name: "Tag", properties: [.init(name: "label", schema: .init(type: String.self))]),
            dependencies: [])
        let backend = ScriptedModel(turns: [.text(#"{"label": "travel"}"#)])
        let response = try await session(backend).respond(to: "Tag this", schema: schema)
        #expect(try response.content.value(String.self, forProperty: "label") == "travel")
    }

    @Test func secondRequestWhileRespondingThrowsConcurrentRequests() async throws {
        let gate = Gate()
        let backend = ScriptedModel(turns: [.text("first"), .text("third")], gate: gate)
        let session = session(backend)
        let first = Task { try await session.respond(to: "one") }
        await gate.waitForArrival()
        #expect(session.isResponding)
        await #expect {
            try await session.respond(to: "two")
        } throws: { error in
            guard case LanguageModelSession.GenerationError.concurrentRequests = error else { return false }
            return true
        }
        gate.open()
        #expect(try await first.value.content == "first")
        #expect(!session.isResponding)
        #expect(try await session.respond(to: "three").content == "third")
        #expect(backend.requests.count == 2)
    }

    /// The executor knows the model's tokenizer and context: its overflow error reaches the
    /// caller, and the transcript is as before. (The local engine's check is tested with it.)
    @Test func contextOverflowFromTheExecutorRollsBack() async throws {
        let backend = ScriptedModel(contextSize: 10, turns: [.text("never")])
        let session = session(backend)
        let before = session.transcript
        let prompt = Array(repeating: "word", count: 20).joined(separator: " ")
        do {
            try await session.respond(to: prompt)
            Issue.record("expected exceededContextWindowSize")
        } catch let LanguageModelSession.GenerationError.exceededContextWindowSize(context) {
            #expect(
                context.debugDescription
                    == "Content contains 22 tokens, which exceeds the maximum allowed context size of 10")
        }
        #expect(backend.requests.count == 1)
        #expect(session.transcript == before)
        #expect(!session.isResponding)
    }

    @Test func failedRequestRollsTheTranscriptBack() async throws {
        let backend = ScriptedModel(turns: [.text("not json at all"), .text(#"{"replies": ["a", "b"#)])
        let session = session(backend)
        let before = session.transcript
        await #expect(throws: LanguageModelSession.GenerationError.self) {
            try await session.respond(to: "Suggest", generating: ReplySuggestions.self)
        }
        #expect(session.transcript == before)
        do {
            try await session.respond(to: "Suggest", generating: ReplySuggestions.self)
            Issue.record("expected a decoding failure for truncated JSON")
        } catch let LanguageModelSession.GenerationError.decodingFailure(context) {
            #expect(context.debugDescription.contains("ended before its JSON was complete"))
        }
        #expect(session.transcript == before)
        #expect(!session.isResponding)
    }

    @Test func outputThatDoesNotFitTheTypeIsADecodingFailure() async throws {
        let backend = ScriptedModel(turns: [.text(#"{"name": "Ada", "age": "old", "mood": "positive"}"#)])
        do {
            try await session(backend).respond(to: "Make a character", generating: Character.self)
            Issue.record("expected a decoding failure")
        } catch let LanguageModelSession.GenerationError.decodingFailure(context) {
            #expect(context.debugDescription.hasPrefix("property 'age': expected an integer"))
        }
    }

    @Test func unsupportedGuideIsThrownBeforeGenerating() async throws {
        let schema = GenerationSchema(type: GeneratedContent.self, anyOf: [String]())
        let backend = ScriptedModel(turns: [.text("\"x\"")])
        await #expect {
            try await session(backend).respond(to: "Pick", schema: schema)
        } throws: { error in
            guard case LanguageModelSession.GenerationError.unsupportedGuide = error else { return false }
            return true
        }
        #expect(backend.requests.isEmpty)
    }

    @Test func usageIsReportedPerResponseAndSummedOnTheSession() async throws {
        let backend = ScriptedModel(turns: [.text("one two three"), .text("four")])
        let session = session(backend)
        let first = try await session.respond(to: "count please")
        #expect(first.usage.input.totalTokenCount == 4)  // "Be brief." + "count please"
        #expect(first.usage.input.cachedTokenCount == 2)
        #expect(first.usage.output.totalTokenCount == 3)
        #expect(first.usage.totalTokenCount == 7)
        let second = try await session.respond(to: "more")
        #expect(session.usage.totalTokenCount == first.usage.totalTokenCount + second.usage.totalTokenCount)
    }

    @Test func refusalsPropagateWithTheirExplanation() async throws {
        let refusal = LanguageModelSession.GenerationError.Refusal(transcriptEntries: [
            .response(
                Transcript.Response(
                    assetIDs: [], segments: [.text(Transcript.TextSegment(content: "I can't help with that."))]))
        ])
        let backend = ScriptedModel(turns: [
            .failure(LanguageModelSession.GenerationError.refusal(refusal, .init(debugDescription: "refused")))
        ])
        do {
            try await session(backend).respond(to: "Do something bad", generating: ReplySuggestions.self)
            Issue.record("expected a refusal")
        } catch let LanguageModelSession.GenerationError.refusal(refusal, _) {
            #expect(try await refusal.explanation.content == "I can't help with that.")
        }
    }

    @Test func sessionContinuesFromATranscript() async throws {
        let first = ScriptedModel(turns: [.text("Hello!")])
        let original = session(first)
        try await original.respond(to: "Hi")
        let second = ScriptedModel(turns: [.text("Fine.")])
        let resumed = LanguageModelSession(model: second, transcript: original.transcript)
        try await resumed.respond(to: "How are you?")
        #expect(second.requests.first?.transcript.texts == ["Be brief.", "Hi", "Hello!", "How are you?"])
    }

    @Test func prewarmReachesTheBackend() async throws {
        let gate = Gate(open: true)
        let backend = ScriptedModel(turns: [], gate: gate)
        let session = session(backend)
        session.prewarm(promptPrefix: Prompt("Summarize"))
        await gate.waitForArrival()
        #expect(backend.prewarmed.first?.texts == ["Be brief.", "Summarize"])
    }

    @Test func missingModelMakesRequestsFailWithAssetsUnavailable() async throws {
        let model = SystemLanguageModel.stub(.path("/nonexistent/model.gguf"), locator: StubLocator())
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(!model.isAvailable)
        let session = LanguageModelSession(model: model)
        await #expect {
            try await session.respond(to: "Hi")
        } throws: { error in
            guard case LanguageModelSession.GenerationError.assetsUnavailable(let context) = error else { return false }
            return context.debugDescription.contains("/nonexistent/model.gguf")
        }
        #expect(session.transcript.isEmpty)
        await #expect(throws: LanguageModelSession.GenerationError.self) { try await model.tokenCount(for: "hello") }
    }

    @Test func tokenCountsAskTheEngineWhatEachOverloadMeans() async throws {
        let engine = StubEngine(contextSize: 2048)
        let model = SystemLanguageModel.stub(
            .id("smollm2-135m"), contextSize: 2048, locator: StubLocator(files: [.id("smollm2-135m"): 1000]),
            engine: engine)
        #expect(model.contextSize == 2048)
        #expect(try await model.tokenCount(for: "three little words") == 3)
        #expect(try await model.tokenCount(for: Instructions("be kind")) == 2)
        #expect(try await model.tokenCount(for: ReplySuggestions.generationSchema) == 1)
        #expect(try await model.tokenCount(for: [WeatherTool(), WeatherTool()]) == 2)
        let entries: [Transcript.Entry] = [
            .prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: "a b c d"))]))
        ]
        #expect(try await model.tokenCount(for: entries) == 4)
        let path = StubLocator.path(of: .id("smollm2-135m"))
        #expect(engine.targets.allSatisfy { $0 == SystemModelTarget(path: path, contextSize: 2048) })
    }
}

@Suite struct ObservationTests {
    @Test func transcriptAndIsRespondingAreObservable() async throws {
        let backend = ScriptedModel(turns: [.text("ok")])
        let session = LanguageModelSession(model: backend)
        let changes = Counter()
        withObservationTracking {
            _ = session.isResponding
            _ = session.transcript
        } onChange: {
            changes.increment()
        }
        try await session.respond(to: "Hi")
        #expect(changes.value == 1)  // onChange fires once, on the first change
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
