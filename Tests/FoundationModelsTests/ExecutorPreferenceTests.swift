import Foundation
import FoundationModels
import GenerableFixtures
import Synchronization
import TestSupport
import Testing

/// Model work runs where the app's task runs: a stream's generation and a prewarm carry their
/// creator's task executor preference (a plain `Task {}` drops it and waits for Swift's
/// cooperative pool, which has as many threads as cores).
@Suite(.serialized) struct ExecutorPreferenceTests {
    /// Every thread of the cooperative pool is held blocked, and a stream still answers: its
    /// generation runs on the executor the reading task prefers. If it ran on the pool it would
    /// not start until the blockers let go, which they do only after the stream finished (or
    /// after a minute, when the test fails instead of hanging).
    @Test func aStreamAnswersWhileEveryPoolThreadIsBlocked() async throws {
        let executor = ThreadExecutor(name: "test.model-work")
        let blockers = PoolBlockers(count: ProcessInfo.processInfo.activeProcessorCount)
        let (content, blockedThroughout) = try await withTaskExecutorPreference(executor) {
            await blockers.blockEveryPoolThread()
            let model = ScriptedModel(turns: [.text("answered while the pool was blocked", pieces: nil)])
            let session = LanguageModelSession(model: model)
            let stream = session.streamResponse(to: "Hi", generating: String.self)
            var snapshots = 0
            for try await _ in stream { snapshots += 1 }
            let response = try await stream.collect()
            let blocked = blockers.stillBlocked
            blockers.release()
            return (response.content, blocked && snapshots > 0)
        }
        #expect(content == "answered while the pool was blocked")
        #expect(blockedThroughout, "the pool was released before the stream answered")
    }

    /// A prewarm started from a task reaches the model's executor, with the pool blocked: the
    /// work runs on the executor the task prefers.
    @Test func aPrewarmRunsWhileEveryPoolThreadIsBlocked() async throws {
        let executor = ThreadExecutor(name: "test.prewarm")
        let blockers = PoolBlockers(count: ProcessInfo.processInfo.activeProcessorCount)
        let probe = PrewarmProbe()
        let reached = await withTaskExecutorPreference(executor) {
            await blockers.blockEveryPoolThread()
            let transcript = await withCheckedContinuation { continuation in
                probe.onPrewarm(continuation)
                LanguageModelSession(model: probe, instructions: "Be brief.").prewarm()
            }
            let blocked = blockers.stillBlocked
            blockers.release()
            return blocked && transcript.count == 1
        }
        #expect(reached)
    }
}

/// A model whose executor hands the transcript it is asked to prewarm to a waiting test.
struct PrewarmProbe: LanguageModel {
    typealias Executor = PrewarmProbeExecutor

    private let waiter = Waiter()
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([]) }
    var executorConfiguration: Waiter { waiter }

    func onPrewarm(_ continuation: CheckedContinuation<Transcript, Never>) {
        waiter.continuation.withLock { $0 = continuation }
    }

    final class Waiter: Hashable, Sendable {
        let continuation = Mutex<CheckedContinuation<Transcript, Never>?>(nil)
        static func == (lhs: Waiter, rhs: Waiter) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }
}

struct PrewarmProbeExecutor: LanguageModelExecutor {
    let waiter: PrewarmProbe.Waiter

    init(configuration: PrewarmProbe.Waiter) {
        waiter = configuration
    }

    func prewarm(model: PrewarmProbe, transcript: Transcript) {
        waiter.continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(returning: transcript)
    }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: PrewarmProbe,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {}
}

/// A task executor with one thread of its own (the shape of Sotto's model executors).
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is only touched while holding `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(name: String) {
        let thread = Thread { [unowned self] in self.run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Tasks on the cooperative pool that each hold their thread blocked (a test's deliberate
/// starvation) until released, or for a minute at most. (Other tests running beside may hold
/// pool threads for a while, computing: the blockers wait for them, then block together.)
final class PoolBlockers: Sendable {
    private struct State {
        var started = 0
        var released = false
        var timedOut = false
        var allStarted: CheckedContinuation<Void, Never>?
    }

    private let count: Int
    private let state = Mutex(State())
    private let condition = NSCondition()

    init(count: Int) {
        self.count = count
    }

    /// Starts one blocker per pool thread and returns when every one holds its thread.
    func blockEveryPoolThread() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { $0.allStarted = continuation }
            for _ in 0..<count {
                // No executor preference: these run on the cooperative pool.
                Task.detached(executorPreference: nil) { self.block() }
            }
        }
    }

    /// Whether every blocker still holds its thread (none timed out).
    var stillBlocked: Bool { state.withLock { !$0.released && !$0.timedOut && $0.started == count } }

    func release() {
        condition.lock()
        state.withLock { $0.released = true }
        condition.broadcast()
        condition.unlock()
    }

    private func block() {
        let everyone = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.started += 1
            guard state.started == count else { return nil }
            defer { state.allStarted = nil }
            return state.allStarted
        }
        everyone?.resume()
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: 60)
        while !state.withLock({ $0.released }) {
            if !condition.wait(until: deadline) {
                state.withLock { $0.timedOut = true }
                break
            }
        }
        condition.unlock()
    }
}
