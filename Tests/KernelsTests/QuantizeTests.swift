import Kernels
import KernelsCore
import TensorFormats
import TestSupport
import Testing

@Suite struct QuantizeTests {
    /// Each value is recovered within half a quantization step; sums and scales are consistent.
    @Test(.onTestThreads) func q8RoundTrip() {
        var rng = SeededGenerator(seed: 83)
        let n = 1024
        let x = randomFloats(n, using: &rng, range: -3...3)
        var qs = [Int8](repeating: 0, count: n), ds = [Float](repeating: 0, count: n / 16)
        QuantizeReference.q8(x, count: n, qs: &qs, ds: &ds)
        for b in 0..<(n / 32) {
            let d = ds[2 * b]
            let amax = x[(32 * b)..<(32 * b + 32)].map(abs).max()!
            // d is stored rounded to half precision, as ggml's Q8_0/Q8_1 blocks hold it.
            #expect(d == Float(Float16(amax / 127)))
            var sum: Int32 = 0
            for i in (32 * b)..<(32 * b + 32) {
                // Quants come from the unrounded scale: half a step plus the scale's rounding.
                #expect(abs(x[i] - d * Float(qs[i])) <= d * (0.5 + 127 * 0x1p-11) * 1.0001)
                sum += Int32(qs[i])
            }
            #expect(ds[2 * b + 1] == d * Float(sum))
        }
    }

    /// The Q8_1 form (for Q4_1/Q5_1 mins) stores ggml's `s`: half(d·Σq) with the unrounded d.
    @Test(.onTestThreads) func q8HalfSumMatchesGGMLsS() {
        var rng = SeededGenerator(seed: 85)
        let n = 512
        let x = randomFloats(n, using: &rng, range: -3...3)
        var qs = [Int8](repeating: 0, count: n), ds = [Float](repeating: 0, count: n / 16)
        QuantizeReference.q8(x, count: n, qs: &qs, ds: &ds, halfSum: true)
        for b in 0..<(n / 32) {
            let amax = x[(32 * b)..<(32 * b + 32)].map(abs).max()!
            let sum = qs[(32 * b)..<(32 * b + 32)].reduce(Int32(0)) { $0 + Int32($1) }
            #expect(ds[2 * b + 1] == Float(Float16(amax / 127 * Float(sum))))
        }
    }

    @Test(.onTestThreads) func q8KRoundTrip() {
        var rng = SeededGenerator(seed: 84)
        let n = 512
        let x = randomFloats(n, using: &rng, range: -3...3)
        var qs = [Int8](repeating: 0, count: n), d = [Float](repeating: 0, count: 2)
        var bsums = [Int16](repeating: 0, count: 32)
        QuantizeReference.q8K(x, count: n, qs: &qs, d: &d, bsums: &bsums)
        for b in 0..<2 {
            let amax = x[(256 * b)..<(256 * b + 256)].map(abs).max()!
            #expect(abs(abs(d[b]) - amax / 127) <= 1e-6 * amax)
            for i in (256 * b)..<(256 * b + 256) { #expect(abs(x[i] - d[b] * Float(qs[i])) <= abs(d[b]) * 0.5001) }
        }
        for g in 0..<32 { #expect(Int32(bsums[g]) == qs[(16 * g)..<(16 * g + 16)].reduce(0) { $0 + Int32($1) }) }
    }
}
