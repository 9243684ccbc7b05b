import Foundation
import Testing

@testable import Inference

@Suite struct VectorMathTests {
    @Test func vectorExpMatchesExpf() {
        var worst: Float = 0
        var x: Float = -87
        while x < 88 {
            let lanes = Vector((0..<16).map { x + Float($0) * 0.0037 })
            let e = VectorMath.exp(lanes)
            for i in 0..<16 {
                let expected = expf(lanes[i])
                worst = max(worst, abs(e[i] - expected) / expected)
            }
            x += 0.061
        }
        #expect(worst < 3e-7, "largest relative error \(worst)")
        let edges = VectorMath.exp(Vector([-1000, -88, 89, 1000, 0, -0.0, 1, -1, 10, -10, 50, -50, 80, -80, 88, -87]))
        #expect(edges[0] < 1.2e-38 && edges[1] < 1.2e-38)  // clamped: tiny instead of 0
        #expect(edges[2] > 3.4e38 && edges[3] > 3.4e38)  // clamped: huge instead of +∞
        #expect(edges[4] == 1 && edges[5] == 1)
        #expect(abs(edges[6] - Float(M_E)) < 1e-6)
    }

    @Test func swiGLUAndSoftmaxMatchScalarFormulas() {
        let n = 37  // a tail past the 16-lane loop
        var gate = (0..<n).map { Float($0) * 0.7 - 12 }
        let up = (0..<n).map { Float($0 % 5) - 2 }
        let expected = (0..<n).map { gate[$0] / (1 + expf(-gate[$0])) * up[$0] }
        gate.withUnsafeMutableBufferPointer { g in
            up.withUnsafeBufferPointer { u in VectorMath.swiGLU(g.baseAddress!, u.baseAddress!, count: n) }
        }
        for i in 0..<n { #expect(abs(gate[i] - expected[i]) <= 1e-5 * max(1, abs(expected[i]))) }

        var scores = (0..<n).map { Float($0) * 0.3 - 4 }
        let maximum = scores.max()!
        let total = scores.reduce(0) { $0 + exp(Double($1 - maximum)) }
        let reference = scores.map { Float(exp(Double($0 - maximum)) / total) }
        scores.withUnsafeMutableBufferPointer { VectorMath.softmax($0.baseAddress!, count: n) }
        for i in 0..<n { #expect(abs(scores[i] - reference[i]) < 1e-6) }
    }

    @Test func rmsNormNormalisesAndScales() {
        let n = 40
        let x = (0..<n).map { Float($0) - 20 }
        let w = (0..<n).map { Float($0 % 3) + 0.5 }
        var y = [Float](repeating: 0, count: n)
        x.withUnsafeBufferPointer { xp in
            w.withUnsafeBufferPointer { wp in
                y.withUnsafeMutableBufferPointer {
                    VectorMath.rmsNorm(
                        xp.baseAddress!, weight: wp.baseAddress!, epsilon: 1e-6, into: $0.baseAddress!, count: n)
                }
            }
        }
        let rms = (x.reduce(0) { $0 + Double($1 * $1) } / Double(n) + 1e-6).squareRoot()
        for i in 0..<n { #expect(abs(y[i] - Float(Double(x[i]) / rms) * w[i]) < 1e-5) }
    }

    @Test func ropeStylesPairDifferentDimensionsAndPreserveNorms() throws {
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
            rope.fillTable(table, start: 3, count: 1)
            var v = input
            v.withUnsafeMutableBufferPointer { rope.apply($0.baseAddress!, heads: 1, cos: table, sin: table + 4) }
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
        rope.fillTable(table, start: 0, count: 1)
        var v = input
        v.withUnsafeMutableBufferPointer { rope.apply($0.baseAddress!, heads: 1, cos: table, sin: table + 4) }
        #expect(v == input)
    }
}
