import FoundationModels
import Guidance
import Inference
import Synchronization
import Tokenizers

/// Steers generation through a Guidance grammar: the bytes the grammar determines are forced as
/// whole tokens, every other step is masked to the tokens the grammar allows, and generation
/// stops as soon as the output is complete.
///
/// Two extras over a bare ``TokenMatcher``:
/// - literal `prefix` bytes before the grammar's own text (a tool call's `\n` after
///   `<tool_call>`), forced with the grammar's first forced bytes so that they tokenize together;
/// - a token `budget`: near the end of it, only tokens after which the output can still be
///   completed in the tokens left are allowed (every byte has a token, so `n` bytes fit in `n`
///   tokens), so a response cut short by `maximumResponseTokens` is still valid JSON.
///
/// One generation owns a constraint; it is not reused.
// @unchecked Sendable: the matcher is mutated only by the one generation that owns the
// constraint, on its inference session's serial queue.
package final class GrammarConstraint: TokenConstraint, @unchecked Sendable {
    package let matcher: TokenMatcher
    private let tokenizer: Tokenizer
    private var prefix: [UInt8]
    /// Tokens this constraint may still accept; nil for no limit.
    package private(set) var budget: Int?
    /// Whether end-of-generation tokens may end the output where the grammar accepts.
    private let allowsEndToken: Bool

    /// Within this many bytes of the budget, steering toward completion starts.
    static let steeringMargin = 256
    /// Within this many bytes of the budget, every allowed token is checked.
    static let exactSteeringMargin = 64

    /// - Parameters:
    ///   - prefix: text that comes before the grammar's output.
    ///   - budget: the most tokens this output may take (nil: no limit).
    ///   - allowsEndToken: whether an end-of-generation token may end the output (false when
    ///     more text follows the grammar, as the closing tag of a tool call does).
    package init(
        grammar: Grammar, index: VocabularyIndex, tokenizer: Tokenizer, prefix: String = "", budget: Int? = nil,
        allowsEndToken: Bool = true
    ) {
        matcher = TokenMatcher(grammar: grammar, index: index)
        self.tokenizer = tokenizer
        self.prefix = Array(prefix.utf8)
        self.budget = budget
        self.allowsEndToken = allowsEndToken
    }

    package var isComplete: Bool { prefix.isEmpty && matcher.isComplete }

    /// Whether the output so far is complete (it may end here).
    package var canEnd: Bool { prefix.isEmpty && (matcher.canEnd || matcher.isComplete) }

    package func forcedTokens() -> [Int] {
        if prefix.isEmpty {
            if let budget, budget <= 0 { return [] }
            let tokens = matcher.forcedTokens(using: tokenizer)
            guard let budget else { return tokens }
            return Array(tokens.prefix(budget))
        }
        // The prefix with the grammar's forced start, tokenized together; the last token is left
        // to sampling (it might merge with what follows).
        var bytes = prefix + matcher.forcedBytes
        bytes.removeLast(bytes.count - TokenMatcher.wholeCharacterLength(bytes))
        var tokens = spelledTokens(bytes) ?? []
        if !tokens.isEmpty { tokens.removeLast() }
        let covered = tokens.reduce(0) { $0 + tokenizer.tokenBytes($1).count }
        if covered < prefix.count {
            // Not even the prefix is covered: force the prefix on its own, whole.
            tokens = spelledTokens(prefix) ?? prefix.compactMap { tokenizer.byteTokenID($0) }
        }
        return tokens
    }

    package func restrict(_ mask: inout TokenMask) -> Bool {
        if !prefix.isEmpty {
            // Only reached if forcing failed: allow the token of the prefix's next byte.
            mask.removeAll()
            if let token = tokenizer.byteTokenID(prefix[0]), token < mask.vocabularySize { mask.insert(token) }
            return true
        }
        // The grammar writes the engine's mask itself (padding rows past the vocabulary cleared).
        matcher.fillMask(&mask)
        if !allowsEndToken {
            for token in tokenizer.endOfGenerationTokenIDs where mask.contains(token) { mask.remove(token) }
        }
        if let budget { steer(&mask, toFinishWithin: budget) }
        return true
    }

    package var refinesRefusals: Bool { true }

    /// When the model wanted to start a new word (its best token begins with a space) where the
    /// grammar allows none — a word bound reached — tokens that would run on the current word
    /// ("to" + "help" → "tohelp") are dropped too, if anything else (punctuation, the closing
    /// quote) is left: the output then ends the word instead of gluing the next one to it.
    package func refine(_ mask: inout TokenMask, refusing preferred: Int) {
        guard prefix.isEmpty, tokenizer.tokenBytes(preferred).first == UInt8(ascii: " ") else { return }
        let continuing = matcher.index.wordContinuingTokens.words
        var narrowed = mask.words
        var remaining = false
        for i in 0..<min(narrowed.count, continuing.count) {
            narrowed[i] &= ~continuing[i]
            if narrowed[i] != 0 { remaining = true }
        }
        if remaining { mask.words = narrowed }
    }

    package func accept(_ token: Int) throws {
        if !prefix.isEmpty {
            let bytes = tokenizer.tokenBytes(token)
            let shared = min(bytes.count, prefix.count)
            guard !bytes.isEmpty, bytes[..<shared].elementsEqual(prefix[..<shared]) else {
                throw GuidanceError(
                    .rejected,
                    "token \(token) does not continue the text \(String(decoding: prefix, as: UTF8.self).debugDescription)"
                )
            }
            if bytes.count > shared { try matcher.accept(bytes: Array(bytes[shared...])) }
            prefix.removeFirst(shared)
        } else {
            try matcher.accept(token)
        }
        if let budget { self.budget = budget - 1 }
    }

    /// Advances past text generated without this constraint's mask (while it only follows
    /// the output to see whether it matches), counting it against the budget.
    ///
    /// - Throws: `GuidanceError` when the text leaves the grammar.
    package func follow(bytes: [UInt8]) throws {
        precondition(prefix.isEmpty, "a followed output has no prefix")
        try matcher.accept(bytes: bytes)
        if let budget { self.budget = budget - 1 }
    }

    /// Removes from `mask` the tokens after which the output could not be completed within
    /// the `budget - 1` tokens left; keeps the ones closest to completion if none could.
    ///
    /// Checking a token takes a walk of the automaton, so checking every allowed token (tens of
    /// thousands inside a string) is kept for the last stretch. Before that only tokens with
    /// JSON structure in them are checked: they are the ones that open a new value (an array
    /// element, an optional property) and so can lengthen the shortest completion by more than a
    /// few bytes. Far from the end nothing is checked.
    private func steer(_ mask: inout TokenMask, toFinishWithin budget: Int) {
        let left = budget - 1
        let distance = matcher.minimumBytesToComplete
        if left >= distance + Self.steeringMargin { return }
        let candidates =
            left >= distance + Self.exactSteeringMargin
            ? StructuralTokens.of(matcher.index).filter { mask.contains(Int($0)) }.map(Int.init)
            : mask.allowedTokens
        var closest = Int.max
        var closestTokens: [Int] = []
        for token in candidates {
            let after = matcher.minimumBytesToComplete(after: token) ?? Int.max
            if after <= left { continue }
            mask.remove(token)
            if after < closest {
                closest = after
                closestTokens = [token]
            } else if after == closest {
                closestTokens.append(token)
            }
        }
        if mask.isEmpty { for token in closestTokens { mask.insert(token) } }
    }

    /// The canonical tokens of `bytes` if they spell exactly those bytes with text tokens.
    private func spelledTokens(_ bytes: [UInt8]) -> [Int]? {
        guard !bytes.isEmpty else { return [] }
        let tokens = tokenizer.encode(String(decoding: bytes, as: UTF8.self), parseSpecial: false)
        var spelled: [UInt8] = []
        for token in tokens {
            guard tokenizer.tokenType(token) == .normal || tokenizer.tokenType(token) == .byte else { return nil }
            spelled += tokenizer.tokenBytes(token)
        }
        return spelled == bytes ? tokens : nil
    }
}

/// The tokens of a vocabulary whose text has JSON structure in it (a quote, a backslash, a
/// brace, a bracket, a comma or a colon), computed once per vocabulary.
enum StructuralTokens {
    private static let cache = Mutex<[ObjectIdentifier: (index: VocabularyIndex, tokens: [Int32])]>([:])

    static func of(_ index: VocabularyIndex) -> [Int32] {
        if let known = cache.withLock({ $0[ObjectIdentifier(index)]?.tokens }) { return known }
        let structural: Set<UInt8> = [0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A]
        let tokens = index.vocabulary.tokenBytes.indices.filter { id in
            index.vocabulary.tokenBytes[id].contains(where: structural.contains)
        }.map { Int32($0) }
        cache.withLock { $0[ObjectIdentifier(index)] = (index, tokens) }
        return tokens
    }
}

extension Tokenizer {
    /// The token that is exactly the single byte `byte`, if the vocabulary has one.
    func byteTokenID(_ byte: UInt8) -> Int? {
        let tokens = encode(String(decoding: [byte], as: UTF8.self), parseSpecial: false)
        return tokens.count == 1 && tokenBytes(tokens[0]) == [byte] ? tokens[0] : nil
    }
}
