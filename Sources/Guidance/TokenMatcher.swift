import Tokenizers

/// Follows one constrained generation token by token: which tokens may come next, which bytes are
/// forced, and when the output is complete. Create one per generation (it is not thread-safe);
/// the grammar and index behind it are shared.
///
/// ```swift
/// let matcher = TokenMatcher(grammar: grammar, index: index)
/// var mask = TokenMask(vocabularySize: index.vocabularySize)
/// while !matcher.isComplete {
///     let logits = model.next(…)
///     matcher.fillMask(&mask)
///     mask.apply(to: logits)
///     let token = sample(logits)
///     if matcher.isEndOfGeneration(token) { break }
///     try matcher.accept(token)
/// }
/// ```
///
/// A cheaper loop samples first and masks only when the sampled token is refused
/// (`canAccept(_:)`), which is exact for greedy decoding and plain temperature sampling.
public final class TokenMatcher {
    /// The constraint being followed.
    public let grammar: Grammar
    /// The vocabulary tokens come from.
    public let index: VocabularyIndex
    private let table: MaskTable
    private var dfa: ByteDFA { table.dfa }
    private var state = ByteDFA.start
    private var ended = false
    /// Bytes of output accepted so far.
    public private(set) var acceptedByteCount = 0

    /// Starts a new output for `grammar` over `index`'s vocabulary. Cheap: the masks computed
    /// by earlier matchers of the same grammar and index are shared.
    public init(grammar: Grammar, index: VocabularyIndex) {
        self.grammar = grammar
        self.index = index
        table = grammar.maskTable(for: index)
    }

    /// Back to the start of a new output.
    public func reset() {
        state = ByteDFA.start
        ended = false
        acceptedByteCount = 0
    }

    /// Whether the output so far is complete, so that an end-of-generation token is allowed.
    public var canEnd: Bool { !ended && dfa.accepting[Int(state)] }

    /// Whether generation must stop: an end-of-generation token was accepted, or the output is
    /// complete and nothing may follow it.
    public var isComplete: Bool { ended || (dfa.accepting[Int(state)] && !dfa.canContinue[Int(state)]) }

    /// The fewest bytes that would complete the output from here (0 when it can end now). A
    /// generation running out of its token budget can steer toward completion with it.
    public var minimumBytesToComplete: Int {
        ended ? 0 : Int(dfa.distanceToAccept[Int(state)])
    }

    /// The fewest bytes that would complete the output after `token` (nil if it is refused).
    public func minimumBytesToComplete(after token: Int) -> Int? {
        guard canAccept(token) else { return nil }
        if isEndOfGeneration(token) { return 0 }
        return Int(dfa.distanceToAccept[Int(dfa.run(index.vocabulary.tokenBytes[token], from: state))])
    }

    /// The bytes that must come next whatever is sampled (e.g. `{"replies": ["` at the start),
    /// up to the first point where there is a choice. Empty when there is a choice now.
    public var forcedBytes: [UInt8] {
        var bytes: [UInt8] = []
        var current = state
        while !ended {
            let byte = dfa.forcedByte[Int(current)]
            if byte < 0 { break }
            bytes.append(UInt8(byte))
            current = dfa.next(current, UInt8(byte))
        }
        return bytes
    }

    /// Tokens to append without sampling: the canonical tokenization (by `encode`) of the forced
    /// bytes ahead, less its last token, which could merge with what follows and is left to
    /// sampling (unless the forced text completes the output). Empty when nothing is forced or
    /// the tokenization does not spell the forced bytes exactly.
    ///
    /// The caller feeds them to the model and to `accept(_:)` in order.
    public func forcedTokens(encode: (String) -> [Int]) -> [Int] {
        var bytes = forcedBytes
        // Stop before a character cut off by the end of the forced run.
        let end = Self.wholeCharacterLength(bytes)
        let complete = end == bytes.count
        bytes.removeSubrange(end...)
        guard !bytes.isEmpty else { return [] }
        var tokens = encode(String(decoding: bytes, as: UTF8.self))
        var spelled: [UInt8] = []
        for token in tokens {
            guard token >= 0 && token < index.vocabularySize, index.isText[token] else { return [] }
            spelled += index.vocabulary.tokenBytes[token]
        }
        guard spelled == bytes else { return [] }
        let after = dfa.run(bytes, from: state)
        if !(complete && dfa.accepting[Int(after)] && !dfa.canContinue[Int(after)]) { tokens.removeLast() }
        return tokens
    }

    /// The length of the longest prefix of `bytes` that does not end inside a UTF-8 character
    /// (forced text is handed to the tokenizer only in whole characters).
    public static func wholeCharacterLength(_ bytes: [UInt8]) -> Int {
        var end = 0
        while end < bytes.count {
            let lead = bytes[end]
            let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            if end + length > bytes.count { break }
            end += length
        }
        return end
    }

    /// Whether `token` is an end-of-generation token of the vocabulary.
    public func isEndOfGeneration(_ token: Int) -> Bool {
        index.vocabulary.endOfGenerationTokenIDs.contains(token)
    }

    /// Writes the tokens allowed next into `mask`, which covers at least the vocabulary (ids past
    /// it, such as a model's padding rows, are cleared).
    public func fillMask(_ mask: inout TokenMask) {
        if ended {
            mask.removeAll()
            return
        }
        table.fill(&mask, state: state)
    }

    /// The tokens allowed next.
    public var mask: TokenMask {
        var mask = TokenMask(vocabularySize: index.vocabularySize)
        fillMask(&mask)
        return mask
    }

    /// Whether `token` is allowed next, without changing anything.
    public func canAccept(_ token: Int) -> Bool {
        guard !ended, token >= 0, token < index.vocabularySize else { return false }
        if isEndOfGeneration(token) { return dfa.accepting[Int(state)] }
        guard index.isText[token] else { return false }
        return dfa.run(index.vocabulary.tokenBytes[token], from: state) != ByteDFA.dead
    }

    /// Advances past `token`.
    ///
    /// - Throws: `GuidanceError` of kind `rejected` (nothing changes) when the token is not allowed.
    public func accept(_ token: Int) throws {
        guard token >= 0 && token < index.vocabularySize else {
            throw GuidanceError(
                .vocabularyMismatch, "token \(token) is outside a vocabulary of \(index.vocabularySize)",
                offset: acceptedByteCount)
        }
        guard canAccept(token) else {
            let text = String(decoding: index.vocabulary.tokenBytes[token], as: UTF8.self)
            throw GuidanceError(
                .rejected, "token \(token) (\(text.debugDescription)) is not allowed here", offset: acceptedByteCount)
        }
        if isEndOfGeneration(token) {
            ended = true
            return
        }
        let bytes = index.vocabulary.tokenBytes[token]
        state = dfa.run(bytes, from: state)
        acceptedByteCount += bytes.count
    }

    /// Advances past raw output bytes (e.g. forced text appended without sampling).
    ///
    /// - Throws: `GuidanceError` of kind `rejected` (nothing changes) when the bytes leave the
    ///   grammar.
    public func accept(bytes: [UInt8]) throws {
        let next = ended ? ByteDFA.dead : dfa.run(bytes, from: state)
        guard next != ByteDFA.dead else {
            let text = String(decoding: bytes, as: UTF8.self)
            throw GuidanceError(
                .rejected, "bytes \(text.debugDescription) are not allowed here", offset: acceptedByteCount)
        }
        state = next
        acceptedByteCount += bytes.count
    }

    /// The number of states whose masks have been computed for this grammar and vocabulary (a
    /// measure of how warm the shared cache is).
    package var computedMaskCount: Int { table.computedCount }
}
