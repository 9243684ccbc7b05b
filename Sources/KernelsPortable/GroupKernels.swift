// Portable products of interleaved matrices: the AVX2 set's layout (groups of 8 rows, the same 4
// weights of all 8 rows in 32 consecutive bytes, Q8_0 signed), computed with Swift SIMD types.
// Weights and activations are widened to Int16 and multiplied with `madd` (`pmaddwd`), so no
// intermediate saturates; sums are exact integers per block or sub-block, scaled in float.

import KernelsCore
import TensorFormats

enum GroupKernels {
    static let rows = 8

    /// `y[t·m.rows + r]` for activation rows `tokens` and the rows of row groups `groups`.
    static func compute(
        _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, groups: Range<Int>, y: UnsafeMutablePointer<Float>
    ) {
        let act = input.activations(for: m.type)
        let blocks = m.blocks
        for g in groups {
            let group = m.base + g * m.groupStride
            let valid = min(rows, m.rows - rows * g)
            var t = tokens.lowerBound
            while t < tokens.upperBound {
                let two = t + 2 <= tokens.upperBound
                let out = Output(base: y + t * m.rows + rows * g, stride: m.rows, valid: valid)
                tile(m.type, two, group, blocks, TileActivations(act, firstRow: t), out)
                t += two ? 2 : 1
            }
        }
    }

    /// One kernel call, each (type, width) its own function so the register allocator sees one loop nest.
    @inline(never)
    static func tile(
        _ type: GGMLType, _ two: Bool, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ o: Output
    ) {
        switch (type, two) {
        case (.q4_0, false): q4_0x1(g, blocks, act, o)
        case (.q4_0, true): q4_0x2(g, blocks, act, o)
        case (.q4_1, false): q4_1x1(g, blocks, act, o)
        case (.q4_1, true): q4_1x2(g, blocks, act, o)
        case (.q5_0, false): q5_0x1(g, blocks, act, o)
        case (.q5_0, true): q5_0x2(g, blocks, act, o)
        case (.q5_1, false): q5_1x1(g, blocks, act, o)
        case (.q5_1, true): q5_1x2(g, blocks, act, o)
        case (.q8_0, false): q8_0x1(g, blocks, act, o)
        case (.q8_0, true): q8_0x2(g, blocks, act, o)
        case (.q4_K, false): q4_Kx1(g, blocks, act, o)
        case (.q4_K, true): q4_Kx2(g, blocks, act, o)
        case (.q5_K, false): q5_Kx1(g, blocks, act, o)
        case (.q5_K, true): q5_Kx2(g, blocks, act, o)
        case (.q6_K, false): q6_Kx1(g, blocks, act, o)
        case (.q6_K, true): q6_Kx2(g, blocks, act, o)
        default: preconditionFailure("no interleaved kernel for \(type)")
        }
    }
}

extension GroupKernels {
    @inline(never) static func q4_0x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        nibbleBlocks(OneRow.self, EightRowNibbles.Q4_0.self, g, n, a, o)
    }
    @inline(never) static func q4_0x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        nibbleBlocks(TwoRows.self, EightRowNibbles.Q4_0.self, g, n, a, o)
    }
    @inline(never) static func q4_1x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        nibbleBlocks(OneRow.self, EightRowNibbles.Q4_1.self, g, n, a, o)
    }
    @inline(never) static func q4_1x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        nibbleBlocks(TwoRows.self, EightRowNibbles.Q4_1.self, g, n, a, o)
    }
    @inline(never) static func q5_0x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        nibbleBlocks(OneRow.self, EightRowNibbles.Q5_0.self, g, n, a, o)
    }
    @inline(never) static func q5_0x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        nibbleBlocks(TwoRows.self, EightRowNibbles.Q5_0.self, g, n, a, o)
    }
    @inline(never) static func q5_1x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        nibbleBlocks(OneRow.self, EightRowNibbles.Q5_1.self, g, n, a, o)
    }
    @inline(never) static func q5_1x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        nibbleBlocks(TwoRows.self, EightRowNibbles.Q5_1.self, g, n, a, o)
    }
    @inline(never) static func q8_0x1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        q8_0(OneRow.self, g, n, a, o)
    }
    @inline(never) static func q8_0x2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        q8_0(TwoRows.self, g, n, a, o)
    }
    @inline(never) static func q6_Kx1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        q6_K(OneRow.self, g, n, a, o)
    }
    @inline(never) static func q6_Kx2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        q6_K(TwoRows.self, g, n, a, o)
    }
    @inline(never) static func q4_Kx1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        qK(OneRow.self, Q4KFormat.self, g, n, a, o)
    }
    @inline(never) static func q4_Kx2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        qK(TwoRows.self, Q4KFormat.self, g, n, a, o)
    }
    @inline(never) static func q5_Kx1(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        qK(OneRow.self, Q5KFormat.self, g, n, a, o)
    }
    @inline(never) static func q5_Kx2(_ g: UnsafeRawPointer, _ n: Int, _ a: TileActivations, _ o: Output) {
        qK(TwoRows.self, Q5KFormat.self, g, n, a, o)
    }
}

/// Eight bytes as floats (values 0…127 if unsigned), lane by lane so no generic conversion is called.
@inline(__always)
func floats(_ v: SIMD8<Int8>) -> SIMD8<Float> {
    SIMD8<Float>(
        Float(v[0]), Float(v[1]), Float(v[2]), Float(v[3]), Float(v[4]), Float(v[5]), Float(v[6]), Float(v[7]))
}

/// Where a tile's results go: rows of 8 outputs, `stride` apart, the last group possibly holding
/// fewer than 8 real rows.
struct Output {
    let base: UnsafeMutablePointer<Float>
    let stride: Int
    let valid: Int

    @inline(__always)
    func store(_ k: Int, _ v: SIMD8<Float>) {
        let p = base + k * stride
        if valid == 8 {
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
        } else {
            for i in 0..<valid { p[i] = v[i] }
        }
    }
}

extension GroupKernels {
    /// Q4_0, Q4_1, Q5_0 and Q5_1: per block, d_w·(d_a·Σq·q_a − offset·d_a·Σq_a) (+ m_w·s_a with mins).
    @inline(__always)
    static func nibbleBlocks<W: TileWidth, F: NibbleFormat>(
        _: W.Type, _: F.Type, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: Output
    ) {
        var acc = InlineArray<2, SIMD8<Float>>(repeating: .zero)
        var accMin = InlineArray<2, SIMD8<Float>>(repeating: .zero)
        // Int16 sums widened after every 4 chunks (lo and hi of 2 four-element columns) of 5-bit
        // quants, every 8 of 4-bit ones (see `QuadSums`).
        let columnsPerWidening = F.fifthBits == nil ? 4 : 2
        for b in 0..<blocks {
            let p = g + F.bytes * b
            prefetch(W.self, p, bytes: F.bytes)
            var sums = InlineArray<2, RowSums>(repeating: RowSums())
            var partial = InlineArray<4, QuadSums>(repeating: QuadSums())
            var low = InlineArray<2, ActivationQuads>(repeating: ActivationQuads(act.qs(0) + 32 * b))
            var high = low
            unroll(W.self) { k in
                low[k] = ActivationQuads(act.qs(k) + 32 * b)
                high[k] = ActivationQuads(act.qs(k) + 32 * b + 16)
            }
            forEach4 { c in
                let (q0, q1) = loadChunk(p + F.quants + 32 * c)
                var l0 = WeightQuads(nibbles: q0, high: false), l1 = WeightQuads(nibbles: q1, high: false)
                var h0 = WeightQuads(nibbles: q0, high: true), h1 = WeightQuads(nibbles: q1, high: true)
                if let masks = F.fifthBits {
                    let fl = p.loadUnaligned(fromByteOffset: masks + 4 * c, as: UInt32.self)
                    let fh = p.loadUnaligned(fromByteOffset: masks + 16 + 4 * c, as: UInt32.self)
                    l0.addFifthBits(fl)
                    l1.addFifthBits(fl >> 16)
                    h0.addFifthBits(fh)
                    h1.addFifthBits(fh >> 16)
                }
                unroll(W.self) { k in
                    let pl = low[k].pattern(c), ph = high[k].pattern(c)
                    partial[2 * k].add(l0, pl)
                    partial[2 * k].add(h0, ph)
                    partial[2 * k + 1].add(l1, pl)
                    partial[2 * k + 1].add(h1, ph)
                    if (c + 1) % columnsPerWidening == 0 {
                        sums[k].add(partial[2 * k], partial[2 * k + 1])
                        partial[2 * k] = QuadSums()
                        partial[2 * k + 1] = QuadSums()
                    }
                }
            }
            let d = halves(p)
            unroll(W.self) { k in
                let ds = act.ds(k) + 2 * b
                let sum = sums[k].floats
                if F.mins != nil {
                    acc[k] = madd(sum, d * ds[0], acc[k])
                } else {
                    acc[k] = madd(madd(sum, SIMD8(repeating: ds[0]), SIMD8(repeating: -F.offset * ds[1])), d, acc[k])
                }
            }
            if let mins = F.mins {
                let m = halves(p + mins)
                unroll(W.self) { k in accMin[k] = madd(m, SIMD8(repeating: act.ds(k)[2 * b + 1]), accMin[k]) }
            }
        }
        unroll(W.self) { k in out.store(k, F.mins != nil ? acc[k] + accMin[k] : acc[k]) }
    }

    /// Q8_0: signed quants; their products reach 128·127, so the Int16 sums widen after each column.
    @inline(__always)
    static func q8_0<W: TileWidth>(
        _: W.Type, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: Output
    ) {
        var acc = InlineArray<2, SIMD8<Float>>(repeating: .zero)
        for b in 0..<blocks {
            let p = g + 272 * b
            prefetch(W.self, p, bytes: 272)
            var sums = InlineArray<2, RowSums>(repeating: RowSums())
            for half in 0..<2 {
                var a = InlineArray<2, ActivationQuads>(repeating: ActivationQuads(act.qs(0) + 32 * b + 16 * half))
                unroll(W.self) { k in a[k] = ActivationQuads(act.qs(k) + 32 * b + 16 * half) }
                forEach4 { c in
                    let (q0, q1) = loadChunk(p + 16 + 32 * (4 * half + c))
                    let w0 = WeightQuads(bytes: q0, signed: true), w1 = WeightQuads(bytes: q1, signed: true)
                    unroll(W.self) { k in
                        let pattern = a[k].pattern(c)
                        var s0 = QuadSums(), s1 = QuadSums()
                        s0.add(w0, pattern)
                        s1.add(w1, pattern)
                        sums[k].add(s0, s1)
                    }
                }
            }
            let d = halves(p)
            unroll(W.self) { k in acc[k] = madd(sums[k].floats, d * act.ds(k)[2 * b], acc[k]) }
        }
        unroll(W.self) { k in out.store(k, acc[k]) }
    }

    /// Q4_K and Q5_K: Σ over super-blocks of d_a·(d·Σ_j sc_j·Σ q·q_a − dmin·Σ_j m_j·Σ q_a), each
    /// sub-block's exact integer sum scaled by its 6-bit scale in float. Sub-blocks 2i and 2i + 1
    /// are the low and high nibbles of the same chunks, each written out (`forEach2`) so which
    /// nibble is a constant.
    @inline(__always)
    static func qK<W: TileWidth, F: KQuantFormat>(
        _: W.Type, _: F.Type, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: Output
    ) {
        let bytes = F.fifth ? 1408 : 1152
        var acc = InlineArray<2, SIMD8<Float>>(repeating: .zero)
        for sb in 0..<blocks {
            let p = g + bytes * sb
            prefetch(W.self, p, bytes: bytes)
            let (scales, mins) = kScalesMins(p + 32)
            var sum = InlineArray<2, SIMD8<Float>>(repeating: .zero)
            for pair in 0..<4 {
                forEach2 { high in
                    let j = 2 * pair + high
                    var sums = InlineArray<2, RowSums>(repeating: RowSums())
                    var partial = InlineArray<4, QuadSums>(repeating: QuadSums())
                    for half in 0..<2 {
                        var a = InlineArray<2, ActivationQuads>(repeating: ActivationQuads(act.qs(0)))
                        unroll(W.self) { k in a[k] = ActivationQuads(act.qs(k) + 256 * sb + 32 * j + 16 * half) }
                        forEach4 { c in
                            let column = 4 * half + c
                            let (q0, q1) = loadChunk(p + 128 + 256 * pair + 32 * column)
                            var w0 = WeightQuads(nibbles: q0, high: high == 1)
                            var w1 = WeightQuads(nibbles: q1, high: high == 1)
                            if F.fifth {
                                let f = p.loadUnaligned(
                                    fromByteOffset: 1152 + 4 * (8 * j + column), as: UInt32.self)
                                w0.addFifthBits(f)
                                w1.addFifthBits(f >> 16)
                            }
                            unroll(W.self) { k in
                                let pattern = a[k].pattern(c)
                                partial[2 * k].add(w0, pattern)
                                partial[2 * k + 1].add(w1, pattern)
                            }
                        }
                        // Int16 sums widen after 4 chunks of 5-bit quants, 8 of 4-bit ones (`QuadSums`).
                        if F.fifth || half == 1 {
                            unroll(W.self) { k in
                                sums[k].add(partial[2 * k], partial[2 * k + 1])
                                partial[2 * k] = QuadSums()
                                partial[2 * k + 1] = QuadSums()
                            }
                        }
                    }
                    unroll(W.self) { k in sum[k] = madd(sums[k].floats, scales[j], sum[k]) }
                }
            }
            let d = halves(p), dmin = halves(p + 16)
            unroll(W.self) { k in
                let bsums = UnsafeRawPointer(act.bsums32(k)).assumingMemoryBound(to: Int16.self) + 8 * sb
                var summ = SIMD8<Float>.zero
                for j in 0..<8 { summ = madd(mins[j], SIMD8(repeating: Float(bsums[j])), summ) }
                let da = act.d(k)[sb]
                acc[k] = madd(sum[k], d * da, acc[k])
                acc[k] = acc[k] - summ * (dmin * da)
            }
        }
        unroll(W.self) { k in out.store(k, acc[k]) }
    }

    /// The 6-bit scales and mins of the 8 sub-blocks of 8 rows (12 packed bytes per row, stored
    /// transposed: row i of byte b at 8·b + i), as floats.
    @inline(__always)
    static func kScalesMins(_ s: UnsafeRawPointer) -> (InlineArray<8, SIMD8<Float>>, InlineArray<8, SIMD8<Float>>) {
        @inline(__always) func byte(_ b: Int) -> SIMD8<UInt8> {
            s.loadUnaligned(fromByteOffset: 8 * b, as: SIMD8<UInt8>.self)
        }
        @inline(__always) func float(_ v: SIMD8<UInt8>) -> SIMD8<Float> {
            floats(unsafeBitCast(v, to: SIMD8<Int8>.self))
        }
        var scales = InlineArray<8, SIMD8<Float>>(repeating: .zero), mins = scales
        for j in 0..<4 {
            scales[j] = float(byte(j) & 63)
            mins[j] = float(byte(j + 4) & 63)
            scales[j + 4] = float((byte(j + 8) & 0x0F) | ((byte(j) &>> 6) &<< 4))
            mins[j + 4] = float((byte(j + 8) &>> 4) | ((byte(j + 4) &>> 6) &<< 4))
        }
        return (scales, mins)
    }

    /// Q6_K: d·d_a·Σ_sub sc·(Σ q·q_a − 32·Σ q_a), q the unsigned 6-bit quants; the Int16 sums
    /// widen after every two columns.
    @inline(__always)
    static func q6_K<W: TileWidth>(
        _: W.Type, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: Output
    ) {
        var acc = InlineArray<2, SIMD8<Float>>(repeating: .zero)
        for sb in 0..<blocks {
            let p = g + 1680 * sb
            prefetch(W.self, p, bytes: 1680)
            var sum = InlineArray<2, SIMD8<Float>>(repeating: .zero)
            forEach4 { part in
                for u in 0..<4 {
                    let sub = 4 * part + u
                    var a = InlineArray<2, ActivationQuads>(repeating: ActivationQuads(act.qs(0)))
                    unroll(W.self) { k in a[k] = ActivationQuads(act.qs(k) + 256 * sb + 16 * sub) }
                    var sums = InlineArray<2, RowSums>(repeating: RowSums())
                    var partial = InlineArray<4, QuadSums>(repeating: QuadSums())
                    forEach4 { cc in
                        let c = 4 * u + cc
                        let (v0, v1) = loadChunk(p + 144 + 32 * (part % 2 == 0 ? c : c + 16))
                        let (h0, h1) = loadChunk(p + 1168 + 32 * c)
                        @inline(__always) func quants(_ v: SIMD16<UInt8>, _ h: SIMD16<UInt8>) -> WeightQuads {
                            let low = part < 2 ? v & 0x0F : (v &>> 4) & 0x0F
                            return WeightQuads(bytes: low | (((h &>> UInt8(2 * part)) & 3) &<< 4), signed: false)
                        }
                        let w0 = quants(v0, h0), w1 = quants(v1, h1)
                        unroll(W.self) { k in
                            let pattern = a[k].pattern(cc)
                            partial[2 * k].add(w0, pattern)
                            partial[2 * k + 1].add(w1, pattern)
                            if cc % 2 == 1 {
                                sums[k].add(partial[2 * k], partial[2 * k + 1])
                                partial[2 * k] = QuadSums()
                                partial[2 * k + 1] = QuadSums()
                            }
                        }
                    }
                    let scale = floats(p.loadUnaligned(fromByteOffset: 16 + 8 * sub, as: SIMD8<Int8>.self))
                    unroll(W.self) { k in
                        let offset = 32 * Int32(act.bsums16(k)[16 * sb + sub])
                        sum[k] = madd((sums[k] &- offset).floats, scale, sum[k])
                    }
                }
            }
            let d = halves(p)
            unroll(W.self) { k in acc[k] = madd(sum[k], d * act.d(k)[sb], acc[k]) }
        }
        unroll(W.self) { k in out.store(k, acc[k]) }
    }
}
