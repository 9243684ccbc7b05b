// The reference kernel set: plain loops, no vectors, GGUF's rows as they are. Every other set is
// tested against it; `SOTTO_KERNELS=scalar` runs a whole model on it (slowly).

import TensorFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

public enum ScalarKernels: KernelSet {
    public static var id: KernelSetID { .scalar }
    public static var interleave: InterleavedLayout? { nil }

    public static func rowProducts(
        _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, rows: Range<Int>,
        into y: UnsafeMutablePointer<Float>
    ) {
        DotReference.products(m, input, tokens: tokens, rows: rows, into: y)
    }

    public static func groupProducts(
        _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, groups: Range<Int>,
        into y: UnsafeMutablePointer<Float>
    ) {
        preconditionFailure("the scalar kernels have no interleaved layout")
    }

    public static func quantizeQ8(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, ds: UnsafeMutablePointer<Float>,
        halfSum: Bool
    ) {
        QuantizeReference.q8(x, count: count, qs: qs, ds: ds, halfSum: halfSum)
    }

    public static func quantizeQ8K(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, d: UnsafeMutablePointer<Float>,
        bsums: UnsafeMutablePointer<Int16>
    ) {
        QuantizeReference.q8K(x, count: count, qs: qs, d: d, bsums: bsums)
    }

    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var s: Float = 0
        for i in 0..<count { s += a[i] * b[i] }
        return s
    }

    public static func add(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { y[i] += x[i] }
    }

    public static func addScaled(
        _ x: UnsafePointer<Float>, _ s: Float, into y: UnsafeMutablePointer<Float>, count: Int
    ) {
        for i in 0..<count { y[i] += s * x[i] }
    }

    public static func scale(_ y: UnsafeMutablePointer<Float>, by s: Float, count: Int) {
        for i in 0..<count { y[i] *= s }
    }

    public static func rmsNorm(
        _ x: UnsafePointer<Float>, weight w: UnsafePointer<Float>, epsilon: Float,
        into y: UnsafeMutablePointer<Float>, count: Int
    ) {
        var sum: Double = 0
        for i in 0..<count { sum += Double(x[i] * x[i]) }
        let s = 1 / (Float(sum / Double(count)) + epsilon).squareRoot()
        for i in 0..<count { y[i] = x[i] * s * w[i] }
    }

    public static func swiGLU(_ gate: UnsafeMutablePointer<Float>, _ up: UnsafePointer<Float>, count: Int) {
        for i in 0..<count { gate[i] = gate[i] / (1 + expf(-gate[i])) * up[i] }
    }

    public static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        var largest = -Float.infinity
        for i in 0..<count { largest = max(largest, x[i]) }
        var sum: Double = 0
        for i in 0..<count {
            x[i] = expf(x[i] - largest)
            sum += Double(x[i])
        }
        let s = Float(1 / sum)
        for i in 0..<count { x[i] *= s }
    }

    public static func rotate(
        _ x: UnsafeMutablePointer<Float>, heads: Int, headDimension: Int, pairs: Int, cos: UnsafePointer<Float>,
        sin: UnsafePointer<Float>, adjacentPairs: Bool
    ) {
        for h in 0..<heads {
            let v = x + h * headDimension
            for i in 0..<pairs {
                let (j, k) = adjacentPairs ? (2 * i, 2 * i + 1) : (i, i + pairs)
                let a = v[j], b = v[k]
                v[j] = a * cos[i] - b * sin[i]
                v[k] = a * sin[i] + b * cos[i]
            }
        }
    }

    public static func attend(_ item: AttentionItem) {
        let queries = [item.queries.0, item.queries.1, item.queries.2, item.queries.3]
        let scores = [item.scores.0, item.scores.1, item.scores.2, item.scores.3]
        let outputs = [item.outputs.0, item.outputs.1, item.outputs.2, item.outputs.3]
        let n = item.dimension
        for h in 0..<item.heads {
            let q = queries[h], p = scores[h], o = outputs[h]
            for t in 0..<item.length {
                let tile = item.keys + (t / 16) * 16 * n + t % 16
                var s: Float = 0
                for d in 0..<n { s += q[d] * tile[16 * d] }
                p[t] = s * item.scale
            }
            softmax(p, count: item.length)
            for d in 0..<n { o[d] = 0 }
            for t in 0..<item.length { addScaled(item.values + t * n, p[t], into: o, count: n) }
        }
    }
}
