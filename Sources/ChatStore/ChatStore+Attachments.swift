import Foundation

/// A file a member uploads to a channel, before a message carries it.
public struct NewAttachment: Sendable {
    public var cid: ChannelID
    public var uploader: UserID
    /// The file's name as the uploader's system had it (a path is cut to its last part).
    public var name: String
    /// The type its bytes show (the caller sniffs them; a declared type is not trusted).
    public var mimeType: String
    public var bytes: [UInt8]
    /// For an image that could be read: its size, thumbnail and what the model reads of it.
    public var image: AttachmentImage?

    public init(
        cid: ChannelID, uploader: UserID, name: String, mimeType: String, bytes: [UInt8], image: AttachmentImage? = nil
    ) {
        self.cid = cid
        self.uploader = uploader
        self.name = name
        self.mimeType = mimeType
        self.bytes = bytes
        self.image = image
    }
}

/// What was read of an uploaded image.
public struct AttachmentImage: Sendable {
    public var width: Int
    public var height: Int
    public var thumbnail: [UInt8]
    public var thumbnailType: String
    /// What the model features read instead of the image: its kind and the text in it (OCR).
    public var modelText: String

    public init(width: Int, height: Int, thumbnail: [UInt8], thumbnailType: String, modelText: String) {
        self.width = width
        self.height = height
        self.thumbnail = thumbnail
        self.thumbnailType = thumbnailType
        self.modelText = modelText
    }
}

/// A file as a message shows it.
public struct AttachmentInfo: Hashable, Sendable, Codable {
    public var id: String
    public var name: String
    public var mimeType: String
    /// In bytes.
    public var size: Int
    /// An image's size in pixels; nil for other files.
    public var width: Int?
    public var height: Int?
    /// Whether `GET /api/attachments/{id}/thumbnail` has a small version (images only).
    public var thumbnail: Bool

    public init(
        id: String, name: String, mimeType: String, size: Int, width: Int? = nil, height: Int? = nil,
        thumbnail: Bool = false
    ) {
        self.id = id
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.width = width
        self.height = height
        self.thumbnail = thumbnail
    }

    enum CodingKeys: String, CodingKey {
        case id, name, size, width, height, thumbnail
        case mimeType = "mime_type"
    }
}

/// A file's bytes, as served.
public struct AttachmentFile: Sendable {
    public var info: AttachmentInfo
    public var bytes: [UInt8]
}

/// Files in channels: uploaded by a member, claimed by their next message (`attachment_ids`),
/// read only by the channel's members (and, before a message carries it, by its uploader).
extension ChatStore {
    /// The largest file a member may upload.
    public static let maxAttachmentBytes = 10 * 1024 * 1024
    /// Files a message carries at most.
    public static let maxAttachmentsPerMessage = 10
    /// Files a member may have waiting (uploaded, not yet sent) in a channel.
    public static let maxWaitingAttachments = 20
    /// Longest file name, in characters.
    public static let maxAttachmentNameLength = 200

    /// Stores an upload for its uploader's next message in the channel.
    ///
    /// - Throws: `notFound` when the uploader is not a member; `invalidArgument` for an empty or
    ///   oversized file or a name that is empty or too long; `quotaExceeded` when too many wait.
    public func addAttachment(_ new: NewAttachment) async throws -> AttachmentInfo {
        let name = try Self.attachmentName(new.name)
        guard !new.bytes.isEmpty else { throw ChatStoreError.invalidArgument(field: "file", reason: "is empty") }
        guard new.bytes.count <= Self.maxAttachmentBytes else {
            throw ChatStoreError.invalidArgument(
                field: "file", reason: "larger than \(Self.maxAttachmentBytes / (1024 * 1024)) MB")
        }
        let id = UUID().uuidString.lowercased()
        let info = AttachmentInfo(
            id: id, name: name, mimeType: new.mimeType, size: new.bytes.count, width: new.image?.width,
            height: new.image?.height, thumbnail: new.image != nil)
        return try await write { db in
            try Self.requireMember(new.uploader, new.cid, db)
            let waiting =
                try db.row(
                    "SELECT COUNT(*) FROM attachments WHERE user_id = ? AND cid = ? AND message_id IS NULL",
                    [.text(new.uploader.rawValue), .text(new.cid.cid)]
                ) { $0.int(0) } ?? 0
            guard waiting < Self.maxWaitingAttachments else {
                throw ChatStoreError.quotaExceeded(
                    reason: "\(Self.maxWaitingAttachments) files already wait to be sent in this channel")
            }
            try db.run(
                """
                INSERT INTO attachments(id, cid, user_id, name, mime_type, size, bytes, width, height, thumbnail,
                    thumbnail_type, model_text, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(id), .text(new.cid.cid), .text(new.uploader.rawValue), .text(name), .text(new.mimeType),
                    .int(new.bytes.count), .blob(new.bytes), new.image.map { .int($0.width) } ?? .null,
                    new.image.map { .int($0.height) } ?? .null, new.image.map { .blob($0.thumbnail) } ?? .null,
                    .optionalText(new.image?.thumbnailType), .optionalText(new.image?.modelText),
                    .integer(Timestamp.now.milliseconds),
                ])
            return info
        }
    }

    /// A file, or its thumbnail, for a member of its channel (before a message carries it, for
    /// its uploader alone).
    ///
    /// - Throws: `notFound` otherwise, as for a file that does not exist.
    public func attachment(_ id: String, for user: UserID, thumbnail: Bool = false) async throws -> AttachmentFile {
        try await read { db in
            let column = thumbnail ? "thumbnail, thumbnail_type" : "bytes, mime_type"
            guard
                let row = try db.row(
                    """
                    SELECT \(Self.attachmentColumns), cid, user_id, message_id, \(column) FROM attachments WHERE id = ?
                    """, [.text(id)],
                    { row in
                        (
                            info: Self.attachmentRow(row), cid: try ChannelID.parse(row.string(7)),
                            uploader: row.string(8), claimed: !row.isNull(9),
                            bytes: row.isNull(10) ? nil : row.blob(10), type: row.optionalString(11)
                        )
                    }),
                try Self.isMember(user, row.cid, db), row.claimed || row.uploader == user.rawValue,
                let bytes = row.bytes
            else { throw ChatStoreError.notFound(what: "file", id: id) }
            var info = row.info
            info.mimeType = row.type ?? info.mimeType
            return AttachmentFile(info: info, bytes: bytes)
        }
    }

    /// Takes back a file its uploader has not sent yet.
    ///
    /// - Throws: `notFound` for anyone else's, a sent one, or none.
    public func deleteWaitingAttachment(_ id: String, by user: UserID) async throws {
        try await write { db in
            try db.run(
                "DELETE FROM attachments WHERE id = ? AND user_id = ? AND message_id IS NULL",
                [.text(id), .text(user.rawValue)])
            guard db.changes > 0 else { throw ChatStoreError.notFound(what: "file", id: id) }
        }
    }

    static let attachmentColumns = "id, name, mime_type, size, width, height, thumbnail IS NOT NULL"

    static func attachmentRow(_ row: Statement) -> AttachmentInfo {
        AttachmentInfo(
            id: row.string(0), name: row.string(1), mimeType: row.string(2), size: row.int(3),
            width: row.isNull(4) ? nil : row.int(4), height: row.isNull(5) ? nil : row.int(5),
            thumbnail: row.int(6) != 0)
    }

    /// A file name as kept: its last path component, trimmed, with control and bidirectional
    /// characters refused.
    static func attachmentName(_ raw: String) throws -> String {
        let last = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let name = last.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name != ".", name != ".." else {
            throw ChatStoreError.invalidArgument(field: "name", reason: "a file needs a name")
        }
        guard name.count <= maxAttachmentNameLength else {
            throw ChatStoreError.invalidArgument(
                field: "name", reason: "longer than \(maxAttachmentNameLength) characters")
        }
        let unsafe = name.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
        }
        guard !unsafe else {
            throw ChatStoreError.invalidArgument(field: "name", reason: "control or direction characters")
        }
        return name
    }

    /// Gives `message` the author's waiting files `ids` (in that order).
    static func claimAttachments(_ ids: [String], for message: Message, _ db: Connection) throws -> [AttachmentInfo] {
        try ids.map { id in
            guard
                let info = try db.row(
                    """
                    SELECT \(attachmentColumns) FROM attachments
                    WHERE id = ? AND cid = ? AND user_id = ? AND message_id IS NULL
                    """, [.text(id), .text(message.cid.cid), .text(message.author.rawValue)], attachmentRow)
            else { throw ChatStoreError.notFound(what: "file", id: id) }
            try db.run("UPDATE attachments SET message_id = ? WHERE id = ?", [.text(message.id.rawValue), .text(id)])
            return info
        }
    }

    /// `messages` with the files they carry.
    static func withAttachments(_ messages: [Message], _ db: Connection) throws -> [Message] {
        try withFiles(messages, db) { message, files in message.attachments = files.map(\.info) }
    }

    /// `messages` as the model reads them: each image's text (see ``AttachmentImage/modelText``)
    /// after the message's own, and a file's name.
    static func forModel(_ messages: [Message], _ db: Connection) throws -> [Message] {
        try withFiles(messages, db) { message, files in
            let parts = files.map { $0.modelText ?? "[File: \"\($0.info.name)\"]" }
            message.text = ([message.text] + parts).joined(separator: "\n")
        }
    }

    /// `messages`, each that carries files changed by `apply` with them (in the order attached).
    private static func withFiles(
        _ messages: [Message], _ db: Connection,
        _ apply: (inout Message, [(info: AttachmentInfo, modelText: String?)]) -> Void
    ) throws -> [Message] {
        guard !messages.isEmpty else { return messages }
        let marks = Array(repeating: "?", count: messages.count).joined(separator: ",")
        var byMessage: [String: [(info: AttachmentInfo, modelText: String?)]] = [:]
        try db.rows(
            """
            SELECT \(attachmentColumns), message_id, model_text FROM attachments WHERE message_id IN (\(marks))
            ORDER BY created_at, id
            """, messages.map { .text($0.id.rawValue) }
        ) { (info: attachmentRow($0), message: $0.string(7), modelText: $0.optionalString(8)) }
        .forEach { byMessage[$0.message, default: []].append(($0.info, $0.modelText)) }
        guard !byMessage.isEmpty else { return messages }
        return messages.map { message in
            guard let files = byMessage[message.id.rawValue] else { return message }
            var message = message
            apply(&message, files)
            return message
        }
    }
}
