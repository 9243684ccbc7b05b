// AVX-512 row dot products for matrices in GGUF's plain row layout. Each takes one weight row and
// one prepared activation row; `DotReference` holds the scalar twins. F32/F16/BF16, Q4_0, Q4_1,
// Q5_0, Q5_1 and Q8_0 take one block per 256-bit vector, the K-quants 64 quants per 512-bit
// vector. Repacked matrices use the faster interleaved kernels (GroupKernels.swift) instead.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore
    import TensorFormats

    enum Dot: RowDots {
        static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
            floats(count) { i, mask in
                _mm512_maskz_loadu_ps(mask, w + 4 * i)
            } times: { i, mask in
                _mm512_maskz_loadu_ps(mask, x + i)
            }
        }

        static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
            floats(count) { i, mask in
                _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, w + 2 * i))
            } times: { i, mask in
                _mm512_maskz_loadu_ps(mask, x + i)
            }
        }

        static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
            floats(count) { i, mask in
                _mm512_castsi512_ps(
                    _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, w + 2 * i)), 16))
            } times: { i, mask in
                _mm512_maskz_loadu_ps(mask, x + i)
            }
        }

        static func q8_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            // Weights biased to unsigned (xor 0x80) for vpdpbusd; the bias returns as 128·d_a·Σq_a.
            let bias = _mm256_set1_epi8(-128)
            return quantBlocks(w, blocks, a, bytes: 34, offset: 128, minimum: false) { p in
                _mm256_xor_si256(_mm256_loadu_si256((p + 2).assumingMemoryBound(to: __m256i.self)), bias)
            }
        }

        static func q4_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            quantBlocks(w, blocks, a, bytes: 20, offset: 0, minimum: true) { p in nibbles(p + 4) }
        }

        static func q5_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            quantBlocks(w, blocks, a, bytes: 22, offset: 16, minimum: false) { p in
                let q = nibbles(p + 6)
                return _mm256_mask_add_epi8(
                    q, p.loadUnaligned(fromByteOffset: 2, as: UInt32.self), q, _mm256_set1_epi8(16))
            }
        }

        static func q4_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            quantBlocks(w, blocks, a, bytes: 18, offset: 8, minimum: false) { p in nibbles(p + Layout.q4_0Qs) }
        }

        static func q5_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            quantBlocks(w, blocks, a, bytes: 24, offset: 0, minimum: true) { p in
                let q = nibbles(p + Layout.q5_1Qs)
                return _mm256_mask_add_epi8(
                    q, p.loadUnaligned(fromByteOffset: Layout.q5_1Qh, as: UInt32.self), q, _mm256_set1_epi8(16))
            }
        }

        static func q4_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
            kBlocks(w, blocks, a, bytes: 144, quants: Layout.q4_KQs, highBits: nil)
        }

        static func q5_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
            kBlocks(w, blocks, a, bytes: 176, quants: Layout.q5_KQs, highBits: Layout.q5_KQh)
        }

        /// One 64-byte vector covers four sub-blocks of 16: 64 bytes of `ql` give the low nibbles of
        /// elements 0…63 of a half (and their high nibbles elements 64…127), and the 32 bytes of `qh`,
        /// broadcast with the upper half shifted by 2, their top two bits. Quants stay unsigned
        /// (0…63) for `vpdpbusd`; each lane's sum of four products (|Σ| ≤ 4·63·128) fits Int16, so
        /// `vpdpwssd` scales it exactly and Σ sc_g·Σ(q − 32)·q_a is the scalar twin's integer, with
        /// 32·Σ sc_g·Σq_a subtracted once per super-block.
        static func q6_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
            let nibble = _mm512_set1_epi8(0x0F), top = _mm512_set1_epi8(0x30)
            let highShift = _mm512_maskz_mov_epi16(0xFFFF_0000, _mm512_set1_epi16(2))
            // Lane i of a vector belongs to sub-block i / 4 of its four.
            let quarter = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0)
            var acc = _mm512_setzero_ps()
            for b in 0..<blocks {
                let p = w + 210 * b, aq = a.qs + 256 * b
                // The 16 int8 scales as Int32 lanes with zero upper halves, for `vpdpwssd`.
                let scales8 = _mm_loadu_si128((p + Layout.q6_KScales).assumingMemoryBound(to: __m128i.self))
                let scales16 = _mm256_cvtepi8_epi16(scales8)
                let scaleLanes = _mm512_cvtepu16_epi32(scales16)
                var sumi = _mm512_setzero_si512()
                /// Adds Σ sc_g·Σ q·q_a of sub-blocks 4k…4k+3, whose unsigned quants are `q`.
                @inline(__always) func add(_ q: __m512i, chunk k: Int) {
                    let dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), q, load512(aq + 64 * k))
                    let index = _mm512_add_epi32(quarter, _mm512_set1_epi32(Int32(4 * k)))
                    sumi = _mm512_dpwssd_epi32(sumi, dot, _mm512_permutexvar_epi32(index, scaleLanes))
                }
                for half in 0..<2 {
                    let ql = load512(p + 64 * half)
                    let qh = _mm512_srlv_epi16(
                        _mm512_broadcast_i64x4(load256(p + Layout.q6_KQh + 32 * half)), highShift)
                    let low = _mm512_or_si512(
                        _mm512_and_si512(ql, nibble), _mm512_and_si512(_mm512_slli_epi16(qh, 4), top))
                    let high = _mm512_or_si512(
                        _mm512_and_si512(_mm512_srli_epi16(ql, 4), nibble), _mm512_and_si512(qh, top))
                    add(low, chunk: 2 * half)
                    add(high, chunk: 2 * half + 1)
                }
                let sums = _mm256_loadu_si256(UnsafeRawPointer(a.bsums + 16 * b).assumingMemoryBound(to: __m256i.self))
                let offset = _mm256_slli_epi32(_mm256_madd_epi16(scales16, sums), 5)
                sumi = _mm512_sub_epi32(sumi, _mm512_zextsi256_si512(offset))
                acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi), _mm512_set1_ps(a.d[b] * loadHalf(p, Layout.q6_KD)), acc)
            }
            return _mm512_reduce_add_ps(acc)
        }

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

        /// Σ over super-blocks of d_a·(d·Σ_j sc_j·Σ q·q_a − dmin·Σ_j m_j·Σ q_a) for Q4_K and, with the
        /// fifth bits at `highBits`, Q5_K. A 32-byte chunk of quants holds sub-blocks 2c (low
        /// nibbles) and 2c + 1 (high nibbles), which meet 64 contiguous activations; one vector
        /// takes both. Each lane then holds one `vpdpbusd` of four products (|Σ| ≤ 4·31·128 fits
        /// Int16), so `vpdpwssd` scales it by its sub-block's 6-bit scale exactly: Σ sc_j·Σ q·q_a
        /// is the scalar twin's integer, spread over the lanes.
        @inline(__always)
        private static func kBlocks(
            _ w: UnsafeRawPointer, _ blocks: Int, _ a: Q8KRow, bytes: Int, quants: Int, highBits: Int?
        ) -> Float {
            let nibble = _mm512_set1_epi8(0x0F), bit4 = _mm512_set1_epi8(0x10)
            // Per-half shifts of a chunk broadcast to both 256-bit halves: the upper half takes the
            // high nibbles and the fifth bits of the odd sub-block.
            let nibbleShift = _mm512_maskz_mov_epi16(0xFFFF_0000, _mm512_set1_epi16(4))
            let highShift = _mm512_maskz_mov_epi16(0xFFFF_0000, _mm512_set1_epi16(1))
            // Lanes 0–7 read scale 2c, lanes 8–15 scale 2c + 1.
            let pair = _mm512_maskz_mov_epi32(0xFF00, _mm512_set1_epi32(1))
            var acc = _mm512_setzero_ps(), accMin = _mm_setzero_ps()
            for b in 0..<blocks {
                let p = w + bytes * b
                let (scales, mins) = kScalesMins(p + Layout.qKScales)
                let scaleLanes = _mm512_cvtepu8_epi32(_mm_cvtsi64_si128(Int64(bitPattern: scales)))
                var high = highBits.map { _mm512_srlv_epi16(_mm512_broadcast_i64x4(load256(p + $0)), highShift) }
                var sumi = _mm512_setzero_si512()
                for c in 0..<4 {
                    var q = _mm512_and_si512(
                        _mm512_srlv_epi16(_mm512_broadcast_i64x4(load256(p + quants + 32 * c)), nibbleShift), nibble)
                    if let h = high {
                        q = _mm512_or_si512(q, _mm512_and_si512(_mm512_slli_epi16(h, 4), bit4))
                        high = _mm512_srli_epi16(h, 2)
                    }
                    let dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), q, load512(a.qs + 256 * b + 64 * c))
                    let scale = _mm512_permutexvar_epi32(
                        _mm512_add_epi32(pair, _mm512_set1_epi32(Int32(2 * c))), scaleLanes)
                    sumi = _mm512_dpwssd_epi32(sumi, dot, scale)
                }
                let da = a.d[b]
                acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi), _mm512_set1_ps(loadHalf(p) * da), acc)
                // Σ m_j·Σ q_a over the 8 sub-blocks, from the sums of 32 activations.
                let sums = _mm_loadu_si128(UnsafeRawPointer(a.bsums32 + 8 * b).assumingMemoryBound(to: __m128i.self))
                let summ = _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_cvtsi64_si128(Int64(bitPattern: mins))), sums)
                accMin = _mm_fmadd_ps(_mm_cvtepi32_ps(summ), _mm_set1_ps(loadHalf(p, 2) * da), accMin)
            }
            return _mm512_reduce_add_ps(acc) - _mm512_reduce_add_ps(_mm512_zextps128_ps512(accMin))
        }

        /// The eight 6-bit scales and eight 6-bit mins packed in a K-quant's 12 scale bytes, one
        /// byte each (as `kScaleMin` unpacks them one at a time).
        @inline(__always)
        private static func kScalesMins(_ s: UnsafeRawPointer) -> (scales: UInt64, mins: UInt64) {
            let u0 = s.loadUnaligned(as: UInt32.self), u1 = s.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let u2 = s.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            let low6: UInt32 = 0x3F3F_3F3F, low4: UInt32 = 0x0F0F_0F0F, top2: UInt32 = 0x0303_0303
            let scales = UInt64(u0 & low6) | UInt64((u2 & low4) | ((u0 >> 6) & top2) << 4) << 32
            let mins = UInt64(u1 & low6) | UInt64(((u2 >> 4) & low4) | ((u1 >> 6) & top2) << 4) << 32
            return (scales, mins)
        }

        @inline(__always)
        private static func load256(_ p: UnsafeRawPointer) -> __m256i {
            _mm256_loadu_si256(p.assumingMemoryBound(to: __m256i.self))
        }
    }
#endif
