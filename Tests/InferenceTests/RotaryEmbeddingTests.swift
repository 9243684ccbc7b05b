import Foundation
import Kernels
import TestSupport
import Testing

@testable import Inference

@Suite struct RotaryEmbeddingTests {
    @Test(.onTestThreads, arguments: KernelSelection.available)
    func ropeStylesPairDifferentDimensionsAndPreserveNorms(set: KernelSetID) throws {
        let kernels = KernelSelection.implementation(of: set)!
        var config = try ModelConfig(metadata: ModelConfigTests.qwenLike)
        config.headCount = 1
        config.headDimension = 8
        config.ropeDimensionCount = 8
        config.ropeFrequencyBase = 10_000
        let table = UnsafeMutablePointer<Float>.allocate(capacity: 8)
        defer { table.deallocate() }
        let input: [Float] = [1, 2, 3, 4, 5, 6, 7, 8]
        var results: [[Float]] = []
        for style in [RopeStyle.adjacentPairs, .halves] {
            config.ropeStyle = style
            let rope = RotaryEmbedding(config: config)
            rope.fillTable(cos: table, sin: table + 4, start: 3, count: 1)
            var v = input
            v.withUnsafeMutableBufferPointer {
                rope.apply($0.baseAddress!, heads: 1, cos: table, sin: table + 4, kernels: kernels)
            }
            // Pair i is rotated by 3·10000^(−2i/8); pair 0 by 3 radians.
            let (a, b) = style == .adjacentPairs ? (0, 1) : (0, 4)
            #expect(abs(v[a] - (input[a] * cos(3) - input[b] * sin(3))) < 1e-5)
            #expect(abs(v[b] - (input[a] * sin(3) + input[b] * cos(3))) < 1e-5)
            #expect(abs(v.reduce(0) { $0 + $1 * $1 } - input.reduce(0) { $0 + $1 * $1 }) < 1e-3)
            results.append(v)
        }
        #expect(results[0] != results[1])
        // Position 0 is the identity.
        let rope = RotaryEmbedding(config: config)
        rope.fillTable(cos: table, sin: table + 4, start: 0, count: 1)
        var v = input
        v.withUnsafeMutableBufferPointer {
            rope.apply($0.baseAddress!, heads: 1, cos: table, sin: table + 4, kernels: kernels)
        }
        #expect(v == input)
    }
}
