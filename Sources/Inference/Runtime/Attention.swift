import Kernels
import KernelsCore
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
        cache: KVCache, scores: UnsafeMutablePointer<Float>, pool: ThreadPool, kernels: any KernelSet.Type
    ) {
        let items = count * headCountKV * slicesPerGroup
        // Work in multiply-adds: tiny decode steps are cheaper on one thread than a handoff.
        let work = count * headCount * (start + count) * headDimension
        if work < 1 << 15 || pool.threadCount == 1 {
            for item in 0..<items {
                run(
                    item, layer: layer, query: query, output: output, start: start, cache: cache, scores: scores,
                    kernels: kernels)
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
                run(
                    item, layer: layer, query: query, output: output, start: start, cache: cache, scores: scratch,
                    kernels: kernels)
            }
        }
    }

    /// One item: `item = (row · headCountKV + kvHead) · slicesPerGroup + slice`.
    @inline(__always)
    private func run(
        _ item: Int, layer: Int, query: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, start: Int,
        cache: KVCache, scores: UnsafeMutablePointer<Float>, kernels: any KernelSet.Type
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
        kernels.attend(
            AttentionItem(
                queries: (q, q + h1 * headDimension, q + h2 * headDimension, q + h3 * headDimension),
                scores: (scores, scores + h1 * stride, scores + h2 * stride, scores + h3 * stride),
                outputs: (o, o + h1 * headDimension, o + h2 * headDimension, o + h3 * headDimension),
                keys: keys, values: values, dimension: headDimension, length: length, scale: scale, heads: heads))
    }
}
