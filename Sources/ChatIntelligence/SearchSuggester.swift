import FoundationModels

/// Four search terms, as the model generates them.
@Generable(description: "Suggested searches for a chat app's message search")
public struct SearchSuggestions: Sendable, Equatable {
    @Guide(
        description: "Four different search terms of one to three words each, that find messages about the topic",
        .count(4), .element(.pattern(/^[^\s"\\*():^]{1,24}( [^\s"\\*():^]{1,24}){0,2}$/)))
    public var terms: [String]

    public init(terms: [String]) {
        self.terms = terms
    }
}

/// Suggests searches for a topic the user typed, with the on-device model: four short terms,
/// taken from the user's own messages where it can, each one a search away.
///
/// ```swift
/// let suggester = SearchSuggester()
/// let terms = try await suggester.suggestions(for: "hike", messages: recentTexts)
/// // ["trailhead", "ridge trail", "Saturday", "snacks"]
/// ```
public struct SearchSuggester: Sendable {
    /// The model the results come from.
    public let model: any LanguageModel

    /// How many terms come back: always this many.
    public static let termCount = 4
    /// Most message lines shown to the model.
    public static let messageLimit = 24

    /// Search terms from `model`: the on-device model unless another is given, or any model of the seam (one
    /// behind an OpenAI-compatible endpoint, say).
    public init(model: some LanguageModel = SystemLanguageModel.default) {
        self.model = model
    }

    /// The terms as they are generated: each element holds the terms so far (the last one still
    /// being written); the last element holds exactly ``termCount``, distinct.
    public func stream(for topic: String, messages: [String]) -> AsyncThrowingStream<[String], any Error> {
        let session = LanguageModelSession(model: model, transcript: Self.transcript)
        return StreamedResponse.make(
            SearchSuggestions.self, in: session, prompt: Self.prompt(topic: topic, messages: messages),
            options: GenerationOptions(
                sampling: .random(top: 20, seed: 5), temperature: 0.4, maximumResponseTokens: 80),
            partial: { partial in partial.terms.map { $0.map(TextMatching.trimmed).filter { !$0.isEmpty } } },
            final: { $0.terms.map(TextMatching.trimmed) })
    }

    /// The finished terms.
    public func suggestions(for topic: String, messages: [String]) async throws -> [String] {
        try await StreamedResponse.last(of: stream(for: topic, messages: messages)) ?? []
    }

    package static let instructions = """
        You suggest searches for a chat app's message search. You get a topic and some of the \
        user's messages, and you write four different search terms that would find messages \
        about the topic.

        Rules:
        - Each term is one to three words, like what a person types into a search box.
        - Prefer words that appear in the messages; the topic itself may be one of the four.
        - No quotes, no punctuation, no sentences.
        """

    package static func prompt(topic: String, messages: [String]) -> String {
        var lines = ["Topic: " + ReplyDrafter.singleLine(topic, limit: 100), "Messages:"]
        for text in messages.prefix(messageLimit) { lines.append("- " + ReplyDrafter.singleLine(text, limit: 160)) }
        if messages.isEmpty { lines.append("(none)") }
        return lines.joined(separator: "\n")
    }

    package static let example: (topic: String, messages: [String], terms: [String]) = (
        "budget",
        [
            "The new budget is about $4,000 less than last year.", "Can finance sign off on the invoice by Friday?",
            "I moved the catering costs to the events line.",
        ],
        ["budget", "invoice", "costs", "finance"]
    )

    package static let transcript: Transcript = StreamedResponse.transcript(
        instructions: instructions,
        examples: [
            (prompt(topic: example.topic, messages: example.messages), SearchSuggestions(terms: example.terms))
        ])
}
