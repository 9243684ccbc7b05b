import Foundation

/// A fixed set of threads that run handler code, with a bounded queue: the I/O threads never
/// run application code, and when the queue is full a request is refused (503) instead of
/// piling up.
final class HandlerPool: @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `stopped` are only touched while holding `condition`.

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var stopped = false
    private var running = 0
    let maxQueued: Int

    /// Starts `count` threads with `stackSize`-byte stacks (Swift code that decodes JSON or
    /// walks SQLite wants more than a small default).
    init(count: Int, maxQueued: Int, stackSize: Int = 8 << 20) {
        self.maxQueued = maxQueued
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in self.loop() }
            thread.stackSize = stackSize
            thread.name = "sotto.handler.\(index)"
            running += 1
            thread.start()
        }
    }

    /// Queues `job`; false (and nothing queued) when `maxQueued` jobs wait already, unless
    /// `force` (used for work that is bounded elsewhere, such as a socket's mailbox).
    @discardableResult
    func submit(force: Bool = false, _ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, force || jobs.count - head < maxQueued else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Lets the threads finish what is queued, then end; waits for them.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while head == jobs.count && !stopped { condition.wait() }
            if head == jobs.count && stopped {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job()
        }
    }
}

/// Runs one socket's callbacks on the pool one at a time, in order.
final class Mailbox: @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `scheduled` are only touched inside `lock`.

    private let lock = NSLock()
    private var jobs: [@Sendable () -> Void] = []
    private var scheduled = false
    private let pool: HandlerPool
    let capacity: Int

    init(pool: HandlerPool, capacity: Int) {
        self.pool = pool
        self.capacity = capacity
    }

    /// Queues `job` after the socket's earlier ones; false when `capacity` are waiting (the
    /// client sends faster than the application handles it).
    @discardableResult
    func enqueue(force: Bool = false, _ job: @escaping @Sendable () -> Void) -> Bool {
        lock.lock()
        guard force || jobs.count < capacity else {
            lock.unlock()
            return false
        }
        jobs.append(job)
        let start = !scheduled
        scheduled = true
        lock.unlock()
        if start { pool.submit(force: true) { self.drain() } }
        return true
    }

    private func drain() {
        while true {
            lock.lock()
            guard !jobs.isEmpty else {
                scheduled = false
                lock.unlock()
                return
            }
            let job = jobs.removeFirst()
            lock.unlock()
            job()
        }
    }
}
