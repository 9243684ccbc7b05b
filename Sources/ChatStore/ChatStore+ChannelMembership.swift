import Digests
import Foundation

extension ChannelID {
    /// The prefix of the ids the server makes from a channel's members.
    public static let distinctPrefix = "!members-"

    /// The channel of exactly `members` (in any order, repeats ignored): its id is made from
    /// them, `type:!members-` and 32 hex digits of their SHA-256, so the same people always
    /// find the same channel and no one can hold its id with someone else in it.
    public static func distinct(type: String, members: Set<UserID>) -> ChannelID {
        var digest = SHA256()
        for member in members.sorted() { digest.update(Array((member.rawValue + "\n").utf8)) }
        return ChannelID(type: type, id: distinctPrefix + digest.finalize().prefix(32))
    }

    /// Whether the server made this id from the channel's members (ids starting with `!`).
    public var isDistinct: Bool { id.hasPrefix("!") }
}

extension EventType {
    /// A member left the channel (sent to its members, the one leaving included).
    public static let memberLeft = "member.left"
}

/// Channels identified by their members (direct messages), and leaving a channel.
extension ChatStore {
    /// Returns the channel of exactly `creator` and `members` (``ChannelID/distinct(type:members:)``),
    /// creating it with `name` if it does not exist. Someone of that set who left it is a member
    /// again: they asked for exactly these people.
    public func getOrCreateDistinctChannel(
        type: String, name: String?, members: [UserID], by creator: UserID
    ) async throws -> (detail: ChannelDetail, created: Bool) {
        let memberIDs = try Self.memberList(creator: creator, members: members)
        let cid = ChannelID.distinct(type: type, members: Set(memberIDs))
        let name = try name.map { try Self.validatedName($0, field: "name") } ?? cid.id
        let now = Timestamp.now.milliseconds
        let memory = writerMemory
        return try await write { db in
            if try Self.channel(cid, db) != nil {
                if try !Self.isMember(creator, cid, db) {
                    try db.run(
                        "INSERT INTO members(cid, user_id, joined_at) VALUES (?, ?, ?)",
                        [.text(cid.cid), .text(creator.rawValue), .integer(now)])
                    memory.forgetMembers(of: cid)
                }
                return (try Self.detail(cid, db), false)
            }
            try Self.insertChannel(cid, name: name, members: memberIDs, creator: creator, now: now, db)
            return (try Self.detail(cid, db), true)
        }
    }

    /// Takes `user` out of the channel: its messages and events are no longer theirs to read.
    /// The members (`user` included, for their other sockets) get a `member.left` event.
    ///
    /// - Throws: `notFound` for a channel that does not exist, `notMember` for one `user` is
    ///   not in.
    public func leaveChannel(_ cid: ChannelID, user: UserID) async throws {
        let memory = writerMemory
        try await write { db in
            try Self.requireMember(user, cid, db)
            try Self.removeMembership(user, from: cid, memory, db)
        }
    }

    /// Sends `member.left` to the members (the one going included, for their other sockets) and
    /// deletes the membership.
    static func removeMembership(_ user: UserID, from cid: ChannelID, _ memory: WriterMemory, _ db: Connection) throws {
        try appendEvent(
            EventBody(type: EventType.memberLeft, cid: cid, createdAt: .now, user: user),
            to: .channel(cid, except: nil), ephemeral: false, memory, db)
        try db.run("DELETE FROM members WHERE cid = ? AND user_id = ?", [.text(cid.cid), .text(user.rawValue)])
        memory.forgetMembers(of: cid)
    }
}
