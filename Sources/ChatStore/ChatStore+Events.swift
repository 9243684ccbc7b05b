import Foundation

/// Event type names, as sent to clients.
public enum EventType {
    public static let messageNew = "message.new"
    public static let messageRead = "message.read"
    /// An edit, or a reaction given or taken back: the message as it now is.
    public static let messageUpdated = "message.updated"
    /// A deletion: the message's tombstone.
    public static let messageDeleted = "message.deleted"
    /// The reader moved their position in a thread (sent to them alone, for their other tabs).
    public static let threadRead = "thread.read"
    public static let typingStart = "typing.start"
    public static let typingStop = "typing.stop"
    public static let suggestionsUpdated = "suggestions.updated"
}

/// One event in a user's log.
public struct StoredEvent: Hashable, Sendable {
    /// Position in the server's event log: every recipient of an event gets the same seq, so
    /// a user's seqs increase but have gaps (events of channels they are not in, and stale
    /// typing or suggestion events that were skipped).
    public var seq: Int64
    public var type: String
    public var cid: ChannelID?
    /// The event as a JSON object, without `seq`.
    public var payload: String
    /// Typing and suggestion events: not replayed once stale.
    public var ephemeral: Bool
    public var createdAt: Timestamp

    /// The event as sent to the client: `payload` with `"seq"` as its first member.
    public var json: String { Self.json(seq: seq, payload: payload) }

    static func json(seq: Int64, payload: String) -> String {
        precondition(payload.hasPrefix("{"), "event payload must be a JSON object")
        let rest = payload.dropFirst()
        return rest.hasPrefix("}") ? "{\"seq\":\(seq)}" : "{\"seq\":\(seq)," + rest
    }
}

/// Who an event is for.
public enum EventAudience: Hashable, Sendable {
    /// Every member of the channel, but `except` (if set).
    case channel(ChannelID, except: UserID?)
    /// One user; `cid` is the channel the event is about, if any.
    case user(UserID, cid: ChannelID?)
}

/// An event just appended to the log: what its recipients are sent, so that connected
/// clients can be sent it without reading it back.
public struct AppendedEvent: Hashable, Sendable {
    public var seq: Int64
    /// `message.new`, `typing.start`, …
    public var type: String
    /// Another server sharing the database appended it (``EventFeed``): what this server
    /// does after its own writes (reply suggestions for its sockets) it does on seeing this.
    public var fromAnotherServer = false
    /// The event as sent (as `StoredEvent.json`).
    public var json: String
    public var recipients: [Recipient]

    public struct Recipient: Hashable, Sendable {
        public var user: UserID
        /// The seq of the event before this one in the user's log, when the store knows it
        /// (not until their first event after the store was opened). A socket that has sent
        /// that one (or later) can send this one at once.
        public var previous: Int64?

        public init(user: UserID, previous: Int64?) {
            self.user = user
            self.previous = previous
        }
    }
}

/// Where the event log stands.
public struct EventCursor: Hashable, Sendable {
    /// Sequence number of the newest event (0 when none).
    public var lastSeq: Int64
    /// Durable events up to this sequence number were pruned.
    public var prunedThrough: Int64

    public init(lastSeq: Int64, prunedThrough: Int64) {
        self.lastSeq = lastSeq
        self.prunedThrough = prunedThrough
    }

    /// Whether a client that saw everything up to `since` can catch up by replay.
    public func canResume(since: Int64) -> Bool {
        since >= prunedThrough && since <= lastSeq
    }
}

/// The body of the events the store itself emits.
struct EventBody: Encodable {
    var type: String
    var cid: ChannelID?
    var createdAt: Timestamp
    var message: Message?
    var user: UserID?
    var read: ReadState?
    var parentID: MessageID?

    enum CodingKeys: String, CodingKey {
        case type, cid, message, read
        case createdAt = "created_at"
        case user = "user_id"
        case parentID = "parent_id"
    }
}

/// The header the store adds in front of a caller's event fields.
private struct EventHeader: Encodable {
    var type: String
    var cid: ChannelID?
    var createdAt: Timestamp

    enum CodingKeys: String, CodingKey {
        case type, cid
        case createdAt = "created_at"
    }
}

extension ChatStore {
    /// Appends an event to the log for `audience`.
    ///
    /// The stored JSON is `{"type", "cid", "created_at"}` followed by the members of `fields`
    /// (which must encode as a JSON object). Ephemeral events (typing, suggestions) are
    /// delivered live but not replayed once older than `options.ephemeralRetention`.
    @discardableResult
    public func recordEvent(type: String, fields: some Encodable, to audience: EventAudience, ephemeral: Bool)
        async throws
        -> AppendedEvent
    {
        let header = try Self.encoder.encode(EventHeader(type: type, cid: audience.cid, createdAt: .now))
        let body = try Self.encoder.encode(fields)
        guard body.first == UInt8(ascii: "{"), header.last == UInt8(ascii: "}") else {
            throw ChatStoreError.invalidArgument(field: "fields", reason: "event fields must encode as a JSON object")
        }
        var payload = header.dropLast()
        if body.count > 2 {
            payload.append(UInt8(ascii: ","))
            payload.append(contentsOf: body.dropFirst())
        } else {
            payload.append(UInt8(ascii: "}"))
        }
        let text = String(decoding: payload, as: UTF8.self)
        let memory = writerMemory
        return try await write { db in
            try Self.appendEvent(type: type, payload: text, to: audience, ephemeral: ephemeral, memory, db)
        }
    }

    /// Events in the user's log after `seq`, oldest first, skipping stale ephemeral ones.
    ///
    /// A user's log is the events of the channels they are in now (a channel's whole log: a
    /// member who left reads none of it any more) and the events for them alone.
    public func events(for user: UserID, after seq: Int64, limit: Int = 500) async throws -> [StoredEvent] {
        let freshAfter = Timestamp.now.milliseconds - options.ephemeralRetention.milliseconds
        let limit = max(1, limit)
        let columns = "seq, type, cid, payload, ephemeral, created_at"
        @Sendable func row(_ row: Statement) -> StoredEvent {
            StoredEvent(
                seq: row.int64(0), type: row.string(1),
                cid: row.optionalString(2).flatMap { try? ChannelID.parse($0) },
                payload: row.string(3), ephemeral: row.int(4) != 0, createdAt: Timestamp(milliseconds: row.int64(5)))
        }
        return try await read { db in
            // One snapshot for all the pieces (see `Connection.snapshot`).
            try db.snapshot {
                // Each source's first `limit` after `seq`, merged: the log's first `limit` are among them.
                var events = try db.rows(
                    """
                    SELECT \(columns) FROM event_log
                    WHERE user_id = ? AND seq > ? AND (ephemeral = 0 OR created_at >= ?)
                    ORDER BY seq LIMIT ?
                    """, [.text(user.rawValue), .integer(seq), .integer(freshAfter), .int(limit)], row)
                let channels = try db.rows("SELECT cid FROM members WHERE user_id = ?", [.text(user.rawValue)]) {
                    $0.string(0)
                }
                for cid in channels {
                    events += try db.rows(
                        """
                        SELECT \(columns) FROM event_log
                        WHERE cid = ? AND user_id IS NULL AND seq > ? AND (ephemeral = 0 OR created_at >= ?)
                            AND (except_user IS NULL OR except_user != ?)
                        ORDER BY seq LIMIT ?
                        """,
                        [.text(cid), .integer(seq), .integer(freshAfter), .text(user.rawValue), .int(limit)], row)
                }
                return Array(events.sorted { $0.seq < $1.seq }.prefix(limit))
            }
        }
    }

    /// Where the event log stands.
    public func eventCursor() async throws -> EventCursor {
        try await read { db in
            let pruned = try db.row("SELECT pruned_through FROM event_log_state WHERE id = 1") { $0.int64(0) } ?? 0
            let last: Int64
            switch db.dialect {
            case .sqlite:
                last = try db.row("SELECT seq FROM sqlite_sequence WHERE name = 'event_log'") { $0.int64(0) } ?? 0
            case .postgresql:
                // The highest committed seq; after a pruning that took every event, where it stopped
                // (the sequence itself runs ahead of commits: a transaction in flight holds one).
                last = max(pruned, try db.row("SELECT MAX(seq) FROM event_log") { $0.int64(0) } ?? 0)
            }
            return EventCursor(lastSeq: last, prunedThrough: pruned)
        }
    }

    /// Deletes durable events older than `options.eventRetention` and ephemeral events older
    /// than `options.ephemeralRetention`, measured from `now`.
    public func pruneEvents(now: Timestamp = .now) async throws {
        let durableCutoff = now.milliseconds - options.eventRetention.milliseconds
        let ephemeralCutoff = now.milliseconds - options.ephemeralRetention.milliseconds
        try await write { db in
            if let newestPruned = try db.row(
                "SELECT seq FROM event_log WHERE created_at < ? ORDER BY created_at DESC, seq DESC LIMIT 1",
                [.integer(durableCutoff)], { $0.int64(0) })
            {
                try db.run(
                    "UPDATE event_log_state SET pruned_through = \(db.dialect == .sqlite ? "MAX" : "GREATEST")(pruned_through, ?) WHERE id = 1",
                    [.integer(newestPruned)])
                try db.run("DELETE FROM event_log WHERE seq <= ?", [.integer(newestPruned)])
            }
            try db.run(
                "DELETE FROM event_log WHERE ephemeral = 1 AND created_at < ?", [.integer(ephemeralCutoff)])
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// Appends the event for `audience`; returns it with its recipients.
    @discardableResult
    static func appendEvent(
        _ body: EventBody, to audience: EventAudience, ephemeral: Bool, _ memory: WriterMemory, _ db: Connection
    ) throws -> AppendedEvent {
        let payload = String(decoding: try encoder.encode(body), as: UTF8.self)
        return try appendEvent(type: body.type, payload: payload, to: audience, ephemeral: ephemeral, memory, db)
    }

    /// One row whatever the number of recipients: the writer is the one thread every message
    /// passes through, and each recipient's copy used to cost it a random page.
    @discardableResult
    static func appendEvent(
        type: String, payload: String, to audience: EventAudience, ephemeral: Bool, _ memory: WriterMemory,
        _ db: Connection
    ) throws -> AppendedEvent {
        let recipients: [UserID]
        let user: UserID?
        let except: UserID?
        switch audience {
        case .channel(let cid, let excluded):
            recipients = try memory.memberIDs(cid, db).filter { $0 != excluded }
            (user, except) = (nil, excluded)
        case .user(let id, _):
            recipients = [id]
            (user, except) = (id, nil)
        }
        if memory.shared, !memory.notifying {
            // The other servers' feeds wake at the commit. (Seqs are in commit order: the
            // transaction holds the store's write lock, `Connection.begin()`.)
            try db.execute("NOTIFY \(EventFeed.channel)")
            memory.notifying = true
        }
        let seq = try db.row(
            """
            INSERT INTO event_log(type, cid, user_id, except_user, payload, ephemeral, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq
            """,
            [
                .text(type), .optionalText(audience.cid?.cid), .optionalText(user?.rawValue),
                .optionalText(except?.rawValue), .text(payload), .int(ephemeral ? 1 : 0),
                .integer(Timestamp.now.milliseconds),
            ]
        ) { $0.int64(0) }!
        let appended = AppendedEvent(
            seq: seq, type: type, json: StoredEvent.json(seq: seq, payload: payload),
            recipients: recipients.map { .init(user: $0, previous: memory.shared ? nil : memory.newest[$0]) })
        if !memory.shared { for recipient in recipients { memory.newest[recipient] = seq } }
        memory.recordAppended(appended)
        return appended
    }
}

extension EventAudience {
    /// The channel the event is about.
    public var cid: ChannelID? {
        switch self {
        case .channel(let cid, _): cid
        case .user(_, let cid): cid
        }
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
