// Activation quantizers: AVX-512 versions of `QuantizeReference`, bit-identical to it (the same
// products, rounded to nearest-even by `vcvtps2dq` under the default rounding mode).

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore

    enum Quantize {
        static func q8(
            _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, ds: UnsafeMutablePointer<Float>,
            halfSum: Bool = false
        ) {
            for b in 0..<(count / 32) {
                let v0 = _mm512_loadu_ps(x + 32 * b), v1 = _mm512_loadu_ps(x + 32 * b + 16)
                let amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)))
                let d = amax / 127
                let id: Float = amax > 0 ? 127 / amax : 0
                let scale = _mm512_set1_ps(id)
                let q0 = _mm512_cvtps_epi32(_mm512_mul_ps(v0, scale)), q1 = _mm512_cvtps_epi32(_mm512_mul_ps(v1, scale))
                store16(qs + 32 * b, q0)
                store16(qs + 32 * b + 16, q1)
                let sum = _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1))
                ds[2 * b] = Float(Float16(d))
                ds[2 * b + 1] = halfSum ? Float(Float16(d * Float(sum))) : Float(Float16(d)) * Float(sum)
            }
        }

        static func q8K(
            _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, d: UnsafeMutablePointer<Float>,
            bsums: UnsafeMutablePointer<Int16>
        ) {
            for b in 0..<(count / 256) {
                let xb = x + 256 * b
                var m = _mm512_setzero_ps()
                for i in 0..<16 { m = _mm512_max_ps(m, _mm512_abs_ps(_mm512_loadu_ps(xb + 16 * i))) }
                let amax = _mm512_reduce_max_ps(m)
                if amax == 0 {
                    d[b] = 0
                    (qs + 256 * b).initialize(repeating: 0, count: 256)
                    (bsums + 16 * b).initialize(repeating: 0, count: 16)
                    continue
                }
                // The first element of largest magnitude, with its sign, as the reference picks it.
                var vmax: Float = 0
                let target = SIMD16<Float>(repeating: amax)
                for i in 0..<16 {
                    let v = UnsafeRawPointer(xb + 16 * i).loadUnaligned(as: SIMD16<Float>.self)
                    if any(_mm512_abs_ps(v) .== target) {
                        for j in 0..<16 where abs(v[j]) == amax {
                            vmax = v[j]
                            break
                        }
                        break
                    }
                }
                let iscale = -127 / vmax
                let scale = _mm512_set1_ps(iscale), limit = _mm512_set1_epi32(127)
                for i in 0..<16 {
                    let q = _mm512_min_epi32(
                        _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(xb + 16 * i), scale)), limit)
                    store16(qs + 256 * b + 16 * i, q)
                    bsums[16 * b + i] = Int16(_mm512_reduce_add_epi32(q))
                }
                d[b] = 1 / iscale
            }
        }

        /// Narrows 16 int32 lanes (each within Int8's range) to bytes at `p`.
        @inline(__always)
        private static func store16(_ p: UnsafeMutablePointer<Int8>, _ v: __m512i) {
            UnsafeMutableRawPointer(p).storeBytes(of: _mm512_cvtepi32_epi8(v), as: __m128i.self)
        }
    }
#endif
