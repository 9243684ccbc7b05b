// AVX2 products of interleaved matrices: groups of 8 rows (layouts in KernelsCore/Interleave.swift),
// one 256-bit vector holding the same 4 weights of all 8 rows, so each `vpmaddubsw` against 4
// activation bytes broadcast to every lane yields partial dot products of all 8 rows at once.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore
    import TensorFormats

    enum GroupKernels {
        static let rows = 8

        /// `y[t·m.rows + r]` for activation rows `tokens` and the rows of row groups `groups`.
        static func compute(
            _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, groups: Range<Int>,
            y: UnsafeMutablePointer<Float>
        ) {
            let act = input.activations(for: m.type)
            let blocks = m.blocks
            for g in groups {
                let group = m.base + g * m.groupStride
                let valid = min(rows, m.rows - rows * g)
                var t = tokens.lowerBound
                while t < tokens.upperBound {
                    // Four rows at a time, then two, then one: every weight vector loaded and
                    // unpacked once per tile serves all its rows.
                    let left = tokens.upperBound - t
                    let width = left >= 4 ? 4 : left >= 2 ? 2 : 1
                    let out = y + t * m.rows + rows * g
                    tile(m.type, width, group, blocks, TileActivations(act, firstRow: t), out, m.rows, valid)
                    t += width
                }
            }
        }

        /// One kernel call, each (type, width) its own function so the register allocator sees one loop nest.
        @inline(never)
        static func tile(
            _ type: GGMLType, _ width: Int, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations,
            _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ valid: Int
        ) {
            let o = Output(base: out, stride: stride, valid: valid)
            switch (type, width) {
            case (.q4_0, 1): q4_0x1(g, blocks, act, o)
            case (.q4_0, 2): q4_0x2(g, blocks, act, o)
            case (.q4_0, 4): q4_0x4(g, blocks, act, o)
            case (.q4_1, 1): q4_1x1(g, blocks, act, o)
            case (.q4_1, 2): q4_1x2(g, blocks, act, o)
            case (.q4_1, 4): q4_1x4(g, blocks, act, o)
            case (.q5_0, 1): q5_0x1(g, blocks, act, o)
            case (.q5_0, 2): q5_0x2(g, blocks, act, o)
            case (.q5_0, 4): q5_0x4(g, blocks, act, o)
            case (.q5_1, 1): q5_1x1(g, blocks, act, o)
            case (.q5_1, 2): q5_1x2(g, blocks, act, o)
            case (.q5_1, 4): q5_1x4(g, blocks, act, o)
            case (.q8_0, 1): q8_0x1(g, blocks, act, o)
            case (.q8_0, 2): q8_0x2(g, blocks, act, o)
            case (.q8_0, 4): q8_0x4(g, blocks, act, o)
            case (.q4_K, 1): q4_Kx1(g, blocks, act, o)
            case (.q4_K, 2): q4_Kx2(g, blocks, act, o)
            case (.q4_K, 4): q4_Kx4(g, blocks, act, o)
            case (.q5_K, 1): q5_Kx1(g, blocks, act, o)
            case (.q5_K, 2): q5_Kx2(g, blocks, act, o)
            case (.q5_K, 4): q5_Kx4(g, blocks, act, o)
            case (.q6_K, 1): q6_Kx1(g, blocks, act, o)
            case (.q6_K, 2): q6_Kx2(g, blocks, act, o)
            case (.q6_K, 4): q6_Kx4(g, blocks, act, o)
            default: preconditionFailure("no interleaved kernel for \(type)")
            }
        }

        @inline(never) static func q4_0x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(OneRow.self, EightRowNibbles.Q4_0.self, g, n, a, o)
        }
        @inline(never) static func q4_0x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(TwoRows.self, EightRowNibbles.Q4_0.self, g, n, a, o)
        }
        @inline(never) static func q4_0x4(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(FourRows.self, EightRowNibbles.Q4_0.self, g, n, a, o)
        }
        @inline(never) static func q4_1x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(OneRow.self, EightRowNibbles.Q4_1.self, g, n, a, o)
        }
        @inline(never) static func q4_1x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(TwoRows.self, EightRowNibbles.Q4_1.self, g, n, a, o)
        }
        @inline(never) static func q4_1x4(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(FourRows.self, EightRowNibbles.Q4_1.self, g, n, a, o)
        }
        @inline(never) static func q5_0x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(OneRow.self, EightRowNibbles.Q5_0.self, g, n, a, o)
        }
        @inline(never) static func q5_0x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(TwoRows.self, EightRowNibbles.Q5_0.self, g, n, a, o)
        }
        @inline(never) static func q5_0x4(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(FourRows.self, EightRowNibbles.Q5_0.self, g, n, a, o)
        }
        @inline(never) static func q5_1x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(OneRow.self, EightRowNibbles.Q5_1.self, g, n, a, o)
        }
        @inline(never) static func q5_1x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(TwoRows.self, EightRowNibbles.Q5_1.self, g, n, a, o)
        }
        @inline(never) static func q5_1x4(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q4(FourRows.self, EightRowNibbles.Q5_1.self, g, n, a, o)
        }
        @inline(never) static func q8_0x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q8_0(OneRow.self, g, n, a, o)
        }
        @inline(never) static func q8_0x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q8_0(TwoRows.self, g, n, a, o)
        }
        @inline(never) static func q8_0x4(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q8_0(FourRows.self, g, n, a, o)
        }
        @inline(never) static func q4_Kx1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            qK(OneRow.self, Q4KFormat.self, g, n, a, o)
        }
        @inline(never) static func q4_Kx2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            qK(TwoRows.self, Q4KFormat.self, g, n, a, o)
        }
        @inline(never) static func q4_Kx4(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            qK(FourRows.self, Q4KFormat.self, g, n, a, o)
        }
        @inline(never) static func q5_Kx1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            qK(OneRow.self, Q5KFormat.self, g, n, a, o)
        }
        @inline(never) static func q5_Kx2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            qK(TwoRows.self, Q5KFormat.self, g, n, a, o)
        }
        @inline(never) static func q5_Kx4(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            qK(FourRows.self, Q5KFormat.self, g, n, a, o)
        }
        @inline(never) static func q6_Kx1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q6_K(OneRow.self, g, n, a, o)
        }
        @inline(never) static func q6_Kx2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q6_K(TwoRows.self, g, n, a, o)
        }
        @inline(never) static func q6_Kx4(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
            q6_K(FourRows.self, g, n, a, o)
        }
    }

    /// Where a tile's results go: `W.count` rows of 8 outputs, `stride` apart, the last group
    /// possibly holding fewer than 8 real rows.
    struct Output {
        let base: UnsafeMutablePointer<Float>
        let stride: Int
        let valid: Int

        @inline(__always)
        func store(_ k: Int, _ v: __m256) {
            let p = base + k * stride
            if valid == 8 {
                _mm256_storeu_ps(p, v)
            } else {
                let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(Int32(valid)), _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0))
                _mm256_maskstore_ps(p, mask, v)
            }
        }
    }

    extension GroupKernels {
        /// Q4_0, Q4_1, Q5_0 and Q5_1: per block, d_w·(d_a·Σq·q_a − offset·d_a·Σq_a) (+ m_w·s_a with mins).
        @inline(__always)
        static func q4<W: TileWidth, F: NibbleFormat>(
            _: W.Type, _: F.Type, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: Output
        ) {
            var acc = InlineArray<4, __m256>(repeating: _mm256_setzero_ps())
            var accMin = InlineArray<4, __m256>(repeating: _mm256_setzero_ps())
            for b in 0..<blocks {
                let p = g + F.bytes * b
                prefetchL2(W.self, p, bytes: F.bytes)
                var low = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256()), high = low
                forEach4 { c in
                    var (l, h) = nibbles(load256(p + F.quants + 32 * c))
                    if let masks = F.fifthBits {
                        l = _mm256_or_si256(
                            l, fifthBits(p.loadUnaligned(fromByteOffset: masks + 4 * c, as: UInt32.self)))
                        h = _mm256_or_si256(
                            h, fifthBits(p.loadUnaligned(fromByteOffset: masks + 16 + 4 * c, as: UInt32.self)))
                    }
                    low[c] = l
                    high[c] = h
                }
                let d = halves8(p)
                unroll(W.self) { k in
                    let a = act.qs(k) + 32 * b
                    // Int16 lanes: each product pair is at most 2·15·128 = 3,840 (4-bit) or 2·31·128 =
                    // 7,936 (5-bit), so sums of four stay below 2¹⁵.
                    var s0 = maddubs(low[0], broadcast32(a))
                    var s1 = maddubs(high[0], broadcast32(a + 16))
                    s0 = _mm256_add_epi16(s0, maddubs(low[1], broadcast32(a + 4)))
                    s1 = _mm256_add_epi16(s1, maddubs(high[1], broadcast32(a + 20)))
                    s0 = _mm256_add_epi16(s0, maddubs(low[2], broadcast32(a + 8)))
                    s1 = _mm256_add_epi16(s1, maddubs(high[2], broadcast32(a + 24)))
                    s0 = _mm256_add_epi16(s0, maddubs(low[3], broadcast32(a + 12)))
                    s1 = _mm256_add_epi16(s1, maddubs(high[3], broadcast32(a + 28)))
                    let sum = _mm256_add_epi32(pairSums(s0), pairSums(s1))
                    let ds = act.ds(k) + 2 * b
                    if F.mins != nil {
                        acc[k] = _mm256_fmadd_ps(
                            _mm256_cvtepi32_ps(sum), _mm256_mul_ps(d, _mm256_set1_ps(ds[0])), acc[k])
                    } else {
                        let dot = _mm256_fmadd_ps(
                            _mm256_cvtepi32_ps(sum), _mm256_set1_ps(ds[0]), _mm256_set1_ps(-F.offset * ds[1]))
                        acc[k] = _mm256_fmadd_ps(dot, d, acc[k])
                    }
                }
                if let mins = F.mins {
                    let m = halves8(p + mins)
                    unroll(W.self) { k in
                        accMin[k] = _mm256_fmadd_ps(m, _mm256_set1_ps(act.ds(k)[2 * b + 1]), accMin[k])
                    }
                }
            }
            unroll(W.self) { k in out.store(k, F.mins != nil ? _mm256_add_ps(acc[k], accMin[k]) : acc[k]) }
        }

        /// Q8_0 (signed quants): `vpmaddubsw` of |q| with the activation carrying q's sign; each
        /// Int16 lane is at most 2·128·127 = 32,512, so each is widened to Int32 on its own.
        @inline(__always)
        static func q8_0<W: TileWidth>(
            _: W.Type, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: Output
        ) {
            var acc = InlineArray<4, __m256>(repeating: _mm256_setzero_ps())
            for b in 0..<blocks {
                let p = g + 272 * b
                prefetchL2(W.self, p, bytes: 272)
                var sums = InlineArray<4, __m256i>(repeating: _mm256_setzero_si256())
                for c in 0..<8 {
                    let q = load256(p + 16 + 32 * c)
                    let magnitude = _mm256_sign_epi8(q, q)
                    unroll(W.self) { k in
                        let a = _mm256_sign_epi8(broadcast32(act.qs(k) + 32 * b + 4 * c), q)
                        sums[k] = _mm256_add_epi32(sums[k], pairSums(maddubs(magnitude, a)))
                    }
                }
                let d = halves8(p)
                unroll(W.self) { k in
                    let scale = _mm256_mul_ps(d, _mm256_set1_ps(act.ds(k)[2 * b]))
                    acc[k] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums[k]), scale, acc[k])
                }
            }
            unroll(W.self) { k in out.store(k, acc[k]) }
        }
    }
#endif
