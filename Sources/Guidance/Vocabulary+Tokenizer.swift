import Tokenizers

extension Vocabulary {
    /// The vocabulary of `tokenizer`: every token's bytes, its end-of-generation tokens, and
    /// its control, unused and user-defined tokens (`<tool_call>`, …) excluded from text.
    public init(tokenizer: Tokenizer) {
        let size = tokenizer.vocabularySize
        let excluded = (0..<size).filter { id in
            tokenizer.isControl(id) || tokenizer.tokenType(id) == .userDefined
        }
        self.init(
            tokenBytes: (0..<size).map(tokenizer.tokenBytes),
            endOfGenerationTokenIDs: tokenizer.endOfGenerationTokenIDs,
            excludedTokenIDs: Set(excluded))
    }
}

extension TokenMatcher {
    /// Tokens for the forced text ahead (see `forcedTokens(encode:)`), tokenized by `tokenizer`.
    public func forcedTokens(using tokenizer: Tokenizer) -> [Int] {
        forcedTokens { tokenizer.encode($0, parseSpecial: false) }
    }
}

extension VocabularyIndex {
    /// The index of `tokenizer`'s vocabulary (see `Vocabulary(tokenizer:)`).
    public convenience init(tokenizer: Tokenizer) {
        self.init(Vocabulary(tokenizer: tokenizer))
    }
}
