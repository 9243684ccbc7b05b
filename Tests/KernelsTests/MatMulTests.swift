import Kernels
import KernelsCore
import TensorFormats
import TestSupport
import Testing

/// Products checked against a float reference: the dequantized weights times the activation,
/// both as the quantized activation represents it (tight: 1e-4 of Σ|w·x|) and as given (loose:
/// activation quantization error, 2e-2 of Σ|w·x|).
@Suite struct MatMulTests {
    static let pool = ThreadPool(threadCount: 2)

    struct Shape: CustomTestStringConvertible, Sendable {
        let rows: Int, columns: Int, n: Int
        var testDescription: String { "\(rows)×\(columns), n=\(n)" }
    }

    static let shapes = [
        Shape(rows: 1, columns: 256, n: 1), Shape(rows: 7, columns: 512, n: 1), Shape(rows: 65, columns: 256, n: 1),
        Shape(rows: 130, columns: 768, n: 3), Shape(rows: 33, columns: 256, n: 17),
        Shape(rows: 200, columns: 512, n: 9),
    ]

    static let cases: [(GGMLType, Shape)] = allWeightTypes.flatMap { t in shapes.map { (t, $0) } }

    @Test(.onTestThreads, arguments: cases)
    func matchesFloatReference(type: GGMLType, shape: Shape) {
        var rng = SeededGenerator(seed: UInt64(type.rawValue) &* 1000 &+ UInt64(shape.rows * shape.n))
        let bytes = randomWeights(type, rows: shape.rows, columns: shape.columns, using: &rng)
        let x = randomFloats(shape.n * shape.columns, using: &rng)
        var y = [Float](repeating: .nan, count: shape.n * shape.rows)
        bytes.withUnsafeBytes { raw in
            let w = WeightMatrix(type: type, rows: shape.rows, columns: shape.columns, base: raw.baseAddress!)
            if shape.n == 1 {
                MatMul.matvec(w, x, &y, pool: Self.pool)
            } else {
                MatMul.matmul(w, x, rows: shape.n, &y, pool: Self.pool)
            }
            check(w, x: x, n: shape.n, y: y)
        }
    }

    /// Several matrices of different types sharing one input, in one call.
    @Test(.onTestThreads, arguments: [1, 5])
    func groupedProducts(n: Int) {
        var rng = SeededGenerator(seed: 99 + UInt64(n))
        let columns = 512
        let types: [GGMLType] = [.q4_K, .q5_0, .q6_K, .f32, .q8_0]
        let rows = [96, 17, 64, 3, 130]
        let data = zip(types, rows).map { randomWeights($0, rows: $1, columns: columns, using: &rng) }
        let x = randomFloats(n * columns, using: &rng)
        var outs = rows.map { [Float](repeating: .nan, count: n * $0) }
        let pointers = outs.indices.map { i in outs[i].withUnsafeMutableBufferPointer { $0.baseAddress! } }
        let bases = data.map { d in d.withUnsafeBytes { $0.baseAddress! } }
        // `data` and `outs` are not mutated or resized while these pointers are in use.
        withExtendedLifetime((data, outs)) {
            let ws = types.indices.map {
                WeightMatrix(type: types[$0], rows: rows[$0], columns: columns, base: bases[$0])
            }
            if n == 1 {
                MatMul.matvec(ws, x, pointers, pool: Self.pool)
            } else {
                MatMul.matmul(ws, x, rows: n, pointers, pool: Self.pool)
            }
            for i in ws.indices {
                check(ws[i], x: x, n: n, y: Array(UnsafeBufferPointer(start: pointers[i], count: n * rows[i])))
            }
        }
    }

    func check(_ w: WeightMatrix, x: [Float], n: Int, y: [Float]) {
        let wf = dequantized(w)
        let kind = ActivationKind(w.type)
        for t in 0..<n {
            let xt = x[(t * w.columns)..<((t + 1) * w.columns)]
            var xq = Array(xt)
            if kind != .float {
                let buffer = ActivationBuffer(kind: kind, columns: w.columns, count: 1)
                xq.withUnsafeBufferPointer { buffer.quantize($0.baseAddress!, row: 0, with: ScalarKernels.self) }
                xq = dequantizedActivation(buffer, row: 0)
                buffer.deallocate()
            }
            for r in 0..<w.rows {
                let wr = wf[(r * w.columns)..<((r + 1) * w.columns)]
                let tight = referenceDot(wr, xq[...]), loose = referenceDot(wr, xt)
                let got = Double(y[t * w.rows + r])
                #expect(abs(got - tight.value) <= 1e-4 * tight.magnitude + 1e-6, "\(w.type) t=\(t) r=\(r)")
                #expect(abs(got - loose.value) <= 2e-2 * loose.magnitude + 1e-6, "\(w.type) t=\(t) r=\(r)")
            }
        }
    }
}
