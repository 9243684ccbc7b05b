// Q4_1 × Q8 kernels over interleaved groups of 16 rows (layout in Repack.swift).

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore

    extension GroupKernels {
        /// `out[k·stride + i]` = row i of the group · activation row k, for `W.count` activation rows.
        @inline(__always)
        static func q4_1<W: TileWidth>(
            _: W.Type, group g: UnsafeRawPointer, blocks: Int, act: TileActivations,
            out: UnsafeMutablePointer<Float>, stride: Int, mask: __mmask16
        ) {
            var acc = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
            var accMin = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
            let nibble = _mm512_set1_epi8(0x0F)
            for b in 0..<blocks {
                let p = g + 320 * b
                prefetchL2(W.self, p, bytes: 320)
                let q0 = load512(p + 64), q1 = load512(p + 128), q2 = load512(p + 192), q3 = load512(p + 256)
                let l0 = _mm512_and_si512(q0, nibble), l1 = _mm512_and_si512(q1, nibble)
                let l2 = _mm512_and_si512(q2, nibble), l3 = _mm512_and_si512(q3, nibble)
                let h0 = _mm512_and_si512(_mm512_srli_epi16(q0, 4), nibble)
                let h1 = _mm512_and_si512(_mm512_srli_epi16(q1, 4), nibble)
                let h2 = _mm512_and_si512(_mm512_srli_epi16(q2, 4), nibble)
                let h3 = _mm512_and_si512(_mm512_srli_epi16(q3, 4), nibble)
                let d = halves16(p), m = halves16(p + 32)
                unroll(W.self) { k in
                    let a = act.qs(k) + 32 * b
                    var i = dpbusd(_mm512_setzero_si512(), l0, broadcast32(a))
                    var j = dpbusd(_mm512_setzero_si512(), h0, broadcast32(a + 16))
                    i = dpbusd(i, l1, broadcast32(a + 4))
                    j = dpbusd(j, h1, broadcast32(a + 20))
                    i = dpbusd(i, l2, broadcast32(a + 8))
                    j = dpbusd(j, h2, broadcast32(a + 24))
                    i = dpbusd(i, l3, broadcast32(a + 12))
                    j = dpbusd(j, h3, broadcast32(a + 28))
                    let ds = act.ds(k) + 2 * b
                    let scale = _mm512_mul_ps(d, _mm512_set1_ps(ds[0]))
                    acc[k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(i, j)), scale, acc[k])
                    accMin[k] = _mm512_fmadd_ps(m, _mm512_set1_ps(ds[1]), accMin[k])
                }
            }
            unroll(W.self) { k in
                _mm512_mask_storeu_ps(out + k * stride, mask, _mm512_add_ps(acc[k], accMin[k]))
            }
        }
    }
#endif
