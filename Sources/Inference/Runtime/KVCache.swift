/// Keys and values of every evaluated position, per layer and KV head, in F32.
///
/// Keys are stored in transposed tiles of 16 positions, `[layer][kvHead][capacity / 16]
/// [headDimension][16]`, so attention scores for 16 consecutive positions are 16-lane vector FMAs
/// over one contiguous tile, with no horizontal sums; values are `[layer][kvHead][capacity]
/// [headDimension]`, so a weighted sum of value rows is a run of vector FMAs too. `capacity` is
/// padded to a multiple of 16 so whole tiles can always be read.
/// The memory is allocated once; pages are only touched (made resident) as positions are written.
final class KVCache {
    let layerCount: Int
    let headCount: Int
    let headDimension: Int
    /// Positions the cache holds.
    let capacity: Int
    /// Positions per key row: `capacity` rounded up to a multiple of 16.
    let stride: Int
    private let keys: UnsafeMutablePointer<Float>
    private let values: UnsafeMutablePointer<Float>

    init(layerCount: Int, headCount: Int, headDimension: Int, capacity: Int) {
        self.layerCount = layerCount
        self.headCount = headCount
        self.headDimension = headDimension
        self.capacity = capacity
        stride = (capacity + 15) / 16 * 16
        let count = layerCount * headCount * stride * headDimension
        // Not initialized: attention reads whole vectors of key rows past the last written
        // position, but lanes past it never reach a result (scores beyond it are not used), and
        // leaving the memory untouched keeps unused positions out of resident memory.
        keys = .allocate(capacity: count)
        values = .allocate(capacity: count)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    /// Bytes held for keys and values together.
    var byteCount: Int { 2 * layerCount * headCount * stride * headDimension * MemoryLayout<Float>.size }

    /// Start of `[stride / 16][headDimension][16]` (tiled, transposed) keys of one head of one layer;
    /// key `d` of position `t` is at `(t / 16) · 16 · headDimension + d · 16 + t % 16`.
    @inline(__always)
    func keys(layer: Int, head: Int) -> UnsafeMutablePointer<Float> {
        keys + (layer * headCount + head) * headDimension * stride
    }

    /// Start of `[capacity][headDimension]` values of one head of one layer.
    @inline(__always)
    func values(layer: Int, head: Int) -> UnsafeMutablePointer<Float> {
        values + (layer * headCount + head) * stride * headDimension
    }

    /// Copies `count` rows of all KV heads (`k`, `v`: `[count][headCount · headDimension]`) to
    /// positions `start..<start + count` of `layer`.
    func store(layer: Int, start: Int, count: Int, k: UnsafePointer<Float>, v: UnsafePointer<Float>) {
        precondition(start >= 0 && start + count <= capacity)
        let width = headCount * headDimension
        for h in 0..<headCount {
            let kd = keys(layer: layer, head: h)
            let vd = values(layer: layer, head: h) + start * headDimension
            for t in 0..<count {
                let source = k + t * width + h * headDimension
                let position = start + t
                let tile = kd + (position / 16) * 16 * headDimension + position % 16
                for d in 0..<headDimension { tile[d * 16] = source[d] }
                (vd + t * headDimension).update(from: v + t * width + h * headDimension, count: headDimension)
            }
        }
    }

    /// Copies positions `range` of every layer and head from `other` (a cache of the same shape),
    /// so that a prompt's start another sequence has evaluated is not evaluated again.
    func copy(from other: KVCache, positions range: Range<Int>) {
        precondition(other.layerCount == layerCount && other.headCount == headCount)
        precondition(other.headDimension == headDimension && range.upperBound <= min(capacity, other.capacity))
        guard !range.isEmpty else { return }
        for layer in 0..<layerCount {
            for head in 0..<headCount {
                let to = keys(layer: layer, head: head), from = other.keys(layer: layer, head: head)
                for position in range {
                    let offset = (position / 16) * 16 * headDimension + position % 16
                    for d in 0..<headDimension { to[offset + d * 16] = from[offset + d * 16] }
                }
                (values(layer: layer, head: head) + range.lowerBound * headDimension).update(
                    from: other.values(layer: layer, head: head) + range.lowerBound * headDimension,
                    count: range.count * headDimension)
            }
        }
    }
}
