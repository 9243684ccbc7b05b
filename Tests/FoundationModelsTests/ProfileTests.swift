import Foundation
import FoundationModels
import GenerableFixtures
import Synchronization
import TestSupport
import Testing

extension SessionPropertyValues {
    /// Which mode the test profile is in.
    @SessionPropertyEntry var testMode: String = "explain"
    /// What the profile's hooks saw, in order.
    @SessionPropertyEntry var hookLog: [String] = []
}

/// A profile that switches on a session property, with hooks that log into another one.
struct ModeProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.testMode) var mode
    @SessionProperty(\.hookLog) var log

    var body: some DynamicProfile {
        if mode == "quiz" {
            Profile { Instructions("Ask one question.") }
                .temperature(0.2)
                .onActivate { log.append("activate quiz") }
                .onDeactivate { log.append("deactivate quiz") }
        } else {
            Profile {
                Instructions("Explain with examples.")
                WeatherTool()
            }
            .temperature(0.9)
            .onActivate { log.append("activate explain") }
            .onDeactivate { log.append("deactivate explain") }
            .onPrompt { (prompt: Transcript.Prompt) in log.append("prompt \(prompt.description)") }
            .onToolCall { (call: Transcript.ToolCall) in log.append("call \(call.toolName)") }
            .onToolOutput { (_: Transcript.ToolCall, output: Transcript.ToolOutput) in
                log.append("output \(output.description)")
            }
            .onResponse { (response: Transcript.Response) in log.append("response \(response.description)") }
        }
    }
}

/// History transforms that record their order.
struct Windowed: LanguageModelSession.DynamicProfile {
    let size: Int
    var body: some DynamicProfile {
        Profile { Instructions("You are a helpful assistant.") }
            .historyTransform { Array($0.suffix(size)) }
            .modifier(DropToolEntries())
    }
}

/// Drops tool calls and outputs from the history the model sees (a custom modifier).
struct DropToolEntries: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        content.historyTransform { history in
            history.filter { entry in
                switch entry {
                case .toolCalls, .toolOutput: false
                default: true
                }
            }
        }
    }
}

/// Sessions made with a dynamic profile (27 SDK): the profile decides the instructions, tools,
/// options and history of every request; the session's transcript stays whole.
@Suite struct ProfileTests {
    @Test func aHistoryTransformTrimsWhatTheModelSeesNotTheTranscript() async throws {
        let model = ScriptedModel(turns: [.text("OK"), .text("OK"), .text("OK")])
        let session = LanguageModelSession(profile: Windowed(size: 3).model(model))
        try await session.respond(to: "first")
        try await session.respond(to: "second")
        try await session.respond(to: "third")
        // The model saw the first request whole (instructions and prompt), the third trimmed.
        #expect(model.requests.first?.transcript.texts == ["You are a helpful assistant.", "first"])
        #expect(model.requests.last?.transcript.texts == ["second", "OK", "third"])
        // The session keeps everything, with the profile's instructions first.
        #expect(
            session.transcript.texts == ["You are a helpful assistant.", "first", "OK", "second", "OK", "third", "OK"])
    }

    @Test func transformsRunOutermostFirst() async throws {
        // The window of 2 applies after the tool entries are dropped (the outer modifier runs
        // first), so the model still sees the prompt before the response.
        let call = Transcript.ToolCall(
            id: "c", toolName: "getWeather", arguments: try GeneratedContent(json: #"{"city": "Oslo"}"#))
        let model = ScriptedModel(turns: [.text("OK"), .toolCalls([call]), .text("Sunny")])
        let profile = LanguageModelSession.Profile {
            Instructions("Be brief.")
            WeatherTool()
        }
        .historyTransform { Array($0.suffix(2)) }
        .modifier(DropToolEntries())
        .model(model)
        let session = LanguageModelSession(profile: profile)
        try await session.respond(to: "Hi")
        try await session.respond(to: "Weather?")
        let last = try #require(model.requests.last)
        #expect(last.transcript.texts == ["OK", "Weather?"])
        #expect(session.transcript.contains { if case .toolOutput = $0 { true } else { false } })
    }

    @Test func innerSettingsOverrideOuterOnesAndRequestsOverrideBoth() async throws {
        let model = ScriptedModel(turns: [.text("OK"), .text("OK")])
        let profile = LanguageModelSession.Profile { Instructions("Be brief.") }
            .temperature(0.3)
            .maximumResponseTokens(40)
            .temperature(0.8)
            .model(model)
        let session = LanguageModelSession(profile: profile)
        try await session.respond(to: "Hi")
        #expect(model.requests[0].generationOptions.temperature == 0.3)
        #expect(model.requests[0].generationOptions.maximumResponseTokens == 40)
        try await session.respond(to: "Hi", options: GenerationOptions(temperature: 0.1))
        #expect(model.requests[1].generationOptions.temperature == 0.1)
    }

    @Test func dynamicInstructionsGiveTheToolsAndHooksSeeTheRequest() async throws {
        let call = Transcript.ToolCall(
            id: "c", toolName: "getWeather", arguments: try GeneratedContent(json: #"{"city": "Rome"}"#))
        let model = ScriptedModel(turns: [.toolCalls([call]), .text("Sunny in Rome")])
        let session = LanguageModelSession(profile: ModeProfile().model(model))
        let response = try await session.respond(to: "Weather in Rome?")
        #expect(response.content == "Sunny in Rome")
        let first = try #require(model.requests.first)
        #expect(first.enabledToolDefinitions.map(\.name) == ["getWeather"])
        #expect(first.generationOptions.temperature == 0.9)
        guard case .instructions(let instructions)? = session.transcript.first else {
            Issue.record("the profile's instructions are not first")
            return
        }
        #expect(instructions.toolDefinitions.map(\.name) == ["getWeather"])
        #expect(
            session.properties.hookLog == [
                "activate explain", "prompt Weather in Rome?", "call getWeather",
                "output 21 °C in Rome", "response Sunny in Rome",
            ])
    }

    @Test func switchingProfilesDeactivatesOneAndActivatesTheOther() async throws {
        let model = ScriptedModel(turns: [.text("A"), .text("B"), .text("C")])
        let session = LanguageModelSession(profile: ModeProfile().model(model))
        try await session.respond(to: "one")
        session.properties.testMode = "quiz"
        try await session.respond(to: "two")
        try await session.respond(to: "three")
        let activations = session.properties.hookLog.filter { $0.contains("activate") }
        #expect(activations == ["activate explain", "deactivate explain", "activate quiz"])
        #expect(model.requests[1].generationOptions.temperature == 0.2)
        #expect(model.requests[1].transcript.texts.first == "Ask one question.")
        #expect(model.requests[1].enabledToolDefinitions.isEmpty)
    }

    @Test func aHookCanCompactTheHistoryThroughItsSessionProperty() async throws {
        struct Compacting: LanguageModelSession.DynamicProfile {
            @SessionProperty(\.history) var history
            let model: ScriptedModel
            var body: some DynamicProfile {
                Profile { Instructions("Be brief.") }
                    .model(model)
                    .onResponse {
                        if history.count > 2 { history = Transcript.HistoryView(history.suffix(2)) }
                    }
            }
        }
        let model = ScriptedModel(turns: [.text("one"), .text("two")])
        let session = LanguageModelSession(profile: Compacting(model: model))
        try await session.respond(to: "a")
        try await session.respond(to: "b")
        // After the second response the history was cut to its last two entries; the
        // instructions stay.
        #expect(session.transcript.texts == ["Be brief.", "b", "two"])
    }

    @Test func aSessionOnDynamicInstructionsContinuesFromHistory() async throws {
        struct Greeter: DynamicInstructions {
            var names: [String]
            var body: some DynamicInstructions {
                "You greet people."
                ForEach(names) { name in Instructions("Greet \(name) warmly.") }
            }
        }
        let model = ScriptedModel(turns: [.text("Hi Ada")])
        let earlier: [Transcript.Entry] = [
            .prompt(Transcript.Prompt(segments: [.text(.init(content: "Hello"))])),
            .response(Transcript.Response(assetIDs: [], segments: [.text(.init(content: "Hello!"))])),
        ]
        let session = LanguageModelSession(
            model: model, dynamicInstructions: Greeter(names: ["Ada", "Grace"]), history: earlier)
        try await session.respond(to: "Greet them")
        #expect(
            model.requests[0].transcript.texts == [
                "You greet people.\nGreet Ada warmly.\nGreet Grace warmly.", "Hello", "Hello!", "Greet them",
            ])
    }
}
