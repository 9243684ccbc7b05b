import Foundation
import FoundationModels
import GenerableFixtures
import TestSupport
import Testing

/// A model defined outside the module, with only the public API (``ScriptedModel`` and its
/// executor use nothing else), drives a session as the system model does.
@Suite struct CustomModelTests {
    @Test func aCustomModelStreamsCallsToolsFollowsASchemaAndReportsUsage() async throws {
        let call = Transcript.ToolCall(
            id: "c1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Oslo"]))
        let pieces = [#"{"replies": ["Bring"#, #" a coat", "It is cold""#, #", "Stay in"]}"#]
        let model = ScriptedModel(turns: [.toolCalls([call]), .text(pieces.joined(), pieces: pieces)])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()], instructions: "Help.")
        let stream = session.streamResponse(to: "What should I wear in Oslo?", generating: ReplySuggestions.self)
        var seen: [[String]] = []
        for try await snapshot in stream { seen.append(snapshot.content.replies ?? []) }
        let response = try await stream.collect()

        #expect(response.content.replies == ["Bring a coat", "It is cold", "Stay in"])
        #expect(seen.first == ["Bring"] && seen.last == response.content.replies)
        // The tool ran between the two requests, and its output reached the second one.
        #expect(model.requests.count == 2)
        #expect(model.requests[0].enabledToolDefinitions.map(\.name) == ["getWeather"])
        #expect(model.requests[1].schema?.name == "ReplySuggestions")
        guard case .toolOutput(let output)? = model.requests[1].transcript.last else {
            Issue.record("the second request does not end with the tool's output")
            return
        }
        #expect(output.segments.map(\.description) == ["21 °C in Oslo"])
        // Usage: the executor's own counts for the text turn, the fragments' for the call turn.
        #expect(response.usage.output.totalTokenCount == 5 + 9)
        #expect(session.usage.totalTokenCount == response.usage.totalTokenCount)
        #expect(model.executorsCreated == 1)
    }

    @Test func oneExecutorPerConfigurationForEverySession() async throws {
        let model = ScriptedModel(turns: [.text("one"), .text("two"), .text("three")])
        for prompt in ["a", "b", "c"] {
            _ = try await LanguageModelSession(model: model).respond(to: prompt)
        }
        #expect(model.executorsCreated == 1)
        let other = ScriptedModel(turns: [.text("x")])
        _ = try await LanguageModelSession(model: other).respond(to: "d")
        #expect(other.executorsCreated == 1 && model.executorsCreated == 1)
    }

    @Test func prewarmReturnsAtOnceAndReachesTheExecutor() async throws {
        let gate = Gate(open: true)
        let model = ScriptedModel(turns: [], gate: gate)
        let session = LanguageModelSession(model: model, instructions: "Be brief.")
        let start = ContinuousClock.now
        session.prewarm(promptPrefix: Prompt("Summarize"))
        let elapsed = ContinuousClock.now - start
        await gate.waitForArrival()
        #expect(model.prewarmed.first?.texts == ["Be brief.", "Summarize"])
        print("prewarm on a custom model returned after \(elapsed)")
    }
}

/// A capability the model lacks is refused before its executor is called.
@Suite struct CapabilityTests {
    private func expectUnsupported(
        _ capability: LanguageModelCapabilities.Capability, _ model: ScriptedModel,
        _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected unsupportedCapability(\(capability))")
        } catch LanguageModelError.unsupportedCapability(let payload) {
            #expect(payload.capability == capability)
            #expect(payload.debugDescription.contains(capability.description))
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(model.requests.isEmpty)
    }

    @Test func toolsNeedToolCalling() async {
        let model = ScriptedModel(turns: [.text("x")], capabilities: [.guidedGeneration])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        await expectUnsupported(.toolCalling, model) { _ = try await session.respond(to: "Weather?") }
        #expect(!session.isResponding)
        #expect(session.transcript.count == 1)  // the instructions only: the prompt is rolled back
    }

    @Test func schemasNeedGuidedGeneration() async throws {
        let model = ScriptedModel(turns: [.text("{}")], capabilities: [.toolCalling])
        let session = LanguageModelSession(model: model)
        await expectUnsupported(.guidedGeneration, model) {
            _ = try await session.respond(to: "Suggest", generating: ReplySuggestions.self)
        }
        // Tool calling disallowed for the request: the tools are not offered, so they need nothing.
        let noTools = ScriptedModel(turns: [.text("ok")], capabilities: [])
        let withTools = LanguageModelSession(model: noTools, tools: [WeatherTool()])
        let options = GenerationOptions(samplingMode: nil, toolCallingMode: .disallowed)
        #expect(try await withTools.respond(to: "Hi", options: options).content == "ok")
    }

    @Test func imagesNeedVision() async {
        let model = ScriptedModel(turns: [.text("x")], capabilities: [.guidedGeneration, .toolCalling])
        let session = LanguageModelSession(model: model)
        await expectUnsupported(.vision, model) {
            _ = try await session.respond {
                "What does it say?"
                Attachment(imageURL: URL(fileURLWithPath: "/tmp/screenshot.png"))
            }
        }
        // Also in a stream.
        await expectUnsupported(.vision, model) {
            let stream = session.streamResponse {
                Attachment(imageData: Data([0x89, 0x50])).label("chart")
            }
            for try await _ in stream {}
        }
    }

    @Test func reasoningLevelsNeedReasoning() async {
        let model = ScriptedModel(turns: [.text("x")])
        let session = LanguageModelSession(model: model)
        await expectUnsupported(.reasoning, model) {
            _ = try await session.respond(to: "Think", contextOptions: ContextOptions(reasoningLevel: .deep))
        }
    }

    @Test(.onTestThreads) func capabilitiesAreASet() {
        let capabilities = LanguageModelCapabilities(capabilities: [.vision, .toolCalling, .vision])
        #expect(capabilities.contains(.vision) && capabilities.contains(.toolCalling))
        #expect(!capabilities.contains(.reasoning) && !capabilities.contains(.guidedGeneration))
        #expect(LanguageModelCapabilities([.reasoning]).contains(.reasoning))
        #expect(SystemLanguageModel.default.capabilities.contains(.vision))
    }
}
