/// The element encoding of a tensor, as ggml numbers it in GGUF files.
///
/// Quantized types pack `blockSize` elements into `bytesPerBlock` bytes; a row's length must be a
/// multiple of the block size.
///
/// ```swift
/// GGMLType.q4_K.rowByteCount(elements: 1536)  // 6 blocks × 144 bytes = 864
/// ```
public enum GGMLType: UInt32, Sendable, CaseIterable {
    case f32 = 0
    case f16 = 1
    case q4_0 = 2
    case q4_1 = 3
    case q5_0 = 6
    case q5_1 = 7
    case q8_0 = 8
    case q8_1 = 9
    case q2_K = 10
    case q3_K = 11
    case q4_K = 12
    case q5_K = 13
    case q6_K = 14
    case q8_K = 15
    case bf16 = 30

    /// Elements per block (1 for plain float types).
    public var blockSize: Int {
        switch self {
        case .f32, .f16, .bf16: 1
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q8_1: 32
        case .q2_K, .q3_K, .q4_K, .q5_K, .q6_K, .q8_K: 256
        }
    }

    /// Bytes one block occupies (ggml's `type_size`).
    public var bytesPerBlock: Int {
        switch self {
        case .f32: 4
        case .f16, .bf16: 2
        case .q4_0: 18  // f16 d + 16 nibble bytes
        case .q4_1: 20  // f16 d, m + 16
        case .q5_0: 22  // f16 d + 4 high bits + 16
        case .q5_1: 24  // f16 d, m + 4 + 16
        case .q8_0: 34  // f16 d + 32
        case .q8_1: 36  // f16 d, s + 32
        case .q2_K: 84  // 16 scales + 64 qs + f16 d, dmin
        case .q3_K: 110  // 32 hmask + 64 qs + 12 scales + f16 d
        case .q4_K: 144  // f16 d, dmin + 12 scales + 128 qs
        case .q5_K: 176  // f16 d, dmin + 12 scales + 32 qh + 128 qs
        case .q6_K: 210  // 128 ql + 64 qh + 16 scales + f16 d
        case .q8_K: 292  // f32 d + 256 qs + 16 × i16 bsums
        }
    }

    /// Bytes a row of `elements` elements occupies. `elements` must be a multiple of `blockSize`.
    public func rowByteCount(elements: Int) -> Int {
        precondition(
            elements >= 0 && elements % blockSize == 0, "\(elements) elements is not a whole number of \(name) blocks")
        return elements / blockSize * bytesPerBlock
    }

    /// ggml's name for the type, e.g. `Q4_K`.
    public var name: String { Self.name(rawValue: rawValue) }

    /// ggml's name for any type id, including ones Sotto cannot read (e.g. `IQ2_XXS`), for messages.
    public static func name(rawValue: UInt32) -> String {
        let names: [UInt32: String] = [
            0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1",
            10: "Q2_K", 11: "Q3_K", 12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K",
            16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S", 20: "IQ4_NL", 21: "IQ3_S", 22: "IQ2_S",
            23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64", 29: "IQ1_M", 30: "BF16",
            34: "TQ1_0", 35: "TQ2_0",
        ]
        return names[rawValue] ?? "type \(rawValue)"
    }
}
