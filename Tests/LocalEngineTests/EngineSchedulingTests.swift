import Foundation
import FoundationModels
import Inference
import TestSupport
import Testing

@testable import LocalEngine

/// A request's scheduling (priority, user, staleness key) rides in its metadata.
@Suite struct EngineSchedulingMetadataTests {
    @Test(.onTestThreads) func theKeysWrittenAreTheKeysRead() {
        let written = EngineScheduling.metadata(priority: "suggestion", user: "alice", staleness: "chips/general")
        // As the session hands it to the executor: each value as generated content.
        let scheduling = EngineScheduling(metadata: written.mapValues { GeneratedContent($0) })
        #expect(scheduling.priority == .suggestion)
        #expect(scheduling.user == "alice")
        #expect(scheduling.stalenessKey == "chips/general")
    }

    @Test(.onTestThreads) func whatIsMissingOrUnknownKeepsTheDefault() {
        let unknown = EngineScheduling(
            metadata: [EngineScheduling.priorityKey: GeneratedContent("urgent"), "other": GeneratedContent(3)])
        #expect(unknown.priority == .interactive)
        #expect(unknown.user == nil && unknown.stalenessKey == nil)
        #expect(EngineScheduling(metadata: [:]).priority == .interactive)
        #expect(
            EngineScheduling(metadata: [EngineScheduling.priorityKey: GeneratedContent(2)]).priority == .interactive)
    }
}

extension EngineTests {
    @Suite struct Scheduling {
        /// A suggestion whose conversation moved on stops while it runs: its response throws
        /// `CancellationError`, as a cancelled task's does.
        @Test(.timeLimit(.minutes(2)))
        func aRunningRequestStopsWhenItsKeyIsMarkedStale() async throws {
            let model = try EngineModels.model(EngineModels.smollm, contextSize: 1280)
            let backend = try await model.runtime()
            let key = "chips/\(UUID())"
            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            let observation = backend.observeTokens { count in
                if count == 3 { startedContinuation.yield() }
            }
            let response = Task {
                try await LanguageModelSession(model: model).respond(
                    to: "Count from 1 to 300, one number a line.",
                    options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 400),
                    metadata: EngineScheduling.metadata(priority: "suggestion", user: "alice", staleness: key))
            }
            for await _ in started { break }
            EngineScheduling.markStale(key)
            await #expect(throws: CancellationError.self) { _ = try await response.value }
            withExtendedLifetime(observation) {}
        }
    }
}
