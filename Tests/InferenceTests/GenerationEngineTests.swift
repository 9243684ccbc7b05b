import Dispatch
import Executors
import Foundation
import Synchronization
import Testing

@testable import Inference

/// The engine as the one owner of a model's generation: requests side by side on their slots,
/// each as it would be alone; a request waits for a slot, reads a prewarmed prefix, stops alone
/// when cancelled; and none of it needs one of Swift's cooperative threads.
@Suite(.serialized) struct GenerationEngineTests {
    static let greedy = DecodingOptions(maxTokens: 12, sampling: .greedy, stopsAtEndOfGeneration: false)

    static func prompt(_ model: Model, _ user: String) throws -> [Int] {
        try model.chatFormat.promptTokens(for: [ChatMessage(role: "user", content: user)])
    }

    /// The generated tokens, and the index in `log` of each event of the request.
    static func tokens(of handle: GenerationHandle, name: String, log: EventLog) async throws -> [Int] {
        var tokens: [Int] = []
        for try await event in handle.events {
            if case .token(let id, _) = event {
                tokens.append(id)
                log.append(name)
            }
        }
        return tokens
    }

    @Test func requestsOnTwoSlotsRunSideBySideAndEachAsItWouldAlone() async throws {
        let model = try TestModels.model("smollm2-135m")
        let first = try Self.prompt(model, "Name three fruits.")
        let second = try Self.prompt(model, "Describe the sea in one sentence.")
        let long = DecodingOptions(maxTokens: 150, sampling: .greedy, stopsAtEndOfGeneration: false)
        let alone = GenerationEngine(model: model, contextLength: 256, threadCount: 2)
        let log = EventLog()
        let firstAlone = try await Self.tokens(
            of: alone.submit(GenerationRequest(prompt: first, options: long)), name: "-", log: log)
        let secondAlone = try await Self.tokens(
            of: alone.submit(GenerationRequest(prompt: second, options: Self.greedy)), name: "-", log: log)

        let engine = GenerationEngine(model: model, contextLength: 256, threadCount: 2, slotCount: 2)
        let a = engine.submit(GenerationRequest(prompt: first, options: long))
        let b = engine.submit(GenerationRequest(prompt: second, options: Self.greedy))
        let aDone = HoldCount()
        let watcher = Task {
            _ = await a.completion()
            aDone.increment()
        }
        async let aTokens = Self.tokens(of: a, name: "a", log: log)
        async let bTokens = Self.tokens(of: b, name: "b", log: log)
        // Side by side: the short request, submitted second, ends while the long one still runs
        // (one after the other, it would wait for all 150 of the other's tokens).
        _ = await b.completion()
        #expect(aDone.value == 0)
        #expect(try await aTokens == firstAlone)
        #expect(try await bTokens == secondAlone)
        await watcher.value
        #expect(await engine.cachedPrompts.count == 2)
    }

    @Test func aRequestWaitsForTheBusySlotAndThenRuns() async throws {
        let model = try TestModels.model("smollm2-135m")
        let engine = GenerationEngine(model: model, contextLength: 256, threadCount: 2, slotCount: 1)
        let log = EventLog()
        let a = engine.submit(GenerationRequest(prompt: try Self.prompt(model, "Count to five."), options: Self.greedy))
        let b = engine.submit(GenerationRequest(prompt: try Self.prompt(model, "Say hello."), options: Self.greedy))
        async let aTokens = Self.tokens(of: a, name: "a", log: log)
        async let bTokens = Self.tokens(of: b, name: "b", log: log)
        #expect(try await aTokens.count == 12)
        #expect(try await bTokens.count == 12)
        let order = log.names
        #expect(order == Array(repeating: "a", count: 12) + Array(repeating: "b", count: 12))
        #expect(await engine.cachedPrompts.count == 1)
    }

    @Test func aPrewarmedPromptIsReadOnceAndReused() async throws {
        let model = try TestModels.model("smollm2-135m")
        let engine = GenerationEngine(model: model, contextLength: 256, threadCount: 2, slotCount: 2)
        let prompt = try Self.prompt(model, "Write a haiku about rain.")
        await engine.prewarm(prompt: prompt)
        #expect(await engine.cachedPrompts == [prompt])
        // Prewarmed again: the slot that holds it is enough, no second slot is taken.
        await engine.prewarm(prompt: prompt)
        #expect(await engine.cachedPrompts.count == 1)
        let handle = engine.submit(GenerationRequest(prompt: prompt, options: Self.greedy))
        var reused: Int?
        for try await event in handle.events {
            if case .promptProcessed(_, let count, _) = event { reused = count }
        }
        // All but the last token, evaluated again for its logits (a slot keeps no logits: the
        // forward pass's are shared by every slot).
        #expect(reused == prompt.count - 1)
    }

    @Test func cancellingOneRequestLeavesTheOtherRunning() async throws {
        let model = try TestModels.model("smollm2-135m")
        let engine = GenerationEngine(model: model, contextLength: 512, threadCount: 2, slotCount: 2)
        let long = DecodingOptions(maxTokens: 300, sampling: .greedy, stopsAtEndOfGeneration: false)
        let stopped = engine.submit(
            GenerationRequest(prompt: try Self.prompt(model, "Count to a thousand."), options: long))
        let kept = engine.submit(
            GenerationRequest(prompt: try Self.prompt(model, "Name colours."), options: Self.greedy))
        var seen = 0
        for try await event in stopped.events {
            if case .token = event { seen += 1 }
            if seen == 3 { stopped.cancel() }
        }
        let summary = try #require(await stopped.completion())
        #expect(summary.reason == .cancelled)
        // Stopped within a step of the cancel.
        #expect(summary.generatedTokens <= 5)
        let log = EventLog()
        #expect(try await Self.tokens(of: kept, name: "kept", log: log).count == 12)
        #expect(await kept.completion()?.reason == .maxTokens)
    }

    @Test func aPromptTooLongFailsBeforeAnyWork() async throws {
        let model = try TestModels.model("smollm2-135m")
        let engine = GenerationEngine(model: model, contextLength: 32, threadCount: 1)
        let handle = engine.submit(GenerationRequest(prompt: Array(repeating: 42, count: 40)))
        await #expect(throws: InferenceError.promptTooLong(tokens: 40, contextLength: 32)) {
            for try await _ in handle.events {}
        }
        #expect(await handle.completion() == nil)
        #expect(await engine.cachedPrompts.isEmpty)
    }

    /// The engine computes on its own thread and a reader preferring another executor awaits its
    /// events: a generation runs to its end while every cooperative thread is held by blocking
    /// code (were any of it on the pool, this would wait for the blockers' 60-second timeout).
    @Test(.timeLimit(.minutes(2)))
    func aGenerationRunsWhileEveryCooperativeThreadIsBlocked() async throws {
        let model = try TestModels.model("smollm2-135m")
        let engine = GenerationEngine(model: model, contextLength: 256, threadCount: 2)
        let prompt = try Self.prompt(model, "Say something kind.")
        let reader = ThreadExecutor(name: "test.reader")
        let width = ProcessInfo.processInfo.activeProcessorCount
        let release = DispatchSemaphore(value: 0)
        let holding = HoldCount()
        let outcome = try await ExecutorPreference.with(reader) { () -> (held: Int, tokens: Int) in
            for _ in 0..<width {
                Task.detached {
                    holding.increment()
                    _ = release.wait(timeout: .now() + 60)
                }
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while holding.value < width && ContinuousClock.now < deadline { usleep(1000) }
            let held = holding.value
            var tokens = 0
            for try await event in engine.generate(prompt: prompt, options: Self.greedy) {
                if case .token = event { tokens += 1 }
            }
            for _ in 0..<width { release.signal() }
            return (held, tokens)
        }
        #expect(outcome.held == width)
        #expect(outcome.tokens == 12)
    }
}

/// How many blocking tasks hold a cooperative thread.
final class HoldCount: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// The requests' names in the order their tokens arrived.
final class EventLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ name: String) { entries.withLock { $0.append(name) } }
    func clear() { entries.withLock { $0 = [] } }
    var names: [String] { entries.withLock { $0 } }
}
