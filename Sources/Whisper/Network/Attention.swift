import Kernels
import Synchronization

/// Keys and values of one attention head laid out for the kernels' `attend`: keys in tiles of 16
/// positions (`(t/16)·16·d + 16·i + t%16`), values `[t][d]`.
struct HeadLayout {
    static let tile = 16

    /// Floats for the keys of `positions` positions of width `width`.
    static func keyFloats(positions: Int, width: Int) -> Int {
        (positions + tile - 1) / tile * tile * width
    }

    /// Writes the key of position `t` (`width` floats at `source`) into a tiled key buffer.
    @inline(__always)
    static func storeKey(
        _ source: UnsafePointer<Float>, position t: Int, width: Int, into keys: UnsafeMutablePointer<Float>
    ) {
        let base = keys + (t / tile) * tile * width + t % tile
        for i in 0..<width { base[tile * i] = source[i] }
    }
}

/// Attention over prepared heads, run on the model's kernel set.
// @unchecked Sendable: it holds only the kernel set's metatype, which has no state.
struct AttentionRunner: @unchecked Sendable {
    let kernels: any KernelSet.Type

    init(kernels: KernelSetID) {
        guard let implementation = KernelSelection.implementation(of: kernels) else {
            preconditionFailure("this build has no \(kernels) kernels")
        }
        self.kernels = implementation
    }

    /// One query group: up to four query rows over the same keys and values (no arrays: an
    /// encoder window has thousands of items per layer).
    struct Item {
        /// Query row `i` is at `query + i · queryStride`, its output at `output + i · outputStride`.
        var query: UnsafePointer<Float>
        var queryStride: Int
        var output: UnsafeMutablePointer<Float>
        var outputStride: Int
        /// Rows, 1…4.
        var count: Int
        var keys: UnsafePointer<Float>
        var values: UnsafePointer<Float>
        var length: Int
    }

    /// Runs `count` items, `item(i)` describing each, on the pool's threads.
    func run(count: Int, width: Int, maximumLength: Int, pool: ThreadPool, item: (Int) -> Item) {
        let scoreStride = (maximumLength + HeadLayout.tile - 1) / HeadLayout.tile * HeadLayout.tile
        let scale = 1 / Float(width).squareRoot()
        let next = Atomic<Int>(0)
        let kernels = self.kernels
        withoutActuallyEscaping(item) { item in
            let work = { (_: Int, _: Int) in
                let scores = UnsafeMutablePointer<Float>.allocate(capacity: 4 * scoreStride)
                defer { scores.deallocate() }
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    if index >= count { break }
                    let it = item(index)
                    let heads = it.count
                    // Missing rows repeat the last, scores included (the kernel computes and writes
                    // all four; only the real ones are normalized).
                    func q(_ i: Int) -> UnsafePointer<Float> { it.query + min(i, heads - 1) * it.queryStride }
                    func o(_ i: Int) -> UnsafeMutablePointer<Float> { it.output + min(i, heads - 1) * it.outputStride }
                    func s(_ i: Int) -> UnsafeMutablePointer<Float> { scores + min(i, heads - 1) * scoreStride }
                    kernels.attend(
                        AttentionItem(
                            queries: (q(0), q(1), q(2), q(3)),
                            scores: (s(0), s(1), s(2), s(3)),
                            outputs: (o(0), o(1), o(2), o(3)), keys: it.keys, values: it.values, dimension: width,
                            length: it.length, scale: scale, heads: heads))
                }
            }
            if count > 1, pool.threadCount > 1 { pool.run(work) } else { work(0, 1) }
        }
    }
}
