import Foundation
import Kernels
import KernelsCore
import TestSupport
import Testing

@Suite struct VectorMathTests {
    @Test(.onTestThreads) func vectorExpMatchesExpf() {
        var worst: Float = 0
        var x: Float = -87
        while x < 88 {
            let lanes = Vector((0..<16).map { x + Float($0) * 0.0037 })
            let e = VectorKernels<TestArithmetic>.exp(lanes)
            for i in 0..<16 {
                let expected = expf(lanes[i])
                worst = max(worst, abs(e[i] - expected) / expected)
            }
            x += 0.061
        }
        #expect(worst < 3e-7, "largest relative error \(worst)")
        let edges = VectorKernels<TestArithmetic>.exp(
            Vector([-1000, -88, 89, 1000, 0, -0.0, 1, -1, 10, -10, 50, -50, 80, -80, 88, -87]))
        #expect(edges[0] < 1.2e-38 && edges[1] < 1.2e-38)  // clamped: tiny instead of 0
        #expect(edges[2] > 3.4e38 && edges[3] > 3.4e38)  // clamped: huge instead of +∞
        #expect(edges[4] == 1 && edges[5] == 1)
        #expect(abs(edges[6] - Float(M_E)) < 1e-6)
    }

    /// On every set this CPU runs, including the scalar one: the formulas themselves.
    @Test(.onTestThreads, arguments: KernelSelection.available)
    func swiGLUAndSoftmaxMatchScalarFormulas(set: KernelSetID) {
        let k = KernelSelection.implementation(of: set)!
        let n = 37  // a tail past the 16-lane loop
        var gate = (0..<n).map { Float($0) * 0.7 - 12 }
        let up = (0..<n).map { Float($0 % 5) - 2 }
        let expected = (0..<n).map { gate[$0] / (1 + expf(-gate[$0])) * up[$0] }
        gate.withUnsafeMutableBufferPointer { g in
            up.withUnsafeBufferPointer { u in k.swiGLU(g.baseAddress!, u.baseAddress!, count: n) }
        }
        for i in 0..<n { #expect(abs(gate[i] - expected[i]) <= 1e-5 * max(1, abs(expected[i]))) }

        var scores = (0..<n).map { Float($0) * 0.3 - 4 }
        let maximum = scores.max()!
        let total = scores.reduce(0) { $0 + exp(Double($1 - maximum)) }
        let reference = scores.map { Float(exp(Double($0 - maximum)) / total) }
        scores.withUnsafeMutableBufferPointer { k.softmax($0.baseAddress!, count: n) }
        for i in 0..<n { #expect(abs(scores[i] - reference[i]) < 1e-6) }
    }

    @Test(.onTestThreads, arguments: KernelSelection.available)
    func rmsNormNormalisesAndScales(set: KernelSetID) {
        let k = KernelSelection.implementation(of: set)!
        let n = 40
        let x = (0..<n).map { Float($0) - 20 }
        let w = (0..<n).map { Float($0 % 3) + 0.5 }
        var y = [Float](repeating: 0, count: n)
        x.withUnsafeBufferPointer { xp in
            w.withUnsafeBufferPointer { wp in
                y.withUnsafeMutableBufferPointer {
                    k.rmsNorm(
                        xp.baseAddress!, weight: wp.baseAddress!, epsilon: 1e-6, into: $0.baseAddress!, count: n)
                }
            }
        }
        let rms = (x.reduce(0) { $0 + Double($1 * $1) } / Double(n) + 1e-6).squareRoot()
        for i in 0..<n { #expect(abs(y[i] - Float(Double(x[i]) / rms) * w[i]) < 1e-5) }
    }
}

/// Fused multiply-adds, for calling the generic vector math directly.
enum TestArithmetic: MultiplyAdd {
    static func madd(_ a: Vector, _ b: Vector, _ c: Vector) -> Vector { c.addingProduct(a, b) }
}
