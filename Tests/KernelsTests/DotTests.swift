import Kernels
import KernelsCore
import TensorFormats
import TestSupport
import Testing

@Suite struct DotTests {
    /// The integer dot product equals the float dot product of the dequantized weights and the
    /// dequantized activation (an independent path through `Dequantize`).
    @Test(.onTestThreads, arguments: allWeightTypes)
    func scalarMatchesDequantizedFloat(type: GGMLType) {
        var rng = SeededGenerator(seed: 0xF1 ^ UInt64(type.rawValue))
        for trial in 0..<10 {
            let columns = 512
            let bytes = randomWeights(type, rows: 1, columns: columns, using: &rng)
            let x = randomFloats(columns, using: &rng)
            let kind = ActivationKind(type)
            let act = kind == .float ? nil : ActivationBuffer(kind: kind, columns: columns, count: 1)
            defer { act?.deallocate() }
            x.withUnsafeBufferPointer { act?.quantize($0.baseAddress!, row: 0, with: ScalarKernels.self) }
            let xq = act.map { dequantizedActivation($0, row: 0) } ?? x
            bytes.withUnsafeBytes { raw in
                let w = WeightMatrix(type: type, rows: 1, columns: columns, base: raw.baseAddress!)
                let expected = referenceDot(dequantized(w)[...], xq[...])
                let got = x.withUnsafeBufferPointer {
                    referenceRowDot(type, raw.baseAddress!, $0.baseAddress!, act, columns)
                }
                #expect(abs(Double(got) - expected.value) <= 1e-5 * expected.magnitude, "\(type) trial \(trial)")
            }
        }
    }
}

/// The scalar twin of one row's dot product.
func referenceRowDot(
    _ type: GGMLType, _ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ act: ActivationBuffer?, _ columns: Int
) -> Float {
    let m = MatrixView(type: type, rows: 1, columns: columns, base: w, groupStride: 0)
    let input = ProductInput(
        x: x, columns: columns, q8: act?.kind == .q8 ? act : nil, q8_1: act?.kind == .q8_1 ? act : nil,
        q8K: act?.kind == .q8K ? act : nil)
    var y: Float = .nan
    DotReference.products(m, input, tokens: 0..<1, rows: 0..<1, into: &y)
    return y
}

/// Float rows of any length, including masked tails shorter than one vector, on every set this
/// CPU runs.
@Suite struct FloatDotTests {
    @Test(.onTestThreads, arguments: [GGMLType.f32, .f16, .bf16], [1, 5, 16, 31, 33, 100])
    func oddLengths(type: GGMLType, count: Int) {
        var rng = SeededGenerator(seed: UInt64(count) &* 31 &+ UInt64(type.rawValue))
        let bytes = randomWeights(type, rows: 1, columns: count, using: &rng)
        let x = randomFloats(count, using: &rng)
        bytes.withUnsafeBytes { raw in
            for id in KernelSelection.available {
                let w = WeightMatrix(type: type, rows: 1, columns: count, base: raw.baseAddress!, kernels: id)
                let expected = referenceDot(dequantized(w)[...], x[...])
                var y: Float = .nan
                MatMul.matvec(w, x, &y, pool: KernelChecks.pool)
                #expect(abs(Double(y) - expected.value) <= 1e-5 * expected.magnitude + 1e-7, "\(id)")
            }
        }
    }
}
