import Kernels
import Synchronization

/// Causal scaled-dot-product attention of a chunk of query rows over the KV cache, with
/// grouped-query heads (query head `h` reads KV head `h / (headCount / headCountKV)`).
///
/// Work is split into items of one query row and up to four query heads that share a KV head, so
/// each key and value vector loaded feeds up to four heads.
struct Attention {
    let headCount: Int
    let headCountKV: Int
    let headDimension: Int
    let scale: Float
    /// Query heads per KV head.
    let groupSize: Int
    /// Items per (row, KV head): groups of at most four query heads.
    let slicesPerGroup: Int

    /// Query heads handled together.
    static let slice = 4

    init(config: ModelConfig) {
        headCount = config.headCount
        headCountKV = config.headCountKV
        headDimension = config.headDimension
        scale = 1 / Float(config.headDimension).squareRoot()
        groupSize = config.headCount / config.headCountKV
        slicesPerGroup = (groupSize + Self.slice - 1) / Self.slice
    }

    /// Floats of score scratch each pool thread needs.
    static func scratchCount(contextLength: Int) -> Int { slice * ((contextLength + 15) / 16 * 16) }

    /// For each of the `count` query rows (row `i` at position `start + i`, already rotated) and
    /// each head, writes `softmax(q·Kᵀ/√d)·V` over positions `0...start + i` to `output`.
    ///
    /// `query` and `output` are `[count][headCount · headDim]`; keys and values for the chunk
    /// must already be in `cache`. `scores` holds `scratchCount` floats per pool thread.
    func callAsFunction(
        layer: Int, query: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, start: Int,
        cache: KVCache, scores: UnsafeMutablePointer<Float>, pool: ThreadPool
    ) {
        let items = count * headCountKV * slicesPerGroup
        // Work in multiply-adds: tiny decode steps are cheaper on one thread than a handoff.
        let work = count * headCount * (start + count) * headDimension
        if work < 1 << 15 || pool.threadCount == 1 {
            for item in 0..<items {
                run(item, layer: layer, query: query, output: output, start: start, cache: cache, scores: scores)
            }
            return
        }
        let next = Atomic<Int>(0)
        let perThread = Self.slice * cache.stride
        pool.run { thread, _ in
            let scratch = scores + thread * perThread
            while true {
                let item = next.add(1, ordering: .relaxed).oldValue
                if item >= items { break }
                run(item, layer: layer, query: query, output: output, start: start, cache: cache, scores: scratch)
            }
        }
    }

    /// One item: `item = (row · headCountKV + kvHead) · slicesPerGroup + slice`.
    @inline(__always)
    private func run(
        _ item: Int, layer: Int, query: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, start: Int,
        cache: KVCache, scores: UnsafeMutablePointer<Float>
    ) {
        let slice = item % slicesPerGroup
        let kvHead = (item / slicesPerGroup) % headCountKV
        let row = item / (slicesPerGroup * headCountKV)
        let first = kvHead * groupSize + slice * Self.slice
        let heads = min(Self.slice, kvHead * groupSize + groupSize - first)
        let width = headCount * headDimension
        let length = start + row + 1
        let stride = cache.stride
        // Four heads; missing ones repeat the last (the same values are computed and written twice).
        let h1 = min(1, heads - 1), h2 = min(2, heads - 1), h3 = min(3, heads - 1)
        let q = query + row * width + first * headDimension
        let o = output + row * width + first * headDimension
        let keys = UnsafePointer(cache.keys(layer: layer, head: kvHead))
        let values = UnsafePointer(cache.values(layer: layer, head: kvHead))
        Self.scores(
            q, q + h1 * headDimension, q + h2 * headDimension, q + h3 * headDimension, keys: keys,
            dimension: headDimension, length: length, scale: scale,
            into: scores, scores + h1 * stride, scores + h2 * stride, scores + h3 * stride)
        for i in 0..<heads { VectorMath.softmax(scores + i * stride, count: length) }
        Self.weightedSums(
            scores, scores + h1 * stride, scores + h2 * stride, scores + h3 * stride, values: values,
            dimension: headDimension, length: length,
            into: o, o + h1 * headDimension, o + h2 * headDimension, o + h3 * headDimension, heads: heads)
    }

    /// `scores_h[t] = scale · Σ_d q_h[d]·K[d][t]` for four heads h and t in 0..<length (rounded up
    /// to 16; lanes past `length` hold junk), reading the key tiles 16 positions at a time.
    @inline(__always)
    static func scores(
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
                a0 = a0.addingProduct(Vector(repeating: q0[d]), kv)
                a1 = a1.addingProduct(Vector(repeating: q1[d]), kv)
                a2 = a2.addingProduct(Vector(repeating: q2[d]), kv)
                a3 = a3.addingProduct(Vector(repeating: q3[d]), kv)
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
    @inline(__always)
    static func weightedSums(
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
    @inline(__always)
    static func sumsPair(
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
                a0 = a0.addingProduct(wa, v0)
                a1 = a1.addingProduct(wa, v1)
                a2 = a2.addingProduct(wa, v2)
                a3 = a3.addingProduct(wa, v3)
                b0 = b0.addingProduct(wb, v0)
                b1 = b1.addingProduct(wb, v1)
                b2 = b2.addingProduct(wb, v2)
                b3 = b3.addingProduct(wb, v3)
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
                VectorMath.addScaled(values + t * dimension + c, pa[t], into: oa + c, count: dimension - c)
                if second {
                    VectorMath.addScaled(values + t * dimension + c, pb[t], into: ob + c, count: dimension - c)
                }
            }
        }
    }

    /// `weightedSums` for 64-wide heads: four heads × four vectors in registers.
    @inline(__always)
    static func sums64(
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
            a0 = a0.addingProduct(wa, v0)
            a1 = a1.addingProduct(wa, v1)
            a2 = a2.addingProduct(wa, v2)
            a3 = a3.addingProduct(wa, v3)
            let wb = Vector(repeating: p1[t])
            b0 = b0.addingProduct(wb, v0)
            b1 = b1.addingProduct(wb, v1)
            b2 = b2.addingProduct(wb, v2)
            b3 = b3.addingProduct(wb, v3)
            let wc = Vector(repeating: p2[t])
            c0 = c0.addingProduct(wc, v0)
            c1 = c1.addingProduct(wc, v1)
            c2 = c2.addingProduct(wc, v2)
            c3 = c3.addingProduct(wc, v3)
            let wd = Vector(repeating: p3[t])
            d0 = d0.addingProduct(wd, v0)
            d1 = d1.addingProduct(wd, v1)
            d2 = d2.addingProduct(wd, v2)
            d3 = d3.addingProduct(wd, v3)
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
