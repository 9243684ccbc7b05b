/// A set of allowed token ids, one bit per vocabulary entry (bit `id % 64` of word `id / 64`).
///
/// A constrained decoder (Guidance's `TokenMatcher`) fills one per step; the sampler then only
/// considers tokens whose bit is set. With Qwen's 151,936 tokens it is 2,374 words. The one mask
/// type of the engine: the grammar writes into the very mask the sampler reads.
///
/// ```swift
/// var mask = TokenMask(vocabularySize: model.config.vocabularySize)
/// matcher.fillMask(&mask)
/// logits.withUnsafeMutableBufferPointer { mask.apply(to: $0) }
/// ```
public struct TokenMask: Sendable, Equatable {
    /// `ceil(vocabularySize / 64)` words, little-endian within each word; bits past
    /// `vocabularySize` are always clear.
    public var words: [UInt64]
    /// Number of token ids the mask covers.
    public let vocabularySize: Int

    /// A mask that allows nothing (`allowingAll: false`) or every token of the vocabulary.
    public init(vocabularySize: Int, allowingAll: Bool = false) {
        precondition(vocabularySize >= 0)
        self.vocabularySize = vocabularySize
        let wordCount = (vocabularySize + 63) / 64
        words = Array(repeating: allowingAll ? ~0 : 0, count: wordCount)
        if allowingAll, vocabularySize % 64 != 0 {
            words[wordCount - 1] = (1 << UInt64(vocabularySize % 64)) - 1
        }
    }

    /// Whether `token` is allowed (false for ids outside the vocabulary).
    @inline(__always)
    public func contains(_ token: Int) -> Bool {
        guard token >= 0, token < vocabularySize else { return false }
        return words[token >> 6] & (1 << UInt64(token & 63)) != 0
    }

    /// Allows `token`.
    public mutating func insert(_ token: Int) {
        precondition(token >= 0 && token < vocabularySize, "token \(token) outside a vocabulary of \(vocabularySize)")
        words[token >> 6] |= 1 << UInt64(token & 63)
    }

    /// Disallows `token`.
    public mutating func remove(_ token: Int) {
        precondition(token >= 0 && token < vocabularySize, "token \(token) outside a vocabulary of \(vocabularySize)")
        words[token >> 6] &= ~(1 << UInt64(token & 63))
    }

    /// Disallows every token.
    public mutating func removeAll() {
        words.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// How many tokens are allowed.
    public var allowedCount: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Whether no token is allowed.
    public var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    /// The allowed token ids in increasing order.
    public var allowedTokens: [Int] {
        var tokens: [Int] = []
        for (index, word) in words.enumerated() {
            var bits = word
            while bits != 0 {
                tokens.append(index << 6 | bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return tokens
    }

    /// Sets the logit of every disallowed token to −∞, and of every entry past the vocabulary
    /// (padding rows of the output matrix: never allowed). `logits` holds at least
    /// `vocabularySize` values.
    public func apply(to logits: UnsafeMutableBufferPointer<Float>) {
        precondition(logits.count >= vocabularySize, "\(logits.count) logits for a vocabulary of \(vocabularySize)")
        // Bit arithmetic on the floats' bit patterns: lane i keeps its value when bit i is set.
        let shifts = SIMD16<UInt32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let blocked = SIMD16<UInt32>(repeating: (-Float.infinity).bitPattern)
        let fullWords = vocabularySize / 64
        let raw = UnsafeMutableRawPointer(logits.baseAddress!)
        words.withUnsafeBufferPointer { words in
            for index in 0..<fullWords {
                let word = words[index]
                if word == ~0 { continue }
                for part in 0..<4 {
                    let bits = UInt32(truncatingIfNeeded: word >> UInt64(part * 16)) & 0xFFFF
                    if bits == 0xFFFF { continue }
                    let offset = (index * 64 + part * 16) * MemoryLayout<Float>.stride
                    let values = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt32>.self)
                    let keep = 0 &- ((SIMD16<UInt32>(repeating: bits) &>> shifts) & 1)
                    raw.storeBytes(
                        of: (values & keep) | (blocked & ~keep), toByteOffset: offset, as: SIMD16<UInt32>.self)
                }
            }
            for token in fullWords * 64..<vocabularySize where words[token >> 6] & (1 << UInt64(token & 63)) == 0 {
                logits[token] = -Float.infinity
            }
        }
        for index in vocabularySize..<logits.count { logits[index] = -Float.infinity }
    }

    /// The plain twin of `apply(to:)`, for tests.
    package func applyScalar(to logits: UnsafeMutableBufferPointer<Float>) {
        for index in 0..<logits.count where !contains(index) { logits[index] = -Float.infinity }
    }
}
