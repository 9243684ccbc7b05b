import Foundation

/// The assistant's images: uploads wait in their conversation until a message sends them
/// (``appendAssistantMessage(_:to:for:attaching:)`` moves them to it, keeping their ids), and go
/// with the conversation when it is deleted. Like every assistant query, each names the owner.
extension ChatStore {
    /// Attaches an image to the conversation, to be sent with a later message.
    ///
    /// - Throws: `notFound` for a conversation `owner` does not have; `invalidArgument` when
    ///   ``maxAssistantImages`` images are already waiting there.
    public func addAssistantUpload(_ image: AssistantImage, to conversation: String, for owner: UserID) async throws
        -> AssistantImageInfo
    {
        try await write { db in
            _ = try Self.conversation(conversation, owner, db)
            let waiting =
                try db.row(
                    "SELECT COUNT(*) FROM assistant_uploads WHERE conversation_id = ?", [.text(conversation)]
                ) { $0.int(0) } ?? 0
            guard waiting < Self.maxAssistantImages else {
                throw ChatStoreError.invalidArgument(
                    field: "image",
                    reason: "\(Self.maxAssistantImages) images are already waiting to be sent; send or remove one first"
                )
            }
            try Self.checkWaitingImages(of: owner, adding: image.bytes.count, db)
            try Self.checkAssistantBytes(of: owner, adding: image.bytes.count, db)
            try Self.addAssistantBytes(Int64(image.bytes.count), for: owner, db)
            try db.run(
                """
                INSERT INTO assistant_uploads(id, conversation_id, mime_type, bytes, created_at, generated_by)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(image.id), .text(conversation), .text(image.mimeType), .blob(image.bytes),
                    .integer(Timestamp.now.milliseconds), .optionalText(image.generatedBy),
                ])
            return image.info
        }
    }

    /// Removes an image that is waiting to be sent (a sent one stays with its message).
    public func deleteAssistantUpload(_ id: String, in conversation: String, for owner: UserID) async throws {
        try await write { db in
            _ = try Self.conversation(conversation, owner, db)
            let bytes = try db.row(
                "SELECT length(bytes) FROM assistant_uploads WHERE id = ? AND conversation_id = ?",
                [.text(id), .text(conversation)]
            ) { $0.int64(0) }
            guard let bytes else { throw ChatStoreError.notFound(what: "image", id: id) }
            try db.run(
                "DELETE FROM assistant_uploads WHERE id = ? AND conversation_id = ?", [.text(id), .text(conversation)])
            try Self.addAssistantBytes(-bytes, for: owner, db)
        }
    }

    /// The images waiting in the conversation to be sent, oldest first.
    public func assistantUploads(in conversation: String, for owner: UserID) async throws -> [AssistantImageInfo] {
        try await read { db in
            _ = try Self.conversation(conversation, owner, db)
            return try db.rows(
                """
                SELECT id, mime_type, length(bytes), generated_by FROM assistant_uploads WHERE conversation_id = ?
                ORDER BY rowid
                """,
                [.text(conversation)]
            ) { row in
                AssistantImageInfo(
                    id: row.string(0), mimeType: row.string(1), byteCount: row.int(2),
                    generatedBy: row.optionalString(3))
            }
        }
    }

    /// An image with its bytes, sent or waiting, if it belongs to one of `owner`'s
    /// conversations (to `conversation`, when one is named).
    public func assistantImage(_ id: String, in conversation: String? = nil, for owner: UserID) async throws
        -> AssistantImage
    {
        try await read { db in
            guard
                let image = try db.row(
                    """
                    SELECT i.id, i.mime_type, i.bytes, i.generated_by FROM assistant_images i
                    JOIN assistant_messages m ON m.id = i.message_id
                    JOIN assistant_conversations c ON c.id = m.conversation_id
                    WHERE i.id = ?1 AND c.owner = ?2 AND (CAST(?3 AS TEXT) IS NULL OR c.id = ?3)
                    UNION ALL
                    SELECT u.id, u.mime_type, u.bytes, u.generated_by FROM assistant_uploads u
                    JOIN assistant_conversations c ON c.id = u.conversation_id
                    WHERE u.id = ?1 AND c.owner = ?2 AND (CAST(?3 AS TEXT) IS NULL OR c.id = ?3)
                    """, [.text(id), .text(owner.rawValue), .optionalText(conversation)],
                    Self.assistantImageRow)
            else { throw ChatStoreError.notFound(what: "image", id: id) }
            return image
        }
    }

    /// The named uploads of the conversation, removed from the waiting ones (and from the owner's
    /// count of bytes: the message that takes them counts them again).
    static func takeUploads(_ ids: [String], from conversation: String, owner: UserID, _ db: Connection) throws
        -> [AssistantImage]
    {
        try ids.map { id in
            guard
                let image = try db.row(
                    "SELECT id, mime_type, bytes, generated_by FROM assistant_uploads WHERE id = ? AND conversation_id = ?",
                    [.text(id), .text(conversation)], assistantImageRow)
            else { throw ChatStoreError.notFound(what: "image", id: id) }
            try db.run("DELETE FROM assistant_uploads WHERE id = ?", [.text(id)])
            try addAssistantBytes(-Int64(image.bytes.count), for: owner, db)
            return image
        }
    }

    /// An image from a row of (id, mime_type, bytes, generated_by).
    static func assistantImageRow(_ row: Statement) -> AssistantImage {
        AssistantImage(
            id: row.string(0), mimeType: row.string(1), bytes: row.blob(2), generatedBy: row.optionalString(3))
    }
}
