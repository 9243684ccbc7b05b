// Activation quantizers: AVX2 versions of `QuantizeReference`, bit-identical to it (the same
// products, rounded to nearest-even by `vcvtps2dq` under the default rounding mode).

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore

    enum Quantize {
        static func q8(
            _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, ds: UnsafeMutablePointer<Float>,
            halfSum: Bool
        ) {
            let signBit = _mm256_set1_ps(-0.0)
            for b in 0..<(count / 32) {
                let xb = x + 32 * b
                let v = (
                    _mm256_loadu_ps(xb), _mm256_loadu_ps(xb + 8), _mm256_loadu_ps(xb + 16), _mm256_loadu_ps(xb + 24)
                )
                let m = _mm256_max_ps(
                    _mm256_max_ps(_mm256_andnot_ps(signBit, v.0), _mm256_andnot_ps(signBit, v.1)),
                    _mm256_max_ps(_mm256_andnot_ps(signBit, v.2), _mm256_andnot_ps(signBit, v.3)))
                let amax = horizontalMax(m)
                let d = amax / 127
                let id: Float = amax > 0 ? 127 / amax : 0
                let scale = _mm256_set1_ps(id)
                let q0 = _mm256_cvtps_epi32(_mm256_mul_ps(v.0, scale)),
                    q1 = _mm256_cvtps_epi32(_mm256_mul_ps(v.1, scale))
                let q2 = _mm256_cvtps_epi32(_mm256_mul_ps(v.2, scale)),
                    q3 = _mm256_cvtps_epi32(_mm256_mul_ps(v.3, scale))
                store32(qs + 32 * b, q0, q1, q2, q3)
                let sum = horizontalSum(_mm256_add_epi32(_mm256_add_epi32(q0, q1), _mm256_add_epi32(q2, q3)))
                ds[2 * b] = Float(Float16(d))
                ds[2 * b + 1] = halfSum ? Float(Float16(d * Float(sum))) : Float(Float16(d)) * Float(sum)
            }
        }

        static func q8K(
            _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, d: UnsafeMutablePointer<Float>,
            bsums: UnsafeMutablePointer<Int16>
        ) {
            let signBit = _mm256_set1_ps(-0.0)
            for b in 0..<(count / 256) {
                let xb = x + 256 * b
                var m = _mm256_setzero_ps()
                for i in 0..<32 { m = _mm256_max_ps(m, _mm256_andnot_ps(signBit, _mm256_loadu_ps(xb + 8 * i))) }
                let amax = horizontalMax(m)
                if amax == 0 {
                    d[b] = 0
                    (qs + 256 * b).initialize(repeating: 0, count: 256)
                    (bsums + 16 * b).initialize(repeating: 0, count: 16)
                    continue
                }
                // The first element of largest magnitude, with its sign, as the reference picks it.
                var vmax: Float = 0
                for i in 0..<256 where abs(xb[i]) == amax {
                    vmax = xb[i]
                    break
                }
                let iscale = -127 / vmax
                let scale = _mm256_set1_ps(iscale), limit = _mm256_set1_epi32(127)
                for g in 0..<8 {
                    let p = xb + 32 * g
                    var q = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256())
                    for i in 0..<4 {
                        q[i] = _mm256_min_epi32(
                            _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(p + 8 * i), scale)), limit)
                    }
                    store32(qs + 256 * b + 32 * g, q[0], q[1], q[2], q[3])
                    bsums[16 * b + 2 * g] = Int16(horizontalSum(_mm256_add_epi32(q[0], q[1])))
                    bsums[16 * b + 2 * g + 1] = Int16(horizontalSum(_mm256_add_epi32(q[2], q[3])))
                }
                d[b] = 1 / iscale
            }
        }

        /// The largest of the eight lanes.
        @inline(__always)
        private static func horizontalMax(_ v: __m256) -> Float {
            // Not `SIMD8<Float>.max()`: a standard-library specialization would be a symbol shared
            // with other modules (see `MultiplyAdd`).
            let four = _mm_max_ps(
                _mm256_castps256_ps128(v),
                _mm256_castps256_ps128(_mm256_permutevar8x32_ps(v, _mm256_setr_epi32(4, 5, 6, 7, 0, 1, 2, 3))))
            let two = _mm_max_ps(four, _mm_movehl_ps(four, four))
            return max(_mm_cvtss_f32(two), _mm_cvtss_f32(_mm_movehdup_ps(two)))
        }

        /// Narrows 32 Int32 lanes (each within Int8's range) to bytes at `p`, in order.
        @inline(__always)
        private static func store32(
            _ p: UnsafeMutablePointer<Int8>, _ a: __m256i, _ b: __m256i, _ c: __m256i, _ d: __m256i
        ) {
            // packs work within 128-bit lanes: the result holds a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7
            // (as 4-byte runs), which a dword permutation puts back in order.
            let ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d)
            let bytes = _mm256_packs_epi16(ab, cd)
            let ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
            _mm256_storeu_si256(UnsafeMutableRawPointer(p).assumingMemoryBound(to: __m256i.self), ordered)
        }
    }
#endif
