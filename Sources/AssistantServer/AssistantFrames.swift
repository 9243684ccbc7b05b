import ChatStore
import Foundation
import FoundationModels
import Markdown
import ServerKit

/// A stored message as the API and the frames send it: assistant answers and dividers with
/// their Markdown rendered to safe HTML on the server (``MarkdownRenderer``); a user's own text
/// is sent as text only, for the page to show escaped.
package struct AssistantMessageView: Encodable, Sendable, Equatable {
    package var id: String
    package var conversation_id: String
    package var role: String
    package var text: String
    package var html: String?
    package var input_tokens: Int?
    package var output_tokens: Int?
    package var model: String?
    package var stopped: Bool
    package var created_at: Timestamp
    package var images: [AssistantImageInfo]
    /// Dividers: the new session starts from a summary of the conversation.
    package var summary: Bool?

    package init(_ message: AssistantMessage) {
        id = message.id
        conversation_id = message.conversationID
        role = message.role.rawValue
        text = message.text
        html = message.role == .user ? nil : MarkdownRenderer.html(for: message.text)
        input_tokens = message.inputTokens
        output_tokens = message.outputTokens
        model = message.model
        stopped = message.stopped
        created_at = message.createdAt
        images = message.images
        summary = message.role == .divider ? AssistantEngine.isSummary(message.text) : nil
    }
}

/// The context used of the session's window, instructions included.
package struct AssistantContext: Encodable, Sendable, Equatable {
    package var used: Int
    package var size: Int
}

/// An answer being written (or just finished), as `assistant.updated` frames carry it.
package struct AssistantTurnView: Encodable, Sendable, Equatable {
    package enum Status: String, Encodable, Sendable, CaseIterable {
        case streaming, done, stopped, failed
    }
    package enum Kind: String, Encodable, Sendable, CaseIterable {
        /// An answer to the user's message.
        case answer
        /// The summary a new session starts from ("Continue in a new session").
        case continuation
        /// The Summarize panel's summary: shown, not stored.
        case summary
    }

    package var id: String
    package var kind: Kind
    package var status: Status
    package var text: String
    package var html: String
    package var output_tokens: Int
    /// Once finished: the tokens the model read for this turn, and how many of them it had
    /// already (the session's earlier turns, kept in its cache, are not read again).
    package var input_tokens: Int?
    package var cached_tokens: Int?
    /// Why it failed, for the user, and a stable code (`context_full`, `guardrail_violation`, …).
    package var error: String?
    package var error_code: String?
    /// The stored message, once finished (answers and continuations).
    package var message: AssistantMessageView?
}

/// `{"type": "assistant.updated", …}`: an answer's progress, sent to its owner's sockets.
package struct AssistantFrame: Encodable, Sendable {
    package var type = "assistant.updated"
    package var conversation_id: String
    package var turn: AssistantTurnView
    package var context: AssistantContext?
}

/// `{"type": "assistant.replies", …}`: smart-reply chips after an answer.
package struct AssistantRepliesFrame: Encodable, Sendable {
    package var type = "assistant.replies"
    package var conversation_id: String
    /// The answer they follow.
    package var message_id: String
    package var replies: [String]
}

/// `{"type": "assistant.conversation", …}`: a conversation changed (its generated title).
package struct AssistantConversationFrame: Encodable, Sendable {
    package var type = "assistant.conversation"
    package var conversation: AssistantConversation
}

/// Each `GenerationError` case in words a user can act on, with a stable code.
package enum AssistantErrorText {
    package static func describe(_ error: any Error) -> (code: String, message: String) {
        guard let error = error as? LanguageModelSession.GenerationError else {
            Router.standardErrorLog("assistant turn failed: \(error)")
            return ("internal", "The model could not answer: \(String(describing: error).prefix(200))")
        }
        switch error {
        case .exceededContextWindowSize:
            return (
                "context_full",
                "This conversation no longer fits in the model's memory (its context window). Continue in a new session: the model starts again from a summary of this conversation."
            )
        case .assetsUnavailable:
            return (
                "model_unavailable", "The model is not available on this server right now (missing, or failed to load)."
            )
        case .guardrailViolation:
            return (
                "guardrail_violation", "The model's safety guardrails stopped this answer. Try rephrasing your message."
            )
        case .unsupportedGuide:
            return ("unsupported_guide", "This request asked the model for a structure it cannot generate.")
        case .unsupportedLanguageOrLocale:
            return (
                "unsupported_language",
                "The model does not support this language. Choose another response language in the settings."
            )
        case .decodingFailure:
            return ("decoding_failure", "The model's answer could not be read. Try again with Regenerate.")
        case .rateLimited:
            return ("rate_limited", "The model has too many requests right now. Try again in a moment.")
        case .concurrentRequests:
            return ("concurrent_requests", "This conversation is still answering. Wait for it, or press Stop.")
        case .refusal:
            return ("refusal", "The model declined to answer this request.")
        }
    }
}
