/// A set of allowed token ids, one bit per vocabulary entry (bit `id % 64` of word `id / 64`).
///
/// A constrained-decoding engine fills one per step; the sampler then only considers tokens whose
/// bit is set. With Qwen's 151,936 tokens it is 2,374 words.
///
/// ```swift
/// var mask = TokenMask(vocabularySize: model.config.vocabularySize)
/// mask.insert(42)
/// ```
public struct TokenMask: Sendable, Equatable {
    /// The bits, little-endian within each word.
    public var words: [UInt64]
    /// Number of token ids the mask covers.
    public let vocabularySize: Int

    /// A mask that allows nothing (`allowingAll: false`) or everything.
    public init(vocabularySize: Int, allowingAll: Bool = false) {
        precondition(vocabularySize >= 0)
        self.vocabularySize = vocabularySize
        let wordCount = (vocabularySize + 63) / 64
        words = Array(repeating: allowingAll ? ~0 : 0, count: wordCount)
        if allowingAll, vocabularySize % 64 != 0 {
            words[wordCount - 1] = (1 << UInt64(vocabularySize % 64)) - 1
        }
    }

    /// A mask built from existing words (e.g. produced by a grammar matcher).
    public init(words: [UInt64], vocabularySize: Int) {
        precondition(words.count * 64 >= vocabularySize, "\(words.count) words cannot cover \(vocabularySize) tokens")
        self.words = words
        self.vocabularySize = vocabularySize
    }

    /// Whether `token` is allowed.
    @inline(__always)
    public func contains(_ token: Int) -> Bool {
        guard token >= 0, token < vocabularySize else { return false }
        return words[token >> 6] & (1 << UInt64(token & 63)) != 0
    }

    /// Allows `token`.
    public mutating func insert(_ token: Int) {
        precondition(token >= 0 && token < vocabularySize, "token \(token) outside the vocabulary")
        words[token >> 6] |= 1 << UInt64(token & 63)
    }

    /// Disallows `token`.
    public mutating func remove(_ token: Int) {
        precondition(token >= 0 && token < vocabularySize, "token \(token) outside the vocabulary")
        words[token >> 6] &= ~(1 << UInt64(token & 63))
    }

    /// Number of allowed tokens.
    public var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Sets the logit of every disallowed token to −∞, a word (64 tokens) at a time.
    public func apply(to logits: UnsafeMutableBufferPointer<Float>) {
        precondition(logits.count >= vocabularySize, "logits shorter than the mask's vocabulary")
        let n = min(logits.count, words.count * 64)
        words.withUnsafeBufferPointer { words in
            for w in 0..<words.count {
                let bits = words[w]
                if bits == ~0 { continue }
                let start = w * 64
                let end = min(start + 64, n)
                if bits == 0 {
                    for i in start..<end { logits[i] = -.infinity }
                    continue
                }
                var off = ~bits
                while off != 0 {
                    let i = start + off.trailingZeroBitCount
                    if i < end { logits[i] = -.infinity }
                    off &= off - 1
                }
            }
        }
        // Tokens past the mask's vocabulary (padding rows of the output matrix) are never allowed.
        if logits.count > n {
            for i in n..<logits.count { logits[i] = -.infinity }
        }
    }
}
