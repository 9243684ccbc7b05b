import Kernels
import TestSupport
import Testing

@testable import Inference

/// The attention kernels against a plain causal softmax(q·kᵀ/√d)·v, for the head widths and
/// query-group sizes the code specializes (64, 128, other) and chunks that start mid-cache.
@Suite struct AttentionTests {
    struct Shape: Sendable, CustomStringConvertible {
        let heads: Int
        let kvHeads: Int
        let dimension: Int
        var description: String { "\(heads)/\(kvHeads) heads × \(dimension)" }
    }

    @Test(
        .onTestThreads,
        arguments: [
            Shape(heads: 9, kvHeads: 3, dimension: 64), Shape(heads: 14, kvHeads: 2, dimension: 64),
            Shape(heads: 12, kvHeads: 2, dimension: 128), Shape(heads: 5, kvHeads: 5, dimension: 80),
            Shape(heads: 10, kvHeads: 2, dimension: 48),
        ], KernelSelection.available)
    func matchesNaiveAttention(_ shape: Shape, set: KernelSetID) throws {
        var config = try ModelConfig(metadata: ModelConfigTests.qwenLike)
        config.headCount = shape.heads
        config.headCountKV = shape.kvHeads
        config.headDimension = shape.dimension
        let attention = Attention(config: config)
        let capacity = 70
        let cache = KVCache(layerCount: 2, headCount: shape.kvHeads, headDimension: shape.dimension, capacity: capacity)
        let kvWidth = shape.kvHeads * shape.dimension
        let qWidth = shape.heads * shape.dimension
        var generator = SeededGenerator(seed: 9)
        func random(_ n: Int) -> [Float] { (0..<n).map { _ in Float(generator.nextUnitInterval() * 2 - 1) } }
        let positions = 37
        let keys = random(positions * kvWidth)
        let values = random(positions * kvWidth)
        cache.store(layer: 1, start: 0, count: positions, k: keys, v: values)
        // A chunk of 5 query rows at positions 32...36 (the cache already holds their keys).
        let start = 32, count = 5
        let query = random(count * qWidth)
        var output = [Float](repeating: .nan, count: count * qWidth)
        let scores = UnsafeMutablePointer<Float>.allocate(capacity: 2 * Attention.scratchCount(contextLength: capacity))
        defer { scores.deallocate() }
        let pool = ThreadPool(threadCount: 2)
        output.withUnsafeMutableBufferPointer { out in
            // Two segments over the same cache: rows 0–1, then rows 2–4 (as a batch of two
            // sequences would be split), which must not change any row's result.
            attention(
                layer: 1,
                segments: [
                    ForwardSegment(cache: cache, start: start, row: 0, count: 2, logits: .none),
                    ForwardSegment(cache: cache, start: start + 2, row: 2, count: count - 2, logits: .none),
                ],
                query: query, output: out.baseAddress!, scores: scores, pool: pool,
                kernels: KernelSelection.implementation(of: set)!)
        }

        let scale = 1 / Float(shape.dimension).squareRoot()
        var worst: Float = 0
        for row in 0..<count {
            for h in 0..<shape.heads {
                let g = h / (shape.heads / shape.kvHeads)
                let q = Array(query[(row * qWidth + h * shape.dimension)...].prefix(shape.dimension))
                let length = start + row + 1
                var weights = (0..<length).map { t -> Float in
                    var dot: Float = 0
                    for d in 0..<shape.dimension { dot += q[d] * keys[t * kvWidth + g * shape.dimension + d] }
                    return dot * scale
                }
                let peak = weights.max()!
                weights = weights.map { expf($0 - peak) }
                let total = weights.reduce(0, +)
                for d in 0..<shape.dimension {
                    var expected: Float = 0
                    for t in 0..<length {
                        expected += weights[t] / total * values[t * kvWidth + g * shape.dimension + d]
                    }
                    worst = max(worst, abs(output[row * qWidth + h * shape.dimension + d] - expected))
                }
            }
        }
        #expect(worst < 1e-5, "largest difference \(worst)")
    }
}

#if canImport(Glibc)
    import Glibc
#endif
