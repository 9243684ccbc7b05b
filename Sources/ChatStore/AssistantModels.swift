import Foundation

/// One of a user's private conversations with the model.
public struct AssistantConversation: Hashable, Sendable, Codable {
    public var id: String
    public var owner: UserID
    public var title: String
    /// The persona preset's id (`general`, `writing_coach`, …) or `custom`.
    public var persona: String
    /// The instructions the model's session is created with.
    public var instructions: String
    public var temperature: Double
    /// The language the model is told to answer in (nil: the user's own).
    public var language: String?
    public var createdAt: Timestamp
    /// The last message or change; conversations are listed by it, newest first.
    public var updatedAt: Timestamp
    /// When its owner last opened it: the assistant reopens the newest.
    public var openedAt: Timestamp

    enum CodingKeys: String, CodingKey {
        case id, owner, title, persona, instructions, temperature, language
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case openedAt = "opened_at"
    }
}

/// What a new conversation starts with.
public struct AssistantSettings: Hashable, Sendable {
    public var persona: String
    public var instructions: String
    public var temperature: Double
    public var language: String?

    public init(persona: String, instructions: String, temperature: Double, language: String? = nil) {
        self.persona = persona
        self.instructions = instructions
        self.temperature = temperature
        self.language = language
    }
}

/// A message of an assistant conversation.
public struct AssistantMessage: Hashable, Sendable, Codable {
    public enum Role: String, Hashable, Sendable, Codable {
        case user, assistant
        /// A session reset: the model's memory starts over here; `text` says why, or holds the
        /// summary the new session was seeded with.
        case divider
    }

    public var id: String
    public var conversationID: String
    public var role: Role
    public var text: String
    /// Tokens the model read for this turn (assistant messages) and wrote.
    public var inputTokens: Int?
    public var outputTokens: Int?
    /// The model that answered (assistant messages).
    public var model: String?
    /// The user stopped the answer: `text` is what was written until then.
    public var stopped: Bool
    public var createdAt: Timestamp
    /// Images the user attached (user messages).
    public var images: [AssistantImageInfo]

    enum CodingKeys: String, CodingKey {
        case id, role, text, model, stopped, images
        case conversationID = "conversation_id"
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case createdAt = "created_at"
    }
}

/// An attached image without its bytes.
public struct AssistantImageInfo: Hashable, Sendable, Codable {
    public var id: String
    public var mimeType: String
    public var byteCount: Int
    /// The image model that made it (an image generated on request), nil for the user's own file.
    public var generatedBy: String? = nil

    enum CodingKeys: String, CodingKey {
        case id
        case mimeType = "mime_type"
        case byteCount = "byte_count"
        case generatedBy = "generated_by"
    }
}

/// An attached image with its bytes.
public struct AssistantImage: Hashable, Sendable {
    public var id: String
    public var mimeType: String
    public var bytes: [UInt8]
    /// The image model that made it, nil for the user's own file.
    public var generatedBy: String?

    public init(
        id: String = UUID().uuidString.lowercased(), mimeType: String, bytes: [UInt8], generatedBy: String? = nil
    ) {
        self.id = id
        self.mimeType = mimeType
        self.bytes = bytes
        self.generatedBy = generatedBy
    }

    /// What the API shows of it.
    public var info: AssistantImageInfo {
        AssistantImageInfo(id: id, mimeType: mimeType, byteCount: bytes.count, generatedBy: generatedBy)
    }
}

/// A message to append to a conversation.
public struct NewAssistantMessage: Hashable, Sendable {
    public var role: AssistantMessage.Role
    public var text: String
    public var inputTokens: Int?
    public var outputTokens: Int?
    public var model: String?
    public var stopped: Bool
    public var images: [AssistantImage]

    public init(
        role: AssistantMessage.Role, text: String, inputTokens: Int? = nil, outputTokens: Int? = nil,
        model: String? = nil, stopped: Bool = false, images: [AssistantImage] = []
    ) {
        self.role = role
        self.text = text
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.model = model
        self.stopped = stopped
        self.images = images
    }
}

/// An assistant message found by ``ChatStore/searchAssistantMessages(_:for:limit:)``.
public struct AssistantSearchHit: Hashable, Sendable, Codable {
    public var message: AssistantMessage
    public var conversationTitle: String
    public var score: Int
    /// The matched words, as `[start, end)` UTF-16 offsets in `message.text`.
    public var highlights: [[Int]]

    enum CodingKeys: String, CodingKey {
        case message, score, highlights
        case conversationTitle = "conversation_title"
    }
}
