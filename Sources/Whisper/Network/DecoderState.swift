/// What the decoder keeps for one 30 s window: the cross-attention keys and values of the
/// encoder output (computed once), and each beam's self-attention cache.
///
/// Owned by one decoding at a time (not thread-safe); beams are reordered by copying caches.
final class DecoderState {
    let layers: Int
    let heads: Int
    let headWidth: Int
    /// Encoder positions.
    let audioPositions: Int
    /// Token positions each beam's cache holds.
    let capacity: Int
    /// Beam slots.
    let beams: Int

    /// `[layer][head]` tiled keys over the encoder positions.
    let crossKeys: UnsafeMutablePointer<Float>
    /// `[layer][head][audioPositions][headWidth]`.
    let crossValues: UnsafeMutablePointer<Float>
    /// `[beam][layer][head]` tiled keys over `capacity` positions.
    private(set) var selfKeys: UnsafeMutablePointer<Float>
    /// `[beam][layer][head][capacity][headWidth]`.
    private(set) var selfValues: UnsafeMutablePointer<Float>
    /// Spares the reordering copies into.
    private var spareKeys: UnsafeMutablePointer<Float>
    private var spareValues: UnsafeMutablePointer<Float>
    /// Positions filled in every beam's cache.
    var length = 0

    let crossKeyFloats: Int
    let selfKeyFloats: Int

    init(layers: Int, heads: Int, headWidth: Int, audioPositions: Int, capacity: Int, beams: Int) {
        self.layers = layers
        self.heads = heads
        self.headWidth = headWidth
        self.audioPositions = audioPositions
        self.capacity = capacity
        self.beams = beams
        crossKeyFloats = HeadLayout.keyFloats(positions: audioPositions, width: headWidth)
        selfKeyFloats = HeadLayout.keyFloats(positions: capacity, width: headWidth)
        crossKeys = .allocate(capacity: layers * heads * crossKeyFloats)
        crossKeys.initialize(repeating: 0, count: layers * heads * crossKeyFloats)
        crossValues = .allocate(capacity: layers * heads * audioPositions * headWidth)
        let keyCount = beams * layers * heads * selfKeyFloats
        let valueCount = beams * layers * heads * capacity * headWidth
        selfKeys = .allocate(capacity: keyCount)
        selfKeys.initialize(repeating: 0, count: keyCount)
        selfValues = .allocate(capacity: valueCount)
        spareKeys = .allocate(capacity: keyCount)
        spareKeys.initialize(repeating: 0, count: keyCount)
        spareValues = .allocate(capacity: valueCount)
    }

    deinit {
        crossKeys.deallocate()
        crossValues.deallocate()
        selfKeys.deallocate()
        selfValues.deallocate()
        spareKeys.deallocate()
        spareValues.deallocate()
    }

    func crossKeys(layer: Int, head: Int) -> UnsafeMutablePointer<Float> {
        crossKeys + (layer * heads + head) * crossKeyFloats
    }

    func crossValues(layer: Int, head: Int) -> UnsafeMutablePointer<Float> {
        crossValues + (layer * heads + head) * audioPositions * headWidth
    }

    func selfKeys(beam: Int, layer: Int, head: Int) -> UnsafeMutablePointer<Float> {
        selfKeys + ((beam * layers + layer) * heads + head) * selfKeyFloats
    }

    func selfValues(beam: Int, layer: Int, head: Int) -> UnsafeMutablePointer<Float> {
        selfValues + ((beam * layers + layer) * heads + head) * capacity * headWidth
    }

    /// Makes beam `b` continue from beam `parents[b]` (the caches as they are now).
    func reorder(parents: [Int]) {
        if parents.enumerated().allSatisfy({ $0.offset == $0.element }) { return }
        let keysPerBeam = layers * heads * selfKeyFloats
        let valuesPerBeam = layers * heads * capacity * headWidth
        // Only the filled part of each cache is copied.
        let filledTiles = (length + HeadLayout.tile - 1) / HeadLayout.tile * HeadLayout.tile * headWidth
        for (b, parent) in parents.enumerated() {
            for block in 0..<(layers * heads) {
                (spareKeys + b * keysPerBeam + block * selfKeyFloats).update(
                    from: selfKeys + parent * keysPerBeam + block * selfKeyFloats, count: filledTiles)
                (spareValues + b * valuesPerBeam + block * capacity * headWidth).update(
                    from: selfValues + parent * valuesPerBeam + block * capacity * headWidth, count: length * headWidth)
            }
        }
        swap(&selfKeys, &spareKeys)
        swap(&selfValues, &spareValues)
    }
}
