import ChatStore
import Foundation
import ServerKit

/// A conversation as a Markdown file: the title, its settings, then every message in order
/// (answers as the model wrote them, dividers as rules with what they say).
package enum AssistantExport {
    package static func markdown(_ conversation: AssistantConversation, _ messages: [AssistantMessage]) -> String {
        let persona = AssistantPersona.preset(conversation.persona)?.title ?? "Custom instructions"
        var lines = [
            "# \(conversation.title)", "",
            "_\(persona) · temperature \(conversation.temperature) · started \(conversation.createdAt)_", "",
        ]
        for message in messages {
            switch message.role {
            case .user:
                lines += ["**You:**", "", message.text, ""]
            case .assistant:
                lines += ["**Assistant:**" + (message.stopped ? " _(stopped)_" : ""), "", message.text, ""]
            case .divider:
                lines += ["---", "", "_\(message.text)_", "", "---", ""]
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A file name from the title: letters, digits and dashes, ending in `.md`.
    package static func filename(for conversation: AssistantConversation) -> String {
        let slug = conversation.title.lowercased().unicodeScalars.map {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "-"
        }
        let collapsed = String(slug).split(separator: "-").joined(separator: "-").prefix(60)
        return (collapsed.isEmpty ? "conversation" : String(collapsed)) + ".md"
    }
}
