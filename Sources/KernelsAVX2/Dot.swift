// AVX2 row dot products for matrices in GGUF's plain row layout (types and shapes the set does
// not repack, and `repacking: false`). One 32-element block per 256-bit vector; the K-quants
// take 64 quants per vector pair. `DotReference` holds the scalar twins.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore
    import TensorFormats

    enum Dot: RowDots {
        static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
            floats(w, x, count, bytes: 4) { p in
                _mm256_loadu_ps(p.assumingMemoryBound(to: Float.self))
            } scalar: {
                w.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self)
            }
        }

        static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
            floats(w, x, count, bytes: 2) { p in
                halves8(p)
            } scalar: {
                loadHalf(w, 2 * $0)
            }
        }

        static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
            floats(w, x, count, bytes: 2) { p in
                _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(load128(p)), 16))
            } scalar: {
                bf16ToFloat(w.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self))
            }
        }

        /// Σ w·x, 8 lanes at a time in two chains, with a scalar tail.
        @inline(__always)
        private static func floats(
            _ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ count: Int, bytes: Int,
            _ load: (UnsafeRawPointer) -> __m256, scalar: (Int) -> Float
        ) -> Float {
            var acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps()
            var i = 0
            while i + 16 <= count {
                acc0 = _mm256_fmadd_ps(load(w + bytes * i), _mm256_loadu_ps(x + i), acc0)
                acc1 = _mm256_fmadd_ps(load(w + bytes * (i + 8)), _mm256_loadu_ps(x + i + 8), acc1)
                i += 16
            }
            if i + 8 <= count {
                acc0 = _mm256_fmadd_ps(load(w + bytes * i), _mm256_loadu_ps(x + i), acc0)
                i += 8
            }
            var sum = horizontalSum(_mm256_add_ps(acc0, acc1))
            while i < count {
                sum += scalar(i) * x[i]
                i += 1
            }
            return sum
        }

        /// The 32 four-bit quants of a Q4/Q5 block (low nibbles are elements 0…15) as bytes.
        @inline(__always)
        private static func blockNibbles(_ p: UnsafeRawPointer) -> __m256i {
            let q = load128(p)
            let mask = _mm_set1_epi8(0x0F)
            return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), mask), _mm_and_si128(q, mask))
        }

        /// Σ over blocks of d_w·(d_a·Σu·q_a − offset·d_a·Σq_a) (+ m_w·s_a when `minimum`), `u`
        /// the block's unsigned quants from `quants`. Int16 lanes: one `vpmaddubsw` of 5-bit
        /// quants is at most 2·31·128 = 7,936.
        @inline(__always)
        private static func quantBlocks(
            _ w: UnsafeRawPointer, _ blocks: Int, _ a: Q8Row, bytes: Int, offset: Float, minimum: Bool,
            _ quants: (UnsafeRawPointer) -> __m256i
        ) -> Float {
            var acc = _mm256_setzero_ps()
            var scalar: Float = 0
            for b in 0..<blocks {
                let p = w + bytes * b
                let dot = pairSums(maddubs(quants(p), load256(a.qs + 32 * b)))
                let d = loadHalf(p)
                acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(d * a.ds[2 * b]), acc)
                scalar += (minimum ? loadHalf(p, 2) : -offset * d) * a.ds[2 * b + 1]
            }
            return horizontalSum(acc) + scalar
        }

        static func q4_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            quantBlocks(w, blocks, a, bytes: 18, offset: 8, minimum: false) { p in blockNibbles(p + Layout.q4_0Qs) }
        }

        static func q4_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            quantBlocks(w, blocks, a, bytes: 20, offset: 0, minimum: true) { p in blockNibbles(p + Layout.q4_1Qs) }
        }

        static func q5_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            quantBlocks(w, blocks, a, bytes: 22, offset: 16, minimum: false) { p in
                _mm256_or_si256(
                    blockNibbles(p + Layout.q5_0Qs),
                    fifthBits(p.loadUnaligned(fromByteOffset: Layout.q5_0Qh, as: UInt32.self)))
            }
        }

        static func q5_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            quantBlocks(w, blocks, a, bytes: 24, offset: 0, minimum: true) { p in
                _mm256_or_si256(
                    blockNibbles(p + Layout.q5_1Qs),
                    fifthBits(p.loadUnaligned(fromByteOffset: Layout.q5_1Qh, as: UInt32.self)))
            }
        }

        /// Signed × signed as |q_w| × (q_a with q_w's sign): at most 2·128·127 = 32,512 per lane.
        static func q8_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
            var acc = _mm256_setzero_ps()
            for b in 0..<blocks {
                let p = w + 34 * b
                let q = load256(p + Layout.q8_0Qs)
                let dot = pairSums(maddubs(_mm256_sign_epi8(q, q), _mm256_sign_epi8(load256(a.qs + 32 * b), q)))
                acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(loadHalf(p) * a.ds[2 * b]), acc)
            }
            return horizontalSum(acc)
        }

        static func q4_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
            kBlocks(w, blocks, a, bytes: 144, quants: Layout.q4_KQs, highBits: nil)
        }

        static func q5_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
            kBlocks(w, blocks, a, bytes: 176, quants: Layout.q5_KQs, highBits: Layout.q5_KQh)
        }

        /// Σ over super-blocks of d_a·(d·Σ_j sc_j·Σ q·q_a − dmin·Σ_j m_j·Σ q_a) for Q4_K and, with
        /// the fifth bits at `highBits`, Q5_K. A 32-byte chunk of quants holds sub-blocks 2c (low
        /// nibbles) and 2c + 1 (high nibbles); `vpmaddwd` with the sub-block's scale widens and
        /// scales each `vpmaddubsw` (at most 2·31·128 = 7,936 per lane) exactly.
        @inline(__always)
        private static func kBlocks(
            _ w: UnsafeRawPointer, _ blocks: Int, _ a: Q8KRow, bytes: Int, quants: Int, highBits: Int?
        ) -> Float {
            var acc = _mm256_setzero_ps()
            var minimum: Float = 0
            let bit = _mm256_set1_epi8(1)
            for b in 0..<blocks {
                let p = w + bytes * b
                let high = highBits.map { load256(p + $0) }
                var sumi = _mm256_setzero_si256()
                var summ: Int32 = 0
                for c in 0..<4 {
                    var (l, h) = nibbles(load256(p + quants + 32 * c))
                    if let high {
                        l = _mm256_or_si256(
                            l, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, Int32(2 * c)), bit), 4))
                        h = _mm256_or_si256(
                            h, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, Int32(2 * c + 1)), bit), 4))
                    }
                    let (scLow, mLow) = kScaleMin(p + Layout.qKScales, 2 * c)
                    let (scHigh, mHigh) = kScaleMin(p + Layout.qKScales, 2 * c + 1)
                    let aq = a.qs + 256 * b + 64 * c
                    let lowDot = maddubs(l, load256(aq)), highDot = maddubs(h, load256(aq + 32))
                    sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(lowDot, _mm256_set1_epi16(Int16(scLow))))
                    sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(highDot, _mm256_set1_epi16(Int16(scHigh))))
                    let bs = a.bsums + 16 * b + 4 * c
                    summ += mLow * (Int32(bs[0]) + Int32(bs[1])) + mHigh * (Int32(bs[2]) + Int32(bs[3]))
                }
                let da = a.d[b]
                acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_set1_ps(loadHalf(p) * da), acc)
                minimum += loadHalf(p, 2) * da * Float(summ)
            }
            return horizontalSum(acc) - minimum
        }

        /// Per half of 128: 32 bytes of `ql` (twice) and of `qh` give four 32-quant runs, each
        /// covering two sub-blocks of 16 (scale per 128-bit lane). Quants stay unsigned (0…63,
        /// `vpmaddubsw` at most 16,128 per lane) and 32·Σ sc_g·Σq_a is subtracted once per block.
        static func q6_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
            let nibble = _mm256_set1_epi8(0x0F), three = _mm256_set1_epi8(3)
            var acc = _mm256_setzero_ps()
            for b in 0..<blocks {
                let p = w + 210 * b, aq = a.qs + 256 * b
                var sumi = _mm256_setzero_si256()
                for half in 0..<2 {
                    let ql0 = load256(p + 64 * half), ql1 = load256(p + 64 * half + 32)
                    let qh = load256(p + Layout.q6_KQh + 32 * half)
                    /// One run of 32 quants: low 4 bits from `low`, top 2 from bits 0–1 of `top`.
                    @inline(__always) func run(_ r: Int, _ low: __m256i, _ top: __m256i) {
                        let q = _mm256_or_si256(low, _mm256_slli_epi16(_mm256_and_si256(top, three), 4))
                        let dot = maddubs(q, load256(aq + 128 * half + 32 * r))
                        let s = Layout.q6_KScales + 8 * half + 2 * r
                        let scale = _mm256_set_m128i(
                            _mm_set1_epi16(Int16(p.load(fromByteOffset: s + 1, as: Int8.self))),
                            _mm_set1_epi16(Int16(p.load(fromByteOffset: s, as: Int8.self))))
                        sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(dot, scale))
                    }
                    run(0, _mm256_and_si256(ql0, nibble), qh)
                    run(1, _mm256_and_si256(ql1, nibble), _mm256_srli_epi16(qh, 2))
                    run(2, _mm256_and_si256(_mm256_srli_epi16(ql0, 4), nibble), _mm256_srli_epi16(qh, 4))
                    run(3, _mm256_and_si256(_mm256_srli_epi16(ql1, 4), nibble), _mm256_srli_epi16(qh, 6))
                }
                let scales16 = _mm256_cvtepi8_epi16(load128(p + Layout.q6_KScales))
                let sums = load256(UnsafeRawPointer(a.bsums + 16 * b))
                let offset = _mm256_slli_epi32(_mm256_madd_epi16(scales16, sums), 5)
                let exact = _mm256_sub_epi32(sumi, offset)
                acc = _mm256_fmadd_ps(
                    _mm256_cvtepi32_ps(exact), _mm256_set1_ps(a.d[b] * loadHalf(p, Layout.q6_KD)), acc)
            }
            return horizontalSum(acc)
        }
    }
#endif
