import CLibUV
import Foundation

/// A libuv loop on a thread of its own. Handles on the loop are touched only from that thread;
/// other threads hand work over with `post(_:)`.
final class LoopThread: @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `closed` are only touched inside `lock`; `loop` and `readBuffer`
    // are used only on the loop's thread once it runs (`init` sets them up before it exists);
    // `cpuClock` is written by that thread before `start` returns, which waits for it.

    let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
    /// One read buffer for the whole loop: libuv hands each read to its callback before the next
    /// allocation, so the sockets never need their own.
    let readBuffer = UnsafeMutableRawPointer.allocate(byteCount: LoopThread.readBufferSize, alignment: 16)
    static let readBufferSize = 64 * 1024
    private let wakeup = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
    private let lock = NSLock()
    private var jobs: [@Sendable () -> Void] = []
    private var closed = false
    private let name: String
    private(set) var cpuClock = ThreadCPUClock(id: 0)

    init(name: String) throws {
        self.name = name
        try check(uv_loop_init(loop), "uv_loop_init")
        loop.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        try check(
            uv_async_init(loop, wakeup) { handle in LoopThread.of(handle!.pointee.loop).runJobs() }, "uv_async_init")
    }

    deinit {
        loop.deallocate()
        readBuffer.deallocate()
        wakeup.deallocate()
    }

    static func of(_ loop: UnsafeMutablePointer<uv_loop_t>?) -> LoopThread {
        Unmanaged<LoopThread>.fromOpaque(loop!.pointee.data).takeUnretainedValue()
    }

    /// Runs the loop on a new thread; returns once that thread's CPU clock is known.
    func start() {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            cpuClock = .current()
            started.signal()
            uv_run(loop, UV_RUN_DEFAULT)
            uv_loop_close(loop)
        }
        thread.name = name
        thread.start()
        started.wait()
    }

    /// Runs `job` on the loop's thread soon; dropped once `finish` has run.
    func post(_ job: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        jobs.append(job)
        // Inside the lock: `finish` closes `wakeup` under the same lock.
        if jobs.count == 1 { uv_async_send(wakeup) }
    }

    /// Lets the loop end (and its thread with it) once the handles its owner made are closed too.
    /// Runs on the loop's thread.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        jobs.removeAll()
        uv_close(sotto_uv_handle(wakeup), nil)
    }

    private func runJobs() {
        lock.lock()
        let batch = jobs
        jobs.removeAll(keepingCapacity: true)
        lock.unlock()
        for job in batch { job() }
    }
}

/// One value handed from a loop's thread to the orchestrating thread, which waits for it.
final class Handoff<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `lock`; the semaphore only wakes the
    // waiter.

    private let lock = NSLock()
    private var value: Value?
    private let ready = DispatchSemaphore(value: 0)

    init() {}

    func put(_ value: Value) {
        lock.lock()
        let first = self.value == nil
        if first { self.value = value }
        lock.unlock()
        if first { ready.signal() }
    }

    /// The value, or nil when none came within `seconds`.
    func take(within seconds: Double) -> Value? {
        guard ready.wait(timeout: .now() + seconds) == .success else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
