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

    public func contains(_ token: Int) -> Bool {
        guard token >= 0 && token < count else { return false }
        return words[token >> 6] & (1 << UInt64(token & 63)) != 0
    }

    public mutating func insert(_ token: Int) {
        precondition(token >= 0 && token < count, "token \(token) outside a vocabulary of \(count)")
        words[token >> 6] |= 1 << UInt64(token & 63)
    }

    public mutating func remove(_ token: Int) {
        precondition(token >= 0 && token < count, "token \(token) outside a vocabulary of \(count)")
        words[token >> 6] &= ~(1 << UInt64(token & 63))
    }

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
        let lanes = SIMD16<UInt32>(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
        let blocked = SIMD16<Float>(repeating: -Float.infinity)
        let fullWords = count / 64
        words.withUnsafeBufferPointer { words in
            for index in 0..<fullWords {
                let word = words[index]
                if word == ~0 { continue }
                let base = logits + index * 64
                if word == 0 {
                    for part in 0..<4 {
                        UnsafeMutableRawPointer(base + part * 16).storeBytes(of: blocked, as: SIMD16<Float>.self)
                    }
                    continue
                }
                for part in 0..<4 {
                    let bits = UInt32(truncatingIfNeeded: word >> UInt64(part * 16)) & 0xFFFF
                    if bits == 0xFFFF { continue }
                    let pointer = UnsafeMutableRawPointer(base + part * 16)
                    var values = pointer.loadUnaligned(as: SIMD16<Float>.self)
                    let allowed = (SIMD16<UInt32>(repeating: bits) & lanes) .!= 0
                    values.replace(with: blocked, where: .!allowed)
                    pointer.storeBytes(of: values, as: SIMD16<Float>.self)
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
