import Kernels
import KernelsCore
import TensorFormats

func randomFloats(_ count: Int, using rng: inout SeededGenerator, range: ClosedRange<Float> = -2...2) -> [Float] {
    (0..<count).map { _ in Float.random(in: range, using: &rng) }
}

/// Dequantizes a whole matrix into `[rows][columns]` floats.
func dequantized(_ w: WeightMatrix) -> [Float] {
    var out = [Float](repeating: 0, count: w.rows * w.columns)
    out.withUnsafeMutableBufferPointer { buffer in
        for r in 0..<w.rows { Dequantize.row(w, r, into: buffer.baseAddress! + r * w.columns) }
    }
    return out
}

/// The float values an activation row quantized for `type` stands for.
func dequantizedActivation(_ buffer: ActivationBuffer, row: Int) -> [Float] {
    let n = buffer.columns
    switch buffer.kind {
    case .float: preconditionFailure()
    case .q8, .q8_1:
        let a = buffer.q8(row)
        return (0..<n).map { a.ds[2 * ($0 / 32)] * Float(a.qs[$0]) }
    case .q8K:
        let a = buffer.q8K(row)
        return (0..<n).map { a.d[$0 / 256] * Float(a.qs[$0]) }
    }
}

/// Σ a·b in Double, and Σ |a·b| for tolerances.
func referenceDot(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> (value: Double, magnitude: Double) {
    var s = 0.0, m = 0.0
    for (x, y) in zip(a, b) {
        s += Double(x) * Double(y)
        m += abs(Double(x) * Double(y))
    }
    return (s, m)
}
