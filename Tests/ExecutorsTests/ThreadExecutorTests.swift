import Dispatch
import Executors
import Foundation
import Synchronization
import Testing

@Suite struct ThreadExecutorRunTests {
    @Test func runReturnsTheResultAndRunsOnTheExecutorsThread() async {
        let executor = ThreadExecutor(name: "test.run")
        let onThread = await executor.run { executor.isCurrent }
        #expect(onThread)
        #expect(!executor.isCurrent)
        let value = await executor.run { 6 * 7 }
        #expect(value == 42)
    }

    @Test func runPassesTheBodysErrorOn() async {
        struct Refused: Error, Equatable {}
        let executor = ThreadExecutor(name: "test.error")
        await #expect(throws: Refused.self) {
            try await executor.run { () throws(Refused) -> Int in throw Refused() }
        }
    }

    @Test func workRunsInTheOrderItArrives() async {
        let executor = ThreadExecutor(name: "test.order")
        let seen = Mutex<[Int]>([])
        for i in 0..<100 { executor.execute { seen.withLock { $0.append(i) } } }
        // Queued after the hundred, so it runs after them.
        await executor.run {}
        #expect(seen.withLock { $0 } == Array(0..<100))
    }

    @Test func aPreferringTaskAndItsChildrenRunOnTheThread() async {
        let executor = ThreadExecutor(name: "test.prefer")
        let (parent, child, groupChild) = await Task(executorPreference: executor) {
            async let child = executor.isCurrent
            let groupChild = await withTaskGroup(of: Bool.self) { group in
                group.addTask { executor.isCurrent }
                return await group.next()!
            }
            return (executor.isCurrent, await child, groupChild)
        }.value
        #expect(parent)
        #expect(child)
        #expect(groupChild)
    }

    @Test func anUnstructuredTaskInheritsTheCurrentTasksPreference() async {
        let executor = ThreadExecutor(name: "test.inherit")
        let (bare, inheriting) = await ExecutorPreference.with(executor) {
            // `Task {}` drops the preference (SE-0417); `inheritingExecutorPreference` reads and passes it.
            let bare = await Task { executor.isCurrent }.value
            let inheriting = await Task.inheritingExecutorPreference { executor.isCurrent }.value
            return (bare, inheriting)
        }
        #expect(!bare)
        #expect(inheriting)
        // Outside `with`, nothing is inherited.
        let outside = Task.inheritingExecutorPreference { executor.isCurrent }
        #expect(await outside.value == false)
    }

    /// The point of the executor: blocking work and the tasks that await it go on while every
    /// cooperative thread is held by blocking code (two on a 2-core machine). Each cooperative
    /// thread is held by a task that waits (blocking) for the executor's work to be done; the
    /// work is awaited by a task that prefers the executor. Were either on the pool, this would
    /// wait for the blockers' 20-second timeout.
    @Test(.timeLimit(.minutes(1)))
    func workOnTheExecutorProceedsWhileEveryCooperativeThreadIsBlocked() async throws {
        let executor = ThreadExecutor(name: "test.blocked")
        let width = ProcessInfo.processInfo.activeProcessorCount
        let release = DispatchSemaphore(value: 0)
        let holding = Counter()
        let released = Counter()
        // This test's own body must not need the pool either: it runs on the executor.
        let outcome = await ExecutorPreference.with(executor) { () -> (held: Int, value: Int, onThread: Bool) in
            for _ in 0..<width {
                Task.detached {
                    holding.increment()
                    if release.wait(timeout: .now() + 20) == .success { released.increment() }
                }
            }
            // Wait (on the executor's thread) until the blockers hold the pool, at most 10 s:
            // other tests of the process may hold a pool thread for a while.
            let deadline = ContinuousClock.now + .seconds(10)
            while holding.value < width && ContinuousClock.now < deadline {
                usleep(1000)
            }
            let held = holding.value
            let value = await executor.run { 6 * 7 }
            async let onThread = executor.isCurrent
            let result = (held, value, await onThread)
            for _ in 0..<width { release.signal() }
            return result
        }
        #expect(outcome.held == width)
        #expect(outcome.value == 42)
        #expect(outcome.onThread)
        // The blockers were released by the signal, not by their timeout.
        let deadline = ContinuousClock.now + .seconds(10)
        while released.value < width && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(released.value == width)
    }
}

/// A count that tasks on any thread add to.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
