import ChatStore
import Foundation
import FoundationModels
import Markdown
import ServerKit

/// What the assistant engine makes of a conversation's text: the summarizer's input and work,
/// and suggested replies without repeats.
extension AssistantEngine {
    /// The conversation as plain lines for a summarizer, its newest `characterLimit` characters.
    package static func conversationText(_ messages: [AssistantMessage], characterLimit: Int) -> String {
        let lines = messages.compactMap { message -> String? in
            switch message.role {
            case .user: "User: \(message.text)"
            case .assistant: "Assistant: \(message.text)"
            case .divider: isSummary(message.text) ? "Earlier: \(message.text.dropFirst(summaryPrefix.count))" : nil
            }
        }
        return String(lines.joined(separator: "\n").suffix(characterLimit))
    }

    package static func summaryWork(_ text: String, sentences: Int, model: any LanguageModel) -> Work {
        { update in
            let session = LanguageModelSession(
                model: model,
                instructions:
                    "You summarize conversations between a user and an assistant in \(sentences) short sentences: what the user asked, and what was answered or decided."
            )
            let responses = session.streamResponse(
                to: "Summarize this conversation in \(sentences) sentences.\n\n\(text)",
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 200))
            for try await snapshot in responses { update(snapshot.content, snapshot.usage.output.totalTokenCount) }
            try Task.checkCancellation()
            let response = try await responses.collect()
            return (response.content.trimmingCharacters(in: .whitespacesAndNewlines), response.usage)
        }
    }

    /// The replies without repeats (a small model writes the same one three times), in order.
    package static func distinct(_ replies: [String]) -> [String] {
        var seen = Set<String>()
        return replies.filter { seen.insert($0.trimmingCharacters(in: .whitespaces).lowercased()).inserted }
    }
}
