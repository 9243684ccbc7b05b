import Executors
import Foundation
import Synchronization
import Testing

@Suite struct WorkerThreadsTests {
    @Test func eachResourceStaysWithItsThread() async throws {
        let workers = WorkerThreads(name: "test.workers", resources: ["a", "b"])
        defer { workers.stop() }
        let results = try await withThrowingTaskGroup(of: (String, UInt).self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await workers.run { resource in
                        usleep(1000)  // keep both threads busy
                        return (resource, UInt(pthread_self()))
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 40)
        let threads = Dictionary(grouping: results, by: \.0).mapValues { Set($0.map(\.1)) }
        #expect(threads["a"]?.count == 1)
        #expect(threads["b"]?.count == 1)
        #expect(threads["a"] != threads["b"])
    }

    @Test func errorsReachTheCaller() async {
        struct Boom: Error {}
        let workers = WorkerThreads(name: "test.errors", count: 1)
        defer { workers.stop() }
        await #expect(throws: Boom.self) { try await workers.run { () throws -> Int in throw Boom() } }
    }

    @Test func workAfterStopIsRefused() async {
        let workers = WorkerThreads(name: "test.stopped", count: 1)
        workers.stop()
        await #expect(throws: WorkerThreadsStopped.self) { try await workers.run { 1 } }
    }

    /// The point of the threads: blocking work goes on while every thread of the cooperative
    /// pool is blocked too (here, by work that waits for the blocking work itself).
    @Test func blockingWorkDoesNotNeedTheCooperativePool() async throws {
        let workers = WorkerThreads(name: "test.blocking", count: 1)
        defer { workers.stop() }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let released = Flag()
        // Block as many tasks as the pool has threads, each waiting for the worker's flag.
        let blockers = (0..<cores).map { _ in
            Task.detached {
                let deadline = Date().addingTimeInterval(20)
                while !released.value && Date() < deadline { usleep(1000) }
                return released.value
            }
        }
        let worker = Task.detached(executorPreference: ThreadExecutor(name: "test.waiter")) {
            try await workers.run {
                usleep(50_000)
                released.set()
                return true
            }
        }
        #expect(try await worker.value)
        for blocker in blockers { #expect(await blocker.value) }
    }
}

final class Flag: Sendable {
    private let state = Mutex(false)
    var value: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}

@Suite struct ThreadExecutorTests {
    actor Owner {
        let executor: ThreadExecutor
        var log: [Int] = []
        init(executor: ThreadExecutor) { self.executor = executor }
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        func append(_ value: Int) -> Bool {
            log.append(value)
            return executor.isCurrent
        }
    }

    @Test func anActorOnTheExecutorRunsOnItsThread() async {
        let executor = ThreadExecutor(name: "test.owner")
        let owner = Owner(executor: executor)
        for value in 0..<10 { #expect(await owner.append(value)) }
        #expect(await owner.log == Array(0..<10))
        #expect(!executor.isCurrent)
    }

    @Test func aTaskWithThePreferenceRunsThere() async {
        let executor = ThreadExecutor(name: "test.preference")
        let onIt = await Task(executorPreference: executor) { executor.isCurrent }.value
        #expect(onIt)
    }
}
