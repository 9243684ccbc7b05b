import KernelsCore

extension Dequantize {
    /// Writes row `row` of `w` (`w.columns` floats) into `into`, from either of its layouts.
    public static func row(_ w: WeightMatrix, _ row: Int, into: UnsafeMutablePointer<Float>) {
        precondition(row >= 0 && row < w.rows, "row \(row) out of 0..<\(w.rows)")
        guard let layout = w.layout, let bytes = layout.groupBlockBytes(w.type) else {
            blocks(type: w.type, w.row(row), count: w.columns, into: into)
            return
        }
        let size = w.type.bytesPerBlock
        let group = w.base + (row / layout.rows) * w.groupStride
        withUnsafeTemporaryAllocation(byteCount: size, alignment: 16) { block in
            for b in 0..<(w.columns / w.type.blockSize) {
                let plain = block.baseAddress!
                layout.unpack(w.type, group: group + b * bytes, row: row % layout.rows, into: plain)
                blocks(type: w.type, plain, count: w.type.blockSize, into: into + b * w.type.blockSize)
            }
        }
    }
}
