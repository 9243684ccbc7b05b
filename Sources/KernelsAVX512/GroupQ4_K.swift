// Q4_K and Q6_K × Q8_K kernels over interleaved groups of 16 rows (layouts in Repack.swift).
// Sub-block sums are exact int32 (vpdpbusd), scaled by their 6-bit or 8-bit scales in float.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore

    extension GroupKernels {
        @inline(__always)
        static func q4_K<W: TileWidth>(
            _: W.Type, group g: UnsafeRawPointer, blocks: Int, act: TileActivations,
            out: UnsafeMutablePointer<Float>, stride: Int, mask: __mmask16
        ) {
            var acc = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
            let nibble = _mm512_set1_epi8(0x0F)
            for sb in 0..<blocks {
                let p = g + 2304 * sb
                prefetchL2(W.self, p, bytes: 2304)
                let scales = q4_KScales(p + 64)
                // Sub-block sums scaled in float: vpmulld would take two µops on vpdpbusd's port.
                var sum = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
                for pair in 0..<4 {
                    // One 64-element chunk: low nibbles are sub-block 2·pair, high nibbles 2·pair + 1.
                    // Two accumulators per sub-block keep the vpdpbusd chains short.
                    let chunk = p + 256 + 512 * pair
                    var lo0 = InlineArray<4, __m512i>(repeating: _mm512_setzero_si512()), lo1 = lo0, hi0 = lo0,
                        hi1 = lo0
                    if W.count == 1 {
                        for c in Swift.stride(from: 0, to: 8, by: 2) {
                            let qa = load512(chunk + 64 * c), qb = load512(chunk + 64 * c + 64)
                            let a = act.qs(0) + 256 * sb + 64 * pair + 4 * c
                            lo0[0] = dpbusd(lo0[0], _mm512_and_si512(qa, nibble), broadcast32(a))
                            hi0[0] = dpbusd(
                                hi0[0], _mm512_and_si512(_mm512_srli_epi16(qa, 4), nibble), broadcast32(a + 32))
                            lo1[0] = dpbusd(lo1[0], _mm512_and_si512(qb, nibble), broadcast32(a + 4))
                            hi1[0] = dpbusd(
                                hi1[0], _mm512_and_si512(_mm512_srli_epi16(qb, 4), nibble), broadcast32(a + 36))
                        }
                    } else {
                        // Several activation rows give enough independent chains.
                        for c in 0..<8 {
                            let q = load512(chunk + 64 * c)
                            let l = _mm512_and_si512(q, nibble), h = _mm512_and_si512(_mm512_srli_epi16(q, 4), nibble)
                            unroll(W.self) { k in
                                let a = act.qs(k) + 256 * sb + 64 * pair + 4 * c
                                lo0[k] = dpbusd(lo0[k], l, broadcast32(a))
                                hi0[k] = dpbusd(hi0[k], h, broadcast32(a + 32))
                            }
                        }
                    }
                    let scaleLo = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(scales[2 * pair]))
                    let scaleHi = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(scales[2 * pair + 1]))
                    unroll(W.self) { k in
                        sum[k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(lo0[k], lo1[k])), scaleLo, sum[k])
                        sum[k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(hi0[k], hi1[k])), scaleHi, sum[k])
                    }
                }
                let d = halves16(p), dmin = halves16(p + 32)
                let mins = q4_KMins(p + 64)
                unroll(W.self) { k in
                    var summ = _mm512_setzero_si512()
                    for pair in 0..<4 {
                        let sums = broadcast32(act.bsums32(k) + 16 * sb + 4 * pair)
                        summ = _mm512_add_epi32(summ, _mm512_madd_epi16(mins[pair], sums))
                    }
                    let da = _mm512_set1_ps(act.d(k)[sb])
                    acc[k] = _mm512_fmadd_ps(sum[k], _mm512_mul_ps(d, da), acc[k])
                    acc[k] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(summ), _mm512_mul_ps(dmin, da), acc[k])
                }
            }
            unroll(W.self) { k in _mm512_mask_storeu_ps(out + k * stride, mask, acc[k]) }
        }

        @inline(__always)
        static func q6_K<W: TileWidth>(
            _: W.Type, group g: UnsafeRawPointer, blocks: Int, act: TileActivations,
            out: UnsafeMutablePointer<Float>, stride: Int, mask: __mmask16
        ) {
            var acc = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
            for sb in 0..<blocks {
                let p = g + 3360 * sb
                prefetchL2(W.self, p, bytes: 3360)
                // Sub-block sums scaled in float: vpmulld would take two µops on vpdpbusd's port.
                var sum = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
                for u in 0..<4 {
                    q6_KSubBlock(W.self, p, sb, u, 0, act, &sum)
                    q6_KSubBlock(W.self, p, sb, u, 1, act, &sum)
                    q6_KSubBlock(W.self, p, sb, u, 2, act, &sum)
                    q6_KSubBlock(W.self, p, sb, u, 3, act, &sum)
                }
                let d = halves16(p)
                unroll(W.self) { k in
                    acc[k] = _mm512_fmadd_ps(sum[k], _mm512_mul_ps(d, _mm512_set1_ps(act.d(k)[sb])), acc[k])
                }
            }
            unroll(W.self) { k in _mm512_mask_storeu_ps(out + k * stride, mask, acc[k]) }
        }

        /// Sub-block `4·part + u` of a Q6_K super-block: its 16 quants of each row come from
        /// V[c] (parts 0, 2) or V[c + 16] (parts 1, 3) and the 2-bit field `part` of H[c], c in 4u..<4u+4.
        @inline(__always)
        static func q6_KSubBlock<W: TileWidth>(
            _: W.Type, _ p: UnsafeRawPointer, _ sb: Int, _ u: Int, _ part: Int, _ act: TileActivations,
            _ sum: inout InlineArray<4, __m512>
        ) {
            let nibble = _mm512_set1_epi8(0x0F), high = _mm512_set1_epi8(0x30)
            let sub = 4 * part + u
            var isum = InlineArray<4, __m512i>(repeating: _mm512_setzero_si512())
            for cc in 0..<4 {
                let c = 4 * u + cc
                let v = load512(p + 288 + 64 * (part % 2 == 0 ? c : c + 16))
                let h = load512(p + 2336 + 64 * c)
                let low = part < 2 ? _mm512_and_si512(v, nibble) : _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble)
                let top: __m512i
                switch part {
                case 0: top = _mm512_slli_epi16(h, 4)
                case 1: top = _mm512_slli_epi16(h, 2)
                case 2: top = h
                default: top = _mm512_srli_epi16(h, 2)
                }
                let x = _mm512_or_si512(low, _mm512_and_si512(top, high))
                unroll(W.self) { k in
                    isum[k] = dpbusd(isum[k], x, broadcast32(act.qs(k) + 256 * sb + 16 * sub + 4 * cc))
                }
            }
            let scale = _mm512_cvtepi32_ps(
                _mm512_cvtepi8_epi32(_mm_loadu_si128((p + 32 + 16 * sub).assumingMemoryBound(to: __m128i.self))))
            unroll(W.self) { k in
                let offset = _mm512_set1_epi32(act.bsums16x32(k)[16 * sb + sub])
                sum[k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(isum[k], offset)), scale, sum[k])
            }
        }

        /// Byte b of the 12 packed scale bytes of 16 rows, stored transposed (row i at 16·b + i).
        @inline(__always)
        static func q4_KPacked(_ s: UnsafeRawPointer, _ b: Int) -> __m128i {
            _mm_loadu_si128((s + 16 * b).assumingMemoryBound(to: __m128i.self))
        }

        /// Bits 6–7 of each byte moved to bits 4–5.
        @inline(__always)
        static func q4_KTop2(_ v: __m128i) -> __m128i {
            _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(v, 6), _mm_set1_epi8(3)), 4)
        }

        /// The 6-bit scales of the 8 sub-blocks of 16 rows, one byte per row.
        @inline(__always)
        static func q4_KScales(_ s: UnsafeRawPointer) -> InlineArray<8, __m128i> {
            var scales = InlineArray<8, __m128i>(repeating: _mm_setzero_si128())
            for j in 0..<4 {
                scales[j] = _mm_and_si128(q4_KPacked(s, j), _mm_set1_epi8(63))
                scales[j + 4] = _mm_or_si128(
                    _mm_and_si128(q4_KPacked(s, j + 8), _mm_set1_epi8(0x0F)), q4_KTop2(q4_KPacked(s, j)))
            }
            return scales
        }

        /// The 6-bit mins of the 8 sub-blocks of 16 rows as (m[2p], m[2p+1]) Int16 pairs per row,
        /// for `vpmaddwd` against pairs of activation sums.
        @inline(__always)
        static func q4_KMins(_ s: UnsafeRawPointer) -> InlineArray<4, __m512i> {
            var mins = InlineArray<8, __m128i>(repeating: _mm_setzero_si128())
            for j in 0..<4 {
                mins[j] = _mm_and_si128(q4_KPacked(s, j + 4), _mm_set1_epi8(63))
                mins[j + 4] = _mm_or_si128(
                    _mm_and_si128(_mm_srli_epi16(q4_KPacked(s, j + 8), 4), _mm_set1_epi8(0x0F)),
                    q4_KTop2(q4_KPacked(s, j + 4)))
            }
            var pairs = InlineArray<4, __m512i>(repeating: _mm512_setzero_si512())
            for p in 0..<4 {
                let lo = _mm_unpacklo_epi8(mins[2 * p], mins[2 * p + 1]),
                    hi = _mm_unpackhi_epi8(mins[2 * p], mins[2 * p + 1])
                pairs[p] = _mm512_cvtepu8_epi16(_mm256_set_m128i(hi, lo))
            }
            return pairs
        }
    }
#endif
