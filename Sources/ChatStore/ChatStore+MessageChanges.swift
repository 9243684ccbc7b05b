import Foundation

/// A text a message had before an edit.
public struct MessageEdit: Hashable, Sendable, Codable {
    /// The text before this edit.
    public var text: String
    public var editedAt: Timestamp

    public init(text: String, editedAt: Timestamp) {
        self.text = text
        self.editedAt = editedAt
    }

    enum CodingKeys: String, CodingKey {
        case text
        case editedAt = "edited_at"
    }
}

/// Edits, deletions and reactions. Each goes to the channel's members as one event in the log:
/// `message.updated` (an edit, a reaction given or taken back) or `message.deleted`, carrying
/// the message as it now is.
extension ChatStore {
    /// Different emoji one message may carry.
    public static let maxReactionsPerMessage = 50

    /// Replaces the text of `user`'s own message; the text it had is kept for the author and
    /// administrators (``messageEdits(_:for:asAdministrator:)``).
    ///
    /// - Throws: `notFound` (no such message, or not in a channel of `user`'s), `forbidden`
    ///   (someone else's), `conflict` (deleted), `invalidArgument` (the text).
    public func editMessage(_ id: MessageID, text: String, by user: UserID) async throws -> Message {
        try Self.checkText(text)
        let memory = writerMemory
        return try await write { db in
            let message = try Self.visibleMessage(id, to: user, asAdministrator: false, db)
            guard message.author == user else {
                throw ChatStoreError.forbidden(reason: "only its author edits a message")
            }
            guard message.deletedAt == nil else { throw ChatStoreError.conflict(reason: "the message was deleted") }
            guard message.text != text else { return message }
            // Its old words leave the search index through the update trigger: they must be in it.
            try Self.indexNewMessages(db)
            let now = Timestamp.now
            try db.run(
                "INSERT INTO message_edits(message_id, text, edited_at) VALUES (?, ?, ?)",
                [.text(id.rawValue), .text(message.text), .integer(now.milliseconds)])
            try db.run(
                "UPDATE messages SET text = ?, edited_at = ? WHERE id = ?",
                [.text(text), .integer(now.milliseconds), .text(id.rawValue)])
            var edited = message
            edited.text = text
            edited.editedAt = now
            _ = try Self.appendEvent(
                EventBody(type: EventType.messageUpdated, cid: message.cid, createdAt: now, message: edited),
                to: .channel(message.cid, except: nil), ephemeral: false, memory, db)
            return edited
        }
    }

    /// Deletes a message: its author's own, or any as an administrator. The text goes from the
    /// message, its edit history, the search index and the event log's copies of it; the
    /// message stays as a tombstone (empty text, `deleted_at`) so the history keeps its shape.
    ///
    /// - Throws: `notFound` (no such message, or — for a non-administrator — not in a channel of
    ///   `user`'s), `forbidden` (someone else's).
    public func deleteMessage(_ id: MessageID, by user: UserID, asAdministrator: Bool) async throws -> Message {
        let memory = writerMemory
        return try await write { db in
            let message = try Self.visibleMessage(id, to: user, asAdministrator: asAdministrator, db)
            guard message.author == user || asAdministrator else {
                throw ChatStoreError.forbidden(reason: "only its author or an administrator deletes a message")
            }
            guard message.deletedAt == nil else { return message }
            try Self.indexNewMessages(db)
            let now = Timestamp.now
            try db.run("DELETE FROM message_edits WHERE message_id = ?", [.text(id.rawValue)])
            try db.run("DELETE FROM message_reactions WHERE message_id = ?", [.text(id.rawValue)])
            try db.run("DELETE FROM attachments WHERE message_id = ?", [.text(id.rawValue)])
            try db.run(
                "UPDATE messages SET text = '', edited_at = NULL, deleted_at = ? WHERE id = ?",
                [.integer(now.milliseconds), .text(id.rawValue)])
            // The log's copies of the message (its message.new, its edits) lose the text too: a
            // client resuming from before the deletion replays tombstones.
            try db.run(
                db.dialect == .sqlite
                    ? """
                    UPDATE event_log SET payload = json_remove(
                        json_set(payload, '$.message.text', '', '$.message.deleted_at', ?), '$.message.edited_at',
                        '$.message.reactions', '$.message.attachments')
                    WHERE cid = ? AND user_id IS NULL AND type IN (?, ?) AND json_extract(payload, '$.message.id') = ?
                    """ : PostgresSQL.eventScrub,
                [
                    .text(now.description), .text(message.cid.cid), .text(EventType.messageNew),
                    .text(EventType.messageUpdated), .text(id.rawValue),
                ])
            var tombstone = Message(
                id: message.id, cid: message.cid, author: message.author, text: "", createdAt: message.createdAt,
                parentID: message.parentID, deletedAt: now)
            // A deleted thread root keeps its replies, and the way to them.
            (tombstone.replyCount, tombstone.lastReplyAt) = (message.replyCount, message.lastReplyAt)
            _ = try Self.appendEvent(
                EventBody(type: EventType.messageDeleted, cid: message.cid, createdAt: now, message: tombstone),
                to: .channel(message.cid, except: nil), ephemeral: false, memory, db)
            return tombstone
        }
    }

    /// The texts a message had before each edit, oldest first: for its author and administrators.
    ///
    /// - Throws: `notFound`, `forbidden` (another member's message).
    public func messageEdits(_ id: MessageID, for user: UserID, asAdministrator: Bool) async throws -> [MessageEdit] {
        try await read { db in
            let message = try Self.visibleMessage(id, to: user, asAdministrator: asAdministrator, db)
            guard message.author == user || asAdministrator else {
                throw ChatStoreError.forbidden(reason: "a message's edits are for its author and administrators")
            }
            return try db.rows(
                "SELECT text, edited_at FROM message_edits WHERE message_id = ? ORDER BY position",
                [.text(id.rawValue)]
            ) { MessageEdit(text: $0.string(0), editedAt: Timestamp(milliseconds: $0.int64(1))) }
        }
    }

    /// Gives (`adding`) or takes back `user`'s `emoji` on a message of a channel they are in.
    /// Giving one twice, or taking back one not given, changes nothing and sends no event.
    ///
    /// - Throws: `notFound`, `conflict` (deleted), `invalidArgument` (not one emoji),
    ///   `quotaExceeded` (``maxReactionsPerMessage`` different emoji already).
    public func react(_ emoji: String, to id: MessageID, by user: UserID, adding: Bool) async throws -> Message {
        try Self.checkEmoji(emoji)
        let memory = writerMemory
        return try await write { db in
            let message = try Self.visibleMessage(id, to: user, asAdministrator: false, db)
            guard message.deletedAt == nil else { throw ChatStoreError.conflict(reason: "the message was deleted") }
            if adding {
                let kinds =
                    try db.row(
                        "SELECT COUNT(DISTINCT emoji), SUM(CASE WHEN emoji = ? THEN 1 ELSE 0 END) FROM message_reactions WHERE message_id = ?",
                        [.text(emoji), .text(id.rawValue)]
                    ) { (count: $0.int(0), has: $0.isNull(1) ? 0 : $0.int(1)) } ?? (count: 0, has: 0)
                if kinds.has == 0, kinds.count >= Self.maxReactionsPerMessage {
                    throw ChatStoreError.quotaExceeded(
                        reason: "a message carries at most \(Self.maxReactionsPerMessage) different reactions")
                }
                try db.run(
                    """
                    INSERT INTO message_reactions(message_id, user_id, emoji, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """,
                    [.text(id.rawValue), .text(user.rawValue), .text(emoji), .integer(Timestamp.now.milliseconds)])
            } else {
                try db.run(
                    "DELETE FROM message_reactions WHERE message_id = ? AND user_id = ? AND emoji = ?",
                    [.text(id.rawValue), .text(user.rawValue), .text(emoji)])
            }
            guard db.changes > 0 else { return message }
            let updated = try Self.message(id, db) ?? message
            _ = try Self.appendEvent(
                EventBody(type: EventType.messageUpdated, cid: message.cid, createdAt: .now, message: updated),
                to: .channel(message.cid, except: nil), ephemeral: false, memory, db)
            return updated
        }
    }

    /// The message if `user` may see it: a member of its channel, or an administrator.
    static func visibleMessage(_ id: MessageID, to user: UserID, asAdministrator: Bool, _ db: Connection) throws
        -> Message
    {
        guard let message = try message(id, db) else { throw ChatStoreError.notFound(what: "message", id: id.rawValue) }
        if !asAdministrator, try !isMember(user, message.cid, db) {
            throw ChatStoreError.notFound(what: "message", id: id.rawValue)
        }
        return message
    }

    /// A message's text as ``sendMessage(_:)`` takes it.
    static func checkText(_ text: String) throws {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ChatStoreError.invalidArgument(field: "text", reason: "must not be empty")
        }
        guard text.unicodeScalars.count <= maxMessageLength else {
            throw ChatStoreError.invalidArgument(field: "text", reason: "longer than \(maxMessageLength) characters")
        }
        guard text.utf8.count <= maxMessageBytes else {
            throw ChatStoreError.invalidArgument(field: "text", reason: "longer than \(maxMessageBytes) bytes of UTF-8")
        }
    }

    /// One emoji: a single character (skin tones, joiners and variation selectors included) that
    /// starts with an emoji and holds no letters, digits or controls.
    static func checkEmoji(_ emoji: String) throws {
        let scalars = emoji.unicodeScalars
        guard emoji.count == 1, scalars.count <= 12, let first = scalars.first, first.value > 0x7F,
            first.properties.isEmoji,
            scalars.allSatisfy({
                $0.value > 0x7F && !$0.properties.isAlphabetic && $0.properties.generalCategory != .control
            })
        else {
            throw ChatStoreError.invalidArgument(field: "emoji", reason: "must be one emoji")
        }
    }
}
