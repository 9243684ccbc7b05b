import Foundation

extension ChatStore {
    /// The most members a channel may have.
    public static let maxMembers = 100

    /// Returns the channel `cid`, creating it with `name` and `members` (plus `creator`) if it
    /// does not exist.
    ///
    /// An existing channel is only for its members: anyone else gets `notFound`, exactly as for
    /// a channel that does not exist, and learns nothing of it. A member who names `members`
    /// gets `conflict` when the channel's members are not exactly those (and themselves): a
    /// channel someone else made under that id, with someone more in it, is never taken for the
    /// one asked for. Ids starting with `!` are the server's (``getOrCreateDistinctChannel``).
    public func getOrCreateChannel(
        _ cid: ChannelID, name: String?, members: [UserID], by creator: UserID
    ) async throws -> (detail: ChannelDetail, created: Bool) {
        guard !cid.isDistinct else {
            throw ChatStoreError.invalidArgument(
                field: "cid",
                reason:
                    "ids starting with '!' are made by the server from a channel's members: leave out cid and give members"
            )
        }
        let name = try name.map { try Self.validatedName($0, field: "name") } ?? cid.id
        let memberIDs = try Self.memberList(creator: creator, members: members)
        let now = Timestamp.now.milliseconds
        return try await write { [memberIDs] db in
            if try Self.channel(cid, db) != nil {
                guard try Self.isMember(creator, cid, db) else {
                    throw ChatStoreError.notFound(what: "channel", id: cid.cid)
                }
                if !members.isEmpty, Set(try Self.memberIDs(cid, db)) != Set(memberIDs) {
                    throw ChatStoreError.conflict(
                        reason:
                            "the channel '\(cid)' exists with other members than those asked for; choose another id, or leave out members to open it"
                    )
                }
                return (try Self.detail(cid, db), false)
            }
            try Self.insertChannel(cid, name: name, members: memberIDs, creator: creator, now: now, db)
            return (try Self.detail(cid, db), true)
        }
    }

    /// The creator first, then the members named, once each, at most ``maxMembers``.
    static func memberList(creator: UserID, members: [UserID]) throws -> [UserID] {
        var memberIDs = [creator]
        for member in members where !memberIDs.contains(member) { memberIDs.append(member) }
        guard memberIDs.count <= maxMembers else {
            throw ChatStoreError.invalidArgument(field: "members", reason: "at most \(maxMembers) members")
        }
        return memberIDs
    }

    static func insertChannel(
        _ cid: ChannelID, name: String, members: [UserID], creator: UserID, now: Int64, _ db: Connection
    ) throws {
        for member in members where try user(member, db) == nil {
            throw ChatStoreError.notFound(what: "user", id: member.rawValue)
        }
        try checkChannelQuota(of: creator, db)
        try db.run(
            "INSERT INTO channels(cid, type, name, created_by, created_at) VALUES (?, ?, ?, ?, ?)",
            [.text(cid.cid), .text(cid.type), .text(name), .text(creator.rawValue), .integer(now)])
        for member in members {
            try db.run(
                "INSERT INTO members(cid, user_id, joined_at) VALUES (?, ?, ?)",
                [.text(cid.cid), .text(member.rawValue), .integer(now)])
        }
    }

    /// The channel with its members, for a member of it.
    public func channelDetail(_ cid: ChannelID, for user: UserID) async throws -> ChannelDetail {
        try await read { db in
            try Self.requireMember(user, cid, db)
            return try Self.detail(cid, db)
        }
    }

    /// The channel, if it exists (no membership check).
    public func channel(_ cid: ChannelID) async throws -> Channel? {
        try await read { try Self.channel(cid, $0) }
    }

    /// Ids of the channel's members, oldest member first.
    public func memberIDs(of cid: ChannelID) async throws -> [UserID] {
        try await read { try Self.memberIDs(cid, $0) }
    }

    /// How many channels exist (0 for a new store).
    public func channelCount() async throws -> Int {
        try await read { try $0.row("SELECT COUNT(*) FROM channels") { $0.int(0) } ?? 0 }
    }

    /// Whether `user` is a member of `cid`.
    public func isMember(_ user: UserID, of cid: ChannelID) async throws -> Bool {
        try await read { try Self.isMember(user, cid, $0) }
    }

    /// The user's channels, most recently active first, with unread counts.
    public func channels(for user: UserID) async throws -> [ChannelSummary] {
        try await read { db in
            let rows = try db.rows(
                """
                SELECT \(Self.channelColumns), m.last_read_position FROM channels c
                JOIN members m ON m.cid = c.cid AND m.user_id = ?
                ORDER BY COALESCE(c.last_message_at, c.created_at) DESC, c.cid
                """, [.text(user.rawValue)]
            ) { row in (Self.channelRow(row), row.int64(8)) }
            return try rows.map { channel, readPosition in
                let unread =
                    try db.row(
                        """
                        SELECT COUNT(*) FROM messages
                        WHERE cid = ? AND position > ? AND parent_id IS NULL AND user_id != ? AND deleted_at IS NULL
                        """,
                        [.text(channel.cid.cid), .integer(readPosition), .text(user.rawValue)]
                    ) { $0.int(0) } ?? 0
                let threads = try Self.unreadThreads(for: user, in: channel.cid, db)
                let mentions =
                    unread == 0 && threads.isEmpty
                    ? 0 : try Self.unreadMentions(of: user, in: channel.cid, after: readPosition, threads: threads, db)
                let last = try db.row(
                    "SELECT \(Self.messageColumns) FROM messages WHERE cid = ? ORDER BY position DESC LIMIT 1",
                    [.text(channel.cid.cid)], Self.messageRow)
                let members = try db.rows(
                    """
                    SELECT \(Self.userColumns) FROM members m JOIN users u ON u.id = m.user_id
                    WHERE m.cid = ? ORDER BY m.joined_at, u.id
                    """, [.text(channel.cid.cid)], Self.userRow)
                return ChannelSummary(
                    channel: channel, members: members, unreadCount: unread, unreadMentions: mentions,
                    unreadThreads: threads.count, lastMessage: last)
            }
        }
    }

    /// Unread messages from others that mention `user` (see ``ChannelSummary/unreadMentions``).
    /// LIKE narrows (it ignores ASCII case, as ids are compared); the rule decides.
    static func unreadMentions(
        of user: UserID, in cid: ChannelID, after readPosition: Int64,
        threads: [(root: String, readPosition: Int64)], _ db: Connection
    ) throws -> Int {
        let floor = threads.map(\.readPosition).reduce(readPosition, min)
        let threadPositions = Dictionary(threads.map { ($0.root, $0.readPosition) }, uniquingKeysWith: min)
        return try db.rows(
            """
            SELECT text, parent_id, position FROM messages
            WHERE cid = ? AND position > ? AND user_id != ? AND deleted_at IS NULL AND text LIKE ? ESCAPE '\\'
            """,
            [
                .text(cid.cid), .integer(floor), .text(user.rawValue),
                .text("%@" + Self.likeEscaped(user.rawValue) + "%"),
            ]
        ) { (text: $0.string(0), root: $0.optionalString(1), position: $0.int64(2)) }
        .filter { row in
            // A reply counts in a followed thread with unread replies only (who is mentioned follows).
            let after: Int64? = if let root = row.root { threadPositions[root] } else { readPosition }
            guard let after, row.position > after else { return false }
            return Mentions.mentions(user, in: row.text)
        }.count
    }

    /// `text` for a LIKE pattern with `\` as its escape: `%` and `_` match themselves.
    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    static let channelColumns =
        "c.cid, c.name, c.created_by, c.created_at, c.last_message_at, c.type, c.is_public, c.topic"

    static func channelRow(_ row: Statement) -> Channel {
        let cidText = row.string(0)
        let type = row.string(5)
        let id = String(cidText.dropFirst(type.count + 1))
        return Channel(
            cid: ChannelID(type: type, id: id), name: row.string(1), createdBy: UserID(rawValue: row.string(2)),
            createdAt: Timestamp(milliseconds: row.int64(3)),
            lastMessageAt: row.optionalInt64(4).map(Timestamp.init(milliseconds:)), isPublic: row.int64(6) != 0,
            topic: row.string(7))
    }

    static func channel(_ cid: ChannelID, _ db: Connection) throws -> Channel? {
        try db.row("SELECT \(channelColumns) FROM channels c WHERE c.cid = ?", [.text(cid.cid)], channelRow)
    }

    static func isMember(_ user: UserID, _ cid: ChannelID, _ db: Connection) throws -> Bool {
        try db.row("SELECT 1 FROM members WHERE cid = ? AND user_id = ?", [.text(cid.cid), .text(user.rawValue)]) { _ in
            true
        } ?? false
    }

    /// Throws `notFound` for a missing channel and `notMember` for a non-member (which the API
    /// answers as it answers `notFound`: a channel's existence is no one else's business).
    static func requireMember(_ user: UserID, _ cid: ChannelID, _ db: Connection) throws {
        guard try isMember(user, cid, db) else {
            guard try channel(cid, db) != nil else { throw ChatStoreError.notFound(what: "channel", id: cid.cid) }
            throw ChatStoreError.notMember(user: user, channel: cid)
        }
    }

    static func memberIDs(_ cid: ChannelID, _ db: Connection) throws -> [UserID] {
        try db.rows("SELECT user_id FROM members WHERE cid = ? ORDER BY joined_at, user_id", [.text(cid.cid)]) {
            UserID(rawValue: $0.string(0))
        }
    }

    static func detail(_ cid: ChannelID, _ db: Connection) throws -> ChannelDetail {
        guard let channel = try channel(cid, db) else { throw ChatStoreError.notFound(what: "channel", id: cid.cid) }
        let members = try db.rows(
            """
            SELECT \(userColumns), m.joined_at, m.last_read_message_id, m.last_read_at
            FROM members m JOIN users u ON u.id = m.user_id
            WHERE m.cid = ? ORDER BY m.joined_at, u.id
            """, [.text(cid.cid)]
        ) { row in
            let user = userRow(row)
            return Member(
                user: user, joinedAt: Timestamp(milliseconds: row.int64(4)),
                read: ReadState(
                    user: user.id, lastReadMessageID: row.optionalString(5).map(MessageID.init(rawValue:)),
                    lastReadAt: row.optionalInt64(6).map(Timestamp.init(milliseconds:))))
        }
        return ChannelDetail(channel: channel, members: members)
    }
}
