import Foundation

/// Commits concurrent writes together: one transaction, one fsync, for every write that
/// arrived while the previous commit was on disk.
///
/// Each write runs inside its own savepoint, so a write that throws is rolled back alone and
/// the others in its batch still commit. Every caller returns only after the commit that
/// holds its write, so an acknowledged write is durable. One waiting caller leads: it runs one
/// batch (its own write first) on its own thread while the others wait, then hands the lead
/// to the first caller still waiting, so no caller keeps committing other callers' writes
/// (under steady load a leader that drained the queue itself would never return).
final class GroupCommit: @unchecked Sendable {
    // @unchecked Sendable: `queue` and `leading` are only touched inside `lock`; the connection
    // is only used by the current leader, and there is at most one.

    private final class Request {
        /// Runs the write and keeps its value; throws what the write threw.
        let perform: (Connection) throws -> Void
        /// Records a failure as the write's outcome.
        let fail: (any Error) -> Void
        let done = DispatchSemaphore(value: 0)
        /// Set (inside the lock) when this request is woken to lead the next batch.
        var leads = false

        init(perform: @escaping (Connection) throws -> Void, fail: @escaping (any Error) -> Void) {
            self.perform = perform
            self.fail = fail
        }
    }

    private let connection: Connection
    private let lock = NSLock()
    private var queue: [Request] = []
    private var leading = false
    /// Most writes in one transaction.
    private let maxBatch = 64

    init(connection: Connection) {
        self.connection = connection
    }

    func write<T>(_ body: @escaping (Connection) throws -> T) throws -> T {
        var outcome: Result<T, any Error>?
        let request = Request(perform: { db in outcome = .success(try body(db)) }, fail: { outcome = .failure($0) })
        lock.lock()
        queue.append(request)
        let lead = !leading
        if lead { leading = true }
        lock.unlock()
        if lead {
            runBatch()
        } else {
            request.done.wait()
            lock.lock()
            let woken = request.leads
            lock.unlock()
            if woken { runBatch() } else { return try outcome!.get() }
        }
        request.done.wait()  // signalled by the batch that held this write (the one just run)
        return try outcome!.get()
    }

    /// Commits the oldest waiting writes (the leader's first), then passes the lead on.
    private func runBatch() {
        lock.lock()
        let batch = Array(queue.prefix(maxBatch))
        queue.removeFirst(batch.count)
        lock.unlock()
        commit(batch)
        lock.lock()
        if let next = queue.first {
            next.leads = true
            lock.unlock()
            next.done.signal()
        } else {
            leading = false
            lock.unlock()
        }
    }

    private func commit(_ batch: [Request]) {
        let db = connection
        do {
            try db.execute("BEGIN IMMEDIATE")
        } catch {
            fail(batch, error)
            return
        }
        for request in batch {
            do {
                try db.execute("SAVEPOINT write")
            } catch {
                request.fail(error)
                continue
            }
            do {
                try request.perform(db)
                try db.execute("RELEASE write")
            } catch {
                request.fail(error)
                try? db.execute("ROLLBACK TO write")
                try? db.execute("RELEASE write")
            }
        }
        do {
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            fail(batch, error)
            return
        }
        for request in batch { request.done.signal() }
    }

    /// The transaction failed as a whole: every write in it failed with `error`.
    private func fail(_ batch: [Request], _ error: any Error) {
        for request in batch {
            request.fail(error)
            request.done.signal()
        }
    }
}
