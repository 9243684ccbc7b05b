/// A person who can chat.
public struct User: Hashable, Sendable, Codable {
    public var id: UserID
    /// Display name, 1–100 characters.
    public var name: String
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(id: UserID, name: String, createdAt: Timestamp, updatedAt: Timestamp) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A conversation between members.
public struct Channel: Hashable, Sendable, Codable {
    public var cid: ChannelID
    public var name: String
    public var createdBy: UserID
    public var createdAt: Timestamp
    /// Time of the newest message, if any.
    public var lastMessageAt: Timestamp?
    /// Listed to everyone, who may join; a private channel is for its members alone.
    public var isPublic: Bool
    /// What the channel is about ('' for nothing said).
    public var topic: String

    public init(
        cid: ChannelID, name: String, createdBy: UserID, createdAt: Timestamp, lastMessageAt: Timestamp?,
        isPublic: Bool = false, topic: String = ""
    ) {
        self.cid = cid
        self.name = name
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.lastMessageAt = lastMessageAt
        self.isPublic = isPublic
        self.topic = topic
    }

    enum CodingKeys: String, CodingKey {
        case cid, name, topic
        case createdBy = "created_by"
        case createdAt = "created_at"
        case lastMessageAt = "last_message_at"
        case isPublic = "public"
    }
}

/// How far a member has read a channel.
public struct ReadState: Hashable, Sendable, Codable {
    public var user: UserID
    /// The newest message the member has read, if any.
    public var lastReadMessageID: MessageID?
    public var lastReadAt: Timestamp?

    public init(user: UserID, lastReadMessageID: MessageID?, lastReadAt: Timestamp?) {
        self.user = user
        self.lastReadMessageID = lastReadMessageID
        self.lastReadAt = lastReadAt
    }

    enum CodingKeys: String, CodingKey {
        case user = "user_id"
        case lastReadMessageID = "last_read_message_id"
        case lastReadAt = "last_read_at"
    }
}

/// A channel member with profile and read state.
public struct Member: Hashable, Sendable, Codable {
    public var user: User
    public var joinedAt: Timestamp
    public var read: ReadState

    public init(user: User, joinedAt: Timestamp, read: ReadState) {
        self.user = user
        self.joinedAt = joinedAt
        self.read = read
    }

    enum CodingKeys: String, CodingKey {
        case user
        case joinedAt = "joined_at"
        case read
    }
}

/// One message in a channel.
public struct Message: Hashable, Sendable, Codable {
    public var id: MessageID
    public var cid: ChannelID
    public var author: UserID
    public var text: String
    public var createdAt: Timestamp
    /// The thread root this message replies to, if any.
    public var parentID: MessageID?
    /// When its author last edited it.
    public var editedAt: Timestamp?
    /// When it was deleted: its text is empty, and it stands as a tombstone.
    public var deletedAt: Timestamp?
    /// Reactions, in the order each emoji was first given; nil for none.
    public var reactions: [Reaction]?
    /// For a thread's root: how many replies it has (deleted ones stand as tombstones and
    /// count), and when the newest came; nil for a message nobody replied to.
    public var replyCount: Int?
    public var lastReplyAt: Timestamp?
    /// The files it carries; nil for none.
    public var attachments: [AttachmentInfo]?

    public init(
        id: MessageID, cid: ChannelID, author: UserID, text: String, createdAt: Timestamp, parentID: MessageID? = nil,
        editedAt: Timestamp? = nil, deletedAt: Timestamp? = nil, reactions: [Reaction]? = nil
    ) {
        self.id = id
        self.cid = cid
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.parentID = parentID
        self.editedAt = editedAt
        self.deletedAt = deletedAt
        self.reactions = reactions
    }

    enum CodingKeys: String, CodingKey {
        case id, cid, text, reactions
        case author = "user_id"
        case createdAt = "created_at"
        case parentID = "parent_id"
        case editedAt = "edited_at"
        case deletedAt = "deleted_at"
        case replyCount = "reply_count"
        case lastReplyAt = "last_reply_at"
        case attachments
    }
}

/// One emoji on a message: how many gave it, and who.
public struct Reaction: Hashable, Sendable, Codable {
    public var emoji: String
    public var count: Int
    public var users: [UserID]

    public init(emoji: String, users: [UserID]) {
        self.emoji = emoji
        self.count = users.count
        self.users = users
    }
}

/// A channel as seen by one member in their channel list.
public struct ChannelSummary: Hashable, Sendable, Codable {
    public var channel: Channel
    public var members: [User]
    /// Top-level messages from others after the member's read position (deleted ones left out;
    /// replies count in their threads).
    public var unreadCount: Int
    /// Unread messages that mention the member (`@user-id`, see ``Mentions``): top-level ones
    /// after the read position, and replies in threads they follow after the thread's.
    public var unreadMentions: Int
    /// Threads the member follows with replies from others they have not read.
    public var unreadThreads: Int
    public var lastMessage: Message?

    public init(
        channel: Channel, members: [User], unreadCount: Int, unreadMentions: Int = 0, unreadThreads: Int = 0,
        lastMessage: Message?
    ) {
        self.channel = channel
        self.members = members
        self.unreadCount = unreadCount
        self.unreadMentions = unreadMentions
        self.unreadThreads = unreadThreads
        self.lastMessage = lastMessage
    }

    enum CodingKeys: String, CodingKey {
        case channel, members
        case unreadCount = "unread_count"
        case unreadMentions = "unread_mentions"
        case unreadThreads = "unread_threads"
        case lastMessage = "last_message"
    }
}

/// A channel with its members (profiles and read states).
public struct ChannelDetail: Hashable, Sendable, Codable {
    public var channel: Channel
    public var members: [Member]

    public init(channel: Channel, members: [Member]) {
        self.channel = channel
        self.members = members
    }
}

/// One page of a channel's history, oldest first.
public struct MessagePage: Hashable, Sendable, Codable {
    /// A channel's page holds its top-level messages (replies are in their threads); a
    /// thread's page, its replies.
    public var messages: [Message]
    /// True when older messages exist before the first one returned.
    public var hasMore: Bool
    /// For the reader: the threads on this page they follow with replies from others they have
    /// not read, and how many; nil when there are none.
    public var unreadReplies: [ThreadUnread]?

    public init(messages: [Message], hasMore: Bool, unreadReplies: [ThreadUnread]? = nil) {
        self.messages = messages
        self.hasMore = hasMore
        self.unreadReplies = unreadReplies
    }

    enum CodingKeys: String, CodingKey {
        case messages
        case hasMore = "has_more"
        case unreadReplies = "unread_replies"
    }
}

/// Replies a reader has not read in one thread.
public struct ThreadUnread: Hashable, Sendable, Codable {
    public var parentID: MessageID
    public var count: Int

    public init(parentID: MessageID, count: Int) {
        self.parentID = parentID
        self.count = count
    }

    enum CodingKeys: String, CodingKey {
        case count
        case parentID = "parent_id"
    }
}

/// A thread as one reader sees it: its root, a page of replies, and how many of them are new.
public struct ThreadPage: Hashable, Sendable, Codable {
    public var parent: Message
    /// Replies, oldest first, ending just before `before` (or at the newest).
    public var messages: [Message]
    /// True when older replies exist before the first one returned.
    public var hasMore: Bool
    /// Replies from others after the reader's read position in this thread (before this read).
    public var unread: Int
    /// Whether the reader follows the thread (started it, replied, was mentioned, or opened it).
    public var following: Bool

    public init(parent: Message, messages: [Message], hasMore: Bool, unread: Int, following: Bool) {
        self.parent = parent
        self.messages = messages
        self.hasMore = hasMore
        self.unread = unread
        self.following = following
    }

    enum CodingKeys: String, CodingKey {
        case parent, messages, unread, following
        case hasMore = "has_more"
    }
}

/// `@user-id` in a message's text: the user is mentioned when the id stands as a word of its own
/// (not inside an e-mail address or a longer id; a sentence's full stop may follow it), compared
/// without case. The web app finds and highlights them by the same rule.
public enum Mentions {
    /// Whether `text` mentions `user`.
    public static func mentions(_ user: UserID, in text: String) -> Bool {
        let id = Array(user.rawValue.lowercased().unicodeScalars)
        let scalars = Array(text.lowercased().unicodeScalars)
        guard !id.isEmpty, scalars.count > id.count else { return false }
        var index = 0
        while index + id.count < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "@", index == 0 || !isIDCharacter(scalars[index - 1]) else { continue }
            let start = index + 1
            guard Array(scalars[start..<start + id.count]) == id else { continue }
            let end = start + id.count
            if end == scalars.count { return true }
            let next = scalars[end]
            if next == "." {
                // "@alice." ends a sentence; "@alice.b" is another id.
                if end + 1 == scalars.count || !isIDCharacter(scalars[end + 1]) { return true }
                continue
            }
            if !isIDCharacter(next) { return true }
        }
        return false
    }

    private static func isIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic && scalar.isASCII || ("0"..."9").contains(scalar)
            || "_.@-".unicodeScalars.contains(scalar)
    }
}
