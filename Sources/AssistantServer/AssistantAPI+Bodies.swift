import ChatStore
import Foundation
import FoundationModels
import HTTPCore
import ServerKit

/// The assistant API's request and response bodies.
extension AssistantAPI {
    package struct SettingsUpdate: Decodable {
        var stream_responses: Bool?
        var show_token_counts: Bool?
        var response_language: String?
        var appearance: String?
    }

    package struct ConversationSettingsBody: Decodable {
        var title: String?
        var persona: String?
        var instructions: String?
        var temperature: Double?
        var language: String?
    }

    package struct RenameBody: Decodable {
        var title: String
    }

    package struct SendBody: Decodable {
        var text: String
        var stream: Bool?
        var image_ids: [String]?
    }

    package struct SettingsView: Encodable {
        var stream_responses: Bool
        var show_token_counts: Bool
        var response_language: String
        var appearance: String
    }

    package struct AssistantState: Encodable {
        var model: ModelState
        var personas: [AssistantPersona]
        var languages: [AssistantLanguage]
        var settings: SettingsView
        var last_conversation_id: String?
        var context_size: Int?
        var model_loading: Bool
        var max_image_bytes: Int
    }

    package struct ConversationList: Encodable {
        var conversations: [AssistantConversation]
    }

    package struct ConversationDetail: Encodable {
        var conversation: AssistantConversation
        var messages: [AssistantMessageView]
        var context: AssistantContext?
        var answering: Bool
        var pending_images: [AssistantImageInfo]
    }

    package struct SettingsChange: Encodable {
        var conversation: AssistantConversation
        var divider: AssistantMessageView?
    }

    package struct TurnStarted: Encodable {
        var message: AssistantMessageView?
        var turn: AssistantTurnView
    }

    package struct Stopped: Encodable {
        var stopped: Bool
        var conversation: ConversationDetail
    }

    package struct SearchResults: Encodable {
        var results: [SearchResultView]
    }

    package struct SearchResultView: Encodable {
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
