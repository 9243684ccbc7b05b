// Portable row dot products for matrices in GGUF's plain row layout, with Swift SIMD types:
// 32 quants and 32 activations widened to Int16 and multiplied with `madd` per block (or
// sub-block), exact integer sums scaled in float as the scalar twins (`DotReference`) do.

import KernelsCore
import TensorFormats

enum Dot: RowDots {
    static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        floats(x, count) {
            w.loadUnaligned(fromByteOffset: 4 * $0, as: SIMD8<Float>.self)
        } scalar: {
            w.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self)
        }
    }

    static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        floats(x, count) {
            halves(w + 2 * $0)
        } scalar: {
            loadHalf(w, 2 * $0)
        }
    }

    static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        floats(x, count) {
            let bits = SIMD8<UInt32>(
                truncatingIfNeeded: w.loadUnaligned(fromByteOffset: 2 * $0, as: SIMD8<UInt16>.self))
            return unsafeBitCast(bits &<< 16, to: SIMD8<Float>.self)
        } scalar: {
            bf16ToFloat(w.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self))
        }
    }

    /// Σ w·x, 8 lanes at a time in two chains, with a scalar tail.
    @inline(__always)
    private static func floats(
        _ x: UnsafePointer<Float>, _ count: Int, _ load: (Int) -> SIMD8<Float>, scalar: (Int) -> Float
    ) -> Float {
        var acc0 = SIMD8<Float>.zero, acc1 = SIMD8<Float>.zero
        var i = 0
        while i + 16 <= count {
            acc0 = madd(load(i), UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self), acc0)
            acc1 = madd(load(i + 8), UnsafeRawPointer(x + i + 8).loadUnaligned(as: SIMD8<Float>.self), acc1)
            i += 16
        }
        if i + 8 <= count {
            acc0 = madd(load(i), UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self), acc0)
            i += 8
        }
        var sum = (acc0 + acc1).sum()
        while i < count {
            sum += scalar(i) * x[i]
            i += 1
        }
        return sum
    }

    /// Σ q·a over 32 quants (unsigned bytes, or two's complement with `signed`) and 32
    /// activations: each 16-byte half split into even and odd bytes as 16-bit lanes, met by `madd`.
    @inline(__always)
    static func dot32(_ q: Chunk, _ a: UnsafePointer<Int8>, signed: Bool) -> Int32 {
        @inline(__always) func half(_ w: SIMD16<UInt8>, _ offset: Int) -> SIMD4<Int32> {
            let lanes = unsafeBitCast(w, to: SIMD8<Int16>.self)
            let x = UnsafeRawPointer(a).loadUnaligned(fromByteOffset: offset, as: SIMD8<Int16>.self)
            let even = signed ? (lanes &<< 8) &>> 8 : lanes & 0x00FF
            let odd =
                signed
                ? lanes &>> 8 : unsafeBitCast(unsafeBitCast(lanes, to: SIMD8<UInt16>.self) &>> 8, to: SIMD8<Int16>.self)
            return madd(even, (x &<< 8) &>> 8) &+ madd(odd, x &>> 8)
        }
        return (half(q.0, 0) &+ half(q.1, 16)).wrappedSum()
    }

    /// 32 bytes at `p`.
    @inline(__always)
    private static func load32(_ p: UnsafeRawPointer) -> Chunk { loadChunk(p) }

    /// The 32 four-bit quants of a Q4/Q5 block (low nibbles are elements 0…15) as bytes.
    @inline(__always)
    private static func blockNibbles(_ p: UnsafeRawPointer) -> Chunk {
        let q = p.loadUnaligned(as: SIMD16<UInt8>.self)
        return (q & 0x0F, (q &>> 4) & 0x0F)
    }

    /// Σ over blocks of d_w·d_a·Σ(u − offset)·q_a (+ m_w·s_a when `minimum`), `u` the block's
    /// unsigned quants from `quants`.
    @inline(__always)
    private static func quantBlocks(
        _ w: UnsafeRawPointer, _ blocks: Int, _ a: Q8Row, bytes: Int, offset: Float, minimum: Bool,
        _ quants: (UnsafeRawPointer) -> Chunk
    ) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + bytes * b
            let dot = Float(dot32(quants(p), a.qs + 32 * b, signed: false))
            let d = loadHalf(p)
            s += d * a.ds[2 * b] * dot + (minimum ? loadHalf(p, 2) : -offset * d) * a.ds[2 * b + 1]
        }
        return s
    }

    static func q4_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        quantBlocks(w, blocks, a, bytes: 18, offset: 8, minimum: false) { blockNibbles($0 + Layout.q4_0Qs) }
    }

    static func q4_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        quantBlocks(w, blocks, a, bytes: 20, offset: 0, minimum: true) { blockNibbles($0 + Layout.q4_1Qs) }
    }

    static func q5_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        quantBlocks(w, blocks, a, bytes: 22, offset: 16, minimum: false) { p in
            blockNibbles(p + Layout.q5_0Qs) | fifthBits(p.loadUnaligned(fromByteOffset: Layout.q5_0Qh, as: UInt32.self))
        }
    }

    static func q5_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        quantBlocks(w, blocks, a, bytes: 24, offset: 0, minimum: true) { p in
            blockNibbles(p + Layout.q5_1Qs) | fifthBits(p.loadUnaligned(fromByteOffset: Layout.q5_1Qh, as: UInt32.self))
        }
    }

    static func q8_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 34 * b
            let dot = dot32(load32(p + Layout.q8_0Qs), a.qs + 32 * b, signed: true)
            s += loadHalf(p) * a.ds[2 * b] * Float(dot)
        }
        return s
    }

    static func q4_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
        kBlocks(w, blocks, a, bytes: 144, quants: Layout.q4_KQs, highBits: nil)
    }

    static func q5_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
        kBlocks(w, blocks, a, bytes: 176, quants: Layout.q5_KQs, highBits: Layout.q5_KQh)
    }

    /// Σ over super-blocks of d_a·(d·Σ_j sc_j·Σ q·q_a − dmin·Σ_j m_j·Σ q_a), the fifth bits (Q5_K)
    /// at `highBits`: bit j of byte l is the fifth bit of element 32j + l.
    @inline(__always)
    private static func kBlocks(
        _ w: UnsafeRawPointer, _ blocks: Int, _ a: Q8KRow, bytes: Int, quants: Int, highBits: Int?
    ) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + bytes * b, bs = a.bsums + 16 * b
            let high = highBits.map { load32(p + $0) }
            var sumi: Int32 = 0, summ: Int32 = 0
            for c in 0..<4 {
                let (l, h) = nibbles(load32(p + quants + 32 * c))
                @inline(__always) func subBlock(_ j: Int, _ nibble: Chunk) {
                    var q = nibble
                    if let high { q = q | (((high.0 &>> UInt8(j)) & 1) &<< 4, ((high.1 &>> UInt8(j)) & 1) &<< 4) }
                    let (sc, m) = kScaleMin(p + Layout.qKScales, j)
                    sumi &+= sc &* dot32(q, a.qs + 256 * b + 32 * j, signed: false)
                    summ &+= m &* (Int32(bs[2 * j]) + Int32(bs[2 * j + 1]))
                }
                subBlock(2 * c, l)
                subBlock(2 * c + 1, h)
            }
            s += a.d[b] * (loadHalf(p) * Float(sumi) - loadHalf(p, 2) * Float(summ))
        }
        return s
    }

    /// Per half of 128, four runs of 32 quants (low 4 bits from `ql`, top 2 from `qh`), each two
    /// sub-blocks of 16 with their own scale; quants unsigned, 32·Σ sc·Σq_a subtracted per block.
    static func q6_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 210 * b, aq = a.qs + 256 * b
            var sumi: Int32 = 0
            for half in 0..<2 {
                let ql0 = load32(p + 64 * half), ql1 = load32(p + 64 * half + 32)
                let qh = load32(p + Layout.q6_KQh + 32 * half)
                @inline(__always) func run(_ r: Int, _ q: Chunk) {
                    let scales = p + Layout.q6_KScales + 8 * half + 2 * r
                    let first = Int32(scales.load(as: Int8.self)),
                        second = Int32(scales.load(fromByteOffset: 1, as: Int8.self))
                    let a16 = aq + 128 * half + 32 * r
                    // The run's two sub-blocks of 16, each with its scale.
                    let lowHalf = dot32((q.0, .zero), a16, signed: false)
                    let highHalf = dot32((.zero, q.1), a16, signed: false)
                    sumi &+= first &* lowHalf &+ second &* highHalf
                }
                @inline(__always) func bits(_ low: Chunk, _ lowShift: UInt8, _ highShift: UInt8) -> Chunk {
                    (
                        (low.0 &>> lowShift) & 0x0F | ((qh.0 &>> highShift) & 3) &<< 4,
                        (low.1 &>> lowShift) & 0x0F | ((qh.1 &>> highShift) & 3) &<< 4
                    )
                }
                run(0, bits(ql0, 0, 0))
                run(1, bits(ql1, 0, 2))
                run(2, bits(ql0, 4, 4))
                run(3, bits(ql1, 4, 6))
            }
            var offset: Int32 = 0
            for g in 0..<16 {
                offset &+=
                    Int32(p.load(fromByteOffset: Layout.q6_KScales + g, as: Int8.self)) &* Int32(a.bsums[16 * b + g])
            }
            s += a.d[b] * loadHalf(p, Layout.q6_KD) * Float(sumi &- 32 &* offset)
        }
        return s
    }
}
