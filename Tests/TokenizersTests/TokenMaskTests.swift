import TestSupport
import Testing

@testable import Tokenizers

@Suite struct TokenMaskTests {
    @Test(.onTestThreads) func sizesAndCountsAreDifferentThings() {
        var mask = TokenMask(vocabularySize: 130, allowingAll: true)
        #expect(mask.vocabularySize == 130 && mask.words.count == 3)
        #expect(mask.allowedCount == 130)
        mask.remove(0)
        mask.remove(64)
        mask.remove(129)
        #expect(mask.allowedCount == 127)
        #expect(!mask.contains(129) && mask.contains(128) && !mask.contains(130) && !mask.contains(-1))
        mask.removeAll()
        #expect(mask.isEmpty && mask.allowedTokens.isEmpty)
        mask.insert(129)
        mask.insert(3)
        #expect(mask.allowedTokens == [3, 129])
    }

    /// The vector path against its scalar twin, for every word shape; logits past the vocabulary
    /// (a model's padding rows) are never allowed.
    @Test(.onTestThreads) func applySetsDisallowedLogitsToMinusInfinity() {
        var random = SplitMix64(seed: 3)
        for size in [1, 63, 64, 65, 130, 1000, 49152, 151_936] {
            var mask = TokenMask(vocabularySize: size)
            let density = [0.0, 0.01, 0.5, 0.99, 1.0][random.below(5)]
            for token in 0..<size where Double.random(in: 0..<1, using: &random) < density { mask.insert(token) }
            let padding = random.below(3) * 7
            let logits = (0..<(size + padding)).map { _ in Float.random(in: -5...5, using: &random) }
            var fast = logits
            var plain = logits
            fast.withUnsafeMutableBufferPointer { mask.apply(to: $0) }
            plain.withUnsafeMutableBufferPointer { mask.applyScalar(to: $0) }
            #expect(fast == plain, "size \(size) density \(density)")
            #expect(fast.filter { $0 > -.infinity }.count == mask.allowedCount)
            #expect(fast.suffix(padding).allSatisfy { $0 == -.infinity })
        }
    }
}
