// The AVX2 kernel set. This module is compiled for x86-64-v3 (Package.swift);
// `Kernels` selects it only on a CPU (and OS) that has AVX2, FMA, F16C and the rest of x86-64-v3.

#if arch(x86_64)
    import KernelsCore

    package enum AVX2Kernels: KernelSet, SIMDVectorMath {
        package static var id: KernelSetID { .avx2 }

        /// Groups of 8 rows (one 32-bit lane per row of a 256-bit vector), Q8_0 kept signed for
        /// `vpmaddubsw`'s sign trick; every quantized type is repacked.
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

        package typealias Arithmetic = AVX2Arithmetic
    }

    /// Fused multiply-adds (this module's own type: see `MultiplyAdd`).
    package enum AVX2Arithmetic: MultiplyAdd {
        @inline(__always)
        package static func madd(_ a: Vector, _ b: Vector, _ c: Vector) -> Vector { c.addingProduct(a, b) }
    }
#endif
