// Activation quantizers with Swift SIMD types, bit-identical to `QuantizeReference`: rounding to
// nearest-even and the conversion to integers go through the "magic number" 1.5·2²³ (adding it
// rounds a float of magnitude below 2²² to an integer and leaves that integer in the low mantissa
// bits), since the generic SIMD `rounded` and Float→Int32 conversions compile to element loops.

import KernelsCore

enum Quantize {
    private static let magic = SIMD8<Float>(repeating: 12_582_912)  // 1.5 · 2^23

    /// Round to nearest-even, as Int32 lanes (|v| < 2²²).
    @inline(__always)
    private static func nearest(_ v: SIMD8<Float>) -> SIMD8<Int32> {
        unsafeBitCast(v + magic, to: SIMD8<Int32>.self) &- 0x4B40_0000
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    private static func store(_ q: SIMD8<Int32>, _ p: UnsafeMutablePointer<Int8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: SIMD8<Int8>(truncatingIfNeeded: q), as: SIMD8<Int8>.self)
    }

    static func q8(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, ds: UnsafeMutablePointer<Float>,
        halfSum: Bool
    ) {
        for b in 0..<(count / 32) {
            let xb = x + 32 * b
            let v = (load(xb), load(xb + 8), load(xb + 16), load(xb + 24))
            let m = larger(larger(abs(v.0), abs(v.1)), larger(abs(v.2), abs(v.3)))
            let amax = largest(m)
            let d = amax / 127
            let id: Float = amax > 0 ? 127 / amax : 0
            let q = (nearest(v.0 * id), nearest(v.1 * id), nearest(v.2 * id), nearest(v.3 * id))
            store(q.0, qs + 32 * b)
            store(q.1, qs + 32 * b + 8)
            store(q.2, qs + 32 * b + 16)
            store(q.3, qs + 32 * b + 24)
            let sum = ((q.0 &+ q.1) &+ (q.2 &+ q.3)).wrappedSum()
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
            var m = SIMD8<Float>.zero
            for i in 0..<32 { m = larger(m, abs(load(xb + 8 * i))) }
            let amax = largest(m)
            if amax == 0 {
                d[b] = 0
                (qs + 256 * b).initialize(repeating: 0, count: 256)
                (bsums + 16 * b).initialize(repeating: 0, count: 16)
                continue
            }
            // The first element of largest magnitude, with its sign, as the reference picks it.
            var vmax: Float = 0
            for i in 0..<256 where Swift.abs(xb[i]) == amax {
                vmax = xb[i]
                break
            }
            let iscale = -127 / vmax
            for g in 0..<16 {
                let low = smaller(nearest(load(xb + 16 * g) * iscale), SIMD8(repeating: 127))
                let high = smaller(nearest(load(xb + 16 * g + 8) * iscale), SIMD8(repeating: 127))
                store(low, qs + 256 * b + 16 * g)
                store(high, qs + 256 * b + 16 * g + 8)
                bsums[16 * b + g] = Int16((low &+ high).wrappedSum())
            }
            d[b] = 1 / iscale
        }
    }

    /// The largest lane (not `SIMD8<Float>.max()`, whose specialization is a symbol other
    /// modules define too).
    @inline(__always)
    private static func largest(_ v: SIMD8<Float>) -> Float {
        let four = larger4(v.lowHalf, v.highHalf)
        return Swift.max(Swift.max(four[0], four[1]), Swift.max(four[2], four[3]))
    }

    @inline(__always)
    private static func larger4(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        a.replacing(with: b, where: b .> a)
    }

    /// Lane-wise maximum and minimum as a compare and a blend (the generic `pointwiseMax` is a call).
    @inline(__always)
    private static func larger(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        a.replacing(with: b, where: b .> a)
    }

    @inline(__always)
    private static func smaller(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> {
        a.replacing(with: b, where: b .< a)
    }

    @inline(__always)
    private static func abs(_ v: SIMD8<Float>) -> SIMD8<Float> {
        unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF, to: SIMD8<Float>.self)
    }
}
