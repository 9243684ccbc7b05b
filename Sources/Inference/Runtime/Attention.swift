import Kernels
import Synchronization

/// Causal scaled-dot-product attention of a chunk of query rows over the KV cache, with
/// grouped-query heads (query head `h` reads KV head `h / (headCount / headCountKV)`).
struct Attention {
    let headCount: Int
    let headCountKV: Int
    let headDimension: Int
    let scale: Float

    init(config: ModelConfig) {
        headCount = config.headCount
        headCountKV = config.headCountKV
        headDimension = config.headDimension
        scale = 1 / Float(config.headDimension).squareRoot()
    }

    /// For each of the `count` query rows (row `i` at position `start + i`, already rotated) and
    /// each head, writes `softmax(q·Kᵀ/√d)·V` over positions `0...start + i` to `output`.
    ///
    /// `query` and `output` are `[count][headCount · headDim]`; keys and values for the chunk
    /// must already be in `cache`. `scores` holds `cache.stride` floats per pool thread.
    func callAsFunction(
        layer: Int, query: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, start: Int,
        cache: KVCache, scores: UnsafeMutablePointer<Float>, pool: ThreadPool
    ) {
        let items = count * headCount
        // Work in multiply-adds: tiny decode steps are cheaper on one thread than a handoff.
        let work = items * (start + count) * headDimension
        if work < 1 << 15 || pool.threadCount == 1 {
            for item in 0..<items {
                head(item, layer: layer, query: query, output: output, start: start, cache: cache, scores: scores)
            }
            return
        }
        let next = Atomic<Int>(0)
        pool.run { thread, _ in
            let scratch = scores + thread * cache.stride
            while true {
                let item = next.add(1, ordering: .relaxed).oldValue
                if item >= items { break }
                head(item, layer: layer, query: query, output: output, start: start, cache: cache, scores: scratch)
            }
        }
    }

    /// One (row, head) pair; `item = row · headCount + head`.
    @inline(__always)
    private func head(
        _ item: Int, layer: Int, query: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, start: Int,
        cache: KVCache, scores: UnsafeMutablePointer<Float>
    ) {
        let row = item / headCount
        let h = item % headCount
        let kvHead = h / (headCount / headCountKV)
        let width = headCount * headDimension
        let q = query + row * width + h * headDimension
        let out = output + row * width + h * headDimension
        let length = start + row + 1
        Self.scores(
            q, keys: cache.keys(layer: layer, head: kvHead), stride: cache.stride, dimension: headDimension,
            length: length, scale: scale, into: scores)
        VectorMath.softmax(scores, count: length)
        Self.weightedSum(
            scores, values: cache.values(layer: layer, head: kvHead), dimension: headDimension, length: length,
            into: out)
    }

    /// `scores[t] = scale · Σ_d q[d]·K[d][t]` for t in 0..<length (rounded up to 16; lanes past
    /// `length` hold junk), reading the transposed keys 16 positions at a time.
    @inline(__always)
    static func scores(
        _ q: UnsafePointer<Float>, keys: UnsafePointer<Float>, stride: Int, dimension: Int, length: Int, scale: Float,
        into scores: UnsafeMutablePointer<Float>
    ) {
        var t = 0
        // Two blocks of 16 positions per pass, so each broadcast q[d] feeds two FMAs.
        while t + 16 < length {
            var a = Vector()
            var b = Vector()
            var k = keys + t
            for d in 0..<dimension {
                let qd = Vector(repeating: q[d])
                a = a.addingProduct(qd, load(k))
                b = b.addingProduct(qd, load(k + 16))
                k += stride
            }
            store(a * scale, scores + t)
            store(b * scale, scores + t + 16)
            t += 32
        }
        if t < length {
            var a = Vector()
            var k = keys + t
            for d in 0..<dimension {
                a = a.addingProduct(Vector(repeating: q[d]), load(k))
                k += stride
            }
            store(a * scale, scores + t)
        }
    }

    /// `out[c] = Σ_t p[t]·V[t][c]`, with the output row held in registers.
    @inline(__always)
    static func weightedSum(
        _ p: UnsafePointer<Float>, values: UnsafePointer<Float>, dimension: Int, length: Int,
        into out: UnsafeMutablePointer<Float>
    ) {
        switch dimension {
        case 64:
            var a0 = Vector(), a1 = Vector(), a2 = Vector(), a3 = Vector()
            var v = values
            for t in 0..<length {
                let w = Vector(repeating: p[t])
                a0 = a0.addingProduct(w, load(v))
                a1 = a1.addingProduct(w, load(v + 16))
                a2 = a2.addingProduct(w, load(v + 32))
                a3 = a3.addingProduct(w, load(v + 48))
                v += 64
            }
            store(a0, out)
            store(a1, out + 16)
            store(a2, out + 32)
            store(a3, out + 48)
        case 128:
            var a0 = Vector(), a1 = Vector(), a2 = Vector(), a3 = Vector()
            var a4 = Vector(), a5 = Vector(), a6 = Vector(), a7 = Vector()
            var v = values
            for t in 0..<length {
                let w = Vector(repeating: p[t])
                a0 = a0.addingProduct(w, load(v))
                a1 = a1.addingProduct(w, load(v + 16))
                a2 = a2.addingProduct(w, load(v + 32))
                a3 = a3.addingProduct(w, load(v + 48))
                a4 = a4.addingProduct(w, load(v + 64))
                a5 = a5.addingProduct(w, load(v + 80))
                a6 = a6.addingProduct(w, load(v + 96))
                a7 = a7.addingProduct(w, load(v + 112))
                v += 128
            }
            store(a0, out)
            store(a1, out + 16)
            store(a2, out + 32)
            store(a3, out + 48)
            store(a4, out + 64)
            store(a5, out + 80)
            store(a6, out + 96)
            store(a7, out + 112)
        default:
            out.update(repeating: 0, count: dimension)
            for t in 0..<length {
                VectorMath.addScaled(values + t * dimension, p[t], into: out, count: dimension)
            }
        }
    }
}
