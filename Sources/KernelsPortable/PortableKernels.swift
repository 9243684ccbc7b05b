// The portable kernel set: Swift SIMD types only, compiled for the baseline (SSE2 on x86-64, NEON on ARM);
// every CPU runs it. It shares the AVX2 set's interleaved layout (and so its packed-weights cache).

import KernelsCore

package enum PortableKernels: KernelSet, SIMDVectorMath {
    package static var id: KernelSetID { .portable }

    /// The AVX2 set's: groups of 8 rows, Q8_0 signed; every quantized type is repacked.
    package static let interleave: InterleavedLayout? = InterleavedLayout(rows: 8, q8Bias: 0)

    package static func rowProducts(
        _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, rows: Range<Int>,
        into y: UnsafeMutablePointer<Float>
    ) {
        Dot.products(m, input, tokens: tokens, rows: rows, into: y)
    }

    package static func groupProducts(
        _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, groups: Range<Int>,
        into y: UnsafeMutablePointer<Float>
    ) {
        GroupKernels.compute(m, input, tokens: tokens, groups: groups, y: y)
    }

    package static func quantizeQ8(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, ds: UnsafeMutablePointer<Float>,
        halfSum: Bool
    ) {
        Quantize.q8(x, count: count, qs: qs, ds: ds, halfSum: halfSum)
    }

    package static func quantizeQ8K(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, d: UnsafeMutablePointer<Float>,
        bsums: UnsafeMutablePointer<Int16>
    ) {
        Quantize.q8K(x, count: count, qs: qs, d: d, bsums: bsums)
    }

    package typealias Arithmetic = PortableArithmetic
}

/// Fused multiply-adds on ARM (NEON has `fmla`); on x86-64 a multiply and an add, since the
/// baseline target has no FMA and `addingProduct` would call `fmaf` per lane. This module's own
/// type: see `MultiplyAdd`.
package enum PortableArithmetic: MultiplyAdd {
    @inline(__always)
    package static func madd(_ a: Vector, _ b: Vector, _ c: Vector) -> Vector {
        #if arch(arm64)
            c.addingProduct(a, b)
        #else
            a * b + c
        #endif
    }
}
