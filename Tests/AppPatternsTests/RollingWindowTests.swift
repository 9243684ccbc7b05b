import AppPatterns
import FoundationModels
import TestSupport
import Testing

/// The history modifiers of Apple's utilities, as the app wrote them, on the mock model: the
/// model is shown the window; the session keeps everything.
@Suite struct RollingWindowTests {
    private struct WindowedProfile: LanguageModelSession.DynamicProfile {
        let windowSize: Int
        let model: MockModel

        var body: some DynamicProfile {
            Profile {
                Instructions("You are a helpful assistant.")
            }
            .rollingWindow(entries: windowSize)
            .model(model)
        }
    }

    @Test func preservesEntriesUnderTheLimit() async throws {
        let recorder = TranscriptRecorder()
        let session = LanguageModelSession(
            profile: WindowedProfile(windowSize: 10, model: MockModel(textResponse: "OK", recorder: recorder)))
        try await session.respond(to: "first")
        try await session.respond(to: "second")
        #expect(
            recorder.transcripts.last?.summary == [.instructions, .prompt("first"), .response("OK"), .prompt("second")])
    }

    @Test func trimsToTheMostRecentEntries() async throws {
        let recorder = TranscriptRecorder()
        let session = LanguageModelSession(
            profile: WindowedProfile(windowSize: 3, model: MockModel(textResponse: "OK", recorder: recorder)))
        for prompt in ["first", "second", "third"] { try await session.respond(to: prompt) }
        #expect(recorder.transcripts.last?.summary == [.prompt("second"), .response("OK"), .prompt("third")])
        #expect(session.transcript.count == 7)
    }

    @Test func dropsCompletedToolCallsBeforeTheWindow() async throws {
        let recorder = TranscriptRecorder()
        let model = MockModel(
            events: [.toolCall(name: "getForecast", arguments: #"{"city": "Porto"}"#), .text("Cloudy.")],
            recorder: recorder)
        let profile = LanguageModelSession.Profile {
            Instructions("You plan trips.")
            ForecastTool()
        }
        .rollingWindow(entries: 10)
        .droppingCompletedToolCalls()
        .model(model)
        let session = LanguageModelSession(profile: profile)
        try await session.respond(to: "Weather in Porto?")
        try await session.respond(to: "And tomorrow?")
        // Four turns: each prompt made the model call the tool, then answer. When the second
        // prompt came, the first exchange's call and output were gone from what the model saw;
        // the session keeps them.
        #expect(recorder.transcripts.count == 4)
        #expect(
            recorder.transcripts[2].summary == [
                .instructions, .prompt("Weather in Porto?"), .response("Cloudy."), .prompt("And tomorrow?"),
            ])
        // The exchange under way keeps its call and output.
        #expect(
            recorder.transcripts[3].summary.suffix(2) == [
                .toolCall("getForecast"), .toolOutput("Porto: cloudy, 18 °C"),
            ])
        #expect(session.transcript.summary.contains(.toolCall("getForecast")))
        #expect(session.transcript.summary.contains(.toolOutput("Porto: cloudy, 18 °C")))
    }
}

/// A transcript entry's kind and text, for comparing what a model saw.
enum EntrySummary: Equatable {
    case instructions
    case prompt(String)
    case response(String)
    case toolCall(String)
    case toolOutput(String)
    case reasoning
}

extension Transcript {
    var summary: [EntrySummary] { map(\.summary) }
}

extension Transcript.Entry {
    var summary: EntrySummary {
        switch self {
        case .instructions: .instructions
        case .prompt(let prompt): .prompt(prompt.segments.text)
        case .response(let response): .response(response.segments.text)
        case .toolCalls(let calls): .toolCall(calls.map(\.toolName).joined(separator: ", "))
        case .toolOutput(let output): .toolOutput(output.segments.text)
        case .reasoning: .reasoning
        }
    }
}

extension [Transcript.Segment] {
    fileprivate var text: String {
        compactMap { segment in
            guard case .text(let text) = segment else { return nil }
            return text.content
        }.joined()
    }
}
