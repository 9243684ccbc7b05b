import Foundation
import FoundationModels

/// A language messages can be translated into: the languages of Apple's on-device model that
/// the local model also writes.
public struct TranslationLanguage: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A BCP 47 code: `fr`, `zh-Hans`.
    public var code: String
    /// The language's name in English, as the model is told it.
    public var name: String

    public var description: String { name }

    /// Every language offered, in the order a menu lists them.
    public static let all: [TranslationLanguage] = [
        ("en", "English"), ("fr", "French"), ("es", "Spanish"), ("de", "German"), ("it", "Italian"),
        ("pt", "Portuguese"), ("nl", "Dutch"), ("sv", "Swedish"), ("da", "Danish"), ("nb", "Norwegian"),
        ("tr", "Turkish"), ("vi", "Vietnamese"), ("ja", "Japanese"), ("ko", "Korean"),
        ("zh-Hans", "Chinese (Simplified)"), ("zh-Hant", "Chinese (Traditional)"),
    ].map { TranslationLanguage(code: $0.0, name: $0.1) }

    /// The language with this code (case-insensitive), if it is offered.
    public static func named(_ code: String) -> TranslationLanguage? {
        all.first { $0.code.lowercased() == code.lowercased() }
    }

    /// The languages `model` supports, of those offered.
    public static func supported(by model: SystemLanguageModel) -> [TranslationLanguage] {
        all.filter { model.supportsLocale(Locale(identifier: $0.code)) }
    }
}

/// A translation, as the model generates it: the translated text alone, so the model cannot
/// wander into commentary or answer the message instead of translating it.
@Generable(description: "A chat message translated into the target language")
public struct Translation: Sendable, Equatable {
    @Guide(description: "The message translated into the target language, and nothing else")
    public var text: String

    public init(text: String) {
        self.text = text
    }
}

/// Translates chat messages with the on-device model: offline, into any of
/// ``TranslationLanguage/all``.
///
/// ```swift
/// let translator = Translator()
/// for try await text in translator.stream("See you Saturday!", into: .named("fr")!) {
///     label.text = text  // "À samedi !" as it is generated
/// }
/// ```
public struct Translator: Sendable {
    /// The model the results come from.
    public let model: any LanguageModel

    /// Translations by `model`: the on-device model unless another is given, or any model of the seam (one
    /// behind an OpenAI-compatible endpoint, say).
    public init(model: some LanguageModel = SystemLanguageModel.default) {
        self.model = model
    }

    /// The translation of `text` into `language` as it is generated (each element is the whole
    /// translation so far).
    ///
    /// Small models sometimes copy the message instead of translating it; a result made mostly
    /// of the message's own words is written again once, sampled instead of greedy.
    public func stream(_ text: String, into language: TranslationLanguage) -> AsyncThrowingStream<String, any Error> {
        // Pulled in the consumer's task, as StreamedResponse's streams are: a first greedy
        // pass, and a sampled second one when the first copied the message.
        let passes = Passes(text: text, language: language, model: model)
        return AsyncThrowingStream { try await passes.next() }
    }

    /// The passes of one translation, pulled one element at a time.
    ///
    /// `@unchecked Sendable`: used only by the task consuming the stream, one `next` at a time.
    private final class Passes: @unchecked Sendable {
        let text: String
        let language: TranslationLanguage
        let model: any LanguageModel
        private var attempt = 0
        private var current: AsyncThrowingStream<String, any Error>.AsyncIterator?
        private var last = ""

        init(text: String, language: TranslationLanguage, model: any LanguageModel) {
            self.text = text
            self.language = language
            self.model = model
        }

        func next() async throws -> String? {
            while attempt < 2 {
                if current == nil {
                    current = Translator.pass(text, into: language, attempt: attempt, model: model).makeAsyncIterator()
                    last = ""
                }
                if let partial = try await current?.next() {
                    last = partial
                    return partial
                }
                current = nil
                guard attempt == 0, Translator.copies(last, text) else { break }
                attempt += 1
            }
            attempt = 2
            return nil
        }
    }

    private static func pass(
        _ text: String, into language: TranslationLanguage, attempt: Int, model: any LanguageModel
    )
        -> AsyncThrowingStream<String, any Error>
    {
        let session = LanguageModelSession(model: model, transcript: transcript)
        let budget = StreamedResponse.budget(for: text, cap: 800)
        let options =
            attempt == 0
            ? GenerationOptions(sampling: .greedy, maximumResponseTokens: budget)
            : StreamedResponse.options(attempt: attempt, temperature: 0.7, maximumResponseTokens: budget)
        return StreamedResponse.make(
            Translation.self, in: session, prompt: prompt(text, into: language), options: options, partial: \.text,
            final: { TextMatching.trimmed($0.text) })
    }

    /// Whether `translation` mostly repeats `text`: at least three quarters of its words (three
    /// or more) are words of `text`. Names and numbers carry over in any translation, but not
    /// most of the words.
    package static func copies(_ translation: String, _ text: String) -> Bool {
        let words = TextMatching.normalized(translation).split(separator: " ")
        let source = Set(TextMatching.normalized(text).split(separator: " "))
        guard words.count >= 3 || words.count == source.count, !words.isEmpty else { return false }
        let shared = words.filter { source.contains($0) }.count
        return shared * 4 >= words.count * 3
    }

    /// The finished translation of `text` into `language`.
    public func translate(_ text: String, into language: TranslationLanguage) async throws -> String {
        try await StreamedResponse.last(of: stream(text, into: language)) ?? ""
    }

    package static let instructions = """
        You translate chat messages. You get a message and a target language, and you write the \
        message in that language.

        Rules:
        - Translate everything, keeping the meaning and the tone.
        - Keep names, numbers, times, links and emoji as they are.
        - Never answer the message or comment on it: write only the translation.
        """

    /// The message first, then the request naming the language: what the model read last is
    /// what it follows.
    package static func prompt(_ text: String, into language: TranslationLanguage) -> String {
        "Message:\n\(String(text.prefix(WritingTools.characterLimit)))\n\nWrite this message in \(language.name)."
    }

    package static let examples: [(text: String, language: String, translation: String)] = [
        (
            "Can you pick me up at 6? My train gets in late.", "fr",
            "Tu peux venir me chercher à 6 h ? Mon train arrive tard."
        ),
        ("¿Quedamos el sábado en la plaza con Marta?", "en", "Shall we meet on Saturday in the square with Marta?"),
        ("Thanks for the help yesterday, Jonas!", "de", "Danke für die Hilfe gestern, Jonas!"),
    ]

    package static let transcript: Transcript = StreamedResponse.transcript(
        instructions: instructions,
        examples: examples.map { example in
            (
                prompt(example.text, into: TranslationLanguage.named(example.language)!),
                Translation(text: example.translation)
            )
        })
}
