// Q8_0 and Q5_0 × Q8 kernels over interleaved groups of 16 rows (layouts in Repack.swift). Both
// store unsigned quants (Q8_0 biased by 128, Q5_0's 0…31) for `vpdpbusd`; the bias comes back out
// as `offset · d_a·Σq_a` per block.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore

    extension GroupKernels {
        @inline(__always)
        static func q8_0<W: TileWidth>(
            _: W.Type, group g: UnsafeRawPointer, blocks: Int, act: TileActivations,
            out: UnsafeMutablePointer<Float>, stride: Int, mask: __mmask16
        ) {
            var acc = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
            for b in 0..<blocks {
                let p = g + 544 * b
                prefetchL2(W.self, p, bytes: 544)
                let q0 = load512(p + 32), q1 = load512(p + 96), q2 = load512(p + 160), q3 = load512(p + 224)
                let q4 = load512(p + 288), q5 = load512(p + 352), q6 = load512(p + 416), q7 = load512(p + 480)
                let d = halves16(p)
                unroll(W.self) { k in
                    let a = act.qs(k) + 32 * b
                    var i = dpbusd(_mm512_setzero_si512(), q0, broadcast32(a))
                    var j = dpbusd(_mm512_setzero_si512(), q1, broadcast32(a + 4))
                    i = dpbusd(i, q2, broadcast32(a + 8))
                    j = dpbusd(j, q3, broadcast32(a + 12))
                    i = dpbusd(i, q4, broadcast32(a + 16))
                    j = dpbusd(j, q5, broadcast32(a + 20))
                    i = dpbusd(i, q6, broadcast32(a + 24))
                    j = dpbusd(j, q7, broadcast32(a + 28))
                    let ds = act.ds(k) + 2 * b
                    let dot = _mm512_fmadd_ps(
                        _mm512_cvtepi32_ps(_mm512_add_epi32(i, j)), _mm512_set1_ps(ds[0]), _mm512_set1_ps(-128 * ds[1]))
                    acc[k] = _mm512_fmadd_ps(dot, d, acc[k])
                }
            }
            unroll(W.self) { k in _mm512_mask_storeu_ps(out + k * stride, mask, acc[k]) }
        }

        @inline(__always)
        static func q5_0<W: TileWidth>(
            _: W.Type, group g: UnsafeRawPointer, blocks: Int, act: TileActivations,
            out: UnsafeMutablePointer<Float>, stride: Int, mask: __mmask16
        ) {
            var acc = InlineArray<4, __m512>(repeating: _mm512_setzero_ps())
            let nibble = _mm512_set1_epi8(0x0F), bit4 = _mm512_set1_epi8(0x10)
            for b in 0..<blocks {
                let p = g + 352 * b
                prefetchL2(W.self, p, bytes: 352)
                let hb = (p + 288).assumingMemoryBound(to: UInt64.self)
                @inline(__always) func quants(_ c: Int) -> (__m512i, __m512i) {
                    let q = load512(p + 32 + 64 * c)
                    let lo = _mm512_and_si512(q, nibble), hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), nibble)
                    return (_mm512_mask_add_epi8(lo, hb[c], lo, bit4), _mm512_mask_add_epi8(hi, hb[4 + c], hi, bit4))
                }
                let (l0, h0) = quants(0), (l1, h1) = quants(1), (l2, h2) = quants(2), (l3, h3) = quants(3)
                let d = halves16(p)
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
                    let dot = _mm512_fmadd_ps(
                        _mm512_cvtepi32_ps(_mm512_add_epi32(i, j)), _mm512_set1_ps(ds[0]), _mm512_set1_ps(-16 * ds[1]))
                    acc[k] = _mm512_fmadd_ps(dot, d, acc[k])
                }
            }
            unroll(W.self) { k in _mm512_mask_storeu_ps(out + k * stride, mask, acc[k]) }
        }
    }
#endif
