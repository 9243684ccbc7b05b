import Foundation
import FoundationModels
import TestSupport
import Testing

/// When the code reading a response stops, generation stops, the session is free at once, and
/// the transcript keeps the prompt and the partial response (with the scripted model, which
/// stops at the next word once cancelled, as the engine stops at the next token; the engine
/// itself is measured in LocalEngineTests).
@Suite struct CancellationTests {
    private static let interval = Duration.milliseconds(5)

    /// Waits (a bounded time) until `condition` holds.
    private func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<400 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
        #expect(condition())
    }

    private func expectPartialResponseKept(_ session: LanguageModelSession, prompt: String) throws {
        let entries = Array(session.transcript)
        guard entries.count == 2, case .prompt(let kept) = entries[0], case .response(let partial) = entries[1] else {
            Issue.record("expected the prompt and a partial response, got \(entries)")
            return
        }
        #expect(kept.description == prompt)
        #expect(partial.description.hasPrefix("word word"))
    }

    @Test func cancellingRespondStopsAndKeepsThePartialResponse() async throws {
        let model = ScriptedModel(turns: [.endless(interval: Self.interval), .text("next")])
        let session = LanguageModelSession(model: model)
        let task = Task { try await session.respond(to: "Count") }
        try await eventually { model.script.wordsSent >= 3 }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!session.isResponding)
        try expectPartialResponseKept(session, prompt: "Count")
        // The words the executor sent are counted, including after the session stopped reading.
        #expect(session.usage.output.totalTokenCount >= 2)
        #expect(try await session.respond(to: "Again").content == "next")
    }

    @Test func breakingOutOfAStreamStopsIt() async throws {
        let model = ScriptedModel(turns: [.endless(interval: Self.interval), .text("next")])
        let session = LanguageModelSession(model: model)
        var seen = 0
        for try await snapshot in session.streamResponse(to: "Count") {
            seen = snapshot.usage.output.totalTokenCount
            if seen >= 3 { break }
        }
        // The stream is gone with the loop: the session frees itself without anyone waiting.
        try await eventually { !session.isResponding }
        #expect(seen >= 3)
        try expectPartialResponseKept(session, prompt: "Count")
        #expect(try await session.respond(to: "Again").content == "next")
    }

    @Test func breakingWhileTheStreamIsStillHeldStopsItToo() async throws {
        let model = ScriptedModel(turns: [.endless(interval: Self.interval)])
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Count")
        for try await snapshot in stream where snapshot.usage.output.totalTokenCount >= 2 { break }
        try await eventually { !session.isResponding }
        await #expect(throws: CancellationError.self) { try await stream.collect() }
        withExtendedLifetime(stream) {}
    }

    @Test func cancellingTheReadingTaskStopsTheStream() async throws {
        let model = ScriptedModel(turns: [.endless(interval: Self.interval)])
        let session = LanguageModelSession(model: model)
        let reader = Task {
            for try await _ in session.streamResponse(to: "Count") {}
        }
        try await eventually { model.script.wordsSent >= 3 }
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        try await eventually { !session.isResponding }
        try expectPartialResponseKept(session, prompt: "Count")
    }

    @Test func droppingAnUnreadStreamStopsIt() async throws {
        let model = ScriptedModel(turns: [.endless(interval: Self.interval)])
        let session = LanguageModelSession(model: model)
        do {
            let stream = session.streamResponse(to: "Count")
            try await eventually { model.script.wordsSent >= 3 }
            withExtendedLifetime(stream) {}
        }
        try await eventually { !session.isResponding }
        try expectPartialResponseKept(session, prompt: "Count")
    }

    @Test func aStreamKeptAndReadLaterIsNotStopped() async throws {
        let model = ScriptedModel(turns: [.text("all of it", pieces: ["all ", "of ", "it"])], gate: Gate(open: true))
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Say it")
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await stream.collect().content == "all of it")
    }

    @Test func cancellingDuringAToolCallingTurnKeepsTheCallsMadeSoFar() async throws {
        let call = Transcript.ToolCall(
            id: "c1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Rome"]))
        let model = ScriptedModel(turns: [.toolCalls([call]), .endless(interval: Self.interval), .text("next")])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        var answer = ""
        for try await snapshot in session.streamResponse(to: "Weather in Rome?") {
            answer = snapshot.content
            if snapshot.usage.output.totalTokenCount >= 2 { break }
        }
        try await eventually { !session.isResponding }
        #expect(answer.hasPrefix("word"))
        let kinds = session.transcript.map { entry -> String in
            switch entry {
            case .toolCalls: "calls"
            case .toolOutput: "output"
            case .response: "response"
            case .prompt: "prompt"
            case .instructions: "instructions"
            default: "other"
            }
        }
        #expect(kinds == ["instructions", "prompt", "calls", "output", "response"])
        #expect(try await session.respond(to: "Thanks").content == "next")
    }

    @Test func failuresFollowTheTranscriptPolicy() async throws {
        struct Broken: Error {}
        let model = ScriptedModel(turns: [
            .text("partial", pieces: ["partial"]), .failure(Broken()), .failure(Broken()),
        ])
        let session = LanguageModelSession(model: model)
        try await session.respond(to: "One")
        let before = session.transcript
        await #expect(throws: Broken.self) { try await session.respond(to: "Two") }
        #expect(session.transcript == before)  // reverted, the default
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        await #expect(throws: Broken.self) { try await session.respond(to: "Three") }
        #expect(session.transcript.count == before.count + 1)  // the prompt kept
        #expect(session.transcript.last?.description == "(Prompt) Three")
    }
}
