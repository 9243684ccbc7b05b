// The portable kernels on arm64, checked against the scalar twins: built by `scripts/check-arm64`
// with Embedded Swift (the toolchain has an aarch64 standard library only in its embedded form)
// together with the sources of TensorFormats, KernelsCore and KernelsPortable, linked with
// Debian's aarch64 cross toolchain and run under `qemu-aarch64`. The same comparisons as
// `PortableKernelTests` in Tests/KernelsTests, in a standalone program: row products of every
// weight type and group products (the interleaved layout) of every quantized one, one and two
// activation rows and a tile of 5, saturated blocks, the quantizers bit for bit, the vector math,
// RoPE and attention.

var failures = 0
var checks = 0

func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
    checks += 1
    if !condition {
        failures += 1
        if failures <= 20 { print("FAIL: \(message())") }
    }
}

/// The activations a type's kernels read, quantized by `Set`, for `n` rows at `x` (which must
/// outlive the result: float weights read it directly).
func input<Set: KernelSet>(_: Set.Type, _ type: GGMLType, _ x: UnsafePointer<Float>, rows n: Int, columns: Int)
    -> ProductInput
{
    let kind = ActivationKind(type)
    var buffer: ActivationBuffer? = nil
    if kind != .float {
        let b = ActivationBuffer(kind: kind, columns: columns, count: n)
        for t in 0..<n { b.quantize(x + t * columns, row: t, with: Set.self) }
        buffer = b
    }
    return ProductInput(
        x: x, columns: columns, q8: kind == .q8 ? buffer : nil, q8_1: kind == .q8_1 ? buffer : nil,
        q8K: kind == .q8K ? buffer : nil)
}

/// Row and group products on random blocks: one and two activation rows and a tile of 5, with a
/// padded last group.
func checkProducts(_ type: GGMLType, tokens n: Int, _ rng: inout SeededGenerator) {
    let rows = 53, columns = 768
    let bytes = randomWeights(type, rows: rows, columns: columns, using: &rng)
    var x = (0..<(n * columns)).map { _ in Float.random(in: -2...2, using: &rng) }
    x[5] = 30
    compare(type, bytes, rows: rows, columns: columns, x, tokens: n, "n=\(n)")
}

/// Saturated blocks: every quant byte one pattern (scales kept model-like), activations ±2.
func checkSaturated(_ type: GGMLType, _ rng: inout SeededGenerator) {
    let columns = 1536, rows = 11
    for pattern: UInt8 in [0xFF, 0x00, 0xF0, 0x0F, 0x80, 0x7F] {
        let bytes = saturatedWeights(type, rows: rows, columns: columns, pattern: pattern, using: &rng)
        for sign: Float in [1, -1] {
            let x = (0..<(4 * columns)).map { sign * ($0 % 3 == 0 ? -2 : 2) as Float }
            compare(type, bytes, rows: rows, columns: columns, x, tokens: 4, "saturated \(pattern) sign \(sign)")
        }
    }
}

/// Row (and, for quantized types, group) products of the portable set against the scalar set's.
func compare(_ type: GGMLType, _ bytes: [UInt8], rows: Int, columns: Int, _ x: [Float], tokens n: Int, _ label: String)
{
    x.withUnsafeBufferPointer { xs in
        bytes.withUnsafeBytes { raw in
            let plain = MatrixView(type: type, rows: rows, columns: columns, base: raw.baseAddress!, groupStride: 0)
            // The float reference, for the size of each product.
            var w = [Float](repeating: 0, count: rows * columns)
            w.withUnsafeMutableBufferPointer {
                Dequantize.blocks(type: type, raw.baseAddress!, count: rows * columns, into: $0.baseAddress!)
            }
            let slowInput = input(ScalarKernels.self, type, xs.baseAddress!, rows: n, columns: columns)
            let fastInput = input(PortableKernels.self, type, xs.baseAddress!, rows: n, columns: columns)
            var slow = [Float](repeating: .nan, count: n * rows), fast = slow, grouped = slow
            slow.withUnsafeMutableBufferPointer {
                ScalarKernels.rowProducts(plain, slowInput, tokens: 0..<n, rows: 0..<rows, into: $0.baseAddress!)
            }
            fast.withUnsafeMutableBufferPointer {
                PortableKernels.rowProducts(plain, fastInput, tokens: 0..<n, rows: 0..<rows, into: $0.baseAddress!)
            }
            let layout = PortableKernels.interleave!
            let repacked = layout.supports(type)
            if repacked {
                let groups = (rows + layout.rows - 1) / layout.rows
                let stride = columns / type.blockSize * layout.groupBlockBytes(type)!
                let storage = UnsafeMutableRawPointer.allocate(byteCount: groups * stride, alignment: 64)
                storage.initializeMemory(as: UInt8.self, repeating: 0, count: groups * stride)
                layout.pack(plain, into: storage, groupStride: stride)
                let view = MatrixView(type: type, rows: rows, columns: columns, base: storage, groupStride: stride)
                grouped.withUnsafeMutableBufferPointer {
                    PortableKernels.groupProducts(
                        view, fastInput, tokens: 0..<n, groups: 0..<groups, into: $0.baseAddress!)
                }
                storage.deallocate()
            }
            let bias = 128 * 0.05 * x.prefix(columns).reduce(0) { $0 + Double(abs($1)) }
            for t in 0..<n {
                for r in 0..<rows {
                    var magnitude = 0.0
                    for c in 0..<columns { magnitude += Double(w[r * columns + c]) * Double(x[t * columns + c]) }
                    let tolerance = 1e-5 * abs(magnitude) + 1e-7 * bias + 1e-30
                    let b = slow[t * rows + r]
                    let a = fast[t * rows + r]
                    expect(abs(Double(a - b)) <= tolerance, "\(type.name) rows \(label) t=\(t) r=\(r): \(a) vs \(b)")
                    if repacked {
                        let g = grouped[t * rows + r]
                        expect(
                            abs(Double(g - b)) <= tolerance, "\(type.name) groups \(label) t=\(t) r=\(r): \(g) vs \(b)")
                    }
                }
            }
            slowInput.q8?.deallocate()
            slowInput.q8_1?.deallocate()
            slowInput.q8K?.deallocate()
            fastInput.q8?.deallocate()
            fastInput.q8_1?.deallocate()
            fastInput.q8K?.deallocate()
        }
    }
}

/// The quantizers bit for bit, and the vector math within float rounding.
func checkQuantizersAndVectorMath(_ rng: inout SeededGenerator) {
    let count = 1024
    var x = (0..<count).map { _ in Float.random(in: -3...3, using: &rng) }
    x[7] = 0
    for (kind, label) in [(ActivationKind.q8, "q8"), (.q8_1, "q8_1"), (.q8K, "q8K")] {
        let a = ActivationBuffer(kind: kind, columns: count, count: 1)
        let b = ActivationBuffer(kind: kind, columns: count, count: 1)
        let bytes = ActivationBuffer.byteCount(kind: kind, columns: count, count: 1)
        // The rows' padding is never written: zeroed so that only what the quantizers write is compared.
        a.base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        b.base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        x.withUnsafeBufferPointer {
            a.quantize($0.baseAddress!, row: 0, with: ScalarKernels.self)
            b.quantize($0.baseAddress!, row: 0, with: PortableKernels.self)
        }
        var same = true
        for i in 0..<bytes
        where a.base.load(fromByteOffset: i, as: UInt8.self) != b.base.load(fromByteOffset: i, as: UInt8.self) {
            same = false
        }
        expect(same, "quantizer \(label) differs from the scalar twin's bytes")
        a.deallocate()
        b.deallocate()
    }
    let weight = (0..<count).map { _ in Float.random(in: 0.5...1.5, using: &rng) }
    var slow = [Float](repeating: 0, count: count), fast = slow
    x.withUnsafeBufferPointer { xs in
        weight.withUnsafeBufferPointer { ws in
            slow.withUnsafeMutableBufferPointer {
                ScalarKernels.rmsNorm(
                    xs.baseAddress!, weight: ws.baseAddress!, epsilon: 1e-6, into: $0.baseAddress!, count: count)
            }
            fast.withUnsafeMutableBufferPointer {
                PortableKernels.rmsNorm(
                    xs.baseAddress!, weight: ws.baseAddress!, epsilon: 1e-6, into: $0.baseAddress!, count: count)
            }
        }
    }
    for i in 0..<count {
        expect(abs(slow[i] - fast[i]) <= 1e-5 * max(1, abs(slow[i])), "rmsNorm \(i): \(fast[i]) vs \(slow[i])")
    }
    slow = x
    fast = x
    slow.withUnsafeMutableBufferPointer { ScalarKernels.softmax($0.baseAddress!, count: count) }
    fast.withUnsafeMutableBufferPointer { PortableKernels.softmax($0.baseAddress!, count: count) }
    for i in 0..<count {
        expect(abs(slow[i] - fast[i]) <= 1e-6 * max(1e-3, slow[i]) + 1e-9, "softmax \(i): \(fast[i]) vs \(slow[i])")
    }
    slow = x
    fast = x
    weight.withUnsafeBufferPointer { up in
        slow.withUnsafeMutableBufferPointer { ScalarKernels.swiGLU($0.baseAddress!, up.baseAddress!, count: count) }
        fast.withUnsafeMutableBufferPointer { PortableKernels.swiGLU($0.baseAddress!, up.baseAddress!, count: count) }
    }
    for i in 0..<count {
        expect(abs(slow[i] - fast[i]) <= 1e-5 * max(1, abs(slow[i])), "swiGLU \(i): \(fast[i]) vs \(slow[i])")
    }
    let dots = x.withUnsafeBufferPointer { xs in
        weight.withUnsafeBufferPointer { ws in
            (
                ScalarKernels.dot(xs.baseAddress!, ws.baseAddress!, count: count),
                PortableKernels.dot(xs.baseAddress!, ws.baseAddress!, count: count)
            )
        }
    }
    expect(abs(dots.0 - dots.1) <= 1e-4 * max(1, abs(dots.0)), "dot: \(dots.1) vs \(dots.0)")
}

/// add, addScaled, scale and RoPE (both pair layouts) at lengths with and without tails.
func checkElementwise(_ rng: inout SeededGenerator) {
    for n in [1, 15, 37, 64, 896, 1536] {
        let a = (0..<n).map { _ in Float.random(in: -4...4, using: &rng) }
        let b = (0..<n).map { _ in Float.random(in: -4...4, using: &rng) }
        func same(
            _ name: String, tolerance: Float, _ slowBody: (UnsafeMutablePointer<Float>) -> Void,
            _ fastBody: (UnsafeMutablePointer<Float>) -> Void
        ) {
            var slow = b, fast = b
            slow.withUnsafeMutableBufferPointer { slowBody($0.baseAddress!) }
            fast.withUnsafeMutableBufferPointer { fastBody($0.baseAddress!) }
            for i in 0..<n {
                expect(
                    abs(fast[i] - slow[i]) <= tolerance * max(1, abs(slow[i])),
                    "\(name) n=\(n) [\(i)]: \(fast[i]) vs \(slow[i])")
            }
        }
        a.withUnsafeBufferPointer { a in
            let x = a.baseAddress!
            same(
                "add", tolerance: 0, { ScalarKernels.add(x, into: $0, count: n) },
                { PortableKernels.add(x, into: $0, count: n) })
            same(
                "addScaled", tolerance: 1e-6, { ScalarKernels.addScaled(x, 0.37, into: $0, count: n) },
                { PortableKernels.addScaled(x, 0.37, into: $0, count: n) })
            same(
                "scale", tolerance: 0, { ScalarKernels.scale($0, by: -1.7, count: n) },
                { PortableKernels.scale($0, by: -1.7, count: n) })
        }
        guard n % 2 == 0 else { continue }
        let pairs = n / 4
        let angles = (0..<pairs).map { _ in Float.random(in: -3...3, using: &rng) }
        let cos = angles.map { cosf($0) }, sin = angles.map { sinf($0) }
        for adjacent in [false, true] {
            cos.withUnsafeBufferPointer { c in
                sin.withUnsafeBufferPointer { s in
                    let (c, s) = (c.baseAddress!, s.baseAddress!)
                    same(
                        "rotate (adjacent \(adjacent))", tolerance: 1e-6,
                        {
                            ScalarKernels.rotate(
                                $0, heads: 2, headDimension: n / 2, pairs: pairs, cos: c, sin: s,
                                adjacentPairs: adjacent)
                        },
                        {
                            PortableKernels.rotate(
                                $0, heads: 2, headDimension: n / 2, pairs: pairs, cos: c, sin: s,
                                adjacentPairs: adjacent)
                        })
                }
            }
        }
    }
}

/// One attention item (up to four heads over a tiled key cache) against the scalar loops, for the
/// head widths the code specializes and lengths around the 16-wide tiles.
func checkAttention(_ rng: inout SeededGenerator) {
    for dimension in [64, 128, 80, 48] {
        for length in [1, 15, 16, 17, 100] {
            for heads in 1...4 {
                let padded = (length + 15) / 16 * 16
                let q = (0..<(4 * dimension)).map { _ in Float.random(in: -1...1, using: &rng) }
                let keys = (0..<(padded * dimension)).map { _ in Float.random(in: -1...1, using: &rng) }
                let values = (0..<(padded * dimension)).map { _ in Float.random(in: -1...1, using: &rng) }
                func run<Set: KernelSet>(_ k: Set.Type) -> [Float] {
                    attentionOutputs(
                        k, q: q, keys: keys, values: values, dimension: dimension, length: length, heads: heads)
                }
                let fast = run(PortableKernels.self), slow = run(ScalarKernels.self)
                var worst: Float = 0
                for i in fast.indices { worst = max(worst, abs(fast[i] - slow[i])) }
                expect(worst <= 1e-5, "attention d=\(dimension) length=\(length) heads=\(heads): \(worst)")
            }
        }
    }
}

@_extern(c, "cosf") func cosf(_ x: Float) -> Float
@_extern(c, "sinf") func sinf(_ x: Float) -> Float

@main
struct CheckARM64 {
    static func main() {
        var rng = SeededGenerator(seed: 2026)
        let types = allWeightTypes
        for type in types {
            for n in [1, 2, 5] { checkProducts(type, tokens: n, &rng) }
            if ActivationKind(type) != .float { checkSaturated(type, &rng) }
        }
        checkQuantizersAndVectorMath(&rng)
        checkElementwise(&rng)
        checkAttention(&rng)
        #if arch(arm64)
            let arch = "arm64"
        #else
            let arch = "another architecture"
        #endif
        if failures == 0 {
            print(
                "portable kernels on \(arch): \(checks) checks against the scalar twins passed (\(types.count) weight types, row and group products, saturated blocks, quantizers, vector math, RoPE, attention)"
            )
        } else {
            print("portable kernels on \(arch): \(failures) of \(checks) checks FAILED")
            exit(1)
        }
    }
}

@_extern(c, "exit") func exit(_ code: Int32)
