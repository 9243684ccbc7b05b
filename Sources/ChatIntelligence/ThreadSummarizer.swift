import FoundationModels

/// A summary of a conversation, as the model generates it.
@Generable(description: "A short summary of a chat conversation")
public struct ThreadSummary: Sendable, Equatable {
    @Guide(description: "Two or three short sentences that name who said, asked or decided what")
    public var summary: String

    public init(summary: String) {
        self.summary = summary
    }
}

/// Summarizes a stretch of a conversation (the unread part, or the last messages) with the
/// on-device model, naming who said what.
///
/// ```swift
/// let summarizer = ThreadSummarizer()
/// for try await text in summarizer.stream(messages) {
///     panel.text = text
/// }
/// ```
public struct ThreadSummarizer: Sendable {
    /// The model the results come from.
    public let model: any LanguageModel

    /// Most messages read; older ones are left out.
    public static let messageLimit = 50
    /// The length a summary should stay under, in words.
    public static let wordLimit = 70

    /// Summaries by `model`: the on-device model unless another is given, or any model of the seam (one
    /// behind an OpenAI-compatible endpoint, say).
    public init(model: some LanguageModel = SystemLanguageModel.default) {
        self.model = model
    }

    /// The summary of `messages` (oldest first; the last ``messageLimit``) as it is generated.
    public func stream(_ messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
        let session = LanguageModelSession(model: model, transcript: Self.transcript)
        let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 160)
        return StreamedResponse.make(
            ThreadSummary.self, in: session, prompt: Self.prompt(for: messages), options: options, partial: \.summary,
            final: { TextMatching.trimmed($0.summary) })
    }

    /// The finished summary of `messages`.
    public func summarize(_ messages: [ChatMessage]) async throws -> String {
        try await StreamedResponse.last(of: stream(messages)) ?? ""
    }

    package static let instructions = """
        You summarize chat conversations for someone who missed them. Write two or three short \
        sentences, under 60 words, that say who said, asked or decided what, by name.

        Rules:
        - Name the people as the conversation does; mention everyone who said something that matters.
        - Keep the facts: dates, times, places, numbers.
        - Write in the language of the conversation. No lists, no quotes, no opinions.
        """

    /// The prompt: who takes part, then the messages as "Name: text" lines, oldest first.
    package static func prompt(for messages: [ChatMessage]) -> String {
        let recent = messages.suffix(messageLimit)
        var names: [String] = []
        for message in recent where !names.contains(message.author.name) { names.append(message.author.name) }
        var lines = ["People: " + names.map { ReplyDrafter.singleLine($0, limit: 64) }.joined(separator: ", ")]
        lines.append("Conversation (oldest first):")
        for message in recent {
            lines.append(
                ReplyDrafter.singleLine(message.author.name, limit: 64) + ": "
                    + ReplyDrafter.singleLine(message.text, limit: ReplyDrafter.messageCharacterLimit))
        }
        lines.append("")
        lines.append("Summarize it in at most three sentences, naming who said what.")
        return lines.joined(separator: "\n")
    }

    package static let example: (messages: [ChatMessage], summary: String) = {
        let dana = Participant(id: "example-dana", name: "Dana")
        let omar = Participant(id: "example-omar", name: "Omar")
        let lena = Participant(id: "example-lena", name: "Lena")
        return (
            [
                ChatMessage(author: dana, text: "The venue cancelled our Friday booking."),
                ChatMessage(author: omar, text: "Ugh. Could we do Saturday instead?"),
                ChatMessage(author: lena, text: "Saturday works. I can call the Blue Door, they have room for 20."),
                ChatMessage(author: dana, text: "Great, please book it for 7pm."),
            ],
            "Dana said the venue cancelled the Friday booking. Omar suggested Saturday, and Lena offered to call "
                + "the Blue Door, which has room for 20. Dana asked her to book it for 7pm."
        )
    }()

    package static let transcript: Transcript = StreamedResponse.transcript(
        instructions: instructions,
        examples: [(prompt(for: example.messages), ThreadSummary(summary: example.summary))])
}
