import Kernels
import KernelsCore
import TensorFormats
import TestSupport
import Testing

@Suite struct DequantizeTests {
    /// Against values computed by the `gguf` Python package's port of ggml's dequantizers.
    @Test(.onTestThreads, arguments: DequantFixtures.cases.indices)
    func matchesGGML(index: Int) {
        let (type, bytes, expected) = DequantFixtures.cases[index]
        var out = [Float](repeating: .nan, count: expected.count)
        bytes.withUnsafeBytes { raw in
            Dequantize.blocks(type: type, raw.baseAddress!, count: expected.count, into: &out)
        }
        for i in expected.indices {
            #expect(abs(out[i] - expected[i]) <= 1e-6 * max(1, abs(expected[i])), "\(type) element \(i)")
        }
    }

    @Test(.onTestThreads) func rowUsesRowStride() {
        var rng = SeededGenerator(seed: 7)
        let bytes = randomWeights(.q4_1, rows: 3, columns: 64, using: &rng)
        bytes.withUnsafeBytes { raw in
            let w = WeightMatrix(type: .q4_1, rows: 3, columns: 64, base: raw.baseAddress!)
            #expect(w.rowBytes == 40)
            var row = [Float](repeating: 0, count: 64), direct = row
            Dequantize.row(w, 2, into: &row)
            Dequantize.blocks(type: .q4_1, raw.baseAddress! + 80, count: 64, into: &direct)
            #expect(row == direct)
        }
    }

    @Test(.onTestThreads) func f32IsACopy() {
        let values: [Float] = [1.5, -2.25, 0, 3e-8]
        var out = [Float](repeating: 0, count: 4)
        values.withUnsafeBytes { Dequantize.blocks(type: .f32, $0.baseAddress!, count: 4, into: &out) }
        #expect(out == values)
    }
}
