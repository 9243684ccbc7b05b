import FoundationModels

// What the model reads. The instructions never change, so every request starts with the same
// tokens and the engine's prefix cache serves them; everything that varies is in the prompt.

extension ReplySuggester {
    /// The session's instructions: the same for every user, channel and tone.
    package static let instructions = """
        You suggest replies in a chat app. You see a chat conversation and the name of the user. \
        Write three replies the user could send next, in the user's own voice (first person), \
        answering the last message.

        Rules:
        - Each reply is a complete short message of 2 to 6 words, ending with punctuation.
        - The three replies say different things (for example: agree, decline, ask a question).
        - Reply in the language of the conversation.
        - No names or labels before a reply, no quotes, no emoji.
        - Never copy a message from the conversation.
        """

    /// The longest message text put in the prompt, in characters; the rest is elided.
    package static let messageCharacterLimit = 400

    /// The prompt for drafting `user`'s next message: the last ``messageLimit`` messages as
    /// "Name: text" lines, oldest first, then who the user is, and the tone.
    package static func prompt(for messages: [ChatMessage], user: Participant, tone: Tone?) -> String {
        let recent = messages.suffix(messageLimit)
        let userName = singleLine(user.name, limit: 64)
        var lines = ["Conversation (oldest first):"]
        for message in recent {
            lines.append(singleLine(message.author.name, limit: 64) + ": " + singleLine(message.text, limit: messageCharacterLimit))
        }
        lines.append("")
        let addressee = recent.last.map { ", answering " + singleLine($0.author.name, limit: 64) } ?? ""
        lines.append("The user is \(userName). Write three replies \(userName) could send next\(addressee).")
        switch tone ?? .casual {
        case .casual: lines.append("Tone: casual and friendly.")
        case .formal: lines.append("Tone: polite and formal.")
        }
        return lines.joined(separator: "\n")
    }

    /// `text` on one line (line breaks become spaces), at most `limit` characters.
    static func singleLine(_ text: String, limit: Int) -> String {
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard words.count > limit else { return words }
        return String(words.prefix(limit - 1)) + "…"
    }
}
