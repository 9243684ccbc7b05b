// AVX2 K-quant × Q8_K products over interleaved groups of 8 rows (layouts in
// KernelsCore/Interleave.swift). Sub-block sums are exact integers: `vpmaddubsw` into Int16, then
// `vpmaddwd` against each row's 6-bit (Q4_K/Q5_K) or 8-bit (Q6_K) scale, which widens and scales
// in one instruction; one conversion to float per super-block.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore

    extension GroupKernels {
        /// Q4_K and Q5_K: Σ over super-blocks of d_a·(d·Σ_j sc_j·Σ q·q_a − dmin·Σ_j m_j·Σ q_a).
        @inline(__always)
        static func qK<W: TileWidth, F: KQuantFormat>(
            _: W.Type, _: F.Type, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: Output
        ) {
            let fifth = F.fifth
            let bytes = fifth ? 1408 : 1152
            var acc = InlineArray<4, __m256>(repeating: _mm256_setzero_ps())
            for sb in 0..<blocks {
                let p = g + bytes * sb
                prefetchL2(W.self, p, bytes: bytes)
                let (scales, mins) = kScalesMins(p + 32)
                var sumi = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256())
                if !fifth {
                    // Q4_K: the eight columns of a sub-block pair add into one set of Int16 sums
                    // (8 × 3,840 fits), and the pairs are written out, so the accumulators stay in
                    // registers and each pair's scales are picked at compile time.
                    forEach4 { pair in
                        var low = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256()), high = low
                        for c in 0..<8 {
                            let (l, h) = nibbles(load256(p + 128 + 256 * pair + 32 * c))
                            unroll(W.self) { k in
                                let a = act.qs(k) + 256 * sb + 64 * pair + 4 * c
                                low[k] = _mm256_add_epi16(low[k], maddubs(l, broadcast32(a)))
                                high[k] = _mm256_add_epi16(high[k], maddubs(h, broadcast32(a + 32)))
                            }
                        }
                        unroll(W.self) { k in
                            sumi[k] = _mm256_add_epi32(sumi[k], _mm256_madd_epi16(low[k], scales[2 * pair]))
                            sumi[k] = _mm256_add_epi32(sumi[k], _mm256_madd_epi16(high[k], scales[2 * pair + 1]))
                        }
                    }
                }
                for pair in 0..<4 where fifth {
                    // Q5_K: sub-blocks 2·pair (low nibbles + fifth bit) and 2·pair + 1 (high), 32
                    // quants each. Int16 lanes: pairs of 5-bit products reach 7,936, so they are
                    // widened after every four columns.
                    for half in 0..<2 {
                        var lowPart = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256()), highPart = lowPart
                        forEach4 { column in
                            let c = 4 * half + column
                            var (l, h) = nibbles(load256(p + 128 + 256 * pair + 32 * c))
                            let masks = p + 1152 + 4 * (16 * pair + c)
                            l = _mm256_or_si256(l, fifthBits(masks.loadUnaligned(as: UInt32.self)))
                            h = _mm256_or_si256(h, fifthBits(masks.loadUnaligned(fromByteOffset: 32, as: UInt32.self)))
                            unroll(W.self) { k in
                                let a = act.qs(k) + 256 * sb + 64 * pair + 4 * c
                                lowPart[k] = _mm256_add_epi16(lowPart[k], maddubs(l, broadcast32(a)))
                                highPart[k] = _mm256_add_epi16(highPart[k], maddubs(h, broadcast32(a + 32)))
                            }
                        }
                        unroll(W.self) { k in
                            sumi[k] = _mm256_add_epi32(sumi[k], _mm256_madd_epi16(lowPart[k], scales[2 * pair]))
                            sumi[k] = _mm256_add_epi32(sumi[k], _mm256_madd_epi16(highPart[k], scales[2 * pair + 1]))
                        }
                    }
                }
                let d = halves8(p), dmin = halves8(p + 16)
                unroll(W.self) { k in
                    var summ = _mm256_setzero_si256()
                    for pair in 0..<4 {
                        let sums = broadcast32(act.bsums32(k) + 16 * sb + 4 * pair)
                        summ = _mm256_add_epi32(summ, _mm256_madd_epi16(mins[pair], sums))
                    }
                    let da = _mm256_set1_ps(act.d(k)[sb])
                    acc[k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi[k]), _mm256_mul_ps(d, da), acc[k])
                    acc[k] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(summ), _mm256_mul_ps(dmin, da), acc[k])
                }
            }
            unroll(W.self) { k in out.store(k, acc[k]) }
        }

        /// From the 12 packed scale bytes of 8 rows, stored transposed (row i of byte b at 8·b + i):
        /// the 6-bit scales of the 8 sub-blocks, each as (sc, sc) Int16 pairs per row for
        /// `vpmaddwd`, and the 6-bit mins as (m[2p], m[2p+1]) pairs per row.
        @inline(__always)
        static func kScalesMins(_ s: UnsafeRawPointer) -> (InlineArray<8, __m256i>, InlineArray<4, __m256i>) {
            @inline(__always) func byte(_ b: Int) -> __m128i {
                _mm_loadl_epi64(s.advanced(by: 8 * b).assumingMemoryBound(to: __m128i.self))
            }
            let low6 = _mm_set1_epi8(63), low4 = _mm_set1_epi8(0x0F)
            @inline(__always) func top2(_ v: __m128i) -> __m128i {
                _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(v, 6), _mm_set1_epi8(3)), 4)
            }
            var sc = InlineArray<8, __m128i>(repeating: _mm_setzero_si128()), m = sc
            for j in 0..<4 {
                sc[j] = _mm_and_si128(byte(j), low6)
                m[j] = _mm_and_si128(byte(j + 4), low6)
                sc[j + 4] = _mm_or_si128(_mm_and_si128(byte(j + 8), low4), top2(byte(j)))
                m[j + 4] = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(byte(j + 8), 4), low4), top2(byte(j + 4)))
            }
            var scales = InlineArray<8, __m256i>(repeating: _mm256_setzero_si256())
            for j in 0..<8 { scales[j] = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(sc[j], sc[j])) }
            var mins = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256())
            for p in 0..<4 { mins[p] = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(m[2 * p], m[2 * p + 1])) }
            return (scales, mins)
        }

        /// Q6_K: d·d_a·(Σ_sub sc·Σ q·q_a − 32·Σ_sub sc·Σ q_a) with q the unsigned 6-bit quants.
        @inline(__always)
        static func q6_K<W: TileWidth>(
            _: W.Type, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: Output
        ) {
            var acc = InlineArray<4, __m256>(repeating: _mm256_setzero_ps())
            let nibble = _mm256_set1_epi8(0x0F), top = _mm256_set1_epi8(0x30)
            for sb in 0..<blocks {
                let p = g + 1680 * sb
                prefetchL2(W.self, p, bytes: 1680)
                var sumi = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256())
                // Written out over the four parts, so each part's shift of the high bits is a constant.
                forEach4 { part in
                    for u in 0..<4 {
                        let sub = 4 * part + u
                        let sc8 = _mm_loadl_epi64((p + 16 + 8 * sub).assumingMemoryBound(to: __m128i.self))
                        let scale = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(sc8, sc8))
                        // Int16 lanes: pairs of 6-bit products are at most 2·63·128 = 16,128; two fit.
                        var first = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256()), second = first
                        for cc in 0..<4 {
                            let c = 4 * u + cc
                            let v = load256(p + 144 + 32 * (part % 2 == 0 ? c : c + 16))
                            let h = load256(p + 1168 + 32 * c)
                            let low =
                                part < 2
                                ? _mm256_and_si256(v, nibble) : _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)
                            let high: __m256i
                            switch part {
                            case 0: high = _mm256_slli_epi16(h, 4)
                            case 1: high = _mm256_slli_epi16(h, 2)
                            case 2: high = h
                            default: high = _mm256_srli_epi16(h, 2)
                            }
                            let x = _mm256_or_si256(low, _mm256_and_si256(high, top))
                            unroll(W.self) { k in
                                let product = maddubs(x, broadcast32(act.qs(k) + 256 * sb + 16 * sub + 4 * cc))
                                if cc < 2 {
                                    first[k] = _mm256_add_epi16(first[k], product)
                                } else {
                                    second[k] = _mm256_add_epi16(second[k], product)
                                }
                            }
                        }
                        unroll(W.self) { k in
                            sumi[k] = _mm256_add_epi32(sumi[k], _mm256_madd_epi16(first[k], scale))
                            sumi[k] = _mm256_add_epi32(sumi[k], _mm256_madd_epi16(second[k], scale))
                        }
                    }
                }
                // 32·Σ_sub sc·Σ q_a, from pairs of sub-block scales and pairs of 16-quant sums.
                var offsets = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256())
                for s in 0..<8 {
                    let a8 = _mm_loadl_epi64((p + 16 + 16 * s).assumingMemoryBound(to: __m128i.self))
                    let b8 = _mm_loadl_epi64((p + 24 + 16 * s).assumingMemoryBound(to: __m128i.self))
                    let pairs = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a8, b8))
                    unroll(W.self) { k in
                        let sums = broadcast32(UnsafeRawPointer(act.bsums16(k) + 16 * sb + 2 * s))
                        offsets[k] = _mm256_add_epi32(offsets[k], _mm256_madd_epi16(pairs, sums))
                    }
                }
                let d = halves8(p)
                unroll(W.self) { k in
                    let exact = _mm256_sub_epi32(sumi[k], _mm256_slli_epi32(offsets[k], 5))
                    let scale = _mm256_mul_ps(d, _mm256_set1_ps(act.d(k)[sb]))
                    acc[k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(exact), scale, acc[k])
                }
            }
            unroll(W.self) { k in out.store(k, acc[k]) }
        }
    }
#endif
