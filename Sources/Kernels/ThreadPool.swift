import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fixed set of persistent worker threads that run one parallel job at a time.
///
/// `run` hands the job to the workers through an atomic generation counter; idle workers spin
/// briefly (a decode step issues hundreds of jobs back to back) and then park on a condition
/// variable, so an idle pool costs no CPU. No thread is created per job. Each share of a job
/// (`body(thread, …)`) runs exactly once, on whichever thread claims it first: when a worker is
/// descheduled (a busy machine), the caller runs its share rather than waiting for it. Write
/// `body` so that any thread may run any share.
///
/// ```swift
/// let pool = ThreadPool()
/// pool.run { thread, threadCount in
///     for i in stride(from: thread, to: n, by: threadCount) { work(i) }
/// }
/// ```
public final class ThreadPool: @unchecked Sendable {
    // @unchecked Sendable: all mutable state lives in `Shared`, which synchronizes it.

    /// Threads taking part in each job, the caller included.
    public let threadCount: Int

    private let shared: Shared
    private var threads: [pthread_t] = []

    /// Creates `threadCount − 1` workers (the caller of `run` is thread 0).
    /// - Parameter threadCount: defaults to the cores this process may use (`availableCores`).
    public init(threadCount: Int = ThreadPool.availableCores) {
        precondition(threadCount >= 1, "threadCount must be at least 1")
        self.threadCount = threadCount
        shared = Shared(threadCount: threadCount)
        for index in 1..<threadCount {
            let context = Unmanaged.passRetained(WorkerContext(shared: shared, index: index)).toOpaque()
            var thread = pthread_t()
            let status = pthread_create(
                &thread, nil,
                { raw in
                    let context = Unmanaged<WorkerContext>.fromOpaque(raw!).takeRetainedValue()
                    context.shared.workerLoop(index: context.index)
                    return nil
                }, context)
            precondition(status == 0, "pthread_create failed: \(status)")
            threads.append(thread)
        }
    }

    deinit {
        shared.stop()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// Runs `body` with `byteCount` bytes of 64-byte-aligned scratch memory that the pool keeps
    /// between calls (kernels use it for quantized activations). Memory is allocated when the
    /// kept buffer is too small or in use by another call.
    package func withScratch<R>(byteCount: Int, _ body: (UnsafeMutableRawPointer) -> R) -> R {
        let byteCount = max(byteCount, 64)
        if shared.scratchBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            defer { shared.scratchBusy.store(false, ordering: .releasing) }
            if shared.scratchBytes < byteCount {
                shared.scratch?.deallocate()
                shared.scratchBytes = max(byteCount, 2 * shared.scratchBytes)
                shared.scratch = .allocate(byteCount: shared.scratchBytes, alignment: 64)
            }
            return body(shared.scratch!)
        }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        defer { memory.deallocate() }
        return body(memory)
    }

    /// Online cores of this machine.
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The cores this process may run on: its CPU affinity mask, capped by a cgroup CPU quota
    /// (a container limited to 1.5 CPUs gets 2), at least 1.
    public static let availableCores: Int = CoreLimits.available()

    /// The process's compute pool: every model evaluation shares it, so the process never runs
    /// more compute threads than it has cores (two evaluators at once take turns, a forward step
    /// each, instead of running two pools side by side).
    ///
    /// It has `availableCores` threads unless `configureShared(threadCount:)` ran first.
    public static var shared: ThreadPool { SharedPool.pool }

    /// Sets the shared pool's thread count (a command's `--threads`); only before first use.
    /// - Returns: false when the shared pool already exists with another count.
    @discardableResult
    public static func configureShared(threadCount: Int) -> Bool {
        precondition(threadCount >= 1, "threadCount must be at least 1")
        return SharedPool.configure(threadCount)
    }

    /// Runs `body` while no other caller of `withExclusiveUse` runs, in arrival order: a whole
    /// forward step of one evaluator, so that two evaluations sharing the pool alternate rather
    /// than oversubscribe the cores. Calls of `run` inside `body` use the pool as usual.
    public func withExclusiveUse<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        shared.lease.acquire()
        defer { shared.lease.release() }
        return try body()
    }

    /// Runs `body(thread, threadCount)` once for every `thread` in `0..<threadCount`, in parallel,
    /// and returns when all have finished. The caller takes part; shares are claimed by whichever
    /// thread gets to them first, so `thread` names a share of the work, not a particular thread.
    ///
    /// If the pool is already running a job (a call from another thread, or from inside `body`),
    /// every share runs on the calling thread instead, one after the other.
    public func run(_ body: (_ thread: Int, _ threadCount: Int) -> Void) {
        if threadCount == 1 {
            body(0, 1)
            return
        }
        guard shared.busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            for t in 0..<threadCount { body(t, threadCount) }
            return
        }
        withoutActuallyEscaping(body) { body in
            var job = Job(body: body)
            withUnsafeMutablePointer(to: &job) { shared.dispatch(UnsafeRawPointer($0)) }
        }
        shared.busy.store(false, ordering: .releasing)
    }
}

/// The process-wide pool, created on first use.
private enum SharedPool {
    private static let state = Mutex<(count: Int?, pool: ThreadPool?)>((nil, nil))

    static var pool: ThreadPool {
        state.withLock { state in
            if let pool = state.pool { return pool }
            let pool = ThreadPool(threadCount: state.count ?? ThreadPool.availableCores)
            state.pool = pool
            return pool
        }
    }

    static func configure(_ count: Int) -> Bool {
        state.withLock { state in
            if let pool = state.pool { return pool.threadCount == count }
            state.count = count
            return true
        }
    }
}

/// A first-come, first-served lock: each caller takes a ticket and waits for its turn, so a
/// thread that releases and immediately re-acquires (a decode loop) cannot starve another.
private final class TicketLock: @unchecked Sendable {
    // @unchecked Sendable: `next` and `serving` are only touched with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let turn: UnsafeMutablePointer<pthread_cond_t>
    private var next = 0
    private var serving = 0

    init() {
        mutex = .allocate(capacity: 1)
        turn = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(turn, nil)
    }

    deinit {
        pthread_cond_destroy(turn)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        turn.deallocate()
    }

    func acquire() {
        pthread_mutex_lock(mutex)
        let ticket = next
        next += 1
        while serving != ticket { pthread_cond_wait(turn, mutex) }
        pthread_mutex_unlock(mutex)
    }

    func release() {
        pthread_mutex_lock(mutex)
        serving += 1
        pthread_cond_broadcast(turn)
        pthread_mutex_unlock(mutex)
    }
}

private struct Job {
    let body: (Int, Int) -> Void
}

// Not inlined so the copy of the closure taken here is released before the caller signals
// completion (`withoutActuallyEscaping` checks that no reference survives `run`).
@inline(never)
private func invoke(_ job: UnsafeRawPointer, _ thread: Int, _ count: Int) {
    job.assumingMemoryBound(to: Job.self).pointee.body(thread, count)
}

/// State shared by the pool and its workers.
///
/// `state` packs the job's generation (high bits) and the next unclaimed share (low 8 bits). A
/// thread runs a share only after claiming it with a compare-exchange, and the caller claims the
/// shares no worker has taken yet, so a descheduled worker never holds up a job it has not started.
// @unchecked Sendable: `job` is written only by the thread holding `busy`, before the sequentially
// consistent store that publishes its generation, and read only by threads that claimed a share of
// that generation (the caller waits for every claimed share before it changes `job` again).
private final class Shared: @unchecked Sendable {
    let threadCount: Int
    let state = Atomic<Int>(0)
    let pending = Atomic<Int>(0)
    let sleepers = Atomic<Int>(0)
    let busy = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
    /// Held for whole forward steps (`withExclusiveUse`).
    let lease = TicketLock()
    var job: UnsafeRawPointer?
    var generation = 0
    let scratchBusy = Atomic<Bool>(false)
    /// Owned by whoever holds `scratchBusy`.
    var scratch: UnsafeMutableRawPointer?
    var scratchBytes = 0
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    let wake: UnsafeMutablePointer<pthread_cond_t>

    /// Spins before a thread parks or yields: tens of microseconds.
    static let spinLimit = 1 << 15
    static let shareBits = 8

    init(threadCount: Int) {
        precondition(threadCount < 1 << Self.shareBits, "at most \((1 << Self.shareBits) - 1) threads")
        self.threadCount = threadCount
        mutex = .allocate(capacity: 1)
        wake = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
    }

    deinit {
        scratch?.deallocate()
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        wake.deallocate()
    }

    func dispatch(_ job: UnsafeRawPointer) {
        self.job = job
        pending.store(threadCount, ordering: .relaxed)
        generation += 1
        publish(generation << Self.shareBits)
        while let share = claim() {
            invoke(job, share, threadCount)
            pending.subtract(1, ordering: .releasing)
        }
        var spins = 0
        while pending.load(ordering: .acquiring) > 0 {
            spins += 1
            if spins > Self.spinLimit { sched_yield() }
        }
        self.job = nil
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        generation += 1
        publish(generation << Self.shareBits | threadCount)
    }

    private func publish(_ value: Int) {
        state.store(value, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
            pthread_mutex_lock(mutex)
            pthread_cond_broadcast(wake)
            pthread_mutex_unlock(mutex)
        }
    }

    /// Takes the next share of the current job, if any is left.
    private func claim() -> Int? {
        var value = state.load(ordering: .acquiring)
        while true {
            let share = value & ((1 << Self.shareBits) - 1)
            if share >= threadCount { return nil }
            let (exchanged, original) = state.compareExchange(
                expected: value, desired: value + 1, ordering: .acquiringAndReleasing)
            if exchanged { return share }
            value = original
        }
    }

    func workerLoop(index: Int) {
        var seen = 0
        while true {
            var spins = 0
            var current = state.load(ordering: .acquiring) >> Self.shareBits
            while current == seen && spins < Self.spinLimit {
                spins += 1
                current = state.load(ordering: .acquiring) >> Self.shareBits
            }
            if current == seen {
                pthread_mutex_lock(mutex)
                sleepers.add(1, ordering: .sequentiallyConsistent)
                current = state.load(ordering: .sequentiallyConsistent) >> Self.shareBits
                while current == seen {
                    pthread_cond_wait(wake, mutex)
                    current = state.load(ordering: .sequentiallyConsistent) >> Self.shareBits
                }
                sleepers.subtract(1, ordering: .sequentiallyConsistent)
                pthread_mutex_unlock(mutex)
            }
            seen = current
            if stopping.load(ordering: .sequentiallyConsistent) { return }
            while let share = claim() {
                invoke(job!, share, threadCount)
                pending.subtract(1, ordering: .releasing)
            }
        }
    }
}

private final class WorkerContext {
    let shared: Shared
    let index: Int
    init(shared: Shared, index: Int) {
        self.shared = shared
        self.index = index
    }
}
