import Foundation

/// Threads with full-size stacks that run handler code for CivetWeb's worker threads.
///
/// CivetWeb's own threads have 100 KB stacks (a compile-time setting in Debian's build), too
/// small for Swift code that decodes JSON or walks SQLite; a deeply nested request body would
/// overflow them. Each callback hands its work to this pool and waits for the answer.
final class WorkerPool: @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `stopped` are only touched while holding `condition`.

    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopped = false

    /// Starts `count` threads with `stackSize`-byte stacks.
    init(count: Int, stackSize: Int = 8 << 20) {
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in self.loop() }
            thread.stackSize = stackSize
            thread.name = "sotto.worker.\(index)"
            thread.start()
        }
    }

    /// Runs `body` on a pool thread and returns its result; the caller blocks meanwhile.
    func run<T>(_ body: @escaping () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        jobs.append {
            box.value = body()
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        return box.value!
    }

    /// Lets the threads finish once the queue is empty.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty && stopped {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

/// Carries a job's result back to the waiting thread; the semaphore orders the write before
/// the read.
private final class ResultBox<T> {
    var value: T?
}
