#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread of its own for work that blocks (a model load, OCR, a model's forward passes), so
/// that it never holds one of Swift's cooperative threads (as many as cores: two on a 2-core
/// machine, where one blocking call would halve every task's progress and two would stop it).
///
/// Three ways in, all running on the one thread, in the order they arrive:
///
/// ```swift
/// let loader = ThreadExecutor(name: "sotto.load")
/// // An async caller awaits blocking work; it suspends (no thread waits) until the work is done.
/// let model = try await loader.run { try Model(path: path) }
/// // Fire and forget (an owner's loop re-arming itself).
/// loader.execute { cleanUp() }
/// // A task, and every child task it starts (`async let`, task groups), prefers the thread.
/// Task(executorPreference: loader) { await work() }
/// ```
///
/// It is a `SerialExecutor` too, so an actor whose state must stay on one thread (a C library
/// that is not thread-safe) can name it as its `unownedExecutor`.
///
/// The thread ends when the executor is released and its queue is empty.
public final class ThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `queue` is only touched with `lock` held; `thread` is written once,
    // by `init`, before the executor is shared.

    /// What the thread is for (in diagnostics).
    public let name: String

    private let lock = ConditionLock()
    private let state: QueueState
    private var thread = pthread_t()

    /// Starts the thread, with a stack of `stackSize` bytes (a model's forward pass and a
    /// template's recursion want more than a secondary thread's default).
    public init(name: String, stackSize: Int = 8 << 20) {
        self.name = name
        state = QueueState(lock: lock)
        let context = Unmanaged.passRetained(ThreadContext(state: state)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, max(stackSize, 64 << 10))
        let status = pthread_create(
            &thread, &attributes,
            { raw in
                let context = Unmanaged<ThreadContext>.fromOpaque(raw!).takeRetainedValue()
                context.run()
                return nil
            }, context)
        precondition(status == 0, "pthread_create failed for \(name): \(status)")
        pthread_detach(thread)
    }

    deinit {
        lock.withLock { state.isStopping = true }
        lock.signal()
    }

    /// Whether the caller is running on this executor's thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Runs `work` on the thread, after what is already queued; returns at once.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        state.push(.block(work))
    }

    /// Runs `body` on the thread and returns its result to the awaiting caller, who holds no
    /// thread meanwhile.
    ///
    /// `body` is not interrupted when the calling task is cancelled: blocking work cannot be;
    /// check for cancellation before or after.
    public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            execute {
                do throws(E) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    // MARK: Executor

    public func enqueue(_ job: consuming ExecutorJob) {
        state.push(.job(UnownedJob(job), self))
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isCurrent, "not on the thread of ThreadExecutor \(name)")
    }

    public func isIsolatingCurrentContext() -> Bool? { isCurrent }
}

/// One queued piece of work.
private enum WorkItem {
    case block(@Sendable () -> Void)
    /// A Swift job, with the executor that runs it (kept alive until it has run).
    case job(UnownedJob, ThreadExecutor)
}

/// The queue the thread drains; shared by the executor and its thread, so the executor can be
/// released while the thread finishes what is queued.
// @unchecked Sendable: `items` and `isStopping` are only touched with `lock` held.
private final class QueueState: @unchecked Sendable {
    let lock: ConditionLock
    var items: [WorkItem] = []
    var head = 0
    var isStopping = false

    init(lock: ConditionLock) {
        self.lock = lock
    }

    func push(_ item: WorkItem) {
        lock.withLock {
            precondition(!isStopping, "work queued on a ThreadExecutor being released")
            items.append(item)
        }
        lock.signal()
    }

    /// The next item, waiting for one; nil once the executor is released and nothing is left.
    func next() -> WorkItem? {
        lock.withLock {
            while head == items.count {
                if isStopping { return nil }
                lock.wait()
            }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }
}

private final class ThreadContext {
    let state: QueueState

    init(state: QueueState) {
        self.state = state
    }

    func run() {
        while let item = state.next() {
            switch item {
            case .block(let work):
                work()
            case .job(let job, let executor):
                job.runSynchronously(
                    isolatedTo: executor.asUnownedSerialExecutor(), taskExecutor: executor.asUnownedTaskExecutor())
            }
        }
    }
}
