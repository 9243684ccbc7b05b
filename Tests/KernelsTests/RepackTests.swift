import GGUF
import Testing

@testable import Kernels

@Suite struct RepackTests {
    static let pool = ThreadPool(threadCount: 2)
    static let types: [GGMLType] = [.q4_1, .q5_0, .q8_0, .q4_K, .q6_K]

    /// Every row dequantizes the same from the interleaved copy, including padded last groups.
    @Test(arguments: types)
    func rowsSurviveRepacking(type: GGMLType) {
        var rng = SeededGenerator(seed: 500 + UInt64(type.rawValue))
        for rows in [1, 16, 37] {
            let columns = 512
            let bytes = randomWeights(type, rows: rows, columns: columns, using: &rng)
            bytes.withUnsafeBytes { raw in
                let plain = WeightMatrix(type: type, rows: rows, columns: columns, base: raw.baseAddress!)
                let packed = plain.repacked()
                #expect(packed.isRepacked == vectorPathAvailable)
                #expect(dequantized(packed) == dequantized(plain), "\(type) rows \(rows)")
            }
        }
    }

    /// Products of the interleaved copy equal those of the plain matrix (the scalar twin) to float
    /// rounding, for single vectors and for tiles of 4 rows plus a remainder.
    @Test(arguments: types, [1, 2, 4, 7, 70])
    func productsMatchPlainMatrix(type: GGMLType, n: Int) {
        var rng = SeededGenerator(seed: 600 + UInt64(type.rawValue) * 100 + UInt64(n))
        let rows = 53, columns = 768
        let bytes = randomWeights(type, rows: rows, columns: columns, using: &rng)
        var x = randomFloats(n * columns, using: &rng)
        x[5] = 30
        var plainY = [Float](repeating: .nan, count: n * rows), packedY = plainY
        bytes.withUnsafeBytes { raw in
            let plain = WeightMatrix(type: type, rows: rows, columns: columns, base: raw.baseAddress!)
            let packed = plain.repacked(pool: Self.pool)
            MatMul.matmul(plain, x, rows: n, &plainY, pool: Self.pool)
            MatMul.matmul(packed, x, rows: n, &packedY, pool: Self.pool)
            let wf = dequantized(plain)
            for t in 0..<n {
                for r in 0..<rows {
                    let magnitude = referenceDot(
                        wf[(r * columns)..<((r + 1) * columns)], x[(t * columns)..<((t + 1) * columns)]
                    ).magnitude
                    let a = plainY[t * rows + r], b = packedY[t * rows + r]
                    #expect(abs(Double(a - b)) <= 1e-5 * magnitude, "\(type) t=\(t) r=\(r): \(a) vs \(b)")
                }
            }
        }
    }

    /// A copy large enough for the huge-page mapping path.
    @Test func largeMatrix() {
        var rng = SeededGenerator(seed: 700)
        let rows = 4100, columns = 512
        let bytes = randomWeights(.q8_0, rows: rows, columns: columns, using: &rng)
        let x = randomFloats(columns, using: &rng)
        var plainY = [Float](repeating: 0, count: rows), packedY = plainY
        bytes.withUnsafeBytes { raw in
            let plain = WeightMatrix(type: .q8_0, rows: rows, columns: columns, base: raw.baseAddress!)
            let packed = plain.repacked(pool: Self.pool, releasingSource: true)
            #expect(packed.byteCount >= 2 << 20)
            MatMul.matvec(plain, x, &plainY, pool: Self.pool)
            MatMul.matvec(packed, x, &packedY, pool: Self.pool)
            for r in 0..<rows { #expect(abs(plainY[r] - packedY[r]) <= 1e-3 * max(1, abs(plainY[r])), "row \(r)") }
            var a = [Float](repeating: 0, count: columns), b = a
            for r in [0, 17, rows - 1] {
                Dequantize.row(plain, r, into: &a)
                Dequantize.row(packed, r, into: &b)
                #expect(a == b)
            }
        }
    }

    @Test func typesWithoutLayoutStayPlain() {
        let bytes = [UInt8](repeating: 0, count: 64 * 4)
        bytes.withUnsafeBytes { raw in
            #expect(!WeightMatrix(type: .f32, rows: 4, columns: 64, base: raw.baseAddress!).repacked().isRepacked)
            #expect(!WeightMatrix(type: .q5_K, rows: 1, columns: 256, base: raw.baseAddress!).repacked().isRepacked)
        }
    }
}
