import Foundation
import FoundationModels
import GenerableFixtures
import TestSupport
import Testing

@Suite struct ToolCallingTests {
    private func weatherCall(_ city: String, id: String = "call-1") -> Transcript.ToolCall {
        Transcript.ToolCall(id: id, toolName: "getWeather", arguments: GeneratedContent(properties: ["city": city]))
    }

    @Test func toolCallLoopRecordsEveryStep() async throws {
        let backend = ScriptedModel(turns: [.toolCalls([weatherCall("Paris")]), .text("It is 21 °C in Paris.")])
        let session = LanguageModelSession(
            model: backend, tools: [WeatherTool()], instructions: "Help with the weather."
        )
        let response = try await session.respond(to: "How warm is it in Paris?")
        #expect(response.content == "It is 21 °C in Paris.")

        let entries = Array(session.transcript)
        #expect(entries.count == 5)
        guard case .instructions(let instructions) = entries[0], case .toolCalls(let calls) = entries[2],
            case .toolOutput(let output) = entries[3], case .response = entries[4]
        else {
            Issue.record("unexpected entries: \(entries)")
            return
        }
        #expect(instructions.toolDefinitions.map(\.name) == ["getWeather"])
        #expect(instructions.toolDefinitions.first?.description == "Gets the current temperature in a city.")
        #expect(calls.map(\.toolName) == ["getWeather"])
        #expect(output.id == "call-1")
        #expect(output.toolName == "getWeather")
        #expect(output.segments.map(\.description) == ["21 °C in Paris"])
        #expect(response.transcriptEntries.count == 4)

        // The model is asked again with the tool's output, in the tool's own message.
        #expect(backend.requests.count == 2)
        #expect(backend.requests[0].enabledToolDefinitions.map(\.name) == ["getWeather"])
        let second = Array(backend.requests[1].transcript)
        #expect(second.count == 4)
        guard case .toolCalls(let sent) = second[2], case .toolOutput(let answered) = second[3] else {
            Issue.record("unexpected second request: \(second)")
            return
        }
        #expect(sent.first?.arguments == GeneratedContent(properties: ["city": "Paris"]))
        #expect(answered.segments.map(\.description) == ["21 °C in Paris"])
        #expect(answered.id == "call-1")
    }

    @Test func severalCallsRunAndKeepTheirOrder() async throws {
        let backend = ScriptedModel(turns: [
            .toolCalls([weatherCall("Oslo", id: "a"), weatherCall("Rome", id: "b")]), .text("Oslo is colder."),
        ])
        let session = LanguageModelSession(model: backend, tools: [WeatherTool()])
        try await session.respond(to: "Compare Oslo and Rome")
        let outputs = session.transcript.compactMap { entry -> Transcript.ToolOutput? in
            if case .toolOutput(let output) = entry { return output }
            return nil
        }
        #expect(outputs.map(\.id) == ["a", "b"])
        #expect(outputs.map(\.segments.first?.description) == ["21 °C in Oslo", "21 °C in Rome"])
    }

    @Test func toolErrorsAreWrappedAndRollBack() async throws {
        let backend = ScriptedModel(turns: [.toolCalls([weatherCall("Atlantis")]), .text("unreachable")])
        let session = LanguageModelSession(model: backend, tools: [WeatherTool()])
        let before = session.transcript
        do {
            try await session.respond(to: "Weather in Atlantis?")
            Issue.record("expected a ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "getWeather")
            #expect(error.underlyingError is WeatherTool.WeatherError)
        }
        #expect(session.transcript == before)
        #expect(!session.isResponding)
    }

    @Test func argumentsThatDoNotDecodeAreAToolCallError() async throws {
        let bad = Transcript.ToolCall(
            id: "x", toolName: "getWeather", arguments: GeneratedContent(properties: ["town": "Paris"]))
        let backend = ScriptedModel(turns: [.toolCalls([bad])])
        let session = LanguageModelSession(model: backend, tools: [WeatherTool()])
        await #expect(throws: LanguageModelSession.ToolCallError.self) { try await session.respond(to: "Weather?") }
    }

    @Test func unknownToolOrNoToolsIsADecodingFailure() async throws {
        let unknown = ScriptedModel(turns: [
            .toolCalls([Transcript.ToolCall(id: "1", toolName: "launch", arguments: GeneratedContent(properties: [:]))])
        ])
        let withTools = LanguageModelSession(model: unknown, tools: [WeatherTool()])
        await #expect(throws: LanguageModelSession.GenerationError.self) { try await withTools.respond(to: "Go") }

        let noTools = ScriptedModel(turns: [.toolCalls([weatherCall("Paris")])])
        let withoutTools = LanguageModelSession(model: noTools)
        await #expect(throws: LanguageModelSession.GenerationError.self) { try await withoutTools.respond(to: "Go") }
        #expect(noTools.requests.first?.enabledToolDefinitions.isEmpty == true)
    }

    @Test func toolRoundsAreLimited() async throws {
        let calls = (0..<LanguageModelSession.maximumToolRounds).map {
            ScriptedModel.Turn.toolCalls([weatherCall("Paris", id: "c\($0)")])
        }
        let backend = ScriptedModel(turns: calls + [.text("Done.")])
        let session = LanguageModelSession(model: backend, tools: [WeatherTool()])
        #expect(try await session.respond(to: "Loop").content == "Done.")
        #expect(backend.requests.last?.enabledToolDefinitions.isEmpty == true)
    }

    @Test func transcriptWithToolsSurvivesCodable() async throws {
        let backend = ScriptedModel(turns: [
            .toolCalls([weatherCall("Paris")]), .text(#"{"replies": ["a", "b", "c"]}"#),
        ])
        let session = LanguageModelSession(
            model: backend, tools: [WeatherTool()], instructions: "Hi")
        try await session.respond(
            to: "x", generating: ReplySuggestions.self,
            options: GenerationOptions(sampling: .random(top: 5, seed: 9), temperature: 0.5))
        let data = try JSONEncoder().encode(session.transcript)
        let decoded = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(decoded == session.transcript)
    }

    @Test(.onTestThreads) func defaultToolNameIsTheTypeName() {
        struct Lookup: Tool {
            let description = "Looks things up."
            func call(arguments: GeneratedContent) async throws -> String { "" }
            var parameters: GenerationSchema { GeneratedContent.generationSchema }
        }
        #expect(Lookup().name == "Lookup")
        #expect(Lookup().includesSchemaInInstructions)
        #expect(WeatherTool().parameters.jsonSchemaString.contains("The city to get the weather for"))
    }
}
