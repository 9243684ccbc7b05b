import Foundation
import Testing

/// Threads of the test process's own on which test bodies run, so that a test never holds one of
/// Swift's cooperative threads (two on a 2-core machine): the code under test gets the pool as it
/// would in production (a server's request tasks, a session's stream), however many tests
/// compute or block at once beside it.
///
/// Swift Testing starts a test on the cooperative pool; a synchronous test body (a kernel
/// checked against its twin, a tokenizer over a corpus, a spawned `sotto` waited for) then holds
/// a pool thread for as long as it runs, and two of them stop every task in the process. Every
/// synchronous test carries the ``Trait/onTestThreads`` trait and runs on these threads instead
/// (a task executor preference: the synchronous body runs where its async wrapper is). An async
/// test does not: it awaits, as the code it tests does, and runs on the pool like that code;
/// put on these threads, its continuations would wait behind long synchronous tests.
public final class TestThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `head` are only touched while holding `condition`.

    /// The threads every test with the trait shares: a few more than the cores, so that tests
    /// waiting on a child process do not hold back those that compute, and few enough that the
    /// computing ones leave the server tests beside them some CPU.
    public static let shared = TestThreads(count: 4)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0

    init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [unowned self] in self.loop() }
            thread.name = "sotto.test-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs a synchronous test on ``TestThreads/shared``.
public struct OnTestThreads: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(TestThreads.shared) { try await function() }
    }
}

extension Trait where Self == OnTestThreads {
    /// The test's body runs on the test process's own threads, never on Swift's cooperative
    /// pool (``TestThreads``).
    public static var onTestThreads: Self { Self() }
}
