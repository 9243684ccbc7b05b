import Foundation

extension EventType {
    /// Someone joined or was added to the channel (sent to its members, the new one included).
    public static let memberAdded = "member.added"
    /// The channel's name or topic changed.
    public static let channelUpdated = "channel.updated"
}

/// A public channel as the channel browser lists it.
public struct ChannelListing: Hashable, Sendable, Codable {
    public var channel: Channel
    public var memberCount: Int
    /// Whether the user asking is a member.
    public var joined: Bool

    public init(channel: Channel, memberCount: Int, joined: Bool) {
        self.channel = channel
        self.memberCount = memberCount
        self.joined = joined
    }

    enum CodingKeys: String, CodingKey {
        case channel, joined
        case memberCount = "member_count"
    }
}

/// Channels people make from the app: public ones anyone may find and join, private ones whose
/// members add members; names and topics; adding and removing members. Direct messages keep
/// their member set (``getOrCreateDistinctChannel(type:name:members:by:)``).
extension ChatStore {
    /// The longest topic.
    public static let maxTopicLength = 250
    /// Public channels listed at most.
    public static let maxListedChannels = 500

    /// Makes a channel (type `team`, an id from its name and a random suffix) with `creator` and
    /// `members`.
    public func createChannel(
        name: String, topic: String = "", isPublic: Bool, members: [UserID] = [], by creator: UserID
    ) async throws -> ChannelDetail {
        let name = try Self.validatedName(name, field: "name")
        let topic = try Self.validatedTopic(topic)
        let memberIDs = try Self.memberList(creator: creator, members: members)
        let cid = ChannelID(
            type: "team", id: Self.slug(name) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 36))
        let now = Timestamp.now.milliseconds
        return try await write { [memberIDs] db in
            try Self.insertChannel(cid, name: name, members: memberIDs, creator: creator, now: now, db)
            try db.run(
                "UPDATE channels SET is_public = ?, topic = ? WHERE cid = ?",
                [.integer(isPublic ? 1 : 0), .text(topic), .text(cid.cid)])
            return try Self.detail(cid, db)
        }
    }

    /// Every public channel, by name, and whether `user` is in it.
    public func publicChannels(for user: UserID) async throws -> [ChannelListing] {
        try await read { db in
            try db.rows(
                """
                SELECT \(Self.channelColumns),
                    (SELECT COUNT(*) FROM members m WHERE m.cid = c.cid),
                    EXISTS (SELECT 1 FROM members m WHERE m.cid = c.cid AND m.user_id = ?)
                FROM channels c WHERE c.is_public = 1 ORDER BY \(db.dialect == .sqlite ? "c.name COLLATE NOCASE" : "lower(c.name)"), c.cid LIMIT ?
                """, [.text(user.rawValue), .int(Self.maxListedChannels)]
            ) { ChannelListing(channel: Self.channelRow($0), memberCount: $0.int(8), joined: $0.int(9) != 0) }
        }
    }

    /// Joins a public channel (a member already: nothing changes).
    ///
    /// - Throws: `notFound` for a channel that does not exist or is private and not `user`'s.
    public func joinChannel(_ cid: ChannelID, user: UserID) async throws -> ChannelDetail {
        let memory = writerMemory
        return try await write { db in
            let member = try Self.isMember(user, cid, db)
            guard let channel = try Self.channel(cid, db), channel.isPublic || member else {
                throw ChatStoreError.notFound(what: "channel", id: cid.cid)
            }
            if !member { try Self.addMember(user, to: cid, memory, db) }
            return try Self.detail(cid, db)
        }
    }

    /// Adds people to a channel: a member may (in a private channel as in a public one), and an
    /// administrator may anywhere. Those already in it stay as they are.
    ///
    /// - Throws: `notFound` (the channel, for someone outside it; a user), `invalidArgument` (a
    ///   direct message: its members are fixed; too many members).
    public func addMembers(_ users: [UserID], to cid: ChannelID, by actor: UserID, asAdministrator: Bool) async throws
        -> ChannelDetail
    {
        let memory = writerMemory
        return try await write { db in
            try Self.requireChannelAccess(cid, actor, asAdministrator, db)
            guard !cid.isDistinct else {
                throw ChatStoreError.invalidArgument(
                    field: "cid", reason: "a direct message's members are fixed: start one with the people you want")
            }
            let current = Set(try Self.memberIDs(cid, db))
            let added = users.reduce(into: [UserID]()) { list, user in
                if !current.contains(user), !list.contains(user) { list.append(user) }
            }
            guard current.count + added.count <= Self.maxMembers else {
                throw ChatStoreError.invalidArgument(field: "members", reason: "at most \(Self.maxMembers) members")
            }
            for user in added {
                guard try Self.user(user, db) != nil else {
                    throw ChatStoreError.notFound(what: "user", id: user.rawValue)
                }
                try Self.addMember(user, to: cid, memory, db)
            }
            return try Self.detail(cid, db)
        }
    }

    /// Takes `user` out of a channel: themselves (leaving), or someone else by the channel's
    /// creator or an administrator.
    ///
    /// - Throws: `notFound`, `forbidden` (not the creator), `invalidArgument` (a direct message).
    public func removeMember(_ user: UserID, from cid: ChannelID, by actor: UserID, asAdministrator: Bool) async throws
    {
        if user == actor { return try await leaveChannel(cid, user: user) }
        let memory = writerMemory
        try await write { db in
            try Self.requireChannelAccess(cid, actor, asAdministrator, db)
            guard !cid.isDistinct else {
                throw ChatStoreError.invalidArgument(field: "cid", reason: "a direct message's members are fixed")
            }
            guard let channel = try Self.channel(cid, db), channel.createdBy == actor || asAdministrator else {
                throw ChatStoreError.forbidden(reason: "only the channel's creator or an administrator removes members")
            }
            guard try Self.isMember(user, cid, db) else {
                throw ChatStoreError.notFound(what: "member", id: user.rawValue)
            }
            try Self.removeMembership(user, from: cid, memory, db)
        }
    }

    /// Renames a channel or sets its topic (nil: unchanged); any member may.
    public func updateChannel(_ cid: ChannelID, name: String?, topic: String?, by actor: UserID) async throws -> Channel
    {
        let name = try name.map { try Self.validatedName($0, field: "name") }
        let topic = try topic.map(Self.validatedTopic)
        let memory = writerMemory
        return try await write { db in
            try Self.requireMember(actor, cid, db)
            if let name { try db.run("UPDATE channels SET name = ? WHERE cid = ?", [.text(name), .text(cid.cid)]) }
            if let topic { try db.run("UPDATE channels SET topic = ? WHERE cid = ?", [.text(topic), .text(cid.cid)]) }
            guard let channel = try Self.channel(cid, db) else {
                throw ChatStoreError.notFound(what: "channel", id: cid.cid)
            }
            let body = ChannelEventBody(type: EventType.channelUpdated, cid: cid, createdAt: .now, channel: channel)
            try Self.appendEvent(
                type: body.type, payload: String(decoding: try Self.encoder.encode(body), as: UTF8.self),
                to: .channel(cid, except: nil), ephemeral: false, memory, db)
            return channel
        }
    }

    private static func addMember(_ user: UserID, to cid: ChannelID, _ memory: WriterMemory, _ db: Connection) throws {
        try db.run(
            "INSERT INTO members(cid, user_id, joined_at) VALUES (?, ?, ?)",
            [.text(cid.cid), .text(user.rawValue), .integer(Timestamp.now.milliseconds)])
        memory.forgetMembers(of: cid)
        try appendEvent(
            EventBody(type: EventType.memberAdded, cid: cid, createdAt: .now, user: user),
            to: .channel(cid, except: nil), ephemeral: false, memory, db)
    }

    /// A member, or an administrator; anyone else is told the channel does not exist.
    private static func requireChannelAccess(
        _ cid: ChannelID, _ actor: UserID, _ asAdministrator: Bool, _ db: Connection
    )
        throws
    {
        if asAdministrator {
            guard try channel(cid, db) != nil else { throw ChatStoreError.notFound(what: "channel", id: cid.cid) }
        } else if try !isMember(actor, cid, db) {
            throw ChatStoreError.notFound(what: "channel", id: cid.cid)
        }
    }

    static func validatedTopic(_ topic: String) throws -> String {
        let trimmed = topic.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.unicodeScalars.count <= maxTopicLength else {
            throw ChatStoreError.invalidArgument(field: "topic", reason: "longer than \(maxTopicLength) characters")
        }
        let refused = trimmed.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
        guard !refused else {
            throw ChatStoreError.invalidArgument(
                field: "topic", reason: "must not hold control or bidirectional-override characters")
        }
        return trimmed
    }

    /// Lowercase ASCII letters and digits of `name`, joined by hyphens, at most 40 (`channel` for
    /// a name with none).
    static func slug(_ name: String) -> String {
        var slug = ""
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, slug.last != "-" {
                slug += "-"
            }
            if slug.count >= 40 { break }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "channel" : slug
    }
}

/// `channel.updated`'s fields.
struct ChannelEventBody: Encodable {
    var type: String
    var cid: ChannelID
    var createdAt: Timestamp
    var channel: Channel

    enum CodingKeys: String, CodingKey {
        case type, cid, channel
        case createdAt = "created_at"
    }
}
