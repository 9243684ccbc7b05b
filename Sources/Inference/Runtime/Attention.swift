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
    /// must already be in `cache`. `scores` holds `contextLength` floats per pool thread.
    func callAsFunction(
        layer: Int, query: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, start: Int,
        cache: KVCache, scores: UnsafeMutablePointer<Float>, scoreStride: Int, pool: ThreadPool
    ) {
        let items = count * headCount
        // Work in scores computed: tiny decode steps are cheaper on one thread than a handoff.
        let work = items * (start + count) * headDimension
        if work < 1 << 15 || pool.threadCount == 1 {
            for item in 0..<items {
                head(item, layer: layer, query: query, output: output, start: start, cache: cache, scores: scores)
            }
            return
        }
        let next = Atomic<Int>(0)
        pool.run { thread, _ in
            let scratch = scores + thread * scoreStride
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
        let keys = UnsafePointer(cache.keys(layer: layer, head: kvHead))
        let values = UnsafePointer(cache.values(layer: layer, head: kvHead))
        let length = start + row + 1
        let d = headDimension
        for t in 0..<length {
            scores[t] = VectorMath.dot(q, keys + t * d, count: d) * scale
        }
        VectorMath.softmax(scores, count: length)
        out.update(repeating: 0, count: d)
        for t in 0..<length {
            VectorMath.addScaled(values + t * d, scores[t], into: out, count: d)
        }
    }
}
