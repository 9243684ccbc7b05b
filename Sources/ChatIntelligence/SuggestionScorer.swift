/// Checks a set of reply chips against what the suggestions promise: three distinct replies of
/// at most eight words, each ending naturally, written from the user's side, none repeating a
/// line of the conversation. Used by the quality evaluation (`scripts/eval-suggestions`).
///
/// Stricter than those words in two ways, because a reply the bound cut short can look whole:
/// a reply of exactly eight words without final punctuation fails (``Problem/atBound(_:)``), and
/// so does one with words run together or in a script the conversation does not use
/// (``Problem/garbled(_:)``). Words run together without punctuation ("help youwith?") are not
/// caught: that would take a dictionary.
package enum SuggestionScorer {
    /// What is wrong with a chip set.
    package enum Problem: Hashable, Sendable, CustomStringConvertible {
        /// Not exactly three replies.
        case count(Int)
        /// A reply says the same as an earlier one.
        case duplicate(String)
        /// More than ``maximumWords`` words.
        case tooLong(String, words: Int)
        /// Stops mid-sentence: ends on a connecting word or a comma, or leaves a bracket open.
        case cutOff(String)
        /// Exactly ``maximumWords`` words and no final `. ! ? …`: the schema's bound stopped the
        /// model rather than the model ending the sentence, so it may be cut where no dangling
        /// word shows it. (The prompt asks for at most five words.)
        case atBound(String)
        /// Reads as another participant: starts with a "Name:" label, or addresses the user by
        /// their own name.
        case wrongSide(String)
        /// Says the same as a message of the conversation.
        case repeatsConversation(String)
        /// Words run together ("try.findsomething", "really,really"), or Chinese, Japanese or
        /// Korean characters in a conversation without any: what a model writes when a bound
        /// stops it from going on, or when it drifts out of the conversation's language.
        case garbled(String)

        package var description: String {
            switch self {
            case .count(let count): "\(count) replies"
            case .duplicate(let reply): "duplicate \"\(reply)\""
            case .tooLong(let reply, let words): "\(words) words \"\(reply)\""
            case .cutOff(let reply): "cut off \"\(reply)\""
            case .atBound(let reply): "at the 8-word bound \"\(reply)\""
            case .wrongSide(let reply): "wrong side \"\(reply)\""
            case .repeatsConversation(let reply): "repeats \"\(reply)\""
            case .garbled(let reply): "garbled \"\(reply)\""
            }
        }
    }

    package static let expectedCount = 3
    package static let maximumWords = 8

    /// Everything wrong with `replies` as suggestions for `user` after `messages`; empty when
    /// the set passes.
    package static func problems(_ replies: [String], messages: [ChatMessage], user: Participant) -> [Problem] {
        var problems: [Problem] = []
        if replies.count != expectedCount { problems.append(.count(replies.count)) }
        let said = Set(messages.map { TextMatching.key($0.text) })
        let labels = Set(
            messages.map { TextMatching.normalized($0.author.name) } + [TextMatching.normalized(user.name)])
        let cjkConversation = messages.contains { CJKReplySuggestions.isCJK($0.text) }
        var seen = Set<String>()
        for reply in replies {
            let key = TextMatching.key(reply)
            if !seen.insert(key).inserted { problems.append(.duplicate(reply)) }
            let words = wordCount(reply)
            if words > maximumWords { problems.append(.tooLong(reply, words: words)) }
            if words == maximumWords, let last = reply.last, !".!?…".contains(last) { problems.append(.atBound(reply)) }
            if !endsNaturally(reply) { problems.append(.cutOff(reply)) }
            if isWrongSide(reply, labels: labels, user: user) { problems.append(.wrongSide(reply)) }
            if said.contains(key) { problems.append(.repeatsConversation(reply)) }
            if hasGluedWords(reply) || (!cjkConversation && CJKReplySuggestions.isCJK(reply)) {
                problems.append(.garbled(reply))
            }
        }
        return problems
    }

    /// Words as a reader counts them: runs of non-space characters.
    package static func wordCount(_ text: String) -> Int {
        text.split(whereSeparator: \.isWhitespace).count
    }

    /// Whether `reply` reads as finished: it is not empty, leaves no bracket or quote open,
    /// does not end on a comma, colon, dash or similar, and its last word is not one that needs
    /// something after it (an article, possessive, conjunction or contraction: "the", "my",
    /// "and", "I'm", "de", "pour", …; or an English preposition, except in a question — "Where
    /// to?" — or after a verb that takes it — "I'd love to"). Final punctuation is not required
    /// ("Sounds good" is a finished chat message), and does not rescue a dangling word ("Let's
    /// meet at the." is cut off).
    package static func endsNaturally(_ reply: String) -> Bool {
        let text = TextMatching.trimmed(reply)
        guard let last = text.last else { return false }
        if ",;:-–—(/&+".contains(last) { return false }
        if text.filter({ $0 == "(" }).count != text.filter({ $0 == ")" }).count { return false }
        if text.filter({ $0 == "\"" }).count % 2 != 0 { return false }
        let tokens = text.split(whereSeparator: \.isWhitespace)
        let words = tokens.map { word in
            word.lowercased().replacingOccurrences(of: "’", with: "'").filter {
                $0.isLetter || $0.isNumber || $0 == "'"
            }
        }
        // The last word (letters or digits): a trailing "…" does not finish a sentence by itself.
        guard let finalIndex = words.lastIndex(where: { !$0.isEmpty }) else { return true }  // numbers, emoji
        let final = words[finalIndex]
        if danglingWords.contains(final) { return false }
        let isQuestion = finalIndex == tokens.count - 1 && tokens[finalIndex].hasSuffix("?")
        guard prepositions.contains(final), !isQuestion else { return true }
        let previous = finalIndex > 0 ? words[finalIndex - 1] : ""
        return (final == "to" && verbsBeforeTo.contains(previous))
            || (final == "of" && ["sort", "kind"].contains(previous))
    }

    /// Whether two words are run together with a punctuation mark between them, without a
    /// space: two letters, then `. , ; ! ?`, then two letters ("e.g." and "3:30" are fine).
    package static func hasGluedWords(_ reply: String) -> Bool {
        let characters = Array(reply)
        guard characters.count >= 5 else { return false }
        for index in 2..<(characters.count - 2) where ".,;!?".contains(characters[index]) {
            let around = [characters[index - 2], characters[index - 1], characters[index + 1], characters[index + 2]]
            if around.allSatisfy(\.isLetter) { return true }
        }
        return false
    }

    /// A reply labelled with a participant's name ("Bob: sure"), or one that names the user
    /// ("Sure, Alice!"), is written as someone else.
    private static func isWrongSide(_ reply: String, labels: Set<String>, user: Participant) -> Bool {
        if let (label, _) = TextMatching.splitLabel(TextMatching.trimmed(reply)),
            labels.contains(TextMatching.normalized(label))
        {
            return true
        }
        let name = TextMatching.normalized(user.name)
        guard !name.isEmpty else { return false }
        return (" " + TextMatching.normalized(reply) + " ").contains(" " + name + " ")
    }

    /// Words that never end a sentence: articles, possessives, conjunctions, subject pronouns
    /// and contractions, in English, Spanish, French and German. (Auxiliaries are not here:
    /// "Yes, I can." and "Here it is." are complete.)
    static let danglingWords: Set<String> = [
        // English
        "a", "an", "the", "and", "but", "nor", "because", "if", "than", "unless", "my", "your", "our", "their",
        "its", "i", "i'm", "i'll", "i'd", "i've", "we're", "we'll", "we've", "you're", "you'll", "they're",
        "it's", "let's", "that's", "there's", "gonna", "wanna", "gotta", "very", "just",
        // Spanish
        "el", "la", "los", "las", "un", "una", "unos", "unas", "de", "del", "al", "en", "con", "por", "para", "y",
        "o", "pero", "que", "porque", "mi", "mis", "tu", "tus", "su", "sus", "nuestro", "nuestra", "muy",
        // French
        "le", "les", "une", "des", "du", "à", "au", "aux", "avec", "pour", "par", "sans", "dans", "et", "ou", "mais",
        "mon", "ma", "mes", "ton", "ta", "tes", "son", "sa", "ses", "notre", "votre", "je", "il", "ils", "c'est",
        "très", "j'", "qu'", "d'", "l'",
        // German
        "der", "die", "den", "dem", "ein", "eine", "einen", "einem", "und", "oder", "aber", "zu", "zum", "zur",
        "für", "von", "mein", "meine", "dein", "deine",
    ]

    /// English prepositions, which end questions ("Where are you from?") but not statements.
    static let prepositions: Set<String> = [
        "to", "of", "for", "with", "at", "from", "into", "onto", "by", "about", "or", "as", "like",
    ]

    /// Verbs after which a final "to" is complete: "I'd love to", "Happy to", "I have to".
    static let verbsBeforeTo: Set<String> = [
        "love", "like", "want", "wanted", "need", "have", "has", "had", "happy", "glad", "going", "got", "try",
        "trying", "hope", "hoping", "mean", "meant", "able", "supposed", "used", "plan", "planning", "forgot",
        "agree", "afford", "ought",
    ]
}
