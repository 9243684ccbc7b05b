import Foundation
import Synchronization

/// What the writer keeps between writes, and what it does around each transaction
/// (`TransactionHooks`), so that the path every message takes reads and writes less.
///
/// Only the writer thread touches it, inside transactions, except `sink`, which is set from any
/// thread and read under its lock.
/// - `newest`: the newest seq in each user's log, as the writer appended it since the store was
///   opened. A write rolled back leaves its seqs here, which is harmless: a recorded seq is never
///   below the user's true newest, so a socket that has sent it has sent everything before the
///   next one; at worst a socket reads the log.
/// - each channel's members, as read from the database. Members are written when the channel
///   is created and change only when one leaves (or rejoins a channel of their member set), in
///   a write that drops the channel from the cache; any rollback empties the cache, so it never
///   holds members that did not commit.
/// - the events appended in the transaction, handed to the sink in seq order once it commits
///   (those of a write rolled back alone are dropped), before the writes return.
/// - whether messages were inserted, so the search index is brought up to date before COMMIT.
///
/// A store that other servers write too (PostgreSQL, `shared`) keeps neither members nor
/// newest seqs, which another server's writes would make wrong: members are read in each write.
/// Its sink gets every event, its own included, from the feed (``EventFeed``), which reads
/// the log in seq order and so knows each user's previous event; the writer records the seqs
/// its own writes append (`ownSeqs`), so the feed can tell them from the others'.
final class WriterMemory: TransactionHooks, @unchecked Sendable {
    // @unchecked Sendable: see above; `sink` is only touched inside `lock`.

    var newest: [UserID: Int64] = [:]
    /// Other servers write to the same database.
    let shared: Bool
    /// The transaction will NOTIFY the other servers' feeds (shared databases: see `ChatStore.appendEvent`).
    var notifying = false
    /// Seqs this store's writes appended that the feed has not passed yet (shared databases).
    let ownSeqs = Mutex(Set<Int64>())
    /// A message was inserted in this transaction.
    var messagesToIndex = false
    private var members: [ChannelID: [UserID]] = [:]
    private var appended: [AppendedEvent] = []
    /// How many of `appended` the writes before the current one made.
    private var appendedBeforeWrite = 0
    private let lock = NSLock()
    private var sink: (@Sendable (AppendedEvent) -> Void)?

    /// The channel's members, in the order the database lists them (none for a missing channel).
    init(shared: Bool = false) {
        self.shared = shared
    }

    func memberIDs(_ cid: ChannelID, _ db: Connection) throws -> [UserID] {
        if let known = members[cid] { return known }
        let ids = try ChatStore.memberIDs(cid, db)
        if !ids.isEmpty, !shared { members[cid] = ids }
        return ids
    }

    /// Drops the channel's members from the cache (a write that changes them).
    func forgetMembers(of cid: ChannelID) {
        members[cid] = nil
    }

    func recordAppended(_ event: AppendedEvent) {
        appended.append(event)
        if shared { ownSeqs.withLock { _ = $0.insert(event.seq) } }
    }

    /// Hands an event read from the log to the sink (from the feed's thread).
    func deliverFromFeed(_ event: AppendedEvent) {
        lock.lock()
        let sink = self.sink
        lock.unlock()
        sink?(event)
    }

    func deliver(to sink: (@Sendable (AppendedEvent) -> Void)?) {
        lock.lock()
        self.sink = sink
        lock.unlock()
    }

    // MARK: TransactionHooks

    func writeWillStart() {
        appendedBeforeWrite = appended.count
    }

    func writeRolledBack() {
        appended.removeSubrange(appendedBeforeWrite...)
        notifying = false  // dropped with the savepoint
        members.removeAll()
    }

    func beforeCommit(_ db: Connection) throws {
        guard messagesToIndex else { return }
        try ChatStore.indexNewMessages(db)
        messagesToIndex = false
    }

    func transactionEnded(committed: Bool) {
        let events = appended
        appended.removeAll(keepingCapacity: true)
        appendedBeforeWrite = 0
        messagesToIndex = false
        notifying = false
        guard committed else {
            members.removeAll()
            return
        }
        guard !shared else { return }  // the feed hands them on, in order with the others'
        lock.lock()
        let sink = self.sink
        lock.unlock()
        if let sink { for event in events { sink(event) } }
    }
}
