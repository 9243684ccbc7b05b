import Executors
import Foundation
import Synchronization

/// Every event of a PostgreSQL database this store may share with other servers, its own
/// and theirs, handed to the store's sink in seq order: several `sotto serve` on one database
/// each deliver every event to the sockets they hold.
///
/// A thread of its own holds a connection that `LISTEN`s on ``channel``; every transaction
/// that appends events sends `NOTIFY` there as it commits (``ChatStore/appendEvent``). Woken
/// (or once a second, in case a notification was lost with a connection), it reads the log
/// after the last seq it passed, in seq order — which is commit order, since every write
/// transaction holds the store's write lock (`Connection.begin()`) — so it sees every event,
/// and each user's events, in order: it names each recipient's previous event as the SQLite
/// store's writer does, and a socket that has sent that one sends this one at once (the first
/// event for a user after the feed started names none: the socket reads its log). Each event
/// goes to the channel's members as the database lists them when it is read (or to its one
/// user); one this store's writes did not append is marked `fromAnotherServer`.
///
/// A lost connection is opened again after a second, reading on from where the feed stopped;
/// the recipients' previous events are forgotten then (the events between were not all seen).
final class EventFeed: @unchecked Sendable {
    // @unchecked Sendable: `cursor` and the connection are touched on the feed's thread only;
    // `stopping` is atomic.

    /// The `NOTIFY` channel.
    static let channel = "sotto_events"
    /// Rows read per query.
    static let batch = 500

    private let url: String
    private let memory: WriterMemory
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let thread = ThreadExecutor(name: "sotto.store.feed")
    /// The last seq handed on or skipped.
    private var cursor: Int64?
    /// Each user's newest event handed on since the connection was opened.
    private var newest: [UserID: Int64] = [:]

    init(url: String, memory: WriterMemory) {
        self.url = url
        self.memory = memory
    }

    /// Starts following (once; later calls do nothing).
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        thread.execute { [self] in run() }
    }

    /// Stops within a quarter of a second.
    func stop() {
        stopping.store(true, ordering: .releasing)
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func run() {
        while !isStopping {
            do {
                let connection = try Connection(postgresURL: url)
                try connection.execute("LISTEN \(Self.channel)")
                newest.removeAll()
                // Listening before the first read: nothing committed after it is missed.
                if cursor == nil {
                    cursor = try connection.row("SELECT MAX(seq) FROM event_log") { $0.int64(0) } ?? 0
                }
                var lastRead = ContinuousClock.now
                try catchUp(connection)
                while !isStopping {
                    let woken = try connection.waitForNotifications(milliseconds: 250)
                    if woken || ContinuousClock.now - lastRead > .seconds(1) {
                        lastRead = ContinuousClock.now
                        try catchUp(connection)
                    }
                }
            } catch {
                FileHandle.standardError.write(
                    Data("sotto: the event feed from other servers stopped (\(error)); reconnecting in 1 s\n".utf8))
                for _ in 0..<4 where !isStopping { usleep(250_000) }
            }
        }
    }

    /// Hands on everything after `cursor`, in seq order.
    private func catchUp(_ db: Connection) throws {
        var members: [String: [UserID]] = [:]
        while true {
            let from = cursor ?? 0
            let rows = try db.rows(
                """
                SELECT seq, cid, user_id, except_user, payload, type FROM event_log
                WHERE seq > ? ORDER BY seq LIMIT ?
                """, [.integer(from), .int(Self.batch)]
            ) {
                (
                    $0.int64(0), $0.optionalString(1), $0.optionalString(2), $0.optionalString(3), $0.string(4),
                    $0.string(5)
                )
            }
            for (seq, cid, user, except, payload, type) in rows {
                cursor = seq
                let own = memory.ownSeqs.withLock { $0.remove(seq) } != nil
                let recipients: [UserID]
                if let user {
                    recipients = [UserID(rawValue: user)]
                } else if let cid {
                    if members[cid] == nil {
                        members[cid] = try db.rows("SELECT user_id FROM members WHERE cid = ?", [.text(cid)]) {
                            UserID(rawValue: $0.string(0))
                        }
                    }
                    recipients = members[cid, default: []].filter { $0.rawValue != except }
                } else {
                    recipients = []
                }
                guard !recipients.isEmpty else { continue }
                memory.deliverFromFeed(
                    AppendedEvent(
                        seq: seq, type: type, fromAnotherServer: !own,
                        json: StoredEvent.json(seq: seq, payload: payload),
                        recipients: recipients.map { .init(user: $0, previous: newest[$0]) }))
                for recipient in recipients { newest[recipient] = seq }
            }
            // A seq of this store's below the cursor was rolled back (a transaction that commits
            // holds the write lock until it does, so every smaller seq is visible by then).
            let passed = cursor ?? 0
            memory.ownSeqs.withLock { own in own = own.filter { $0 > passed } }
            if rows.count < Self.batch { return }
        }
    }
}
