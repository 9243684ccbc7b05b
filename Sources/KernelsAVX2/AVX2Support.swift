// Helpers of the AVX2 kernels. This module is compiled for x86-64-v3 (AVX2, FMA, F16C, BMI2;
// Package.swift); `Kernels` calls into it only on a CPU that has them.
//
// The integer dot product of 256-bit AVX2 is `vpmaddubsw` (unsigned × signed bytes, adjacent pairs
// summed into saturating Int16) then `vpmaddwd` (Int16 pairs into Int32). Every kernel keeps its
// Int16 sums below 32,767 by construction — the bound is stated where the sums are taken — so the
// saturation never happens and the results are the scalar twins' integers.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore

    @inline(__always)
    func load256(_ p: UnsafeRawPointer) -> __m256i { _mm256_loadu_si256(p.assumingMemoryBound(to: __m256i.self)) }

    @inline(__always)
    func load128(_ p: UnsafeRawPointer) -> __m128i { _mm_loadu_si128(p.assumingMemoryBound(to: __m128i.self)) }

    /// Four bytes at `p` broadcast to every 32-bit lane (`vpbroadcastd` from memory).
    @inline(__always)
    func broadcast32(_ p: UnsafeRawPointer) -> __m256i { _mm256_set1_epi32(p.loadUnaligned(as: Int32.self)) }

    /// Eight f16 values at `p` as floats.
    @inline(__always)
    func halves8(_ p: UnsafeRawPointer) -> __m256 { _mm256_cvtph_ps(load128(p)) }

    /// Σ of adjacent u8 × s8 pairs as Int16 (`vpmaddubsw`); callers keep sums of these below 2¹⁵.
    @inline(__always)
    func maddubs(_ u: __m256i, _ s: __m256i) -> __m256i { _mm256_maddubs_epi16(u, s) }

    /// Adjacent Int16 pairs summed into Int32 lanes.
    @inline(__always)
    func pairSums(_ v: __m256i) -> __m256i { _mm256_madd_epi16(v, _mm256_set1_epi16(1)) }

    /// The low and high nibbles of 32 bytes.
    @inline(__always)
    func nibbles(_ q: __m256i) -> (low: __m256i, high: __m256i) {
        let mask = _mm256_set1_epi8(0x0F)
        return (_mm256_and_si256(q, mask), _mm256_and_si256(_mm256_srli_epi16(q, 4), mask))
    }

    /// 0x10 in byte k of the result where bit k of `bits` is set (the fifth bit of Q5 quants).
    @inline(__always)
    func fifthBits(_ bits: UInt32) -> __m256i {
        // Byte k takes byte k/8 of `bits` (in-lane shuffle: the upper lane reads bytes 2 and 3).
        let spread = _mm256_shuffle_epi8(
            _mm256_set1_epi32(Int32(bitPattern: bits)),
            _mm256_set_epi64x(0x0303_0303_0303_0303, 0x0202_0202_0202_0202, 0x0101_0101_0101_0101, 0))
        let select = _mm256_set1_epi64x(Int64(bitPattern: 0x8040_2010_0804_0201))
        let set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, select), select)
        return _mm256_and_si256(set, _mm256_set1_epi8(0x10))
    }

    // Horizontal reductions through Swift's SIMD types: the lane-extracting intrinsics
    // (`_mm256_extractf128_ps`, `_mm_shuffle_epi32`) are macros Swift cannot import, and the
    // compiler lowers `sum()` to the same shuffles and adds.

    /// The sum of the eight float lanes.
    @inline(__always)
    func horizontalSum(_ v: __m256) -> Float { v.sum() }

    /// The sum of the eight Int32 lanes.
    @inline(__always)
    func horizontalSum(_ v: __m256i) -> Int32 { unsafeBitCast(v, to: SIMD8<Int32>.self).wrappedSum() }
#endif
