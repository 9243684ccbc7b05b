import Foundation
import JSONSyntax

/// A message to send.
public struct NewMessage: Hashable, Sendable {
    /// Client-chosen id; a retry with the same id returns the stored message. `nil` → random.
    public var id: MessageID?
    public var cid: ChannelID
    public var author: UserID
    public var text: String
    public var parentID: MessageID?
    /// Files the author uploaded to the channel (``ChatStore/addAttachment(_:)``) that the
    /// message carries.
    public var attachmentIDs: [String]

    public init(
        id: MessageID? = nil, cid: ChannelID, author: UserID, text: String, parentID: MessageID? = nil,
        attachmentIDs: [String] = []
    ) {
        self.id = id
        self.cid = cid
        self.author = author
        self.text = text
        self.parentID = parentID
        self.attachmentIDs = attachmentIDs
    }
}

/// The outcome of `sendMessage`.
public struct SendResult: Hashable, Sendable {
    /// The stored message.
    public var message: Message
    /// `message` as a JSON object (keys sorted), as the API answers with it.
    public var messageJSON: String
    /// False when the id was already stored (an idempotent retry): nothing changed.
    public var created: Bool
    /// Users who got a new event and should be notified.
    public var recipients: [UserID]
    /// The `message.new` event and its recipients (nil for a retry: nothing appended).
    public var event: AppendedEvent? = nil
}

/// The outcome of `markRead`.
public struct ReadResult: Hashable, Sendable {
    public var read: ReadState
    /// False when the read position did not move.
    public var changed: Bool
    /// The `message.read` event and its recipients (nil when nothing changed).
    public var event: AppendedEvent? = nil
}

extension ChatStore {
    /// Longest message text, in characters (Unicode scalars, so that combining marks count:
    /// a grapheme cluster can be arbitrarily long)…
    public static let maxMessageLength = 4000
    /// …and in bytes of UTF-8.
    public static let maxMessageBytes = 16 * 1024
    /// Largest history page.
    public static let maxPageSize = 200

    /// Stores a message from a member and appends `message.new` to every member's event log.
    ///
    /// Sending again with the same id, author, channel and text returns the stored message with
    /// `created == false`; the same id with anything else different is a `conflict`.
    public func sendMessage(_ new: NewMessage) async throws -> SendResult {
        let text = new.text
        try Self.checkText(text)
        let id = try new.id.map { try MessageID.validated($0.rawValue) } ?? MessageID.random()
        let now = Timestamp.now
        guard new.attachmentIDs.count <= Self.maxAttachmentsPerMessage,
            Set(new.attachmentIDs).count == new.attachmentIDs.count
        else {
            throw ChatStoreError.invalidArgument(
                field: "attachment_ids", reason: "at most \(Self.maxAttachmentsPerMessage) files, each once")
        }
        let message = Message(
            id: id, cid: new.cid, author: new.author, text: text, createdAt: now, parentID: new.parentID)
        // Encoded before the transaction (the writer is the one thread every message passes
        // through), and once: the event and the API's answer hold the same message object. The
        // event is EventBody's members, keys sorted, written out around it. (A message with
        // files is encoded in the transaction, once it has them.)
        let encoded = try Self.encodedNew(message)
        let memory = writerMemory
        return try await write { db in
            if try !memory.memberIDs(new.cid, db).contains(new.author) {
                try Self.requireMember(new.author, new.cid, db)  // throws the right error
            }
            if let existing = try Self.message(id, db) {
                guard existing.cid == new.cid, existing.author == new.author, existing.text == text,
                    existing.parentID == new.parentID
                else {
                    throw ChatStoreError.conflict(reason: "message id '\(id)' is already used for a different message")
                }
                return SendResult(
                    message: existing, messageJSON: String(decoding: try Self.encoder.encode(existing), as: UTF8.self),
                    created: false, recipients: [])
            }
            if let parent = new.parentID {
                guard let root = try Self.message(parent, db), root.cid == new.cid else {
                    throw ChatStoreError.notFound(what: "parent message", id: parent.rawValue)
                }
                guard root.parentID == nil else {
                    throw ChatStoreError.invalidArgument(
                        field: "parent_id", reason: "replies go to the thread's first message, '\(root.parentID!)'")
                }
                guard root.deletedAt == nil else {
                    throw ChatStoreError.invalidArgument(field: "parent_id", reason: "that message was deleted")
                }
            }
            let position = try db.row(
                """
                INSERT INTO messages(id, cid, user_id, text, parent_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
                RETURNING position
                """,
                [
                    .text(id.rawValue), .text(new.cid.cid), .text(new.author.rawValue), .text(text),
                    .optionalText(new.parentID?.rawValue), .integer(now.milliseconds),
                ]
            ) { $0.int64(0) }!
            var (message, messageJSON, payload) = (message, encoded.message, encoded.payload)
            if !new.attachmentIDs.isEmpty {
                message.attachments = try Self.claimAttachments(new.attachmentIDs, for: message, db)
                (messageJSON, payload) = try Self.encodedNew(message)
            }
            memory.messagesToIndex = true
            if let parent = new.parentID {
                try Self.follow(parent, in: new.cid, author: new.author, text: text, at: position, memory, db)
            }
            try db.run(
                "UPDATE channels SET last_message_at = ? WHERE cid = ?",
                [.integer(now.milliseconds), .text(new.cid.cid)])
            // The author has read their own message (a reply: their thread, as `follow` records,
            // not the channel, whose unread messages stay unread).
            if new.parentID == nil {
                try db.run(
                    """
                    UPDATE members SET last_read_position = ?, last_read_message_id = ?, last_read_at = ?
                    WHERE cid = ? AND user_id = ?
                    """,
                    [
                        .integer(position), .text(id.rawValue), .integer(now.milliseconds), .text(new.cid.cid),
                        .text(new.author.rawValue),
                    ])
            }
            let event = try Self.appendEvent(
                type: EventType.messageNew, payload: payload, to: .channel(new.cid, except: nil), ephemeral: false,
                memory, db)
            return SendResult(
                message: message, messageJSON: messageJSON, created: true, recipients: event.recipients.map(\.user),
                event: event)
        }
    }

    /// `message` as JSON, and the `message.new` event's payload around it.
    static func encodedNew(_ message: Message) throws -> (message: String, payload: String) {
        let json = String(decoding: try encoder.encode(message), as: UTF8.self)
        let payload =
            #"{"cid":\#(JSONStringLiteral.encode(message.cid.cid)),"created_at":\#(JSONStringLiteral.encode(message.createdAt.description)),"#
            + #""message":\#(json),"type":\#(JSONStringLiteral.encode(EventType.messageNew))}"#
        return (json, payload)
    }

    /// A page of the channel's history, oldest first, ending just before `before` (or at the
    /// newest message). `limit` is clamped to 1…`maxPageSize`.
    public func messages(in cid: ChannelID, for user: UserID, before: MessageID? = nil, limit: Int = 50) async throws
        -> MessagePage
    {
        let limit = min(max(limit, 1), Self.maxPageSize)
        return try await read { db in
            try Self.requireMember(user, cid, db)
            var bound = Int64.max
            if let before {
                guard
                    let position = try db.row(
                        "SELECT position FROM messages WHERE id = ? AND cid = ?",
                        [.text(before.rawValue), .text(cid.cid)],
                        { $0.int64(0) })
                else { throw ChatStoreError.notFound(what: "message", id: before.rawValue) }
                bound = position
            }
            var rows = try db.rows(
                """
                SELECT \(Self.messageColumns) FROM messages
                WHERE cid = ? AND parent_id IS NULL AND position < ? ORDER BY position DESC LIMIT ?
                """,
                [.text(cid.cid), .integer(bound), .int(limit + 1)], Self.messageRow)
            let hasMore = rows.count > limit
            if hasMore { rows.removeLast() }
            let messages = try Self.decorated(rows.reversed(), db)
            let unread = try Self.unreadReplies(for: user, in: messages.filter { $0.replyCount != nil }.map(\.id), db)
            let threads = messages.compactMap { message in
                unread[message.id.rawValue].map { ThreadUnread(parentID: message.id, count: $0) }
            }
            return MessagePage(messages: messages, hasMore: hasMore, unreadReplies: threads.isEmpty ? nil : threads)
        }
    }

    /// How many messages a channel holds (no membership check).
    public func messageCount(in cid: ChannelID) async throws -> Int {
        try await read {
            try $0.row("SELECT COUNT(*) FROM messages WHERE cid = ?", [.text(cid.cid)]) { $0.int(0) } ?? 0
        }
    }

    /// The newest `limit` top-level messages of a channel, oldest first, deleted ones left out:
    /// what the model reads (no membership check).
    public func recentMessages(in cid: ChannelID, limit: Int) async throws -> [Message] {
        try await read { db in
            try Self.forModel(
                db.rows(
                    """
                    SELECT \(Self.messageColumns) FROM messages WHERE cid = ? AND parent_id IS NULL AND deleted_at IS NULL
                    ORDER BY position DESC LIMIT ?
                    """,
                    [.text(cid.cid), .int(max(0, limit))], Self.messageRow
                ).reversed(), db)
        }
    }

    /// The message with this id, if any (no membership check).
    public func message(_ id: MessageID) async throws -> Message? {
        try await read { try Self.message(id, $0) }
    }

    /// Moves the member's read position forward to `messageID` (default: the newest message)
    /// and appends `message.read` to every member's log when it moved.
    public func markRead(_ user: UserID, in cid: ChannelID, upTo messageID: MessageID? = nil) async throws -> ReadResult
    {
        let now = Timestamp.now
        let memory = writerMemory
        return try await write { db in
            try Self.requireMember(user, cid, db)
            let target: (position: Int64, id: String)?
            if let messageID {
                guard
                    let found = try db.row(
                        "SELECT position, id FROM messages WHERE id = ? AND cid = ?",
                        [.text(messageID.rawValue), .text(cid.cid)], { ($0.int64(0), $0.string(1)) })
                else { throw ChatStoreError.notFound(what: "message", id: messageID.rawValue) }
                target = found
            } else {
                target = try db.row(
                    "SELECT position, id FROM messages WHERE cid = ? ORDER BY position DESC LIMIT 1", [.text(cid.cid)]
                ) { ($0.int64(0), $0.string(1)) }
            }
            let current = try db.row(
                "SELECT last_read_position, last_read_message_id, last_read_at FROM members WHERE cid = ? AND user_id = ?",
                [.text(cid.cid), .text(user.rawValue)]
            ) {
                (
                    $0.int64(0),
                    ReadState(
                        user: user, lastReadMessageID: $0.optionalString(1).map(MessageID.init(rawValue:)),
                        lastReadAt: $0.optionalInt64(2).map(Timestamp.init(milliseconds:)))
                )
            }
            guard let current else { throw ChatStoreError.notMember(user: user, channel: cid) }
            guard let target, target.position > current.0 else {
                return ReadResult(read: current.1, changed: false)
            }
            try db.run(
                """
                UPDATE members SET last_read_position = ?, last_read_message_id = ?, last_read_at = ?
                WHERE cid = ? AND user_id = ?
                """,
                [
                    .integer(target.position), .text(target.id), .integer(now.milliseconds), .text(cid.cid),
                    .text(user.rawValue),
                ])
            let read = ReadState(user: user, lastReadMessageID: MessageID(rawValue: target.id), lastReadAt: now)
            let event = try Self.appendEvent(
                EventBody(type: EventType.messageRead, cid: cid, createdAt: now, user: user, read: read),
                to: .channel(cid, except: nil), ephemeral: false, memory, db)
            return ReadResult(read: read, changed: true, event: event)
        }
    }

    static let messageColumns = "id, cid, user_id, text, created_at, parent_id, edited_at, deleted_at"

    static func messageRow(_ row: Statement) -> Message {
        let cidText = row.string(1)
        let colon = cidText.firstIndex(of: ":") ?? cidText.endIndex
        let id = colon < cidText.endIndex ? String(cidText[cidText.index(after: colon)...]) : ""
        return Message(
            id: MessageID(rawValue: row.string(0)), cid: ChannelID(type: String(cidText[..<colon]), id: id),
            author: UserID(rawValue: row.string(2)), text: row.string(3),
            createdAt: Timestamp(milliseconds: row.int64(4)),
            parentID: row.optionalString(5).map(MessageID.init(rawValue:)),
            editedAt: row.isNull(6) ? nil : Timestamp(milliseconds: row.int64(6)),
            deletedAt: row.isNull(7) ? nil : Timestamp(milliseconds: row.int64(7)))
    }

    /// The message with its reactions, attachments (and its replies' count, for a thread's root).
    static func message(_ id: MessageID, _ db: Connection) throws -> Message? {
        try db.row("SELECT \(messageColumns) FROM messages WHERE id = ?", [.text(id.rawValue)], messageRow)
            .map { try decorated([$0], db)[0] }
    }

    /// `messages` with their reactions, attachments, and (thread roots) reply counts.
    static func decorated(_ messages: [Message], _ db: Connection) throws -> [Message] {
        try withThreads(withAttachments(withReactions(messages, db), db), db)
    }

    /// `messages` with their reactions read in one query.
    static func withReactions(_ messages: [Message], _ db: Connection) throws -> [Message] {
        guard !messages.isEmpty else { return messages }
        let marks = Array(repeating: "?", count: messages.count).joined(separator: ",")
        let rows = try db.rows(
            "SELECT message_id, emoji, user_id FROM message_reactions WHERE message_id IN (\(marks)) ORDER BY created_at, user_id",
            messages.map { .text($0.id.rawValue) }
        ) { (message: $0.string(0), emoji: $0.string(1), user: UserID(rawValue: $0.string(2))) }
        guard !rows.isEmpty else { return messages }
        var byMessage: [String: [(emoji: String, users: [UserID])]] = [:]
        for row in rows {
            var list = byMessage[row.message, default: []]
            if let index = list.firstIndex(where: { $0.emoji == row.emoji }) {
                list[index].users.append(row.user)
            } else {
                list.append((row.emoji, [row.user]))
            }
            byMessage[row.message] = list
        }
        return messages.map { message in
            var message = message
            message.reactions = byMessage[message.id.rawValue].map {
                $0.map { Reaction(emoji: $0.emoji, users: $0.users) }
            }
            return message
        }
    }
}
