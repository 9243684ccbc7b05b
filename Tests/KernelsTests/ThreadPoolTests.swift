import Kernels
import Synchronization
import TestSupport
import Testing

@Suite struct ThreadPoolTests {
    @Test(.onTestThreads) func everyThreadRunsOncePerJob() {
        let pool = ThreadPool(threadCount: 4)
        #expect(pool.threadCount == 4)
        let hits = UnsafeMutablePointer<Int>.allocate(capacity: 4)
        defer { hits.deallocate() }
        for _ in 0..<2000 {
            hits.initialize(repeating: 0, count: 4)
            pool.run { thread, count in
                precondition(count == 4)
                hits[thread] += 1
            }
            #expect((0..<4).allSatisfy { hits[$0] == 1 })
        }
    }

    /// Many jobs, each covering a range with a shared counter: every index exactly once.
    @Test(.onTestThreads, arguments: [1, 2, 3])
    func indicesCoveredExactlyOnce(threads: Int) {
        let pool = ThreadPool(threadCount: threads)
        let n = 1000
        let marks = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
        defer { marks.deallocate() }
        for round in 0..<500 {
            marks.initialize(repeating: 0, count: n)
            let next = Atomic<Int>(0)
            let size = 1 + round % 17
            pool.run { _, _ in
                while true {
                    let start = next.add(size, ordering: .relaxed).oldValue
                    if start >= n { break }
                    for i in start..<min(n, start + size) { marks[i] &+= 1 }
                }
            }
            #expect((0..<n).allSatisfy { marks[$0] == 1 }, "round \(round)")
        }
    }

    /// Workers park after spinning; a job after a pause still runs on all of them.
    @Test func wakesParkedWorkers() async throws {
        let pool = ThreadPool(threadCount: 2)
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(60))
            let seen = Atomic<Int>(0)
            pool.run { thread, _ in seen.add(1 << thread, ordering: .relaxed) }
            #expect(seen.load(ordering: .relaxed) == 3)
        }
    }

    /// A job started from inside a job, or while another thread's job runs, still covers every share.
    @Test func nestedAndConcurrentRunsComplete() async {
        let pool = ThreadPool(threadCount: 2)
        let total = Atomic<Int>(0)
        pool.run { _, _ in
            pool.run { thread, count in total.add(thread + 10 * count, ordering: .relaxed) }
        }
        #expect(total.load(ordering: .relaxed) == 2 * ((0 + 20) + (1 + 20)))

        let sum = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<200 { pool.run { thread, _ in sum.value.add(thread + 1, ordering: .relaxed) } }
                }
            }
        }
        #expect(sum.value.load(ordering: .relaxed) == 4 * 200 * 3)
    }

    @Test(.onTestThreads) func poolsAreReleased() {
        for _ in 0..<20 {
            let pool = ThreadPool(threadCount: 3)
            let n = Atomic<Int>(0)
            pool.run { _, _ in n.add(1, ordering: .relaxed) }
            #expect(n.load(ordering: .relaxed) == 3)
        }
    }
}

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
