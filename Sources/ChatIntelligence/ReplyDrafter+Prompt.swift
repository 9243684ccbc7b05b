import FoundationModels

// What the model reads. The instructions never change, so every request starts with the same
// tokens and the engine's prefix cache serves them; everything that varies is in the prompt.

extension ReplyDrafter {
    /// The session's instructions: the same for every user, channel and tone.
    package static let instructions = """
        You suggest quick replies in a chat app. You read a conversation and write three short \
        replies the user could send next, as the user, answering the last message.

        Rules:
        - Each reply is at most 5 words, like a quick text message, and ends with punctuation.
        - The three replies say different things: for example one agrees, one declines, one asks a question.
        - Write in the language of the conversation.
        - No names, labels, quotes or emoji.
        - Never copy a message from the conversation.
        """

    /// Worked examples, given to the model as earlier turns of the session: small models copy
    /// the length and shape of what they were shown far better than they follow a word count.
    package static let examples: [(messages: [ChatMessage], user: Participant, tone: ReplyTone?, replies: [String])] = {
        let sam = Participant(id: "example-sam", name: "Sam")
        let kim = Participant(id: "example-kim", name: "Kim")
        let ana = Participant(id: "example-ana", name: "Ana")
        let lee = Participant(id: "example-lee", name: "Lee")
        return [
            (
                [ChatMessage(author: sam, text: "Want to see a movie tonight?")], kim, .casual,
                ["Sure, which one?", "Can't tonight, sorry.", "How about tomorrow?"]
            ),
            (
                [
                    ChatMessage(author: kim, text: "How did the interview go?"),
                    ChatMessage(author: ana, text: "Not great. I didn't get the job."),
                ], kim, .casual,
                ["Oh no, I'm sorry.", "Their loss, honestly.", "Want to talk later?"]
            ),
            (
                [
                    ChatMessage(author: kim, text: "The printer is broken again."),
                    ChatMessage(author: lee, text: "I called IT, they will come at 2."),
                ], kim, .formal,
                ["Thank you, Lee.", "That works for me.", "Should I tell the team?"]
            ),
        ]
    }()

    /// What every session starts from: the instructions, then each example as a prompt and the
    /// response it should get. The same for every request, so the engine's prefix cache serves it.
    package static let transcript: Transcript = {
        var entries: [Transcript.Entry] = [
            .instructions(Transcript.Instructions(segments: [.text(.init(content: instructions))], toolDefinitions: []))
        ]
        for example in examples {
            let prompt = prompt(for: example.messages, user: example.user, tone: example.tone)
            let response = ReplySuggestions(tone: example.tone ?? .casual, replies: example.replies).generatedContent
            entries.append(.prompt(Transcript.Prompt(segments: [.text(.init(content: prompt))])))
            entries.append(
                .response(
                    Transcript.Response(
                        assetIDs: [], segments: [.structure(.init(source: "ReplySuggestions", content: response))])))
        }
        return Transcript(entries: entries)
    }()

    /// The longest message text put in the prompt, in characters; the rest is elided.
    package static let messageCharacterLimit = 400

    /// The prompt for drafting `user`'s next message: the last messages (``windowSize(messageCount:)``)
    /// as "Name: text" lines, oldest first, then who the user is, and the tone.
    package static func prompt(for messages: [ChatMessage], user: Participant, tone: ReplyTone?) -> String {
        let recent = messages.suffix(windowSize(messageCount: messages.count))
        let userName = singleLine(user.name, limit: 64)
        var lines = ["Conversation (oldest first):"]
        for message in recent {
            lines.append(
                singleLine(message.author.name, limit: 64) + ": "
                    + singleLine(message.text, limit: messageCharacterLimit))
        }
        lines.append("")
        let addressee = recent.last.map { ", answering " + singleLine($0.author.name, limit: 64) } ?? ""
        lines.append(
            "The user is \(userName). Write three replies \(userName) could send next\(addressee). At most 5 words each."
        )
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
