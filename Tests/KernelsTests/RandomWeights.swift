// Random weights for the kernel tests; also compiled into the arm64 check (scripts/check-arm64),
// so it needs TensorFormats alone.

import TensorFormats

/// Deterministic generator (SplitMix64) so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let allWeightTypes: [GGMLType] = [.f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q4_K, .q5_K, .q6_K]

/// Random weight bytes of `type` for `rows × columns`: random quants, scales in a model-like range.
func randomWeights(_ type: GGMLType, rows: Int, columns: Int, using rng: inout SeededGenerator) -> [UInt8] {
    let blocks = rows * columns / type.blockSize
    var bytes = (0..<(blocks * type.bytesPerBlock)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    func putHalf(_ v: Float, at offset: Int) {
        let bits = Float16(v).bitPattern
        bytes[offset] = UInt8(bits & 0xFF)
        bytes[offset + 1] = UInt8(bits >> 8)
    }
    for b in 0..<blocks {
        let o = b * type.bytesPerBlock
        switch type {
        case .f32:
            let bits = Float.random(in: -1...1, using: &rng).bitPattern
            for k in 0..<4 { bytes[o + k] = UInt8((bits >> (8 * UInt32(k))) & 0xFF) }
        case .f16: putHalf(.random(in: -1...1, using: &rng), at: o)
        case .bf16:
            let bits = Float.random(in: -1...1, using: &rng).bitPattern >> 16
            bytes[o] = UInt8(bits & 0xFF)
            bytes[o + 1] = UInt8(bits >> 8)
        case .q4_0, .q5_0, .q8_0: putHalf(.random(in: -0.05...0.05, using: &rng), at: o)
        case .q4_1, .q5_1, .q4_K, .q5_K:
            putHalf(.random(in: -0.05...0.05, using: &rng), at: o)
            putHalf(.random(in: -0.05...0.05, using: &rng), at: o + 2)
        case .q6_K: putHalf(.random(in: -0.005...0.005, using: &rng), at: o + 208)
        default: preconditionFailure()
        }
    }
    return bytes
}

/// Random blocks with every quant byte set to `pattern`; the half-precision scales keep the
/// model-like values `randomWeights` gives them.
func saturatedWeights(
    _ type: GGMLType, rows: Int, columns: Int, pattern: UInt8, using rng: inout SeededGenerator
) -> [UInt8] {
    let halves: Range<Int> =
        switch type {
        case .q4_0, .q5_0, .q8_0: 0..<2
        case .q6_K: 208..<210
        default: 0..<4
        }
    var bytes = randomWeights(type, rows: rows, columns: columns, using: &rng)
    for i in bytes.indices where !halves.contains(i % type.bytesPerBlock) { bytes[i] = pattern }
    return bytes
}
