/// Keys and values of every evaluated position, per layer and KV head, in F32.
///
/// Layout: `[layer][kvHead][capacity][headDimension]` for keys and for values, so one head's
/// history is contiguous for the attention loops. The memory is allocated once for `capacity`
/// positions; pages are only touched (made resident) as positions are written.
final class KVCache {
    let layerCount: Int
    let headCount: Int
    let headDimension: Int
    let capacity: Int
    private let keys: UnsafeMutablePointer<Float>
    private let values: UnsafeMutablePointer<Float>

    init(layerCount: Int, headCount: Int, headDimension: Int, capacity: Int) {
        self.layerCount = layerCount
        self.headCount = headCount
        self.headDimension = headDimension
        self.capacity = capacity
        let count = layerCount * headCount * capacity * headDimension
        keys = .allocate(capacity: count)
        values = .allocate(capacity: count)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    /// Bytes held for keys and values together.
    var byteCount: Int { 2 * layerCount * headCount * capacity * headDimension * MemoryLayout<Float>.size }

    /// Start of `[capacity][headDimension]` keys of one head of one layer.
    @inline(__always)
    func keys(layer: Int, head: Int) -> UnsafeMutablePointer<Float> {
        keys + ((layer * headCount + head) * capacity) * headDimension
    }

    /// Start of `[capacity][headDimension]` values of one head of one layer.
    @inline(__always)
    func values(layer: Int, head: Int) -> UnsafeMutablePointer<Float> {
        values + ((layer * headCount + head) * capacity) * headDimension
    }

    /// Copies `count` rows of all KV heads (`k`, `v`: `[count][headCount · headDimension]`) to
    /// positions `start..<start + count` of `layer`.
    func store(layer: Int, start: Int, count: Int, k: UnsafePointer<Float>, v: UnsafePointer<Float>) {
        precondition(start >= 0 && start + count <= capacity)
        let width = headCount * headDimension
        for h in 0..<headCount {
            let kd = keys(layer: layer, head: h) + start * headDimension
            let vd = values(layer: layer, head: h) + start * headDimension
            for t in 0..<count {
                (kd + t * headDimension).update(from: k + t * width + h * headDimension, count: headDimension)
                (vd + t * headDimension).update(from: v + t * width + h * headDimension, count: headDimension)
            }
        }
    }
}
