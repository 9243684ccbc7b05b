// The AVX-512 VNNI kernel set. This module is compiled for x86-64-v4 with VNNI (Package.swift);
// `Kernels` selects it only on a CPU (and OS) that has AVX-512 F/BW/DQ/VL/CD and VNNI.

#if arch(x86_64)
    import KernelsCore

    package enum AVX512Kernels: KernelSet, SIMDVectorMath {
        package static var id: KernelSetID { .avx512 }

        package static let interleave: InterleavedLayout? = InterleavedLayout(
            rows: 16, q8Bias: 0x80, types: [.q4_1, .q5_0, .q8_0, .q4_K, .q6_K])

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

        package typealias Arithmetic = AVX512Arithmetic
    }

    /// Fused multiply-adds (this module's own type: see `MultiplyAdd`).
    package enum AVX512Arithmetic: MultiplyAdd {
        @inline(__always)
        package static func madd(_ a: Vector, _ b: Vector, _ c: Vector) -> Vector { c.addingProduct(a, b) }
    }
#endif
