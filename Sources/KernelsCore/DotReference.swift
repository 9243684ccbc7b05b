// Scalar block dot products: the reference twins of the vectorized kernels in `Dot`. Each takes
// one weight row (`blocks` consecutive blocks) and one prepared activation row. Integer sums
// per block, then the block's float scales, as the vector kernels do.

import TensorFormats

public enum DotReference {
    public static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        var s: Float = 0
        for i in 0..<count { s += w.loadUnaligned(fromByteOffset: 4 * i, as: Float.self) * x[i] }
        return s
    }

    public static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        var s: Float = 0
        for i in 0..<count { s += loadHalf(w, 2 * i) * x[i] }
        return s
    }

    public static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        var s: Float = 0
        for i in 0..<count { s += bf16ToFloat(w.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) * x[i] }
        return s
    }

    public static func q4_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 18 * b, aq = a.qs + 32 * b
            var isum: Int32 = 0
            for j in 0..<16 {
                let q = loadU8(p, Layout.q4_0Qs + j)
                isum += ((q & 0xF) - 8) * Int32(aq[j]) + ((q >> 4) - 8) * Int32(aq[j + 16])
            }
            s += loadHalf(p) * a.ds[2 * b] * Float(isum)
        }
        return s
    }

    public static func q4_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 20 * b, aq = a.qs + 32 * b
            var isum: Int32 = 0
            for j in 0..<16 {
                let q = loadU8(p, Layout.q4_1Qs + j)
                isum += (q & 0xF) * Int32(aq[j]) + (q >> 4) * Int32(aq[j + 16])
            }
            s += loadHalf(p) * a.ds[2 * b] * Float(isum) + loadHalf(p, 2) * a.ds[2 * b + 1]
        }
        return s
    }

    public static func q5_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 22 * b, aq = a.qs + 32 * b
            let qh = p.loadUnaligned(fromByteOffset: Layout.q5_0Qh, as: UInt32.self)
            var isum: Int32 = 0
            for j in 0..<16 {
                let q = loadU8(p, Layout.q5_0Qs + j)
                let h0 = Int32((qh >> UInt32(j)) & 1) << 4, h1 = Int32((qh >> UInt32(j + 16)) & 1) << 4
                isum += (((q & 0xF) | h0) - 16) * Int32(aq[j]) + (((q >> 4) | h1) - 16) * Int32(aq[j + 16])
            }
            s += loadHalf(p) * a.ds[2 * b] * Float(isum)
        }
        return s
    }

    public static func q5_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 24 * b, aq = a.qs + 32 * b
            let qh = p.loadUnaligned(fromByteOffset: Layout.q5_1Qh, as: UInt32.self)
            var isum: Int32 = 0
            for j in 0..<16 {
                let q = loadU8(p, Layout.q5_1Qs + j)
                let h0 = Int32((qh >> UInt32(j)) & 1) << 4, h1 = Int32((qh >> UInt32(j + 16)) & 1) << 4
                isum += ((q & 0xF) | h0) * Int32(aq[j]) + ((q >> 4) | h1) * Int32(aq[j + 16])
            }
            s += loadHalf(p) * a.ds[2 * b] * Float(isum) + loadHalf(p, 2) * a.ds[2 * b + 1]
        }
        return s
    }

    public static func q8_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 34 * b, aq = a.qs + 32 * b
            var isum: Int32 = 0
            for j in 0..<32 { isum += Int32(p.load(fromByteOffset: Layout.q8_0Qs + j, as: Int8.self)) * Int32(aq[j]) }
            s += loadHalf(p) * a.ds[2 * b] * Float(isum)
        }
        return s
    }

    public static func q4_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 144 * b, aq = a.qs + 256 * b, bs = a.bsums + 16 * b
            var sumi: Int32 = 0, summ: Int32 = 0
            for j in 0..<8 {
                let (sc, m) = kScaleMin(p + Layout.qKScales, j)
                let shift = Int32(4 * (j & 1))
                var isum: Int32 = 0
                for l in 0..<32 {
                    let q = (loadU8(p, Layout.q4_KQs + 32 * (j / 2) + l) >> shift) & 0xF
                    isum += q * Int32(aq[32 * j + l])
                }
                sumi += sc * isum
                summ += m * (Int32(bs[2 * j]) + Int32(bs[2 * j + 1]))
            }
            s += a.d[b] * (loadHalf(p) * Float(sumi) - loadHalf(p, 2) * Float(summ))
        }
        return s
    }

    public static func q5_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 176 * b, aq = a.qs + 256 * b, bs = a.bsums + 16 * b
            var sumi: Int32 = 0, summ: Int32 = 0
            for j in 0..<8 {
                let (sc, m) = kScaleMin(p + Layout.qKScales, j)
                let shift = Int32(4 * (j & 1))
                var isum: Int32 = 0
                for l in 0..<32 {
                    let lo = (loadU8(p, Layout.q5_KQs + 32 * (j / 2) + l) >> shift) & 0xF
                    let hi = ((loadU8(p, Layout.q5_KQh + l) >> Int32(j)) & 1) << 4
                    isum += (lo | hi) * Int32(aq[32 * j + l])
                }
                sumi += sc * isum
                summ += m * (Int32(bs[2 * j]) + Int32(bs[2 * j + 1]))
            }
            s += a.d[b] * (loadHalf(p) * Float(sumi) - loadHalf(p, 2) * Float(summ))
        }
        return s
    }

    public static func q6_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float {
        var s: Float = 0
        for b in 0..<blocks {
            let p = w + 210 * b, aq = a.qs + 256 * b
            var sub = InlineArray<16, Int32>(repeating: 0)  // Σ (q − 32)·a per sub-block of 16
            for half in 0..<2 {
                for l in 0..<32 {
                    let (q1, q2, q3, q4) = q6Quads(p, ql: 64 * half, qh: Layout.q6_KQh + 32 * half, l)
                    let o = 128 * half + l, g = 8 * half + l / 16
                    sub[g] += q1 * Int32(aq[o])
                    sub[g + 2] += q2 * Int32(aq[o + 32])
                    sub[g + 4] += q3 * Int32(aq[o + 64])
                    sub[g + 6] += q4 * Int32(aq[o + 96])
                }
            }
            var sumi: Int32 = 0
            for g in 0..<16 { sumi += Int32(p.load(fromByteOffset: Layout.q6_KScales + g, as: Int8.self)) * sub[g] }
            s += a.d[b] * loadHalf(p, Layout.q6_KD) * Float(sumi)
        }
        return s
    }
}
