import Foundation
import TestSupport
import Testing
import Tokenizers

@testable import Inference

/// Logits whose softmax is exactly `probabilities`.
private func logits(_ probabilities: [Float]) -> [Float] { probabilities.map { logf($0) } }

private func candidates(_ values: [Float]) -> TokenCandidates {
    var c = TokenCandidates()
    values.withUnsafeBufferPointer { c.reset(from: $0) }
    return c
}

private func sample(_ chain: inout SamplerChain, _ values: [Float], mask: TokenMask? = nil) -> Int? {
    var copy = values
    return copy.withUnsafeMutableBufferPointer { chain.sample($0, mask: mask) }
}

@Suite struct SamplingTests {
    @Test(.onTestThreads) func seededGeneratorIsReproducibleAndSeedDependent() {
        var a = SeededGenerator(seed: 42)
        var b = SeededGenerator(seed: 42)
        var c = SeededGenerator(seed: 43)
        let first = (0..<100).map { _ in a.next() }
        #expect(first == (0..<100).map { _ in b.next() })
        #expect(first != (0..<100).map { _ in c.next() })
        var d = SeededGenerator(seed: 0)
        for _ in 0..<10_000 {
            let u = d.nextUnitInterval()
            #expect(u >= 0 && u < 1)
        }
    }

    @Test(.onTestThreads) func sameSeedAndOptionsGiveSameTokens() {
        let values = (0..<1000).map { Float(sin(Double($0) * 0.37) * 3) }
        let options = SamplingOptions(temperature: 1.3, topK: 100, topP: 0.98, minP: 0.01, seed: 1234)
        var a = SamplerChain(options: options)
        var b = SamplerChain(options: options)
        var other = SamplerChain(
            options: SamplingOptions(temperature: 1.3, topK: 100, topP: 0.98, minP: 0.01, seed: 99))
        var fromA: [Int] = []
        var fromB: [Int] = []
        var fromOther: [Int] = []
        for _ in 0..<200 {
            fromA.append(sample(&a, values)!)
            fromB.append(sample(&b, values)!)
            fromOther.append(sample(&other, values)!)
        }
        #expect(fromA == fromB)
        #expect(fromA != fromOther)
        #expect(Set(fromA).count > 5, "a hot temperature should spread the draws")
    }

    @Test(.onTestThreads) func temperatureZeroIsGreedy() {
        let values: [Float] = [0.1, 2.5, 2.4, -1, 0]
        var chain = SamplerChain(options: SamplingOptions(temperature: 0, seed: 1))
        #expect(chain.isGreedy)
        for _ in 0..<20 { #expect(sample(&chain, values) == 1) }
    }

    @Test(.onTestThreads) func topKKeepsTheKBestSorted() {
        var c = candidates([0.5, 3, -2, 7, 1, 3.5, 0])
        TopK(3).apply(to: &c, history: [])
        #expect(c.ids == [3, 5, 1])
        #expect(c.logits == [7, 3.5, 3])
        #expect(c.isSorted)
        var large = candidates((0..<50_000).map { Float(($0 * 7919) % 50_000) })
        TopK(5).apply(to: &large, history: [])
        #expect(large.logits == [49_999, 49_998, 49_997, 49_996, 49_995])
    }

    @Test(.onTestThreads) func topPKeepsTheSmallestNucleus() {
        var c = candidates(logits([0.1, 0.4, 0.2, 0.3]))
        TopP(0.5).apply(to: &c, history: [])
        #expect(c.ids == [1, 3])  // 0.4 + 0.3 ≥ 0.5
        var one = candidates(logits([0.1, 0.4, 0.2, 0.3]))
        TopP(0.35).apply(to: &one, history: [])
        #expect(one.ids == [1])
        var all = candidates(logits([0.1, 0.4, 0.2, 0.3]))
        TopP(0.95).apply(to: &all, history: [])
        #expect(all.ids == [1, 3, 2, 0])
    }

    @Test(.onTestThreads) func topPOnALargeVocabularyMatchesAFullSort() {
        // A peaked distribution over 100k tokens: the pruned path must keep exactly what sorting
        // everything would keep.
        let values = (0..<100_000).map { i -> Float in
            let x = Float((i * 2_654_435_761) % 100_003) / 100_003
            return -12 * x * x
        }
        var pruned = candidates(values)
        TopP(0.9).apply(to: &pruned, history: [])
        var reference = candidates(values)
        reference.sort()
        let p = reference.probabilities()
        var sum: Float = 0
        var keep = 0
        while sum < 0.9 {
            sum += p[keep]
            keep += 1
        }
        #expect(pruned.count == keep)
        #expect(pruned.ids == Array(reference.ids.prefix(keep)))
    }

    @Test(.onTestThreads) func minPDropsTokensFarBelowTheBest() {
        var c = candidates(logits([0.1, 0.4, 0.2, 0.3]))
        MinP(0.6).apply(to: &c, history: [])  // keep p ≥ 0.24
        #expect(Set(c.ids) == [1, 3])
        var none = candidates(logits([0.1, 0.4, 0.2, 0.3]))
        MinP(0).apply(to: &none, history: [])
        #expect(none.count == 4)
    }

    @Test(.onTestThreads) func drawsFollowTheDistribution() {
        var chain = SamplerChain(options: SamplingOptions(temperature: 1, topK: 0, topP: 1, minP: 0, seed: 7))
        let values = logits([0.5, 0.3, 0.2])
        var counts = [0, 0, 0]
        let n = 20_000
        for _ in 0..<n { counts[sample(&chain, values)!] += 1 }
        #expect(abs(Double(counts[0]) / Double(n) - 0.5) < 0.02)
        #expect(abs(Double(counts[1]) / Double(n) - 0.3) < 0.02)
        #expect(abs(Double(counts[2]) / Double(n) - 0.2) < 0.02)
    }

    @Test(.onTestThreads) func lowTemperatureSharpens() {
        var chain = SamplerChain(options: SamplingOptions(temperature: 0.01, topK: 0, topP: 1, minP: 0, seed: 3))
        let values = logits([0.4, 0.35, 0.25])
        for _ in 0..<200 { #expect(sample(&chain, values) == 0) }
    }

    @Test(.onTestThreads) func maskRestrictsTheChoice() {
        let values: [Float] = [5, 4, 3, 2, 1]
        var mask = TokenMask(vocabularySize: 5)
        mask.insert(2)
        mask.insert(4)
        var greedy = SamplerChain(options: .greedy)
        #expect(sample(&greedy, values, mask: mask) == 2)
        var random = SamplerChain(options: SamplingOptions(temperature: 1, seed: 5))
        for _ in 0..<100 { #expect([2, 4].contains(sample(&random, values, mask: mask)!)) }
        #expect(sample(&greedy, values, mask: TokenMask(vocabularySize: 5)) == nil)
    }

    @Test(.onTestThreads) func repetitionPenaltyDemotesRecentTokens() {
        let values: [Float] = [2.0, 1.9, -1, -1.1]
        var chain = SamplerChain(options: SamplingOptions(temperature: 0, repetitionPenalty: 1.5))
        #expect(sample(&chain, values) == 0)
        chain.accept(0)
        #expect(sample(&chain, values) == 1)  // 2.0 / 1.5 < 1.9
        var c = candidates(values)
        RepetitionPenalty(penalty: 2, window: 4).apply(to: &c, history: [0, 2])
        #expect(c.logits == [1.0, 1.9, -2, -1.1])
        var outside = candidates(values)
        RepetitionPenalty(penalty: 2, window: 1).apply(to: &outside, history: [0, 2])
        #expect(outside.logits == [2.0, 1.9, -2, -1.1])
    }
}
