import EngineClient
import Foundation
import FoundationModels
import GenerableFixtures
import TestSupport
import Testing

/// The engine service's framing and messages, without a socket.
@Suite struct WireProtocolTests {
    @Test(.onTestThreads) func framesSplitAnywhere() throws {
        let payloads = [Data("{}".utf8), Data(repeating: 0x61, count: 70_000), Data()]
        let stream = payloads.map(EngineFrames.frame).reduce(Data(), +)
        for chunk in [1, 3, 4096, stream.count] {
            var decoder = EngineFrames.Decoder()
            var frames: [Data] = []
            var offset = 0
            while offset < stream.count {
                let end = min(offset + chunk, stream.count)
                frames += try decoder.feed(Array(stream[offset..<end]))
                offset = end
            }
            #expect(frames == payloads, "chunks of \(chunk)")
            #expect(decoder.pendingByteCount == 0)
        }
    }

    @Test(.onTestThreads) func anOversizedFrameIsRefused() {
        var decoder = EngineFrames.Decoder()
        #expect(throws: EngineFrames.FrameError.self) { _ = try decoder.feed([0x7F, 0xFF, 0xFF, 0xFF]) }
    }

    @Test(.onTestThreads) func eventsRoundTrip() throws {
        typealias Channel = LanguageModelExecutorGenerationChannel
        let events: [Channel.Event] = [
            .response(action: .appendText("Hi", segmentID: "s1", tokenCount: 2)),
            .response(entryID: "r", action: .replaceTextSegment("Hello", tokenCount: 3)),
            .response(action: .updateMetadata(["model": "qwen", "tokens": 7, "fast": true])),
            .response(
                action: .updateUsage(
                    input: .init(totalTokenCount: 10, cachedTokenCount: 4),
                    output: .init(totalTokenCount: 5, reasoningTokenCount: 0), metadata: ["served": "service"])),
            .toolCalls(
                action: .toolCall(id: "c", name: "getWeather", action: .appendArguments(#"{"city":"#, tokenCount: 3))),
            .reasoning(action: .appendText("Let me think", tokenCount: 3)),
        ]
        var sent = TurnAccumulator()
        var received = TurnAccumulator()
        for event in events {
            let wire = try #require(WireEvent(event))
            let decoded = try JSONDecoder().decode(WireEvent.self, from: JSONEncoder().encode(wire))
            _ = sent.apply(event)
            _ = received.apply(try decoded.event())
        }
        #expect(received.text == sent.text && received.text == "Hello")
        #expect(received.usage.totalTokenCount == 15)
        #expect(received.usage.metadata["served"] == GeneratedContent("service"))
        #expect(received.reasoningEntry == nil ? false : true)
        #expect(received.madeToolCalls)
        let metadata = received.responseEntry().metadata
        #expect(metadata["model"] == GeneratedContent("qwen") && metadata["tokens"] == GeneratedContent(7))
        #expect(metadata["fast"] == GeneratedContent(true))
    }

    @Test func errorsComeBackAsTheyWereThrown() async throws {
        func roundTrip(_ error: any Error) throws -> any Error {
            try JSONDecoder().decode(WireError.self, from: JSONEncoder().encode(WireError(error))).error
        }
        let overflow = LanguageModelSession.GenerationError.exceededContextWindowSize(
            .init(debugDescription: "Content contains 9 tokens"))
        if case LanguageModelSession.GenerationError.exceededContextWindowSize(let context) = try roundTrip(overflow) {
            #expect(context.debugDescription == "Content contains 9 tokens")
        } else {
            Issue.record("not an overflow")
        }
        #expect(try roundTrip(CancellationError()) is CancellationError)
        let image = LanguageModelError.unsupportedTranscriptContent(
            .init(unsupportedContent: [], debugDescription: "not a PNG"))
        guard case LanguageModelError.unsupportedTranscriptContent(let payload) = try roundTrip(image) else {
            Issue.record("not unsupportedTranscriptContent")
            return
        }
        #expect(payload.debugDescription == "not a PNG")
        let capability = LanguageModelError.unsupportedCapability(.init(capability: .reasoning, debugDescription: "x"))
        guard case LanguageModelError.unsupportedCapability(let lacking) = try roundTrip(capability) else {
            Issue.record("not unsupportedCapability")
            return
        }
        #expect(lacking.capability == .reasoning)
        let refusal = LanguageModelError.refusal(
            .init(explanation: "I would rather not.", debugDescription: "refused by the provider"))
        guard case LanguageModelError.refusal(let refused) = try roundTrip(refusal) else {
            Issue.record("not a refusal")
            return
        }
        #expect(refused.debugDescription == "refused by the provider")
        #expect(try await refused.explanation.content == "I would rather not.")
    }

    @Test(.onTestThreads) func requestsTravelWithTheirImagesRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("shot.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]).write(to: file)
        let prompt = Transcript.Prompt(segments: [
            .text(.init(content: "Read this")),
            .attachment(.init(content: .image(.init(imageURL: file, orientation: .right)), label: "shot")),
        ])
        let request = LanguageModelExecutorGenerationRequest(
            id: UUID(), transcript: Transcript(entries: [.prompt(prompt)]), enabledTools: [],
            schema: ReplySuggestions.generationSchema,
            generationOptions: GenerationOptions(samplingMode: .random(top: 5, seed: 3), toolCallingMode: .required),
            contextOptions: ContextOptions(includeSchemaInPrompt: false), metadata: ["trace": "t-1", "attempt": 2])
        let wire = try JSONDecoder().decode(WireRequest.self, from: JSONEncoder().encode(try WireRequest(request)))
        let decoded = try wire.request()
        #expect(decoded.id == request.id)
        #expect(decoded.metadata == request.metadata)
        #expect(decoded.generationOptions == request.generationOptions)
        #expect(decoded.contextOptions == request.contextOptions)
        #expect(decoded.schema?.name == "ReplySuggestions")
        guard case .prompt(let sent) = decoded.transcript.first, case .attachment(let attachment) = sent.segments[1],
            case .image(let image) = attachment.content
        else {
            Issue.record("the image did not travel")
            return
        }
        #expect(image.data == Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]) && image.url == nil)
        #expect(image.orientation == .right && attachment.label == "shot")

        try FileManager.default.removeItem(at: file)
        #expect(throws: LanguageModelError.self) { _ = try WireRequest(request) }
    }
}
