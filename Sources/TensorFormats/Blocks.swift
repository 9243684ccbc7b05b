// GGML quantization block layouts (ggml-common.h), little-endian and packed. Kernels read blocks
// through raw pointers at the byte offsets below; the structs document the layouts and tests
// assert their sizes against `GGMLType.bytesPerBlock`. `half` fields are IEEE binary16 bits.

public typealias Bytes4 = (UInt8, UInt8, UInt8, UInt8)
public typealias Bytes12 = (Bytes4, Bytes4, Bytes4)
public typealias Bytes16 = (Bytes4, Bytes4, Bytes4, Bytes4)
public typealias Bytes32 = (Bytes16, Bytes16)
public typealias Bytes64 = (Bytes32, Bytes32)
public typealias Bytes128 = (Bytes64, Bytes64)
public typealias Bytes256 = (Bytes128, Bytes128)
public typealias Int16x16 = (
    Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16,
    Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16
)

/// 32 weights: d·(q − 8); `qs[j]` holds element j (low nibble) and j + 16 (high nibble).
public struct BlockQ4_0 {
    public var d: UInt16
    public var qs: Bytes16
}
/// 32 weights: d·q + m.
public struct BlockQ4_1 {
    public var d: UInt16
    public var m: UInt16
    public var qs: Bytes16
}
/// 32 weights: d·(q − 16), q = nibble | (bit k of `qh` as UInt32) << 4.
public struct BlockQ5_0 {
    public var d: UInt16
    public var qh: Bytes4
    public var qs: Bytes16
}
/// 32 weights: d·q + m, 5-bit q as in Q5_0.
public struct BlockQ5_1 {
    public var d: UInt16
    public var m: UInt16
    public var qh: Bytes4
    public var qs: Bytes16
}
/// 32 weights: d·q, q signed.
public struct BlockQ8_0 {
    public var d: UInt16
    public var qs: Bytes32
}
/// 32 activations: d·q, s = d·Σq.
public struct BlockQ8_1 {
    public var d: UInt16
    public var s: UInt16
    public var qs: Bytes32
}
/// 256 weights in 8 sub-blocks of 32: d·sc_j·q − dmin·m_j with 6-bit scales and mins packed in 12 bytes.
public struct BlockQ4_K {
    public var d: UInt16
    public var dmin: UInt16
    public var scales: Bytes12
    public var qs: Bytes128
}
/// 256 weights as Q4_K plus a fifth bit per weight in `qh`.
public struct BlockQ5_K {
    public var d: UInt16
    public var dmin: UInt16
    public var scales: Bytes12
    public var qh: Bytes32
    public var qs: Bytes128
}
/// 256 weights in 16 sub-blocks of 16: d·sc_j·(q − 32), 6-bit q split over `ql` and `qh`; d last.
public struct BlockQ6_K {
    public var ql: Bytes128
    public var qh: Bytes64
    public var scales: Bytes16
    public var d: UInt16
}
/// 256 activations: d·q with float d and the sums of each 16 quants.
public struct BlockQ8_K {
    public var d: Float
    public var qs: Bytes256
    public var bsums: Int16x16
}

/// Byte offsets of block fields used by the kernels.
public enum Layout {
    public static let q4_0Qs = 2
    public static let q4_1Qs = 4
    public static let q5_0Qh = 2, q5_0Qs = 6
    public static let q5_1Qh = 4, q5_1Qs = 8
    public static let q8_0Qs = 2
    public static let qKScales = 4, q4_KQs = 16
    public static let q5_KQh = 16, q5_KQs = 48
    public static let q6_KQh = 128, q6_KScales = 192, q6_KD = 208
}

extension GGMLType {
    /// Whether the kernels can multiply and dequantize this type.
    public var isSupportedWeight: Bool {
        switch self {
        case .f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q4_K, .q5_K, .q6_K: true
        case .q8_1, .q2_K, .q3_K, .q8_K: false
        }
    }
}
