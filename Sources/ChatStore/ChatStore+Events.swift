import Foundation

/// Event type names, as sent to clients.
public enum EventType {
    public static let messageNew = "message.new"
    public static let messageRead = "message.read"
    public static let typingStart = "typing.start"
    public static let typingStop = "typing.stop"
    public static let suggestionsUpdated = "suggestions.updated"
}

/// One event in a user's log.
public struct StoredEvent: Hashable, Sendable {
    /// Position in the user's log: strictly increasing, starting at 1. Gaps mean stale typing
    /// or suggestion events that were skipped.
    public var seq: Int64
    public var type: String
    public var cid: ChannelID?
    /// The event as a JSON object, without `seq`.
    public var payload: String
    /// Typing and suggestion events: not replayed once stale.
    public var ephemeral: Bool
    public var createdAt: Timestamp

    /// The event as sent to the client: `payload` with `"seq"` as its first member.
    public var json: String {
        precondition(payload.hasPrefix("{"), "event payload must be a JSON object")
        let rest = payload.dropFirst()
        return rest.hasPrefix("}") ? "{\"seq\":\(seq)}" : "{\"seq\":\(seq)," + rest
    }
}

/// An event just appended to some users' logs: its payload and where it landed in each log,
/// so that connected clients can be sent it without reading it back.
public struct AppendedEvent: Hashable, Sendable {
    /// The event as a JSON object, without `seq` (as `StoredEvent.payload`).
    public var payload: String
    /// Each recipient's sequence number for it.
    public var seqs: [UserID: Int64]

    /// The event as one recipient is sent it.
    public func json(seq: Int64) -> String {
        StoredEvent(seq: seq, type: "", cid: nil, payload: payload, ephemeral: false, createdAt: .now).json
    }
}

/// Where a user's event log stands.
public struct EventCursor: Hashable, Sendable {
    /// Sequence number of the newest event (0 when none).
    public var lastSeq: Int64
    /// Durable events up to this sequence number were pruned.
    public var prunedThrough: Int64

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

    enum CodingKeys: String, CodingKey {
        case type, cid, message, read
        case createdAt = "created_at"
        case user = "user_id"
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
    /// Appends an event to each recipient's log.
    ///
    /// The stored JSON is `{"type", "cid", "created_at"}` followed by the members of `fields`
    /// (which must encode as a JSON object). Ephemeral events (typing, suggestions) are
    /// delivered live but not replayed once older than `options.ephemeralRetention`.
    public func recordEvent(
        type: String, cid: ChannelID?, fields: some Encodable, to recipients: [UserID], ephemeral: Bool
    ) throws {
        let header = try Self.encoder.encode(EventHeader(type: type, cid: cid, createdAt: .now))
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
        _ = try write { db in
            try Self.appendEvent(type: type, cid: cid, payload: text, to: recipients, ephemeral: ephemeral, db)
        }
    }

    /// Events in the user's log after `seq`, oldest first, skipping stale ephemeral ones.
    public func events(for user: UserID, after seq: Int64, limit: Int = 500) throws -> [StoredEvent] {
        let freshAfter = Timestamp.now.milliseconds - options.ephemeralRetention.milliseconds
        return try read { db in
            try db.rows(
                """
                SELECT ue.seq, e.type, e.cid, e.payload, e.ephemeral, e.created_at
                FROM user_events ue JOIN events e ON e.id = ue.event_id
                WHERE ue.user_id = ? AND ue.seq > ? AND (e.ephemeral = 0 OR e.created_at >= ?)
                ORDER BY ue.seq LIMIT ?
                """, [.text(user.rawValue), .integer(seq), .integer(freshAfter), .int(max(1, limit))]
            ) { row in
                StoredEvent(
                    seq: row.int64(0), type: row.string(1),
                    cid: row.optionalString(2).flatMap { try? ChannelID.parse($0) },
                    payload: row.string(3), ephemeral: row.int(4) != 0, createdAt: Timestamp(milliseconds: row.int64(5))
                )
            }
        }
    }

    /// Where the user's log stands; a user with no row yet has an empty log.
    public func eventCursor(for user: UserID) throws -> EventCursor {
        try read { db in
            try db.row("SELECT last_seq, pruned_through FROM users WHERE id = ?", [.text(user.rawValue)]) {
                EventCursor(lastSeq: $0.int64(0), prunedThrough: $0.int64(1))
            } ?? EventCursor(lastSeq: 0, prunedThrough: 0)
        }
    }

    /// Deletes durable events older than `options.eventRetention` and ephemeral events older
    /// than `options.ephemeralRetention`, measured from `now`.
    public func pruneEvents(now: Timestamp = .now) throws {
        let durableCutoff = now.milliseconds - options.eventRetention.milliseconds
        let ephemeralCutoff = now.milliseconds - options.ephemeralRetention.milliseconds
        try write { db in
            try db.run(
                """
                UPDATE users SET pruned_through = MAX(pruned_through, COALESCE((
                    SELECT MAX(ue.seq) FROM user_events ue JOIN events e ON e.id = ue.event_id
                    WHERE ue.user_id = users.id AND e.created_at < ?), 0))
                """, [.integer(durableCutoff)])
            try db.run(
                "DELETE FROM user_events WHERE seq <= (SELECT pruned_through FROM users WHERE users.id = user_events.user_id)"
            )
            try db.run(
                """
                DELETE FROM user_events WHERE event_id IN (SELECT id FROM events WHERE ephemeral = 1 AND created_at < ?)
                """, [.integer(ephemeralCutoff)])
            try db.run("DELETE FROM events WHERE id NOT IN (SELECT event_id FROM user_events)")
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// Appends the event to each recipient's log; returns it with every recipient's new seq.
    @discardableResult
    static func appendEvent(_ body: EventBody, to recipients: [UserID], ephemeral: Bool, _ db: Connection) throws
        -> AppendedEvent
    {
        let payload = String(decoding: try encoder.encode(body), as: UTF8.self)
        return try appendEvent(
            type: body.type, cid: body.cid, payload: payload, to: recipients, ephemeral: ephemeral, db)
    }

    @discardableResult
    static func appendEvent(
        type: String, cid: ChannelID?, payload: String, to recipients: [UserID], ephemeral: Bool, _ db: Connection
    ) throws -> AppendedEvent {
        var appended = AppendedEvent(payload: payload, seqs: [:])
        guard !recipients.isEmpty else { return appended }
        try db.run(
            "INSERT INTO events(type, cid, payload, ephemeral, created_at) VALUES (?, ?, ?, ?, ?)",
            [
                .text(type), .optionalText(cid?.cid), .text(payload), .int(ephemeral ? 1 : 0),
                .integer(Timestamp.now.milliseconds),
            ])
        let eventID = try db.row("SELECT last_insert_rowid()") { $0.int64(0) } ?? 0
        // Set-based, three statements whatever the number of recipients: the writer is the one
        // thread every message passes through. Unknown users have no log and are skipped.
        let ids = String(decoding: try encoder.encode(recipients.map(\.rawValue)), as: UTF8.self)
        for (user, seq) in try db.rows(
            "UPDATE users SET last_seq = last_seq + 1 WHERE id IN (SELECT value FROM json_each(?)) RETURNING id, last_seq",
            [.text(ids)], { (UserID(rawValue: $0.string(0)), $0.int64(1)) })
        {
            appended.seqs[user] = seq
        }
        try db.run(
            """
            INSERT INTO user_events(user_id, seq, event_id)
            SELECT id, last_seq, ? FROM users WHERE id IN (SELECT value FROM json_each(?))
            """, [.integer(eventID), .text(ids)])
        return appended
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
