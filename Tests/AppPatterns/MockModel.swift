import Foundation
import FoundationModels
import Synchronization

/// A model for tests and previews, as Apple's `foundation-models-utilities` tests write one: it
/// plays back one event per turn (a tool call, or text) and records the transcript it was shown.
public struct MockModel: LanguageModel {
    public typealias Executor = MockModelExecutor

    /// What the model produces on one turn, in order: a `.toolCall` is followed by a turn with
    /// the tool's output, so a script that calls a tool ends with `.text`.
    public enum Event: Hashable, Sendable {
        case toolCall(name: String, arguments: String)
        case text(String)
    }

    public let events: [Event]
    public let tokenCount: Int
    public let recorder: TranscriptRecorder?

    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities([.toolCalling, .guidedGeneration])
    }

    public var executorConfiguration: MockModelExecutor.Configuration {
        MockModelExecutor.Configuration(events: events, tokenCount: tokenCount, recorder: recorder)
    }

    /// A model that answers every prompt with `textResponse`.
    public init(textResponse: String, tokenCount: Int = 1, recorder: TranscriptRecorder? = nil) {
        self.init(events: [.text(textResponse)], tokenCount: tokenCount, recorder: recorder)
    }

    /// A model that emits `events`, one per turn, starting over at each prompt.
    public init(events: [Event], tokenCount: Int = 1, recorder: TranscriptRecorder? = nil) {
        self.events = events
        self.tokenCount = tokenCount
        self.recorder = recorder
    }
}

public struct MockModelExecutor: LanguageModelExecutor {
    public struct Configuration: Hashable, Sendable {
        var events: [MockModel.Event]
        var tokenCount: Int
        var recorder: TranscriptRecorder?
    }

    private let configuration: Configuration

    public init(configuration: Configuration) throws {
        self.configuration = configuration
    }

    public func respond(
        to request: LanguageModelExecutorGenerationRequest, model: MockModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        configuration.recorder?.record(request.transcript)
        let tokens = configuration.tokenCount
        switch event(for: request.transcript) {
        case .toolCall(let name, let arguments):
            await channel.send(
                .toolCalls(
                    entryID: UUID().uuidString,
                    action: .toolCall(
                        id: UUID().uuidString, name: name, action: .appendArguments(arguments, tokenCount: tokens))))
        case .text(let text):
            let entryID = UUID().uuidString
            await channel.send(.response(entryID: entryID, action: .appendText(text, tokenCount: tokens)))
            await channel.send(
                .response(
                    entryID: entryID,
                    action: .updateUsage(
                        input: .init(totalTokenCount: tokens, cachedTokenCount: 0),
                        output: .init(totalTokenCount: tokens, reasoningTokenCount: 0))))
        }
    }

    /// The event for this turn: the number of model entries since the last prompt indexes the
    /// events, the last one repeating.
    private func event(for transcript: Transcript) -> MockModel.Event {
        var index = 0
        for entry in transcript {
            switch entry {
            case .prompt: index = 0
            case .toolCalls, .response, .reasoning: index += 1
            default: break
            }
        }
        return configuration.events[min(index, configuration.events.count - 1)]
    }
}

/// The transcripts a mock model was shown, turn by turn (history transforms do not change the
/// session's transcript, so tests look here).
nonisolated public final class TranscriptRecorder: Sendable, Hashable {
    private let recorded = Mutex<[Transcript]>([])

    public init() {}

    public var transcripts: [Transcript] { recorded.withLock { $0 } }

    public func record(_ transcript: Transcript) {
        recorded.withLock { $0.append(transcript) }
    }

    public static func == (lhs: TranscriptRecorder, rhs: TranscriptRecorder) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
