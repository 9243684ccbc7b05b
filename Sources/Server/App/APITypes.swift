import AssistantServer
import ChatStore
import HTTPCore
import OpenAIServer
import ServerKit

// Request and response bodies of the JSON API. Field names are snake_case on the wire.

struct UpsertUsersRequest: Decodable {
    var users: [UserUpdate]
}

struct UsersResponse: Encodable {
    var users: [User]
}

struct MeResponse: Encodable {
    var user: User
    /// Whether the server can suggest replies at all.
    var suggestions: Bool
    /// The local model behind the other AI features, or why there is none.
    var model: ModelState
    /// Whether the server can turn speech into text (the composers' microphone).
    var speech: SpeechState
    /// Whether images can be made on request, with which model (the assistant's image button).
    var images: ImageGenerationState
}

struct HealthResponse: Encodable {
    var status = "ok"
    var suggestions: Bool
}

struct CreateChannelRequest: Decodable {
    /// A channel chosen by id; without one, the channel of exactly the caller and `members`.
    var cid: String?
    /// The type of a channel identified by its members (default `messaging`).
    var type: String?
    var name: String?
    var members: [String]?
}

struct ChannelResponse: Encodable {
    var channel: Channel
    var members: [Member]
    var created: Bool?
}

struct ChannelsResponse: Encodable {
    var channels: [ChannelSummary]
}

struct SendMessageRequest: Decodable {
    var id: String?
    var text: String
    var parentID: String?
    var attachmentIDs: [String]?

    enum CodingKeys: String, CodingKey {
        case id, text
        case parentID = "parent_id"
        case attachmentIDs = "attachment_ids"
    }
}

struct MarkReadRequest: Decodable {
    var messageID: String?

    enum CodingKeys: String, CodingKey {
        case messageID = "message_id"
    }
}

struct ReadResponse: Encodable {
    var read: ReadState
}

struct TypingRequest: Decodable {
    var typing: Bool
}

struct TypingResponse: Encodable {
    var typing: Bool
}

struct SuggestionsResponse: Encodable {
    var cid: ChannelID
    var status: SuggestionSnapshot.Status
    var suggestions: [String]
    var signature: String
    /// Which model writes them (left out when none does).
    var model: String?
    /// The thread they are for; left out for the channel's.
    var parent_id: MessageID?
}

/// Fields of a `typing.start` / `typing.stop` event.
struct TypingEventFields: Encodable {
    var user_id: UserID
}

/// A `suggestions.partial` frame: the chips so far while they are drafted (live, not logged).
struct SuggestionPartialFrame: Encodable {
    var type = "suggestions.partial"
    var cid: ChannelID
    var user_id: UserID
    var signature: String
    var suggestions: [String]
    /// The thread the chips are for; left out for the channel's.
    var parent_id: MessageID?
}

/// A `job.updated` frame: where one of the user's model jobs stands (live, not logged).
struct JobFrame: Encodable {
    var type = "job.updated"
    var job: JobSnapshot
}

/// Fields of a `suggestions.updated` event.
struct SuggestionEventFields: Encodable {
    var user_id: UserID
    var status: SuggestionSnapshot.Status
    var suggestions: [String]
    var signature: String
    /// Which model wrote them (left out when none did).
    var model: String?
    /// The thread they are for; left out for the channel's.
    var parent_id: MessageID?
}

struct TokenResponse: Encodable {
    var token: String
    var expires_at: Int64?
}
