import Foundation

/// The assistant's conversations. Every read and write names the owner, and a conversation of
/// another user is `notFound`, exactly as a missing one, so ids cannot be probed.
extension ChatStore {
    /// Longest title, in characters.
    public static let maxAssistantTitleLength = 120
    /// Longest instructions, in characters.
    public static let maxAssistantInstructionsLength = 4000
    /// Longest stored message (a model's answer may be longer than a user's message), in bytes.
    public static let maxAssistantMessageBytes = 64 * 1024
    /// Most images on one message.
    public static let maxAssistantImages = 4

    /// Checks an id from outside (a conversation's, a message's, an image's).
    public static func validatedAssistantID(_ text: String, field: String = "id") throws -> String {
        try Identifier.check(text, field: field, maxLength: 64, extra: "-_")
        return text
    }

    /// Starts a conversation for `owner`, opened now.
    public func createAssistantConversation(
        for owner: UserID, title: String = "New chat", settings: AssistantSettings
    ) async throws -> AssistantConversation {
        let title = try Self.checkedTitle(title)
        try Self.check(settings)
        let now = Timestamp.now
        var conversation = AssistantConversation(
            id: UUID().uuidString.lowercased(), owner: owner, title: title, persona: settings.persona,
            instructions: settings.instructions, temperature: settings.temperature, language: settings.language,
            createdAt: now, updatedAt: now, openedAt: now)
        conversation.updatedAt = try await write { [conversation] db in
            guard try Self.user(owner, db) != nil else {
                throw ChatStoreError.notFound(what: "user", id: owner.rawValue)
            }
            try Self.checkConversationQuota(of: owner, db)
            let updatedAt = try Self.activityTime(of: owner, now: now, db)
            try db.run(
                """
                INSERT INTO assistant_conversations(id, owner, title, persona, instructions, temperature, language,
                    created_at, updated_at, opened_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(conversation.id), .text(owner.rawValue), .text(title), .text(settings.persona),
                    .text(settings.instructions), .real(settings.temperature), .optionalText(settings.language),
                    .integer(now.milliseconds), .integer(updatedAt.milliseconds), .integer(now.milliseconds),
                ])
            return updatedAt
        }
        return conversation
    }

    /// `owner`'s conversations, the most recently updated first.
    public func assistantConversations(for owner: UserID, limit: Int = 200) async throws -> [AssistantConversation] {
        try await read { db in
            try db.rows(
                """
                SELECT \(Self.conversationColumns) FROM assistant_conversations WHERE owner = ?
                ORDER BY updated_at DESC, rowid DESC LIMIT ?
                """, [.text(owner.rawValue), .int(min(max(limit, 1), 1000))], Self.conversationRow)
        }
    }

    /// The conversation `id` of `owner`.
    public func assistantConversation(_ id: String, for owner: UserID) async throws -> AssistantConversation {
        try await read { db in try Self.conversation(id, owner, db) }
    }

    /// The conversation `owner` opened last, if any.
    public func lastOpenedAssistantConversation(for owner: UserID) async throws -> AssistantConversation? {
        try await read { db in
            try db.row(
                """
                SELECT \(Self.conversationColumns) FROM assistant_conversations WHERE owner = ?
                ORDER BY opened_at DESC, rowid DESC LIMIT 1
                """, [.text(owner.rawValue)], Self.conversationRow)
        }
    }

    /// Notes that `owner` opened the conversation now.
    public func markAssistantConversationOpened(_ id: String, for owner: UserID) async throws {
        let now = Timestamp.now
        try await write { db in
            _ = try Self.conversation(id, owner, db)
            // Strictly later than any other, so two opens in one millisecond keep their order.
            let newest =
                try db.row(
                    "SELECT MAX(opened_at) FROM assistant_conversations WHERE owner = ?", [.text(owner.rawValue)]
                ) { $0.int64(0) } ?? 0
            try db.run(
                "UPDATE assistant_conversations SET opened_at = ? WHERE id = ?",
                [.integer(max(now.milliseconds, newest + 1)), .text(id)])
        }
    }

    /// Renames the conversation.
    public func renameAssistantConversation(_ id: String, to title: String, for owner: UserID) async throws
        -> AssistantConversation
    {
        let title = try Self.checkedTitle(title)
        return try await write { db in
            _ = try Self.conversation(id, owner, db)
            try db.run("UPDATE assistant_conversations SET title = ? WHERE id = ?", [.text(title), .text(id)])
            return try Self.conversation(id, owner, db)
        }
    }

    /// Changes the conversation's persona, instructions, temperature or language. When anything
    /// changes, the model starts a new session: a divider saying so (`dividerText`) is appended
    /// and returned with the conversation.
    public func updateAssistantSettings(
        _ id: String, to settings: AssistantSettings, dividerText: String, for owner: UserID
    ) async throws -> (conversation: AssistantConversation, divider: AssistantMessage?) {
        try Self.check(settings)
        return try await write { db in
            let current = try Self.conversation(id, owner, db)
            let unchanged =
                current.persona == settings.persona && current.instructions == settings.instructions
                && current.temperature == settings.temperature && current.language == settings.language
            if unchanged { return (current, nil) }
            try Self.checkMessageQuota(for: .divider, in: id, db)
            try db.run(
                "UPDATE assistant_conversations SET persona = ?, instructions = ?, temperature = ?, language = ? WHERE id = ?",
                [
                    .text(settings.persona), .text(settings.instructions), .real(settings.temperature),
                    .optionalText(settings.language), .text(id),
                ])
            let divider = try Self.insertMessage(NewAssistantMessage(role: .divider, text: dividerText), into: id, db)
            return (try Self.conversation(id, owner, db), divider)
        }
    }

    /// Deletes the conversation with its messages and images (sent or waiting to be).
    public func deleteAssistantConversation(_ id: String, for owner: UserID) async throws {
        try await write { db in
            _ = try Self.conversation(id, owner, db)
            try Self.addAssistantBytes(-(try Self.assistantBytes(ofConversation: id, db)), for: owner, db)
            try db.run(
                """
                DELETE FROM assistant_images WHERE message_id IN
                    (SELECT id FROM assistant_messages WHERE conversation_id = ?)
                """, [.text(id)])
            try db.run("DELETE FROM assistant_uploads WHERE conversation_id = ?", [.text(id)])
            try db.run("DELETE FROM assistant_messages WHERE conversation_id = ?", [.text(id)])
            try db.run("DELETE FROM assistant_conversations WHERE id = ?", [.text(id)])
        }
    }

    /// Appends a message (with its images, and the uploads of the conversation named by
    /// `uploadIDs`, which move to it) and moves the conversation to the top of the list.
    ///
    /// - Throws: `notFound` for an upload id that is not waiting in this conversation.
    public func appendAssistantMessage(
        _ new: NewAssistantMessage, to conversation: String, for owner: UserID, attaching uploadIDs: [String] = []
    ) async throws -> AssistantMessage {
        guard
            new.role == .divider || !new.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                || !new.images.isEmpty || !uploadIDs.isEmpty || new.stopped
        else { throw ChatStoreError.invalidArgument(field: "text", reason: "must not be empty") }
        guard new.text.utf8.count <= Self.maxAssistantMessageBytes else {
            throw ChatStoreError.invalidArgument(
                field: "text", reason: "longer than \(Self.maxAssistantMessageBytes) bytes of UTF-8")
        }
        guard new.images.count + uploadIDs.count <= Self.maxAssistantImages else {
            throw ChatStoreError.invalidArgument(
                field: "images", reason: "at most \(Self.maxAssistantImages) images on a message")
        }
        guard Set(uploadIDs).count == uploadIDs.count else {
            throw ChatStoreError.invalidArgument(field: "image_ids", reason: "an image is named twice")
        }
        return try await write { db in
            _ = try Self.conversation(conversation, owner, db)
            try Self.checkMessageQuota(for: new.role, in: conversation, db)
            if new.role != .assistant {
                let bytes = new.text.utf8.count + new.images.reduce(0) { $0 + $1.bytes.count }
                try Self.checkAssistantBytes(of: owner, adding: bytes, db)
            }
            var message = new
            message.images += try Self.takeUploads(uploadIDs, from: conversation, owner: owner, db)
            return try Self.insertMessage(message, into: conversation, db)
        }
    }

    /// Deletes one message of the conversation (the last answer, before it is regenerated).
    public func deleteAssistantMessage(_ id: String, in conversation: String, for owner: UserID) async throws {
        try await write { db in
            _ = try Self.conversation(conversation, owner, db)
            let bytes =
                try db.row(
                    """
                    SELECT length(CAST(text AS BLOB))
                        + (SELECT COALESCE(SUM(length(bytes)), 0) FROM assistant_images WHERE message_id = ?1)
                    FROM assistant_messages WHERE id = ?1 AND conversation_id = ?2
                    """, [.text(id), .text(conversation)]
                ) { $0.int64(0) } ?? 0
            try Self.addAssistantBytes(-bytes, for: owner, db)
            try db.run("DELETE FROM assistant_images WHERE message_id = ?", [.text(id)])
            try db.run(
                "DELETE FROM assistant_messages WHERE id = ? AND conversation_id = ?", [.text(id), .text(conversation)])
            guard db.changes == 1 else { throw ChatStoreError.notFound(what: "message", id: id) }
        }
    }

    /// Every message of the conversation, oldest first.
    public func assistantMessages(in conversation: String, for owner: UserID) async throws -> [AssistantMessage] {
        try await read { db in
            _ = try Self.conversation(conversation, owner, db)
            var messages = try db.rows(
                "SELECT \(Self.assistantMessageColumns) FROM assistant_messages WHERE conversation_id = ? ORDER BY position",
                [.text(conversation)], Self.assistantMessageRow)
            let images = try db.rows(
                """
                SELECT i.message_id, i.id, i.mime_type, length(i.bytes), i.generated_by FROM assistant_images i
                JOIN assistant_messages m ON m.id = i.message_id
                WHERE m.conversation_id = ? ORDER BY i.rowid
                """, [.text(conversation)]
            ) { row in
                (
                    row.string(0),
                    AssistantImageInfo(
                        id: row.string(1), mimeType: row.string(2), byteCount: row.int(3),
                        generatedBy: row.optionalString(4))
                )
            }
            let byMessage = Dictionary(grouping: images, by: \.0)
            for index in messages.indices {
                messages[index].images = byMessage[messages[index].id]?.map(\.1) ?? []
            }
            return messages
        }
    }

    /// `owner`'s user and assistant messages that match `query`, best first (``SearchRanking``).
    ///
    /// - Throws: `invalidArgument` for a query without a letter or digit.
    public func searchAssistantMessages(_ query: String, for owner: UserID, limit: Int = 20) async throws
        -> [AssistantSearchHit]
    {
        let terms = SearchRanking.terms(of: query)
        guard !terms.isEmpty else {
            throw ChatStoreError.invalidArgument(field: "q", reason: "the search needs at least one word or number")
        }
        let limit = min(max(limit, 1), Self.maxSearchResults)
        let rows = try await read { db in
            let sqlite = db.dialect == .sqlite
            return try db.rows(
                sqlite
                    ? """
                    SELECT m.position, m.id, m.conversation_id, m.role, m.text, m.input_tokens, m.output_tokens,
                        m.model, m.stopped, m.created_at, c.title
                    FROM assistant_message_search
                    JOIN assistant_messages m ON m.position = assistant_message_search.rowid
                    JOIN assistant_conversations c ON c.id = m.conversation_id AND c.owner = ?
                    WHERE assistant_message_search MATCH ?
                    ORDER BY assistant_message_search.rowid DESC LIMIT ?
                    """ : PostgresSQL.assistantSearch,
                [
                    .text(owner.rawValue),
                    .text(sqlite ? SearchRanking.matchExpression(for: terms) : PostgresSQL.tsquery(for: terms)),
                    .int(Self.searchCandidates),
                ],
                within: Self.searchTimeBudget
            ) { row in (message: Self.assistantMessageRow(row), position: row.int64(0), title: row.string(10)) }
        }
        return
            rows.map { row -> (hit: AssistantSearchHit, position: Int64) in
                let (score, highlights) = SearchRanking.score(row.message.text, terms: terms)
                return (
                    AssistantSearchHit(
                        message: row.message, conversationTitle: row.title, score: score, highlights: highlights),
                    row.position
                )
            }
            .filter { $0.hit.score > 0 }
            .sorted { $0.hit.score != $1.hit.score ? $0.hit.score > $1.hit.score : $0.position > $1.position }
            .prefix(limit).map(\.hit)
    }

    // MARK: - Rows

    static let conversationColumns =
        "id, owner, title, persona, instructions, temperature, language, created_at, updated_at, opened_at"

    static func conversationRow(_ row: Statement) -> AssistantConversation {
        AssistantConversation(
            id: row.string(0), owner: UserID(rawValue: row.string(1)), title: row.string(2), persona: row.string(3),
            instructions: row.string(4), temperature: row.double(5), language: row.optionalString(6),
            createdAt: Timestamp(milliseconds: row.int64(7)), updatedAt: Timestamp(milliseconds: row.int64(8)),
            openedAt: Timestamp(milliseconds: row.int64(9)))
    }

    /// `position` first: the search orders by it.
    static let assistantMessageColumns =
        "position, id, conversation_id, role, text, input_tokens, output_tokens, model, stopped, created_at"

    static func assistantMessageRow(_ row: Statement) -> AssistantMessage {
        AssistantMessage(
            id: row.string(1), conversationID: row.string(2),
            role: AssistantMessage.Role(rawValue: row.string(3)) ?? .user, text: row.string(4),
            inputTokens: row.optionalInt64(5).map(Int.init), outputTokens: row.optionalInt64(6).map(Int.init),
            model: row.optionalString(7), stopped: row.int(8) != 0, createdAt: Timestamp(milliseconds: row.int64(9)),
            images: [])
    }

    /// The conversation if `owner` has it; another user's is not found, as a missing one.
    static func conversation(_ id: String, _ owner: UserID, _ db: Connection) throws -> AssistantConversation {
        guard
            let conversation = try db.row(
                "SELECT \(conversationColumns) FROM assistant_conversations WHERE id = ? AND owner = ?",
                [.text(id), .text(owner.rawValue)], conversationRow)
        else { throw ChatStoreError.notFound(what: "conversation", id: id) }
        return conversation
    }

    static func insertMessage(_ new: NewAssistantMessage, into conversation: String, _ db: Connection) throws
        -> AssistantMessage
    {
        let now = Timestamp.now
        let id = UUID().uuidString.lowercased()
        try db.run(
            """
            INSERT INTO assistant_messages(id, conversation_id, role, text, input_tokens, output_tokens, model, stopped,
                created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(id), .text(conversation), .text(new.role.rawValue), .text(new.text),
                new.inputTokens.map { .int($0) } ?? .null, new.outputTokens.map { .int($0) } ?? .null,
                .optionalText(new.model), .int(new.stopped ? 1 : 0), .integer(now.milliseconds),
            ])
        var infos: [AssistantImageInfo] = []
        for image in new.images {
            try db.run(
                """
                INSERT INTO assistant_images(id, message_id, mime_type, bytes, created_at, generated_by)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(image.id), .text(id), .text(image.mimeType), .blob(image.bytes), .integer(now.milliseconds),
                    .optionalText(image.generatedBy),
                ])
            infos.append(image.info)
        }
        let owner = try db.row("SELECT owner FROM assistant_conversations WHERE id = ?", [.text(conversation)]) {
            UserID(rawValue: $0.string(0))
        }
        if let owner {
            let bytes = new.text.utf8.count + new.images.reduce(0) { $0 + $1.bytes.count }
            try addAssistantBytes(Int64(bytes), for: owner, db)
            try db.run(
                "UPDATE assistant_conversations SET updated_at = ? WHERE id = ?",
                [.integer(try activityTime(of: owner, now: now, db).milliseconds), .text(conversation)])
        }
        return AssistantMessage(
            id: id, conversationID: conversation, role: new.role, text: new.text, inputTokens: new.inputTokens,
            outputTokens: new.outputTokens, model: new.model, stopped: new.stopped, createdAt: now, images: infos)
    }

    /// `now`, or strictly later than every conversation of `owner` when one is ahead of it: a
    /// new conversation or message puts its conversation first in the list, even several within
    /// one millisecond.
    static func activityTime(of owner: UserID, now: Timestamp, _ db: Connection) throws -> Timestamp {
        let latest = try db.row(
            "SELECT MAX(updated_at) FROM assistant_conversations WHERE owner = ?", [.text(owner.rawValue)]
        ) { $0.optionalInt64(0) }
        guard let latest = latest ?? nil else { return now }
        return Timestamp(milliseconds: max(now.milliseconds, latest + 1))
    }

    static func checkedTitle(_ title: String) throws -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw ChatStoreError.invalidArgument(field: "title", reason: "must not be empty")
        }
        guard trimmed.count <= maxAssistantTitleLength else {
            throw ChatStoreError.invalidArgument(
                field: "title", reason: "longer than \(maxAssistantTitleLength) characters")
        }
        return trimmed
    }

    static func check(_ settings: AssistantSettings) throws {
        guard settings.instructions.count <= maxAssistantInstructionsLength else {
            throw ChatStoreError.invalidArgument(
                field: "instructions", reason: "longer than \(maxAssistantInstructionsLength) characters")
        }
        guard (0...2).contains(settings.temperature) else {
            throw ChatStoreError.invalidArgument(field: "temperature", reason: "must be between 0 and 2")
        }
        guard !settings.persona.isEmpty, settings.persona.count <= 32 else {
            throw ChatStoreError.invalidArgument(field: "persona", reason: "must have 1 to 32 characters")
        }
    }
}
