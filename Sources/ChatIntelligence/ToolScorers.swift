import Foundation

/// Checks of what the writing tools, the translator and the summarizer wrote, for the quality
/// evaluation (`scripts/eval-tools`). Each returns its problems; an empty list passes.
package enum ToolScorer {
    /// A fact a text must keep: any one of its spellings ("3pm", "3 pm", "15:00"), compared
    /// without case, accents or punctuation.
    package struct Fact: Sendable, Hashable, Decodable, CustomStringConvertible {
        package var spellings: [String]

        package init(_ spellings: [String]) {
            self.spellings = spellings
        }

        package init(from decoder: any Decoder) throws {
            // "3pm|3 pm|15:00"
            let text = try decoder.singleValueContainer().decode(String.self)
            spellings = text.split(separator: "|").map(String.init)
        }

        package func isKept(in text: String) -> Bool {
            let haystack = " " + ToolScorer.folded(text) + " "
            return spellings.contains { haystack.contains(" " + ToolScorer.folded($0) + " ") }
        }

        package var description: String { spellings.joined(separator: "|") }
    }

    /// What can be wrong with a result.
    package enum Problem: Hashable, Sendable, CustomStringConvertible {
        case empty
        /// Talks about the text instead of being it ("Here is the friendlier version:").
        case commentary(String)
        case lostFacts([String])
        /// A misspelling proofreading should have fixed.
        case unfixed(String)
        /// Not shorter than the original (concise, summaries).
        case notShorter(words: Int, original: Int)
        case tooLong(words: Int, limit: Int)
        case missingSpeakers([String])
        /// Key points not as one "• " line each, or not 1 to 5 of them.
        case badPoints(Int)
        /// Meaning lost: the character n-gram F-score against the reference is below the bar.
        case meaning(Double)
        /// The translation repeats the original instead of translating it.
        case untranslated

        package var description: String {
            switch self {
            case .empty: "empty"
            case .commentary(let opening): "commentary \"\(opening)\""
            case .lostFacts(let facts): "lost \(facts.joined(separator: ", "))"
            case .unfixed(let word): "left \"\(word)\""
            case .notShorter(let words, let original): "\(words) words, not shorter than \(original)"
            case .tooLong(let words, let limit): "\(words) words, over \(limit)"
            case .missingSpeakers(let names): "does not name \(names.joined(separator: ", "))"
            case .badPoints(let count): "\(count) points"
            case .meaning(let score): "chrF \(Int((score * 100).rounded())) below \(Int(meaningBar * 100))"
            case .untranslated: "not translated"
            }
        }
    }

    /// Openings that introduce a result rather than being one.
    static let commentaryOpenings = [
        "here is", "here's", "sure", "certainly", "of course", "the rewritten", "the corrected", "rewritten text",
        "corrected text", "i have", "i've", "as an ai", "translation:",
    ]

    /// The writing tools: every fact kept (the summaries and key points, which shorten by
    /// design, three quarters of them), no commentary; proofreading fixes the listed
    /// misspellings; concise and summaries are shorter; key points are 1 to 5 "• " lines.
    package static func writing(
        _ tool: WritingTool, result: String, original: String, facts: [Fact], misspellings: [String]
    ) -> [Problem] {
        let text = TextMatching.trimmed(result)
        guard !text.isEmpty else { return [.empty] }
        var problems: [Problem] = []
        let lower = folded(text)
        if let opening = commentaryOpenings.first(where: { lower.hasPrefix(folded($0)) }) {
            problems.append(.commentary(opening))
        }
        let lost = facts.filter { !$0.isKept(in: text) }
        let shortens = tool == .summarize || tool == .keyPoints
        if shortens ? lost.count * 4 > facts.count : !lost.isEmpty {
            problems.append(.lostFacts(lost.map(\.description)))
        }
        if tool == .proofread {
            let words = Set(folded(text).split(separator: " ").map(String.init))
            for word in misspellings where words.contains(folded(word)) { problems.append(.unfixed(word)) }
        }
        let words = SuggestionScorer.wordCount(text)
        let originalWords = SuggestionScorer.wordCount(original)
        if tool == .concise || tool == .summarize, words >= originalWords {
            problems.append(.notShorter(words: words, original: originalWords))
        }
        if tool == .keyPoints {
            let lines = text.split(separator: "\n")
            if !(1...5).contains(lines.count) || !lines.allSatisfy({ $0.hasPrefix("• ") }) {
                problems.append(.badPoints(lines.count))
            }
        }
        return problems
    }

    /// The chrF score a translation needs against its reference to count as keeping the meaning.
    package static let meaningBar = 0.4

    /// A translation: not the original again, the facts (names, numbers) kept, and close enough
    /// to a reference translation (character 6-gram F-score, ``chrF(_:reference:)``). Whether it
    /// is in the right language is checked by a language identifier outside Swift.
    package static func translation(_ result: String, original: String, reference: String, facts: [Fact])
        -> (problems: [Problem], chrF: Double)
    {
        let text = TextMatching.trimmed(result)
        guard !text.isEmpty else { return ([.empty], 0) }
        var problems: [Problem] = []
        if Translator.copies(text, original) { problems.append(.untranslated) }
        let lost = facts.filter { !$0.isKept(in: text) }
        if !lost.isEmpty { problems.append(.lostFacts(lost.map(\.description))) }
        let score = chrF(text, reference: reference)
        if score < meaningBar { problems.append(.meaning(score)) }
        return (problems, score)
    }

    /// A thread summary: names everyone who wrote, and stays under ``ThreadSummarizer/wordLimit``.
    package static func summary(_ result: String, speakers: [String]) -> [Problem] {
        let text = TextMatching.trimmed(result)
        guard !text.isEmpty else { return [.empty] }
        var problems: [Problem] = []
        let missing = speakers.filter { !Fact([$0]).isKept(in: text) }
        if !missing.isEmpty { problems.append(.missingSpeakers(missing)) }
        let words = SuggestionScorer.wordCount(text)
        if words > ThreadSummarizer.wordLimit {
            problems.append(.tooLong(words: words, limit: ThreadSummarizer.wordLimit))
        }
        return problems
    }

    /// chrF (Popović 2015): the F-score (β = 2, recall weighted) of character n-grams, n = 1…6,
    /// averaged over n, spaces left out; 0…1.
    package static func chrF(_ hypothesis: String, reference: String, order: Int = 6, beta: Double = 2) -> Double {
        let hypothesisCharacters = Array(hypothesis.lowercased().filter { !$0.isWhitespace })
        let referenceCharacters = Array(reference.lowercased().filter { !$0.isWhitespace })
        var precisions: [Double] = []
        var recalls: [Double] = []
        for n in 1...order {
            let hypothesisGrams = grams(hypothesisCharacters, n)
            let referenceGrams = grams(referenceCharacters, n)
            let hypothesisTotal = hypothesisGrams.values.reduce(0, +)
            let referenceTotal = referenceGrams.values.reduce(0, +)
            guard hypothesisTotal > 0, referenceTotal > 0 else { continue }
            let matched = hypothesisGrams.reduce(0) { $0 + min($1.value, referenceGrams[$1.key] ?? 0) }
            precisions.append(Double(matched) / Double(hypothesisTotal))
            recalls.append(Double(matched) / Double(referenceTotal))
        }
        guard !precisions.isEmpty else { return 0 }
        let precision = precisions.reduce(0, +) / Double(precisions.count)
        let recall = recalls.reduce(0, +) / Double(recalls.count)
        guard precision + recall > 0 else { return 0 }
        let beta2 = beta * beta
        return (1 + beta2) * precision * recall / (beta2 * precision + recall)
    }

    private static func grams(_ characters: [Character], _ n: Int) -> [String: Int] {
        guard characters.count >= n else { return [:] }
        var counts: [String: Int] = [:]
        for start in 0...(characters.count - n) { counts[String(characters[start..<(start + n)]), default: 0] += 1 }
        return counts
    }

    /// Lowercased letters and digits, accents dropped, single spaces, digits and letters apart;
    /// `$`, `€`, `@`, and `.` or `:` between digits kept ("$4,000" → "$4000", "4.2", "9:40").
    static func folded(_ text: String) -> String {
        var result = ""
        let characters = Array(text.lowercased())
        for (index, character) in characters.enumerated() {
            let between =
                index > 0 && index + 1 < characters.count && characters[index - 1].isNumber
                && characters[index + 1].isNumber
            if index > 0, character.isLetter != characters[index - 1].isLetter,
                character.isNumber != characters[index - 1].isNumber,
                characters[index - 1].isLetter || characters[index - 1].isNumber,
                character.isLetter || character.isNumber
            {
                result.append(" ")  // "3pm" is "3 pm", "15th" is "15 th"
            }
            if character.isLetter || character.isNumber || "$€@".contains(character) {
                result.append(
                    contentsOf: String(character).decomposedStringWithCanonicalMapping.unicodeScalars
                        .filter { $0.properties.generalCategory != .nonspacingMark }.map(Character.init))
            } else if (character == "." || character == ":") && between {
                result.append(character)
            } else if character == "," && between {
                continue  // "1,250" is "1250"
            } else {
                result.append(" ")
            }
        }
        return result.split(separator: " ").joined(separator: " ")
    }
}
