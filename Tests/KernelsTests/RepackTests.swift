import Kernels
import KernelsCore
import TensorFormats
import TestSupport
import Testing

@Suite struct RepackTests {
    static let pool = ThreadPool(threadCount: 2)

    /// A copy large enough for the huge-page mapping path.
    @Test(.onTestThreads) func largeMatrix() {
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

    /// Float matrices stay in GGUF's rows on every set, and so does everything on the scalar set.
    @Test(.onTestThreads) func typesWithoutLayoutStayPlain() {
        let bytes = [UInt8](repeating: 0, count: 256 * 4)
        bytes.withUnsafeBytes { raw in
            for id in KernelSelection.available {
                let f32 = WeightMatrix(type: .f32, rows: 4, columns: 64, base: raw.baseAddress!, kernels: id)
                #expect(!f32.repacked().isRepacked)
            }
            let q4 = WeightMatrix(type: .q4_K, rows: 1, columns: 256, base: raw.baseAddress!, kernels: .scalar)
            #expect(!q4.repacked().isRepacked)
        }
    }

    /// Each set's layout has its own name, so caches of repacked weights never mix them.
    @Test(.onTestThreads) func layoutNamesDifferBySet() {
        let names = KernelSelection.available.compactMap { WeightMatrix.repackedLayoutName(kernels: $0) }
        let layouts = KernelSelection.available.compactMap { KernelSelection.implementation(of: $0)?.interleave }
        #expect(Set(names).count == Set(layouts.map(\.name)).count)
        #expect(WeightMatrix.repackedLayoutName(kernels: .scalar) == nil)
    }
}
