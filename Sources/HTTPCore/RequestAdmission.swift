import Synchronization

/// Counts the requests being handled and refuses new ones past a bound, so a flood queues no
/// unbounded work: past `limit`, a request is answered 503 at once.
final class RequestAdmission: Sendable {
    let limit: Int
    private let inFlight = Mutex(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a place; false (and nothing taken) when `limit` requests are being handled.
    func enter() -> Bool {
        inFlight.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Gives a place back.
    func leave() {
        inFlight.withLock { $0 -= 1 }
    }

    var count: Int { inFlight.withLock { $0 } }
}

/// Runs one socket's callbacks one at a time, in order, as tasks: a task drains the mailbox
/// while it holds jobs and ends when it is empty, so an idle socket holds no task.
final class Mailbox: Sendable {
    private struct State {
        var jobs: [@Sendable () async -> Void] = []
        var head = 0
        var draining = false
        var waiting: Int { jobs.count - head }
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Queues `job` after the socket's earlier ones; false when `capacity` are waiting (the
    /// client sends faster than the application handles it), unless `force` (the socket's
    /// open and close, which must not be lost).
    @discardableResult
    func enqueue(force: Bool = false, _ job: @escaping @Sendable () async -> Void) -> Bool {
        let start = state.withLock { state -> Bool? in
            guard force || state.waiting < capacity else { return nil }
            state.jobs.append(job)
            defer { state.draining = true }
            return !state.draining
        }
        guard let start else { return false }
        if start { Task { await self.drain() } }
        return true
    }

    private func drain() async {
        while let job = next() { await job() }
    }

    /// The next job, or nil (and no longer draining) when none is left.
    private func next() -> (@Sendable () async -> Void)? {
        state.withLock { state in
            guard state.head < state.jobs.count else {
                state.jobs = []
                state.head = 0
                state.draining = false
                return nil
            }
            let job = state.jobs[state.head]
            state.head += 1
            return job
        }
    }
}
