// Row dot products for matrices in GGUF's plain row layout. Each takes one weight row and one
// prepared activation row; `DotReference` holds the scalar twins. F32/F16/BF16, Q8_0, Q4_1 and
// Q5_0 are vectorized here (AVX-512, one block per 256-bit vector); the other types, and every
// type without KERNELS_AVX512, run the scalar twin. Repacked matrices (`WeightMatrix.repacked()`)
// use the faster interleaved kernels instead.

#if KERNELS_AVX512
    import _Builtin_intrinsics.intel
#endif

enum Dot {
    static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        #if KERNELS_AVX512
            floats(count) { i, mask in
                _mm512_maskz_loadu_ps(mask, w + 4 * i)
            } times: { i, mask in _mm512_maskz_loadu_ps(mask, x + i) }
        #else
            DotReference.f32(w, x, count: count)
        #endif
    }

    static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        #if KERNELS_AVX512
            floats(count) { i, mask in
                _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, w + 2 * i))
            } times: { i, mask in _mm512_maskz_loadu_ps(mask, x + i) }
        #else
            DotReference.f16(w, x, count: count)
        #endif
    }

    static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        #if KERNELS_AVX512
            floats(count) { i, mask in
                _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, w + 2 * i)), 16))
            } times: { i, mask in _mm512_maskz_loadu_ps(mask, x + i) }
        #else
            DotReference.bf16(w, x, count: count)
        #endif
    }

    static func q8_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        #if KERNELS_AVX512
            // Weights biased to unsigned (xor 0x80) for vpdpbusd; the bias returns as 128·d_a·Σq_a.
            let bias = _mm256_set1_epi8(-128)
            return quantBlocks(w, blocks, a, bytes: 34, offset: 128, minimum: false) { p in
                _mm256_xor_si256(_mm256_loadu_si256((p + 2).assumingMemoryBound(to: __m256i.self)), bias)
            }
        #else
            return DotReference.q8_0(w, a, blocks: blocks)
        #endif
    }

    static func q4_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        #if KERNELS_AVX512
            quantBlocks(w, blocks, a, bytes: 20, offset: 0, minimum: true) { p in nibbles(p + 4) }
        #else
            DotReference.q4_1(w, a, blocks: blocks)
        #endif
    }

    static func q5_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        #if KERNELS_AVX512
            quantBlocks(w, blocks, a, bytes: 22, offset: 16, minimum: false) { p in
                let q = nibbles(p + 6)
                return _mm256_mask_add_epi8(q, p.loadUnaligned(fromByteOffset: 2, as: UInt32.self), q, _mm256_set1_epi8(16))
            }
        #else
            DotReference.q5_0(w, a, blocks: blocks)
        #endif
    }

    static func q4_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float { DotReference.q4_0(w, a, blocks: blocks) }
    static func q5_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float { DotReference.q5_1(w, a, blocks: blocks) }
    static func q4_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float { DotReference.q4_K(w, a, blocks: blocks) }
    static func q5_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float { DotReference.q5_K(w, a, blocks: blocks) }
    static func q6_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float { DotReference.q6_K(w, a, blocks: blocks) }

    #if KERNELS_AVX512
        /// Σ w·x over `count` floats, 16 lanes at a time with a masked tail.
        @inline(__always)
        private static func floats(
            _ count: Int, _ w: (Int, __mmask16) -> __m512, times x: (Int, __mmask16) -> __m512
        ) -> Float {
            var acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps()
            var i = 0
            while i + 32 <= count {
                acc0 = _mm512_fmadd_ps(w(i, 0xFFFF), x(i, 0xFFFF), acc0)
                acc1 = _mm512_fmadd_ps(w(i + 16, 0xFFFF), x(i + 16, 0xFFFF), acc1)
                i += 32
            }
            while i < count {
                let mask = laneMask(count - i)
                acc0 = _mm512_fmadd_ps(w(i, mask), x(i, mask), acc0)
                i += 16
            }
            return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1))
        }

        /// The 32 four-bit quants of a Q4/Q5 block (low nibbles are elements 0…15) as bytes.
        @inline(__always)
        private static func nibbles(_ p: UnsafeRawPointer) -> __m256i {
            let q = _mm_loadu_si128(p.assumingMemoryBound(to: __m128i.self))
            let mask = _mm_set1_epi8(0x0F)
            return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), mask), _mm_and_si128(q, mask))
        }

        /// Σ over blocks of d_w·(d_a·Σu·q_a − offset·d_a·Σq_a) (+ m_w·d_a·Σq_a when `minimum`),
        /// `u` the block's unsigned quants from `quants`.
        @inline(__always)
        static func quantBlocks(
            _ w: UnsafeRawPointer, _ blocks: Int, _ a: Q8Row, bytes: Int, offset: Float, minimum: Bool,
            _ quants: (UnsafeRawPointer) -> __m256i
        ) -> Float {
            var acc = _mm256_setzero_ps()
            var scalar: Float = 0
            for b in 0..<blocks {
                let p = w + bytes * b
                let act = _mm256_loadu_si256(UnsafeRawPointer(a.qs + 32 * b).assumingMemoryBound(to: __m256i.self))
                let dot = _mm256_mask_dpbusd_epi32(_mm256_setzero_si256(), 0xFF, quants(p), act)
                let d = loadHalf(p)
                acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(d * a.ds[2 * b]), acc)
                scalar += (minimum ? loadHalf(p, 2) : -offset * d) * a.ds[2 * b + 1]
            }
            return _mm512_reduce_add_ps(_mm512_zextps256_ps512(acc)) + scalar
        }
    #endif
}
