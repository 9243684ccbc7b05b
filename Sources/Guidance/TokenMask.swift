/// The set of tokens allowed at one step: one bit per vocabulary entry.
///
/// ```swift
/// matcher.fillMask(&mask)
/// logits.withUnsafeMutableBufferPointer { mask.apply(to: $0.baseAddress!) }
/// ```
public struct TokenMask: Sendable, Equatable {
    /// `ceil(count / 64)` words; bit `i % 64` of word `i / 64` is token `i`.
    public internal(set) var words: [UInt64]
    /// The vocabulary size.
    public let count: Int

    /// An empty mask (nothing allowed) for `vocabularySize` tokens.
    public init(vocabularySize: Int) {
        count = vocabularySize
        words = [UInt64](repeating: 0, count: (vocabularySize + 63) / 64)
    }

    /// Whether `token` is allowed (false for ids outside the vocabulary).
    public func contains(_ token: Int) -> Bool {
        guard token >= 0 && token < count else { return false }
        return words[token >> 6] & (1 << UInt64(token & 63)) != 0
    }

    /// Allows `token`.
    public mutating func insert(_ token: Int) {
        precondition(token >= 0 && token < count, "token \(token) outside a vocabulary of \(count)")
        words[token >> 6] |= 1 << UInt64(token & 63)
    }

    /// Disallows `token`.
    public mutating func remove(_ token: Int) {
        precondition(token >= 0 && token < count, "token \(token) outside a vocabulary of \(count)")
        words[token >> 6] &= ~(1 << UInt64(token & 63))
    }

    /// Disallows every token.
    public mutating func removeAll() {
        for index in words.indices { words[index] = 0 }
    }

    /// How many tokens are allowed.
    public var allowedCount: Int {
        words.reduce(0) { $0 + $1.nonzeroBitCount }
    }

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

    /// Sets the logits of disallowed tokens to −∞. `logits` holds `count` values.
    public func apply(to logits: UnsafeMutablePointer<Float>) {
        // Bit arithmetic on the floats' bit patterns: lane i keeps its value when bit i is set.
        let shifts = SIMD16<UInt32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let blocked = SIMD16<UInt32>(repeating: (-Float.infinity).bitPattern)
        let fullWords = count / 64
        let raw = UnsafeMutableRawPointer(logits)
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
            for token in fullWords * 64..<count where words[token >> 6] & (1 << UInt64(token & 63)) == 0 {
                logits[token] = -Float.infinity
            }
        }
    }

    /// The plain twin of `apply(to:)`, for tests.
    package func applyScalar(to logits: UnsafeMutablePointer<Float>) {
        for token in 0..<count where !contains(token) { logits[token] = -Float.infinity }
    }
}
