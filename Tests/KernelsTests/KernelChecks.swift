import Foundation
import Kernels
import KernelsCore
import TensorFormats
import TestSupport
import Testing

/// Every kernel of one set against the scalar set, the reference: the same matrices, activations
/// and vectors through both, on random data (and saturated blocks), decode and prefill shapes.
struct KernelChecks {
    let id: KernelSetID
    let kernels: any KernelSet.Type
    static let pool = ThreadPool(threadCount: 2)

    init(_ id: KernelSetID) {
        self.id = id
        kernels = KernelSelection.implementation(of: id)!
    }

    /// Matrix products in GGUF's rows agree with the scalar twins to float rounding (1e-5 of
    /// Σ|w·x|), for 1, 4 and 7 activation rows, including all-zero activations and outliers.
    func rowProducts(_ type: GGMLType) {
        var rng = SeededGenerator(seed: 0xD07 ^ UInt64(type.rawValue))
        for trial in 0..<12 {
            let columns = [256, 512, 768, 1536, 4864 / 256 * 256][trial % 5]
            let n = [1, 4, 7][trial % 3]
            let rows = 9
            let bytes = randomWeights(type, rows: rows, columns: columns, using: &rng)
            var x = randomFloats(n * columns, using: &rng, range: trial % 7 == 0 ? 0...0 : -3...3)
            if trial % 5 == 1 { x[3] = 40 }  // an outlier, as in real activations
            compareWithScalar(type, bytes, rows: rows, columns: columns, x: x, n: n, repack: false, "trial \(trial)")
        }
    }

    /// Saturated blocks (every quant byte, and the K-quants' packed scales, at one bit pattern;
    /// activations at ±2) drive each vector lane's integer sum to its bound, where a kernel that
    /// narrows its sums (16-bit pair sums, `vpmaddubsw`'s saturation) would first go wrong.
    func saturatedBlocks(_ type: GGMLType, repack: Bool) {
        var rng = SeededGenerator(seed: 0x5A7 ^ UInt64(type.rawValue))
        let columns = 1536, rows = 11
        for pattern: UInt8 in [0xFF, 0x00, 0xF0, 0x0F, 0x80, 0x7F] {
            let bytes = saturatedWeights(type, rows: rows, columns: columns, pattern: pattern, using: &rng)
            for sign: Float in [1, -1] {
                let x = (0..<(4 * columns)).map { sign * ($0 % 3 == 0 ? -2 : 2) as Float }
                compareWithScalar(
                    type, bytes, rows: rows, columns: columns, x: x, n: 4, repack: repack,
                    "pattern \(pattern) sign \(sign)")
            }
        }
    }

    /// Products of this set's interleaved copy equal the scalar twins' on the plain matrix, for
    /// single vectors and for tiles of 4 and 2 rows and a remainder, with a padded last group.
    func groupProducts(_ type: GGMLType, n: Int) {
        var rng = SeededGenerator(seed: 600 + UInt64(type.rawValue) * 100 + UInt64(n))
        let rows = 53, columns = 768
        let bytes = randomWeights(type, rows: rows, columns: columns, using: &rng)
        var x = randomFloats(n * columns, using: &rng)
        x[5] = 30
        compareWithScalar(type, bytes, rows: rows, columns: columns, x: x, n: n, repack: true, "n \(n)")
    }

    /// `y` from this set (repacked or not) against the scalar set on the plain matrix.
    private func compareWithScalar(
        _ type: GGMLType, _ bytes: [UInt8], rows: Int, columns: Int, x: [Float], n: Int, repack: Bool, _ label: String
    ) {
        var fast = [Float](repeating: .nan, count: n * rows), slow = fast
        bytes.withUnsafeBytes { raw in
            let reference = WeightMatrix(
                type: type, rows: rows, columns: columns, base: raw.baseAddress!, kernels: .scalar)
            var w = WeightMatrix(type: type, rows: rows, columns: columns, base: raw.baseAddress!, kernels: id)
            if repack {
                w = w.repacked(pool: Self.pool)
                #expect(w.isRepacked, "\(id) does not repack \(type)")
            }
            MatMul.matmul(reference, x, rows: n, &slow, pool: Self.pool)
            MatMul.matmul(w, x, rows: n, &fast, pool: Self.pool)
            let wf = dequantized(reference)
            // Kernels that bias quants to unsigned subtract a term up to 128·|d|·Σ|x| (|d| ≤ 0.05),
            // whose rounding remains even where the products cancel.
            let bias = 128 * 0.05 * x.prefix(columns).reduce(0) { $0 + Double(abs($1)) }
            for t in 0..<n {
                for r in 0..<rows {
                    let magnitude = referenceDot(
                        wf[(r * columns)..<((r + 1) * columns)], x[(t * columns)..<((t + 1) * columns)]
                    ).magnitude
                    let a = fast[t * rows + r], b = slow[t * rows + r]
                    #expect(
                        abs(Double(a - b)) <= 1e-5 * magnitude + 1e-7 * bias + 1e-30,
                        "\(id) \(type) \(label) t=\(t) r=\(r): \(a) vs \(b)")
                }
            }
        }
    }

    /// Every row dequantizes the same from the interleaved copy, including padded last groups.
    func repackRoundTrip(_ type: GGMLType) {
        var rng = SeededGenerator(seed: 500 + UInt64(type.rawValue))
        for rows in [1, 8, 16, 37] {
            let columns = 512
            let bytes = randomWeights(type, rows: rows, columns: columns, using: &rng)
            bytes.withUnsafeBytes { raw in
                let plain = WeightMatrix(type: type, rows: rows, columns: columns, base: raw.baseAddress!, kernels: id)
                let packed = plain.repacked()
                #expect(packed.isRepacked)
                #expect(dequantized(packed) == dequantized(plain), "\(id) \(type) rows \(rows)")
            }
        }
    }

    /// The activation quantizers are bit-identical to `QuantizeReference`.
    func quantizers() {
        var rng = SeededGenerator(seed: 81)
        for trial in 0..<50 {
            let n = 32 * (1 + trial % 40)
            var x = randomFloats(n, using: &rng, range: -5...5)
            if trial % 4 == 0 { for i in 0..<32 { x[i] = 0 } }  // an all-zero block
            if trial % 6 == 1 { x[7] = -90 }
            for halfSum in [false, true] {
                var qs1 = [Int8](repeating: 0, count: n), qs2 = qs1
                var ds1 = [Float](repeating: 0, count: n / 16), ds2 = ds1
                kernels.quantizeQ8(x, count: n, qs: &qs1, ds: &ds1, halfSum: halfSum)
                QuantizeReference.q8(x, count: n, qs: &qs2, ds: &ds2, halfSum: halfSum)
                #expect(qs1 == qs2, "\(id) q8 trial \(trial)")
                #expect(ds1 == ds2, "\(id) q8 trial \(trial)")
            }
        }
        for trial in 0..<30 {
            let n = 256 * (1 + trial % 6)
            var x = randomFloats(n, using: &rng, range: -5...5)
            if trial % 3 == 0 { for i in 0..<256 { x[i] = 0 } }
            if trial % 5 == 1 { x[300 % n] = 77 }
            var qs1 = [Int8](repeating: 0, count: n), qs2 = qs1
            var d1 = [Float](repeating: 0, count: n / 256), d2 = d1
            var b1 = [Int16](repeating: 0, count: n / 16), b2 = b1
            kernels.quantizeQ8K(x, count: n, qs: &qs1, d: &d1, bsums: &b1)
            QuantizeReference.q8K(x, count: n, qs: &qs2, d: &d2, bsums: &b2)
            #expect(qs1 == qs2, "\(id) q8K trial \(trial)")
            #expect(d1 == d2, "\(id) q8K trial \(trial)")
            #expect(b1 == b2, "\(id) q8K trial \(trial)")
        }
    }

    /// The vector operations against the scalar set's loops, at lengths with and without tails.
    func vectorMath() {
        var rng = SeededGenerator(seed: 0x7EC)
        for n in [1, 15, 37, 64, 896, 1536] {
            let a = randomFloats(n, using: &rng, range: -4...4), b = randomFloats(n, using: &rng, range: -4...4)
            let magnitude = zip(a, b).reduce(0) { $0 + abs($1.0 * $1.1) }
            #expect(abs(kernels.dot(a, b, count: n) - ScalarKernels.dot(a, b, count: n)) <= 1e-5 * magnitude + 1e-6)

            func same(
                _ name: String, tolerance: Float, _ body: (any KernelSet.Type, UnsafeMutablePointer<Float>) -> Void
            ) {
                var fast = b, slow = b
                body(kernels, &fast)
                body(ScalarKernels.self, &slow)
                for i in 0..<n {
                    #expect(
                        abs(fast[i] - slow[i]) <= tolerance * max(1, abs(slow[i])),
                        "\(id) \(name) n=\(n) [\(i)]: \(fast[i]) vs \(slow[i])")
                }
            }
            same("add", tolerance: 0) { k, y in k.add(a, into: y, count: n) }
            same("addScaled", tolerance: 1e-6) { k, y in k.addScaled(a, 0.37, into: y, count: n) }
            same("scale", tolerance: 0) { k, y in k.scale(y, by: -1.7, count: n) }
            same("rmsNorm", tolerance: 1e-6) { k, y in k.rmsNorm(a, weight: y, epsilon: 1e-6, into: y, count: n) }
            same("swiGLU", tolerance: 1e-5) { k, y in k.swiGLU(y, a, count: n) }
            same("softmax", tolerance: 1e-6) { k, y in k.softmax(y, count: n) }
            if n % 2 == 0 {
                let pairs = n / 4
                let angles = randomFloats(pairs, using: &rng, range: -3...3)
                let cos = angles.map { Foundation.cos($0) }, sin = angles.map { Foundation.sin($0) }
                for adjacent in [false, true] {
                    same("rotate", tolerance: 1e-6) { k, y in
                        k.rotate(
                            y, heads: 2, headDimension: n / 2, pairs: pairs, cos: cos, sin: sin, adjacentPairs: adjacent
                        )
                    }
                }
            }
        }
    }

    /// One attention item (up to four heads over a tiled key cache) against the scalar loops,
    /// for the head widths the code specializes (64, other) and lengths around the 16-wide tiles.
    func attention() {
        var rng = SeededGenerator(seed: 0xA77)
        for dimension in [64, 128, 80, 48] {
            for length in [1, 15, 16, 17, 100] {
                for heads in 1...4 {
                    let padded = (length + 15) / 16 * 16
                    let q = randomFloats(4 * dimension, using: &rng, range: -1...1)
                    let keys = randomFloats(padded * dimension, using: &rng, range: -1...1)
                    let values = randomFloats(padded * dimension, using: &rng, range: -1...1)
                    func run<Set: KernelSet>(_ k: Set.Type) -> [Float] {
                        attentionOutputs(
                            k, q: q, keys: keys, values: values, dimension: dimension, length: length, heads: heads)
                    }
                    let fast = run(kernels), slow = run(ScalarKernels.self)
                    let worst = zip(fast, slow).map { abs($0 - $1) }.max()!
                    #expect(worst <= 1e-5, "\(id) attention d=\(dimension) length=\(length) heads=\(heads): \(worst)")
                }
            }
        }
    }
}

/// Whether this CPU runs `id` (suites of sets it lacks are reported as not run, with the reason).
func runs(_ id: KernelSetID) -> Bool { KernelSelection.available.contains(id) }

/// The quantized weight types (activations quantized to 8 bits).
let quantizedTypes = allWeightTypes.filter { ActivationKind($0) != .float }

/// The types a set keeps in its interleaved layout.
func interleavedTypes(_ id: KernelSetID) -> [GGMLType] {
    let layout = KernelSelection.implementation(of: id)?.interleave
    return allWeightTypes.filter { layout?.supports($0) == true }
}

@Suite(
    "avx512 kernels against the scalar twins",
    .enabled(if: runs(.avx512), "this CPU lacks AVX-512 (F/BW/CD/DQ/VL + VNNI)"))
struct AVX512KernelTests {
    let checks = KernelChecks(.avx512)
    @Test(.onTestThreads, arguments: allWeightTypes) func rowProducts(type: GGMLType) { checks.rowProducts(type) }
    @Test(.onTestThreads, arguments: quantizedTypes) func saturatedRows(type: GGMLType) {
        checks.saturatedBlocks(type, repack: false)
    }
    @Test(.onTestThreads, arguments: interleavedTypes(.avx512))
    func saturatedGroups(type: GGMLType) { checks.saturatedBlocks(type, repack: true) }
    @Test(.onTestThreads, arguments: interleavedTypes(.avx512), [1, 2, 4, 7, 70])
    func groupProducts(type: GGMLType, n: Int) { checks.groupProducts(type, n: n) }
    @Test(.onTestThreads, arguments: interleavedTypes(.avx512)) func repackRoundTrip(type: GGMLType) {
        checks.repackRoundTrip(type)
    }
    @Test(.onTestThreads) func quantizers() { checks.quantizers() }
    @Test(.onTestThreads) func vectorMath() { checks.vectorMath() }
    @Test(.onTestThreads) func attention() { checks.attention() }
}

@Suite(
    "avx2 kernels against the scalar twins",
    .enabled(if: runs(.avx2), "this CPU lacks AVX2 / FMA / F16C (x86-64-v3)"))
struct AVX2KernelTests {
    let checks = KernelChecks(.avx2)
    @Test(.onTestThreads, arguments: allWeightTypes) func rowProducts(type: GGMLType) { checks.rowProducts(type) }
    @Test(.onTestThreads, arguments: quantizedTypes) func saturatedRows(type: GGMLType) {
        checks.saturatedBlocks(type, repack: false)
    }
    @Test(.onTestThreads, arguments: interleavedTypes(.avx2))
    func saturatedGroups(type: GGMLType) { checks.saturatedBlocks(type, repack: true) }
    @Test(.onTestThreads, arguments: interleavedTypes(.avx2), [1, 2, 4, 7, 70])
    func groupProducts(type: GGMLType, n: Int) { checks.groupProducts(type, n: n) }
    @Test(.onTestThreads, arguments: interleavedTypes(.avx2)) func repackRoundTrip(type: GGMLType) {
        checks.repackRoundTrip(type)
    }
    @Test(.onTestThreads) func quantizers() { checks.quantizers() }
    @Test(.onTestThreads) func vectorMath() { checks.vectorMath() }
    @Test(.onTestThreads) func attention() { checks.attention() }
}

@Suite("portable kernels against the scalar twins")
struct PortableKernelTests {
    let checks = KernelChecks(.portable)
    @Test(.onTestThreads, arguments: allWeightTypes) func rowProducts(type: GGMLType) { checks.rowProducts(type) }
    @Test(.onTestThreads, arguments: quantizedTypes) func saturatedRows(type: GGMLType) {
        checks.saturatedBlocks(type, repack: false)
    }
    @Test(.onTestThreads, arguments: interleavedTypes(.portable))
    func saturatedGroups(type: GGMLType) { checks.saturatedBlocks(type, repack: true) }
    @Test(.onTestThreads, arguments: interleavedTypes(.portable), [1, 2, 4, 7, 70])
    func groupProducts(type: GGMLType, n: Int) { checks.groupProducts(type, n: n) }
    @Test(.onTestThreads, arguments: interleavedTypes(.portable)) func repackRoundTrip(type: GGMLType) {
        checks.repackRoundTrip(type)
    }
    @Test(.onTestThreads) func quantizers() { checks.quantizers() }
    @Test(.onTestThreads) func vectorMath() { checks.vectorMath() }
    @Test(.onTestThreads) func attention() { checks.attention() }
}
