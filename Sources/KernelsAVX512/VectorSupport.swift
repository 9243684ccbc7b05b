// Helpers of the AVX-512 kernels. This module is compiled for x86-64-v4 with VNNI (Package.swift);
// `Kernels` calls into it only on a CPU that has them.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore

    /// Four bytes at `p` broadcast to every 32-bit lane (folds into `vpdpbusd`'s `{1to16}` operand).
    @inline(__always)
    func broadcast32(_ p: UnsafeRawPointer) -> __m512i { _mm512_set1_epi32(p.loadUnaligned(as: Int32.self)) }

    @inline(__always)
    func load512(_ p: UnsafeRawPointer) -> __m512i { _mm512_loadu_si512(p) }

    /// Sixteen f16 values at `p` as floats.
    @inline(__always)
    func halves16(_ p: UnsafeRawPointer) -> __m512 {
        _mm512_cvtph_ps(_mm256_loadu_si256(p.assumingMemoryBound(to: __m256i.self)))
    }

    /// `acc + Σ` of four u8 × s8 products per 32-bit lane.
    @inline(__always)
    func dpbusd(_ acc: __m512i, _ u: __m512i, _ s: __m512i) -> __m512i { _mm512_dpbusd_epi32(acc, u, s) }

    /// Lanes of the last, possibly partial, group of 16 outputs.
    @inline(__always)
    func laneMask(_ count: Int) -> __mmask16 { count >= 16 ? 0xFFFF : __mmask16((1 << count) - 1) }
#endif
