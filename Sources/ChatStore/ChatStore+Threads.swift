import Foundation

/// The outcome of `markThreadRead`.
public struct ThreadReadResult: Hashable, Sendable {
    /// The thread's root.
    public var parentID: MessageID
    /// False when the read position did not move.
    public var changed: Bool
    /// The `thread.read` event, for the reader's own other tabs (nil when nothing changed).
    public var event: AppendedEvent? = nil
}

/// Threads: replies to a top-level message, kept out of the channel's page and read in a side
/// panel. A thread's followers (who started it, replied, were mentioned in it, or opened it)
/// have a read position of their own in it, as members have one in the channel.
extension ChatStore {
    /// A page of a thread: its root and replies, oldest first, ending just before `before` (or
    /// at the newest). A reply's id stands for its thread. Nothing is marked read.
    ///
    /// - Throws: `notFound` when there is no such message or `user` is not a member of its
    ///   channel (the same answer, so ids in other channels cannot be probed).
    public func thread(of id: MessageID, for user: UserID, before: MessageID? = nil, limit: Int = 100) async throws
        -> ThreadPage
    {
        let limit = min(max(limit, 1), Self.maxPageSize)
        return try await read { db in
            let root = try Self.threadRoot(id, for: user, db)
            var bound = Int64.max
            if let before {
                guard
                    let position = try db.row(
                        "SELECT position FROM messages WHERE id = ? AND parent_id = ?",
                        [.text(before.rawValue), .text(root.id.rawValue)], { $0.int64(0) })
                else { throw ChatStoreError.notFound(what: "reply", id: before.rawValue) }
                bound = position
            }
            var rows = try db.rows(
                """
                SELECT \(Self.messageColumns) FROM messages
                WHERE parent_id = ? AND position < ? ORDER BY position DESC LIMIT ?
                """,
                [.text(root.id.rawValue), .integer(bound), .int(limit + 1)], Self.messageRow)
            let hasMore = rows.count > limit
            if hasMore { rows.removeLast() }
            let following = try Self.threadReadPosition(root.id, user, db) != nil
            let unread = try Self.unreadReplies(for: user, in: [root.id], db)[root.id.rawValue] ?? 0
            return ThreadPage(
                parent: root, messages: try Self.decorated(rows.reversed(), db), hasMore: hasMore, unread: unread,
                following: following)
        }
    }

    /// The first message of the thread `id` stands for (itself, or a reply's root).
    ///
    /// - Throws: `notFound` as ``thread(of:for:before:limit:)`` does.
    public func threadRoot(of id: MessageID, for user: UserID) async throws -> Message {
        try await read { try Self.threadRoot(id, for: user, $0) }
    }

    /// Moves the reader's position in the thread to its newest reply (they follow it from now
    /// on) and tells their other tabs with a `thread.read` event when it moved.
    public func markThreadRead(_ user: UserID, thread id: MessageID) async throws -> ThreadReadResult {
        let memory = writerMemory
        return try await write { db in
            let root = try Self.threadRoot(id, for: user, db)
            let newest =
                try db.row(
                    "SELECT MAX(position) FROM messages WHERE parent_id = ?", [.text(root.id.rawValue)],
                    { $0.optionalInt64(0) }) ?? nil
            let target =
                try newest
                ?? db.row("SELECT position FROM messages WHERE id = ?", [.text(root.id.rawValue)]) { $0.int64(0) }
                ?? 0
            let current = try Self.threadReadPosition(root.id, user, db)
            guard current.map({ target > $0 }) ?? true else {
                return ThreadReadResult(parentID: root.id, changed: false)
            }
            try db.run(
                """
                INSERT INTO thread_reads(parent_id, user_id, cid, last_read_position) VALUES (?, ?, ?, ?)
                ON CONFLICT(parent_id, user_id) DO UPDATE SET last_read_position = excluded.last_read_position
                """, [.text(root.id.rawValue), .text(user.rawValue), .text(root.cid.cid), .integer(target)])
            let event = try Self.appendEvent(
                EventBody(
                    type: EventType.threadRead, cid: root.cid, createdAt: .now, user: user, parentID: root.id),
                to: .user(user, cid: root.cid), ephemeral: false, memory, db)
            return ThreadReadResult(parentID: root.id, changed: true, event: event)
        }
    }

    /// The newest `limit` replies of a thread with its root first, oldest first, deleted ones
    /// left out: what the model reads of a thread (no membership check; empty when the root is
    /// gone).
    public func recentThreadMessages(of root: MessageID, limit: Int) async throws -> [Message] {
        try await read { db in
            guard let parent = try Self.message(root, db) else { return [] }
            let replies: [Message] = try db.rows(
                """
                SELECT \(Self.messageColumns) FROM messages WHERE parent_id = ? AND deleted_at IS NULL
                ORDER BY position DESC LIMIT ?
                """, [.text(root.rawValue), .int(max(0, limit - 1))], Self.messageRow
            ).reversed()
            return try Self.forModel((parent.deletedAt == nil ? [parent] : []) + replies, db)
        }
    }

    /// The thread `id` stands for (its root), when `user` may read it.
    static func threadRoot(_ id: MessageID, for user: UserID, _ db: Connection) throws -> Message {
        guard let message = try message(id, db), try isMember(user, message.cid, db) else {
            throw ChatStoreError.notFound(what: "message", id: id.rawValue)
        }
        guard let parent = message.parentID else { return message }
        guard let root = try self.message(parent, db) else {
            throw ChatStoreError.notFound(what: "message", id: parent.rawValue)
        }
        return root
    }

    static func threadReadPosition(_ root: MessageID, _ user: UserID, _ db: Connection) throws -> Int64? {
        try db.row(
            "SELECT last_read_position FROM thread_reads WHERE parent_id = ? AND user_id = ?",
            [.text(root.rawValue), .text(user.rawValue)], { $0.int64(0) })
    }

    /// After a reply at `position`: its author has read the thread to here, and the root's
    /// author and anyone the reply mentions follow the thread from where it stood before.
    static func follow(
        _ root: MessageID, in cid: ChannelID, author: UserID, text: String, at position: Int64, _ memory: WriterMemory,
        _ db: Connection
    ) throws {
        try db.run(
            """
            INSERT INTO thread_reads(parent_id, user_id, cid, last_read_position) VALUES (?, ?, ?, ?)
            ON CONFLICT(parent_id, user_id) DO UPDATE SET last_read_position = excluded.last_read_position
            """, [.text(root.rawValue), .text(author.rawValue), .text(cid.cid), .integer(position)])
        var followers: [UserID] = []
        if let starter = try db.row(
            "SELECT user_id FROM messages WHERE id = ?", [.text(root.rawValue)], { UserID(rawValue: $0.string(0)) })
        {
            followers.append(starter)
        }
        if text.contains("@") {
            followers += try memory.memberIDs(cid, db).filter { Mentions.mentions($0, in: text) }
        }
        for follower in followers where follower != author {
            try db.run(
                """
                INSERT INTO thread_reads(parent_id, user_id, cid, last_read_position)
                VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, [.text(root.rawValue), .text(follower.rawValue), .text(cid.cid), .integer(position - 1)])
        }
    }

    /// `messages` with the reply count and newest reply time of those that start threads.
    static func withThreads(_ messages: [Message], _ db: Connection) throws -> [Message] {
        let roots = messages.filter { $0.parentID == nil }
        guard !roots.isEmpty else { return messages }
        let marks = Array(repeating: "?", count: roots.count).joined(separator: ",")
        var counts: [String: (count: Int, last: Timestamp)] = [:]
        try db.rows(
            """
            SELECT parent_id, COUNT(*), MAX(created_at) FROM messages
            WHERE parent_id IN (\(marks)) GROUP BY parent_id
            """, roots.map { .text($0.id.rawValue) }
        ) { (id: $0.string(0), count: $0.int(1), last: Timestamp(milliseconds: $0.int64(2))) }
        .forEach { counts[$0.id] = ($0.count, $0.last) }
        guard !counts.isEmpty else { return messages }
        return messages.map { message in
            guard let thread = counts[message.id.rawValue] else { return message }
            var message = message
            message.replyCount = thread.count
            message.lastReplyAt = thread.last
            return message
        }
    }

    /// Replies from others `user` has not read, by root, among `roots` they follow.
    static func unreadReplies(for user: UserID, in roots: [MessageID], _ db: Connection) throws -> [String: Int] {
        guard !roots.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: roots.count).joined(separator: ",")
        var unread: [String: Int] = [:]
        try db.rows(
            """
            SELECT t.parent_id, COUNT(*) FROM thread_reads t
            JOIN messages m ON m.parent_id = t.parent_id AND m.position > t.last_read_position
            WHERE t.user_id = ? AND t.parent_id IN (\(marks)) AND m.user_id != ? AND m.deleted_at IS NULL
            GROUP BY t.parent_id
            """, [.text(user.rawValue)] + roots.map { .text($0.rawValue) } + [.text(user.rawValue)]
        ) { (id: $0.string(0), count: $0.int(1)) }
        .forEach { unread[$0.id] = $0.count }
        return unread
    }

    /// The followed threads in `cid` with replies from others `user` has not read: each root
    /// and the reader's position in it.
    static func unreadThreads(for user: UserID, in cid: ChannelID, _ db: Connection) throws -> [(
        root: String, readPosition: Int64
    )] {
        try db.rows(
            """
            SELECT t.parent_id, t.last_read_position FROM thread_reads t
            WHERE t.user_id = ? AND t.cid = ? AND EXISTS (
                SELECT 1 FROM messages m WHERE m.parent_id = t.parent_id AND m.position > t.last_read_position
                AND m.user_id != ? AND m.deleted_at IS NULL)
            """, [.text(user.rawValue), .text(cid.cid), .text(user.rawValue)]
        ) { (root: $0.string(0), readPosition: $0.int64(1)) }
    }
}
