// GGML quantization block layouts (ggml-common.h), little-endian and packed. Kernels read blocks
// through raw pointers at the byte offsets below; the structs document the layouts and tests
// assert their sizes against `GGMLType.bytesPerBlock`. `half` fields are IEEE binary16 bits.

package typealias Bytes4 = (UInt8, UInt8, UInt8, UInt8)
package typealias Bytes12 = (Bytes4, Bytes4, Bytes4)
package typealias Bytes16 = (Bytes4, Bytes4, Bytes4, Bytes4)
package typealias Bytes32 = (Bytes16, Bytes16)
package typealias Bytes64 = (Bytes32, Bytes32)
package typealias Bytes128 = (Bytes64, Bytes64)
package typealias Bytes256 = (Bytes128, Bytes128)
package typealias Int16x16 = (
    Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16,
    Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16
)

/// 32 weights: d·(q − 8); `qs[j]` holds element j (low nibble) and j + 16 (high nibble).
package struct BlockQ4_0 {
    package var d: UInt16
    package var qs: Bytes16
}
/// 32 weights: d·q + m.
package struct BlockQ4_1 {
    package var d: UInt16
    package var m: UInt16
    package var qs: Bytes16
}
/// 32 weights: d·(q − 16), q = nibble | (bit k of `qh` as UInt32) << 4.
package struct BlockQ5_0 {
    package var d: UInt16
    package var qh: Bytes4
    package var qs: Bytes16
}
/// 32 weights: d·q + m, 5-bit q as in Q5_0.
package struct BlockQ5_1 {
    package var d: UInt16
    package var m: UInt16
    package var qh: Bytes4
    package var qs: Bytes16
}
/// 32 weights: d·q, q signed.
package struct BlockQ8_0 {
    package var d: UInt16
    package var qs: Bytes32
}
/// 32 activations: d·q, s = d·Σq.
package struct BlockQ8_1 {
    package var d: UInt16
    package var s: UInt16
    package var qs: Bytes32
}
/// 256 weights in 8 sub-blocks of 32: d·sc_j·q − dmin·m_j with 6-bit scales and mins packed in 12 bytes.
package struct BlockQ4_K {
    package var d: UInt16
    package var dmin: UInt16
    package var scales: Bytes12
    package var qs: Bytes128
}
/// 256 weights as Q4_K plus a fifth bit per weight in `qh`.
package struct BlockQ5_K {
    package var d: UInt16
    package var dmin: UInt16
    package var scales: Bytes12
    package var qh: Bytes32
    package var qs: Bytes128
}
/// 256 weights in 16 sub-blocks of 16: d·sc_j·(q − 32), 6-bit q split over `ql` and `qh`; d last.
package struct BlockQ6_K {
    package var ql: Bytes128
    package var qh: Bytes64
    package var scales: Bytes16
    package var d: UInt16
}
/// 256 activations: d·q with float d and the sums of each 16 quants.
package struct BlockQ8_K {
    package var d: Float
    package var qs: Bytes256
    package var bsums: Int16x16
}

/// Byte offsets of block fields used by the kernels.
package enum Layout {
    package static let q4_0Qs = 2
    package static let q4_1Qs = 4
    package static let q5_0Qh = 2, q5_0Qs = 6
    package static let q5_1Qh = 4, q5_1Qs = 8
    package static let q8_0Qs = 2
    package static let qKScales = 4, q4_KQs = 16
    package static let q5_KQh = 16, q5_KQs = 48
    package static let q6_KQh = 128, q6_KScales = 192, q6_KD = 208
}

extension GGMLType {
    /// Whether the kernels can multiply and dequantize this type.
    package var isSupportedWeight: Bool {
        switch self {
        case .f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q4_K, .q5_K, .q6_K: true
        case .q8_1, .q2_K, .q3_K, .q8_K: false
        }
    }
}
