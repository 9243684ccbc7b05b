import Foundation

/// What the store does around the writes of a transaction, on the writer thread.
protocol TransactionHooks: AnyObject {
    /// A write is about to run (inside its own savepoint when it shares the transaction).
    func writeWillStart()
    /// The write that started last threw and was rolled back alone; the transaction goes on.
    func writeRolledBack()
    /// After the writes, before COMMIT; when it throws, the whole transaction is rolled back.
    func beforeCommit(_ db: Connection) throws
    /// The transaction committed, or was rolled back as a whole. Runs before any writer of the
    /// transaction is told: what it does for a committed write happens before the write returns.
    func transactionEnded(committed: Bool)
}

/// Commits concurrent writes together: one transaction, one fsync, for every write that
/// arrived while the previous commit was on disk.
///
/// Each write runs inside its own savepoint, so a write that throws is rolled back alone and
/// the others in its batch still commit. Every caller resumes only after the commit that
/// holds its write, so an acknowledged write is durable. One thread of its own runs the
/// batches: callers queue their write and await it without holding a thread, and under steady
/// load the writer goes from batch to batch without a hand-over between threads (on a busy
/// machine each hand-over can wait milliseconds for a core).
final class GroupCommit: @unchecked Sendable {
    // @unchecked Sendable: `queue` and `stopped` are only touched while holding `condition`;
    // the connection is only used by the writer thread.

    /// One write: run by the writer, then resumed with its outcome once its transaction ends.
    private final class Request {
        /// Runs the write and keeps its value; throws what the write threw.
        let perform: (Connection) throws -> Void
        /// Records a failure as the write's outcome.
        let fail: (any Error) -> Void
        /// Hands the outcome to the waiting caller; called once, after the commit or rollback.
        let finish: () -> Void

        init(
            perform: @escaping (Connection) throws -> Void, fail: @escaping (any Error) -> Void,
            finish: @escaping () -> Void
        ) {
            self.perform = perform
            self.fail = fail
            self.finish = finish
        }
    }

    private let connection: Connection
    private let hooks: any TransactionHooks
    private let condition = NSCondition()
    private var queue: [Request] = []
    private var stopped = false
    private var finished = false
    /// Most writes in one transaction.
    private let maxBatch = 64

    init(connection: Connection, hooks: any TransactionHooks) {
        self.connection = connection
        self.hooks = hooks
        let thread = Thread { [self] in run() }
        thread.name = "sotto.store.writer"
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Lets the writer finish what is queued and end; waits for it.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            // Touched by the writer thread alone: set by the write or its failure, then handed on.
            var outcome: Result<T, any Error>?
            let request = Request(
                perform: { db in outcome = .success(try body(db)) }, fail: { outcome = .failure($0) },
                finish: { continuation.resume(with: outcome!) })
            condition.lock()
            precondition(!stopped, "write to a closed store")
            queue.append(request)
            condition.signal()
            condition.unlock()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopped { condition.wait() }
            if queue.isEmpty {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let batch = Array(queue.prefix(maxBatch))
            queue.removeFirst(batch.count)
            condition.unlock()
            commit(batch)
        }
    }

    private func commit(_ batch: [Request]) {
        let db = connection
        do {
            try db.begin()
        } catch {
            fail(batch, error)
            return
        }
        if batch.count == 1 {
            // Alone in its transaction, a write needs no savepoint of its own (each one costs
            // a statement, and every virtual table, the search index's among them, is told).
            let request = batch[0]
            hooks.writeWillStart()
            do {
                try request.perform(db)
                try hooks.beforeCommit(db)
                try db.execute("COMMIT")
                hooks.transactionEnded(committed: true)
            } catch {
                try? db.execute("ROLLBACK")
                hooks.transactionEnded(committed: false)
                request.fail(error)
            }
            request.finish()
            return
        }
        for request in batch {
            do {
                try db.execute("SAVEPOINT write")
            } catch {
                request.fail(error)
                continue
            }
            hooks.writeWillStart()
            do {
                try request.perform(db)
                try db.execute("RELEASE write")
            } catch {
                request.fail(error)
                try? db.execute("ROLLBACK TO write")
                try? db.execute("RELEASE write")
                hooks.writeRolledBack()
            }
        }
        do {
            try hooks.beforeCommit(db)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            hooks.transactionEnded(committed: false)
            fail(batch, error)
            return
        }
        hooks.transactionEnded(committed: true)
        for request in batch { request.finish() }
    }

    /// The transaction failed as a whole: every write in it failed with `error`.
    private func fail(_ batch: [Request], _ error: any Error) {
        for request in batch {
            request.fail(error)
            request.finish()
        }
    }
}
