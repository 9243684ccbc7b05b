// Q4_K and Q6_K × Q8_K kernels over interleaved groups of 16 rows (layouts in Repack.swift).
// Sub-block sums stay in int32 until the super-block's float scales.

#if KERNELS_AVX512
    import _Builtin_intrinsics.intel

    extension GroupKernels {
        @inline(__always)
        static func q4_K<W: TileWidth>(
            _: W.Type, group g: UnsafeRawPointer, blocks: Int, act: TileActivations,
            out: UnsafeMutablePointer<Float>, stride: Int, mask: __mmask16
        ) {
            var acc = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
            let nibble = _mm512_set1_epi8(0x0F)
            for sb in 0..<blocks {
                let p = g + 2368 * sb
                var sumi = InlineArray<4, __m512i>(repeating: _mm512_setzero_si512())
                for sub in 0..<8 {
                    let chunk = p + 320 + 512 * (sub / 2)
                    var isum = InlineArray<4, __m512i>(repeating: _mm512_setzero_si512())
                    for c in 0..<8 {
                        let q = load512(chunk + 64 * c)
                        let x = sub % 2 == 0 ? _mm512_and_si512(q, nibble) : _mm512_and_si512(_mm512_srli_epi16(q, 4), nibble)
                        for k in 0..<W.count {
                            isum[k] = dpbusd(isum[k], x, broadcast32(act.qs(k) + 256 * sb + 32 * sub + 4 * c))
                        }
                    }
                    let scale = _mm512_cvtepu8_epi32(_mm_loadu_si128((p + 64 + 16 * sub).assumingMemoryBound(to: __m128i.self)))
                    for k in 0..<W.count { sumi[k] = _mm512_add_epi32(sumi[k], _mm512_mullo_epi32(isum[k], scale)) }
                }
                let d = halves16(p), dmin = halves16(p + 32)
                for k in 0..<W.count {
                    var summ = _mm512_setzero_si512()
                    for pair in 0..<4 {
                        let mins = _mm512_cvtepu8_epi16(_mm256_loadu_si256((p + 192 + 32 * pair).assumingMemoryBound(to: __m256i.self)))
                        summ = _mm512_add_epi32(summ, _mm512_madd_epi16(mins, broadcast32(act.bsums32(k) + 16 * sb + 4 * pair)))
                    }
                    let da = _mm512_set1_ps(act.d(k)[sb])
                    acc[k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi[k]), _mm512_mul_ps(d, da), acc[k])
                    acc[k] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(summ), _mm512_mul_ps(dmin, da), acc[k])
                }
            }
            for k in 0..<W.count { _mm512_mask_storeu_ps(out + k * stride, mask, acc[k]) }
        }

        @inline(__always)
        static func q6_K<W: TileWidth>(
            _: W.Type, group g: UnsafeRawPointer, blocks: Int, act: TileActivations,
            out: UnsafeMutablePointer<Float>, stride: Int, mask: __mmask16
        ) {
            var acc = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
            let nibble = _mm512_set1_epi8(0x0F), high = _mm512_set1_epi8(0x30)
            for sb in 0..<blocks {
                let p = g + 3360 * sb
                var sumi = InlineArray<4, __m512i>(repeating: _mm512_setzero_si512())
                for u in 0..<4 {
                    for part in 0..<4 {
                        let sub = 4 * part + u
                        var isum = InlineArray<4, __m512i>(repeating: _mm512_setzero_si512())
                        for cc in 0..<4 {
                            let c = 4 * u + cc
                            let v = load512(p + 288 + 64 * (part % 2 == 0 ? c : c + 16))
                            let h = load512(p + 2336 + 64 * c)
                            let x: __m512i
                            switch part {
                            case 0:
                                x = _mm512_or_si512(_mm512_and_si512(v, nibble), _mm512_and_si512(_mm512_slli_epi16(h, 4), high))
                            case 1:
                                x = _mm512_or_si512(_mm512_and_si512(v, nibble), _mm512_and_si512(_mm512_slli_epi16(h, 2), high))
                            case 2:
                                x = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(v, 4), nibble), _mm512_and_si512(h, high))
                            default:
                                x = _mm512_or_si512(
                                    _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble), _mm512_and_si512(_mm512_srli_epi16(h, 2), high))
                            }
                            for k in 0..<W.count {
                                isum[k] = dpbusd(isum[k], x, broadcast32(act.qs(k) + 256 * sb + 16 * sub + 4 * cc))
                            }
                        }
                        let scale = _mm512_cvtepi8_epi32(_mm_loadu_si128((p + 32 + 16 * sub).assumingMemoryBound(to: __m128i.self)))
                        for k in 0..<W.count {
                            let offset = _mm512_set1_epi32(act.bsums16x32(k)[16 * sb + sub])
                            sumi[k] = _mm512_add_epi32(sumi[k], _mm512_mullo_epi32(_mm512_sub_epi32(isum[k], offset), scale))
                        }
                    }
                }
                let d = halves16(p)
                for k in 0..<W.count {
                    acc[k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi[k]), _mm512_mul_ps(d, _mm512_set1_ps(act.d(k)[sb])), acc[k])
                }
            }
            for k in 0..<W.count { _mm512_mask_storeu_ps(out + k * stride, mask, acc[k]) }
        }
    }
#endif
