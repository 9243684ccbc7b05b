import Foundation

/// How much one user may keep, so that no user can fill the disk: every limit is checked in the
/// write that would pass it, which then fails with ``ChatStoreError/quotaExceeded(reason:)``.
public enum StorageQuota {
    /// Assistant conversations per user.
    public static let assistantConversations = 1_000
    /// Messages (answers and dividers included) per assistant conversation.
    public static let assistantMessagesPerConversation = 2_000
    /// Dividers per assistant conversation (each change of its settings adds one).
    public static let assistantDividersPerConversation = 200
    /// Images waiting to be sent, in all of a user's conversations.
    public static let waitingImagesPerUser = 16
    /// Bytes of images waiting to be sent, in all of a user's conversations.
    public static let waitingImageBytesPerUser = 64 * 1024 * 1024
    /// Bytes of everything a user's assistant conversations hold: the messages' text and the
    /// images, sent and waiting.
    public static let assistantBytesPerUser = 512 * 1024 * 1024
    /// Channels one user may create.
    public static let channelsCreatedPerUser = 500
}

extension ChatStore {
    /// The bytes `owner`'s assistant conversations hold (messages' text, images sent and waiting),
    /// against ``StorageQuota/assistantBytesPerUser``.
    public func assistantBytes(of owner: UserID) async throws -> Int64 {
        try await read { db in try Self.assistantBytes(of: owner, db) }
    }

    /// Throws when `owner` has ``StorageQuota/assistantConversations`` conversations.
    static func checkConversationQuota(of owner: UserID, _ db: Connection) throws {
        let count =
            try db.row("SELECT COUNT(*) FROM assistant_conversations WHERE owner = ?", [.text(owner.rawValue)]) {
                $0.int(0)
            } ?? 0
        guard count < StorageQuota.assistantConversations else {
            throw ChatStoreError.quotaExceeded(
                reason:
                    "you have \(count) assistant conversations, the most this server keeps for one user; delete some first"
            )
        }
    }

    /// Throws when the conversation cannot take `role`'s message: a user's needs room for its
    /// answer too; a divider, room under the dividers' limit.
    static func checkMessageQuota(for role: AssistantMessage.Role, in conversation: String, _ db: Connection) throws {
        guard role != .assistant else { return }  // an answer always lands: its prompt was let in
        let (messages, dividers) =
            try db.row(
                "SELECT COUNT(*), COUNT(*) FILTER (WHERE role = 'divider') FROM assistant_messages WHERE conversation_id = ?",
                [.text(conversation)]
            ) { ($0.int(0), $0.int(1)) } ?? (0, 0)
        let room = role == .user ? 2 : 1
        guard messages + room <= StorageQuota.assistantMessagesPerConversation else {
            throw ChatStoreError.quotaExceeded(
                reason:
                    "this conversation holds \(messages) messages, the most one may; start a new conversation")
        }
        if role == .divider, dividers >= StorageQuota.assistantDividersPerConversation {
            throw ChatStoreError.quotaExceeded(
                reason:
                    "this conversation's settings were changed \(dividers) times, the most one may; start a new conversation"
            )
        }
    }

    /// Throws when `adding` more bytes would take `owner`'s assistant data past
    /// ``StorageQuota/assistantBytesPerUser``.
    static func checkAssistantBytes(of owner: UserID, adding: Int, _ db: Connection) throws {
        let used = try assistantBytes(of: owner, db)
        guard used + Int64(adding) <= Int64(StorageQuota.assistantBytesPerUser) else {
            throw ChatStoreError.quotaExceeded(
                reason:
                    "your assistant conversations hold \(used / (1024 * 1024)) MB, and this would pass the \(StorageQuota.assistantBytesPerUser / (1024 * 1024)) MB this server keeps for one user; delete conversations first"
            )
        }
    }

    /// The bytes `owner`'s assistant conversations hold (messages' text, images sent and waiting),
    /// as the writes kept count of them in `assistant_usage`.
    static func assistantBytes(of owner: UserID, _ db: Connection) throws -> Int64 {
        try db.row("SELECT bytes FROM assistant_usage WHERE owner = ?", [.text(owner.rawValue)]) { $0.int64(0) } ?? 0
    }

    /// Counts `delta` bytes more (or fewer) in `owner`'s assistant data.
    static func addAssistantBytes(_ delta: Int64, for owner: UserID, _ db: Connection) throws {
        guard delta != 0 else { return }
        try db.run(
            db.dialect == .sqlite
                ? """
                INSERT INTO assistant_usage(owner, bytes) VALUES (?1, MAX(?2, 0))
                ON CONFLICT(owner) DO UPDATE SET bytes = MAX(bytes + ?2, 0)
                """ : PostgresSQL.quotaAdd, [.text(owner.rawValue), .integer(delta)])
    }

    /// The bytes a conversation holds, as counted in `assistant_usage`.
    static func assistantBytes(ofConversation id: String, _ db: Connection) throws -> Int64 {
        try db.row(
            """
            SELECT
                (SELECT COALESCE(SUM(length(CAST(text AS BLOB))), 0) FROM assistant_messages WHERE conversation_id = ?1)
              + (SELECT COALESCE(SUM(length(i.bytes)), 0) FROM assistant_images i
                    JOIN assistant_messages m ON m.id = i.message_id WHERE m.conversation_id = ?1)
              + (SELECT COALESCE(SUM(length(bytes)), 0) FROM assistant_uploads WHERE conversation_id = ?1)
            """, [.text(id)]
        ) { $0.int64(0) } ?? 0
    }

    /// Throws when one more image of `bytes` would pass the limits on waiting images.
    static func checkWaitingImages(of owner: UserID, adding bytes: Int, _ db: Connection) throws {
        let (count, total) =
            try db.row(
                """
                SELECT COUNT(*), COALESCE(SUM(length(u.bytes)), 0) FROM assistant_uploads u
                JOIN assistant_conversations c ON c.id = u.conversation_id WHERE c.owner = ?
                """, [.text(owner.rawValue)]
            ) { ($0.int(0), $0.int64(1)) } ?? (0, 0)
        guard count < StorageQuota.waitingImagesPerUser,
            total + Int64(bytes) <= Int64(StorageQuota.waitingImageBytesPerUser)
        else {
            throw ChatStoreError.quotaExceeded(
                reason:
                    "you have \(count) images (\(total / (1024 * 1024)) MB) waiting to be sent in your conversations, the most this server keeps (\(StorageQuota.waitingImagesPerUser) images, \(StorageQuota.waitingImageBytesPerUser / (1024 * 1024)) MB); send or remove some first"
            )
        }
    }

    /// Throws when `creator` has created ``StorageQuota/channelsCreatedPerUser`` channels.
    static func checkChannelQuota(of creator: UserID, _ db: Connection) throws {
        let count =
            try db.row("SELECT COUNT(*) FROM channels WHERE created_by = ?", [.text(creator.rawValue)]) { $0.int(0) }
            ?? 0
        guard count < StorageQuota.channelsCreatedPerUser else {
            throw ChatStoreError.quotaExceeded(
                reason: "you have created \(count) channels, the most this server lets one user create")
        }
    }
}
