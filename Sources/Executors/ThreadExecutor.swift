import Foundation

/// A serial and task executor backed by one thread of its own.
///
/// For work that must not share Swift's cooperative pool (as many threads as cores, two on a
/// small machine): an actor that owns something which blocks (a model's generation loop) runs
/// here through `unownedExecutor`, and a task started with `Task(executorPreference:)` runs its
/// non-isolated code here. Jobs run one at a time, in the order they were enqueued.
///
/// ```swift
/// actor ModelOwner {
///     static let executor = ThreadExecutor(name: "sotto.model")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { Self.executor.asUnownedSerialExecutor() }
/// }
/// ```
public final class ThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `head` and `thread` are only touched while holding `condition`.

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var thread: pthread_t?
    public let name: String

    /// Starts the thread. Executors live as long as the process (the thread never ends), so
    /// make one per long-lived owner, not per request.
    public init(name: String, stackSize: Int = 8 << 20) {
        self.name = name
        let thread = Thread { [unowned self] in self.loop() }
        thread.stackSize = stackSize
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the calling code runs on this executor's thread.
    public var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    public func checkIsolated() {
        precondition(isCurrent, "not on \(name)")
    }

    private func loop() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head > 256 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(
                isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }
}
