import Foundation
import FoundationModels

/// Three short replies to the last message of a conversation.
@Generable(description: "Suggested replies to the last message of a conversation")
struct ReplySuggestions {
    let id = UUID()
    @Guide(description: "Three short replies the user could send", .count(3))
    var replies: [String]
}

/// What a chat screen's view model does: it keeps a session, and publishes the suggestions
/// for the conversation it was last asked about.
@Observable
@MainActor
final class ReplySuggestionGenerator {
    private(set) var suggestions: [String] = []
    private(set) var isGenerating = false
    private let session: LanguageModelSession

    init() {
        session = LanguageModelSession(
            model: SystemLanguageModel.default,
            instructions: """
                You suggest replies to chat messages. Each reply is a few words the user could \
                send as it is.
                """)
    }

    /// Starts loading the model before the first request.
    func prepare() {
        session.prewarm()
    }

    /// Suggests replies to the last message of `conversation` (oldest first, "name: text").
    func suggest(for conversation: [String]) async throws -> LanguageModelSession.Usage {
        isGenerating = true
        defer { isGenerating = false }
        let response = try await session.respond(
            to: "Conversation:\n\(conversation.joined(separator: "\n"))\n\nSuggest three replies to the last message.",
            generating: ReplySuggestions.self,
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 60))
        suggestions = response.content.replies
        return response.usage
    }
}
