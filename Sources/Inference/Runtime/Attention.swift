import Kernels
import KernelsCore
import Synchronization

/// Causal scaled-dot-product attention of query rows over their sequences' KV caches, with
/// grouped-query heads (query head `h` reads KV head `h / (headCount / headCountKV)`).
///
/// The rows of a forward pass belong to segments, one per sequence, each with its own cache and
/// positions: row `i` of a segment starting at position `start` attends to positions
/// `0...start + i` of that segment's cache. Work is split into items of one query row and up to
/// four query heads that share a KV head, so each key and value vector loaded feeds up to four
/// heads; the items of every segment are shared out together.
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

    /// For each segment's rows (already rotated, their keys and values already in the segment's
    /// cache) and each head, writes `softmax(q·Kᵀ/√d)·V` to `output`.
    ///
    /// `query` and `output` are `[rows][headCount · headDim]`; `scores` holds `scratchCount`
    /// floats (for the longest cache) per pool thread.
    func callAsFunction(
        layer: Int, segments: [ForwardSegment], query: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
        scores: UnsafeMutablePointer<Float>, pool: ThreadPool, kernels: any KernelSet.Type
    ) {
        let perRow = headCountKV * slicesPerGroup
        // Work in multiply-adds: tiny decode steps are cheaper on one thread than a handoff.
        var items = 0
        var work = 0
        var stride = 0
        for segment in segments {
            items += segment.count * perRow
            work += segment.count * headCount * (segment.start + segment.count) * headDimension
            stride = max(stride, segment.cache.stride)
        }
        if work < 1 << 15 || pool.threadCount == 1 {
            for segment in segments {
                for item in 0..<(segment.count * perRow) {
                    run(
                        item, layer: layer, segment: segment, query: query, output: output, scores: scores,
                        kernels: kernels)
                }
            }
            return
        }
        let next = Atomic<Int>(0)
        let perThread = Self.slice * stride
        segments.withUnsafeBufferPointer { segments in
            pool.run { thread, _ in
                let scratch = scores + thread * perThread
                var s = 0
                var first = 0  // the first item of segment `s`
                while true {
                    let item = next.add(1, ordering: .relaxed).oldValue
                    if item >= items { break }
                    while item >= first + segments[s].count * perRow {
                        first += segments[s].count * perRow
                        s += 1
                    }
                    run(
                        item - first, layer: layer, segment: segments[s], query: query, output: output,
                        scores: scratch, kernels: kernels)
                }
            }
        }
    }

    /// One item of a segment: `item = (row · headCountKV + kvHead) · slicesPerGroup + slice`.
    @inline(__always)
    private func run(
        _ item: Int, layer: Int, segment: ForwardSegment, query: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>, scores: UnsafeMutablePointer<Float>, kernels: any KernelSet.Type
    ) {
        let slice = item % slicesPerGroup
        let kvHead = (item / slicesPerGroup) % headCountKV
        let row = item / (slicesPerGroup * headCountKV)
        let first = kvHead * groupSize + slice * Self.slice
        let heads = min(Self.slice, kvHead * groupSize + groupSize - first)
        let width = headCount * headDimension
        let length = segment.start + row + 1
        let cache = segment.cache
        let stride = cache.stride
        // Four heads; missing ones repeat the last (the same values are computed and written twice).
        let h1 = min(1, heads - 1), h2 = min(2, heads - 1), h3 = min(3, heads - 1)
        let q = query + (segment.row + row) * width + first * headDimension
        let o = output + (segment.row + row) * width + first * headDimension
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
