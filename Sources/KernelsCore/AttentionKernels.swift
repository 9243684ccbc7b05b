// Causal attention of one work item, written once with Swift's SIMD types and compiled by each
// kernel set (see VectorKernels.swift): scores over key tiles of 16 positions, softmax, and the
// weighted sum of value rows, for up to four query heads that share a KV head, so each key and
// value vector loaded feeds up to four heads.

public enum AttentionKernels<M: MultiplyAdd> {
    /// `softmax(q·Kᵀ·scale)·V` for the item's heads.
    @inlinable
    public static func attend(_ item: AttentionItem) {
        let (q0, q1, q2, q3) = item.queries
        let (s0, s1, s2, s3) = item.scores
        let (o0, o1, o2, o3) = item.outputs
        scores(
            q0, q1, q2, q3, keys: item.keys, dimension: item.dimension, length: item.length, scale: item.scale,
            into: s0, s1, s2, s3)
        VectorKernels<M>.softmax(s0, count: item.length)
        if item.heads > 1 { VectorKernels<M>.softmax(s1, count: item.length) }
        if item.heads > 2 { VectorKernels<M>.softmax(s2, count: item.length) }
        if item.heads > 3 { VectorKernels<M>.softmax(s3, count: item.length) }
        weightedSums(
            s0, s1, s2, s3, values: item.values, dimension: item.dimension, length: item.length, into: o0, o1, o2, o3,
            heads: item.heads)
    }

    /// `scores_h[t] = scale · Σ_d q_h[d]·K[d][t]` for four heads h and t in 0..<length (rounded up
    /// to 16; lanes past `length` hold junk), reading the key tiles 16 positions at a time.
    @inlinable @inline(__always)
    public static func scores(
        _ q0: UnsafePointer<Float>, _ q1: UnsafePointer<Float>, _ q2: UnsafePointer<Float>, _ q3: UnsafePointer<Float>,
        keys: UnsafePointer<Float>, dimension: Int, length: Int, scale: Float,
        into s0: UnsafeMutablePointer<Float>, _ s1: UnsafeMutablePointer<Float>, _ s2: UnsafeMutablePointer<Float>,
        _ s3: UnsafeMutablePointer<Float>
    ) {
        var t = 0
        while t < length {
            var a0 = Vector(), a1 = Vector(), a2 = Vector(), a3 = Vector()
            var k = keys + t * dimension  // the tile of positions t..<t+16
            for d in 0..<dimension {
                let kv = load(k)
                a0 = M.madd(Vector(repeating: q0[d]), kv, a0)
                a1 = M.madd(Vector(repeating: q1[d]), kv, a1)
                a2 = M.madd(Vector(repeating: q2[d]), kv, a2)
                a3 = M.madd(Vector(repeating: q3[d]), kv, a3)
                k += 16
            }
            store(a0 * scale, s0 + t)
            store(a1 * scale, s1 + t)
            store(a2 * scale, s2 + t)
            store(a3 * scale, s3 + t)
            t += 16
        }
    }

    /// `out_h[c] = Σ_t p_h[t]·V[t][c]` for `heads` (≤ 4) heads, the output rows held in registers.
    @inlinable @inline(__always)
    public static func weightedSums(
        _ p0: UnsafePointer<Float>, _ p1: UnsafePointer<Float>, _ p2: UnsafePointer<Float>, _ p3: UnsafePointer<Float>,
        values: UnsafePointer<Float>, dimension: Int, length: Int,
        into o0: UnsafeMutablePointer<Float>, _ o1: UnsafeMutablePointer<Float>, _ o2: UnsafeMutablePointer<Float>,
        _ o3: UnsafeMutablePointer<Float>, heads: Int
    ) {
        if dimension == 64 {
            sums64(p0, p1, p2, p3, values: values, length: length, into: o0, o1, o2, o3)
            return
        }
        // Other widths: two heads at a time over 64-column slices.
        sumsPair(p0, p1, values: values, dimension: dimension, length: length, into: o0, o1)
        if heads > 2 { sumsPair(p2, p3, values: values, dimension: dimension, length: length, into: o2, o3) }
    }

    /// `weightedSums` for two heads of any width.
    @inlinable @inline(__always)
    public static func sumsPair(
        _ pa: UnsafePointer<Float>, _ pb: UnsafePointer<Float>, values: UnsafePointer<Float>, dimension: Int,
        length: Int, into oa: UnsafeMutablePointer<Float>, _ ob: UnsafeMutablePointer<Float>
    ) {
        var c = 0
        while c + 64 <= dimension {
            var a0 = Vector(), a1 = Vector(), a2 = Vector(), a3 = Vector()
            var b0 = Vector(), b1 = Vector(), b2 = Vector(), b3 = Vector()
            var v = values + c
            for t in 0..<length {
                let v0 = load(v), v1 = load(v + 16), v2 = load(v + 32), v3 = load(v + 48)
                let wa = Vector(repeating: pa[t]), wb = Vector(repeating: pb[t])
                a0 = M.madd(wa, v0, a0)
                a1 = M.madd(wa, v1, a1)
                a2 = M.madd(wa, v2, a2)
                a3 = M.madd(wa, v3, a3)
                b0 = M.madd(wb, v0, b0)
                b1 = M.madd(wb, v1, b1)
                b2 = M.madd(wb, v2, b2)
                b3 = M.madd(wb, v3, b3)
                v += dimension
            }
            store(a0, oa + c)
            store(a1, oa + c + 16)
            store(a2, oa + c + 32)
            store(a3, oa + c + 48)
            store(b0, ob + c)
            store(b1, ob + c + 16)
            store(b2, ob + c + 32)
            store(b3, ob + c + 48)
            c += 64
        }
        if c < dimension {
            // Accumulates in memory, so a repeated head (ob == oa) must not be summed twice.
            let second = ob != oa
            (oa + c).update(repeating: 0, count: dimension - c)
            if second { (ob + c).update(repeating: 0, count: dimension - c) }
            for t in 0..<length {
                VectorKernels<M>.addScaled(values + t * dimension + c, pa[t], into: oa + c, count: dimension - c)
                if second {
                    VectorKernels<M>.addScaled(values + t * dimension + c, pb[t], into: ob + c, count: dimension - c)
                }
            }
        }
    }

    /// `weightedSums` for 64-wide heads: four heads × four vectors in registers.
    @inlinable @inline(__always)
    public static func sums64(
        _ p0: UnsafePointer<Float>, _ p1: UnsafePointer<Float>, _ p2: UnsafePointer<Float>, _ p3: UnsafePointer<Float>,
        values: UnsafePointer<Float>, length: Int,
        into o0: UnsafeMutablePointer<Float>, _ o1: UnsafeMutablePointer<Float>, _ o2: UnsafeMutablePointer<Float>,
        _ o3: UnsafeMutablePointer<Float>
    ) {
        var a0 = Vector(), a1 = Vector(), a2 = Vector(), a3 = Vector()
        var b0 = Vector(), b1 = Vector(), b2 = Vector(), b3 = Vector()
        var c0 = Vector(), c1 = Vector(), c2 = Vector(), c3 = Vector()
        var d0 = Vector(), d1 = Vector(), d2 = Vector(), d3 = Vector()
        var v = values
        for t in 0..<length {
            let v0 = load(v), v1 = load(v + 16), v2 = load(v + 32), v3 = load(v + 48)
            let wa = Vector(repeating: p0[t])
            a0 = M.madd(wa, v0, a0)
            a1 = M.madd(wa, v1, a1)
            a2 = M.madd(wa, v2, a2)
            a3 = M.madd(wa, v3, a3)
            let wb = Vector(repeating: p1[t])
            b0 = M.madd(wb, v0, b0)
            b1 = M.madd(wb, v1, b1)
            b2 = M.madd(wb, v2, b2)
            b3 = M.madd(wb, v3, b3)
            let wc = Vector(repeating: p2[t])
            c0 = M.madd(wc, v0, c0)
            c1 = M.madd(wc, v1, c1)
            c2 = M.madd(wc, v2, c2)
            c3 = M.madd(wc, v3, c3)
            let wd = Vector(repeating: p3[t])
            d0 = M.madd(wd, v0, d0)
            d1 = M.madd(wd, v1, d1)
            d2 = M.madd(wd, v2, d2)
            d3 = M.madd(wd, v3, d3)
            v += 64
        }
        // Repeated heads share output pointers and values; writing them twice is harmless.
        store(a0, o0)
        store(a1, o0 + 16)
        store(a2, o0 + 32)
        store(a3, o0 + 48)
        store(b0, o1)
        store(b1, o1 + 16)
        store(b2, o1 + 32)
        store(b3, o1 + 48)
        store(c0, o2)
        store(c1, o2 + 16)
        store(c2, o2 + 32)
        store(c3, o2 + 48)
        store(d0, o3)
        store(d1, o3 + 16)
        store(d2, o3 + 32)
        store(d3, o3 + 48)
    }
}
