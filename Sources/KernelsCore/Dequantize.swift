// Block dequantization. Used to gather embedding rows and as the float reference in tests; the
// matrix products never dequantize.

import TensorFormats

/// Converts quantized or 16-bit weights to `Float`.
public enum Dequantize {
    /// Dequantizes `count` elements (a multiple of `type.blockSize`) stored at `src` in `type`'s block layout.
    public static func blocks(
        type: GGMLType, _ src: UnsafeRawPointer, count elements: Int, into y: UnsafeMutablePointer<Float>
    ) {
        precondition(type.isSupportedWeight, "no dequantization for \(type)")
        precondition(elements % type.blockSize == 0, "\(elements) is not a multiple of \(type.blockSize)")
        let n = elements / type.blockSize
        let bytes = type.bytesPerBlock
        for b in 0..<n {
            let p = src + b * bytes
            let out = y + b * type.blockSize
            switch type {
            case .f32: out[0] = p.loadUnaligned(as: Float.self)
            case .f16: out[0] = loadHalf(p)
            case .bf16: out[0] = bf16ToFloat(p.loadUnaligned(as: UInt16.self))
            case .q4_0: q4_0(p, out)
            case .q4_1: q4_1(p, out)
            case .q5_0: q5_0(p, out)
            case .q5_1: q5_1(p, out)
            case .q8_0: q8_0(p, out)
            case .q4_K: q4_K(p, out)
            case .q5_K: q5_K(p, out)
            case .q6_K: q6_K(p, out)
            case .q8_1, .q2_K, .q3_K, .q8_K: preconditionFailure("unsupported \(type)")
            }
        }
    }

    static func q4_0(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(p)
        for j in 0..<16 {
            let q = loadU8(p, Layout.q4_0Qs + j)
            y[j] = d * Float((q & 0xF) - 8)
            y[j + 16] = d * Float((q >> 4) - 8)
        }
    }

    static func q4_1(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(p), m = loadHalf(p, 2)
        for j in 0..<16 {
            let q = loadU8(p, Layout.q4_1Qs + j)
            y[j] = d * Float(q & 0xF) + m
            y[j + 16] = d * Float(q >> 4) + m
        }
    }

    static func q5_0(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(p)
        let qh = p.loadUnaligned(fromByteOffset: Layout.q5_0Qh, as: UInt32.self)
        for j in 0..<16 {
            let q = loadU8(p, Layout.q5_0Qs + j)
            let h0 = Int32((qh >> UInt32(j)) & 1) << 4, h1 = Int32((qh >> UInt32(j + 16)) & 1) << 4
            y[j] = d * Float(((q & 0xF) | h0) - 16)
            y[j + 16] = d * Float(((q >> 4) | h1) - 16)
        }
    }

    static func q5_1(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(p), m = loadHalf(p, 2)
        let qh = p.loadUnaligned(fromByteOffset: Layout.q5_1Qh, as: UInt32.self)
        for j in 0..<16 {
            let q = loadU8(p, Layout.q5_1Qs + j)
            let h0 = Int32((qh >> UInt32(j)) & 1) << 4, h1 = Int32((qh >> UInt32(j + 16)) & 1) << 4
            y[j] = d * Float((q & 0xF) | h0) + m
            y[j + 16] = d * Float((q >> 4) | h1) + m
        }
    }

    static func q8_0(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(p)
        for j in 0..<32 { y[j] = d * Float(p.load(fromByteOffset: Layout.q8_0Qs + j, as: Int8.self)) }
    }

    static func q4_K(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(p), dmin = loadHalf(p, 2)
        for c in 0..<4 {
            let (sc0, m0) = kScaleMin(p + Layout.qKScales, 2 * c)
            let (sc1, m1) = kScaleMin(p + Layout.qKScales, 2 * c + 1)
            for l in 0..<32 {
                let q = loadU8(p, Layout.q4_KQs + 32 * c + l)
                y[64 * c + l] = d * Float(sc0) * Float(q & 0xF) - dmin * Float(m0)
                y[64 * c + 32 + l] = d * Float(sc1) * Float(q >> 4) - dmin * Float(m1)
            }
        }
    }

    static func q5_K(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(p), dmin = loadHalf(p, 2)
        for c in 0..<4 {
            let (sc0, m0) = kScaleMin(p + Layout.qKScales, 2 * c)
            let (sc1, m1) = kScaleMin(p + Layout.qKScales, 2 * c + 1)
            for l in 0..<32 {
                let q = loadU8(p, Layout.q5_KQs + 32 * c + l)
                let h = loadU8(p, Layout.q5_KQh + l)
                let q0 = (q & 0xF) | (((h >> Int32(2 * c)) & 1) << 4)
                let q1 = (q >> 4) | (((h >> Int32(2 * c + 1)) & 1) << 4)
                y[64 * c + l] = d * Float(sc0) * Float(q0) - dmin * Float(m0)
                y[64 * c + 32 + l] = d * Float(sc1) * Float(q1) - dmin * Float(m1)
            }
        }
    }

    static func q6_K(_ p: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>) {
        let d = loadHalf(p, Layout.q6_KD)
        for half in 0..<2 {
            let ql = 64 * half, qh = Layout.q6_KQh + 32 * half, sc = Layout.q6_KScales + 8 * half
            for l in 0..<32 {
                let (q1, q2, q3, q4) = q6Quads(p, ql: ql, qh: qh, l)
                let s = sc + l / 16
                let out = y + 128 * half
                out[l] = d * Float(p.load(fromByteOffset: s, as: Int8.self)) * Float(q1)
                out[l + 32] = d * Float(p.load(fromByteOffset: s + 2, as: Int8.self)) * Float(q2)
                out[l + 64] = d * Float(p.load(fromByteOffset: s + 4, as: Int8.self)) * Float(q3)
                out[l + 96] = d * Float(p.load(fromByteOffset: s + 6, as: Int8.self)) * Float(q4)
            }
        }
    }
}

/// The 6-bit scale and min of sub-block `j` (0..<8) of a Q4_K/Q5_K block, from its 12 packed bytes.
@inlinable @inline(__always)
public func kScaleMin(_ s: UnsafeRawPointer, _ j: Int) -> (scale: Int32, min: Int32) {
    if j < 4 {
        return (loadU8(s, j) & 63, loadU8(s, j + 4) & 63)
    }
    let scale = (loadU8(s, j + 4) & 0xF) | ((loadU8(s, j - 4) >> 6) << 4)
    let min = (loadU8(s, j + 4) >> 4) | ((loadU8(s, j) >> 6) << 4)
    return (scale, min)
}

/// The four signed quants (q − 32) at positions l, l+32, l+64, l+96 of a Q6_K half.
@inlinable @inline(__always)
public func q6Quads(_ p: UnsafeRawPointer, ql: Int, qh: Int, _ l: Int) -> (Int32, Int32, Int32, Int32) {
    let a = loadU8(p, ql + l), b = loadU8(p, ql + l + 32), h = loadU8(p, qh + l)
    return (
        ((a & 0xF) | ((h & 3) << 4)) - 32,
        ((b & 0xF) | (((h >> 2) & 3) << 4)) - 32,
        ((a >> 4) | (((h >> 4) & 3) << 4)) - 32,
        ((b >> 4) | (((h >> 6) & 3) << 4)) - 32
    )
}
