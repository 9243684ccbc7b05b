import ChatStore
import Foundation
import FoundationModels
import HTTPCore

/// The assistant API's request and response bodies.
extension AssistantAPI {
    struct SettingsUpdate: Decodable {
        var stream_responses: Bool?
        var show_token_counts: Bool?
        var response_language: String?
        var appearance: String?
    }

    struct ConversationSettingsBody: Decodable {
        var title: String?
        var persona: String?
        var instructions: String?
        var temperature: Double?
        var language: String?
    }

    struct RenameBody: Decodable {
        var title: String
    }

    struct SendBody: Decodable {
        var text: String
        var stream: Bool?
        var image_ids: [String]?
    }

    struct SettingsView: Encodable {
        var stream_responses: Bool
        var show_token_counts: Bool
        var response_language: String
        var appearance: String
    }

    struct AssistantState: Encodable {
        var model: ModelState
        var personas: [AssistantPersona]
        var languages: [AssistantLanguage]
        var settings: SettingsView
        var last_conversation_id: String?
        var context_size: Int?
        var model_loading: Bool
        var max_image_bytes: Int
    }

    struct ConversationList: Encodable {
        var conversations: [AssistantConversation]
    }

    struct ConversationDetail: Encodable {
        var conversation: AssistantConversation
        var messages: [AssistantMessageView]
        var context: AssistantContext?
        var answering: Bool
        var pending_images: [AssistantImageInfo]
    }

    struct SettingsChange: Encodable {
        var conversation: AssistantConversation
        var divider: AssistantMessageView?
    }

    struct TurnStarted: Encodable {
        var message: AssistantMessageView?
        var turn: AssistantTurnView
    }

    struct Stopped: Encodable {
        var stopped: Bool
        var conversation: ConversationDetail
    }

    struct SearchResults: Encodable {
        var results: [SearchResultView]
    }

    struct SearchResultView: Encodable {
        var message: AssistantMessageView
        var conversation_title: String
        var highlights: [[Int]]

        init(_ hit: AssistantSearchHit) {
            message = AssistantMessageView(hit.message)
            conversation_title = hit.conversationTitle
            highlights = hit.highlights
        }
    }
}
