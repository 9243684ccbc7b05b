/// The tokens of a model as byte strings: what a `VocabularyIndex` is built from.
///
/// ```swift
/// let vocabulary = Vocabulary(
///     tokenBytes: (0..<tokenizer.vocabularySize).map(tokenizer.tokenBytes),
///     endOfGenerationTokenIDs: tokenizer.endOfGenerationTokenIDs,
///     excludedTokenIDs: Set((0..<tokenizer.vocabularySize).filter(tokenizer.isControl)))
/// ```
/// (`Vocabulary(tokenizer:)` does exactly this.)
public struct Vocabulary: Sendable {
    /// The bytes each token id stands for.
    public let tokenBytes: [[UInt8]]
    /// Tokens that end a generation: allowed exactly when the output is complete.
    public let endOfGenerationTokenIDs: Set<Int>
    /// Tokens never allowed in constrained output (control and padding tokens, …).
    public let excludedTokenIDs: Set<Int>

    /// - Parameters:
    ///   - tokenBytes: the byte string of every token id, `tokenBytes.count` being the vocabulary
    ///     size (the size of masks and logit rows). Empty byte strings are never allowed.
    ///   - endOfGenerationTokenIDs: ids that end generation; they are not matched as text.
    ///   - excludedTokenIDs: ids never allowed.
    public init(tokenBytes: [[UInt8]], endOfGenerationTokenIDs: Set<Int>, excludedTokenIDs: Set<Int> = []) {
        self.tokenBytes = tokenBytes
        self.endOfGenerationTokenIDs = endOfGenerationTokenIDs.filter { tokenBytes.indices.contains($0) }
        self.excludedTokenIDs = excludedTokenIDs
    }

    /// The number of token ids.
    public var count: Int { tokenBytes.count }

    /// Whether token `id` is matched as text (not end-of-generation, not excluded, not empty).
    func isText(_ id: Int) -> Bool {
        !tokenBytes[id].isEmpty && !endOfGenerationTokenIDs.contains(id) && !excludedTokenIDs.contains(id)
    }
}
