import GGUF

/// A weight matrix in a GGUF tensor's layout: `rows` rows of `columns` elements, each row stored
/// as consecutive quantized blocks (for a GGUF tensor with dimensions `[ne0, ne1]`, `columns = ne0`
/// and `rows = ne1`).
///
/// The matrix does not own its memory: `base` usually points into the memory-mapped model file,
/// which must outlive every use.
///
/// ```swift
/// let w = WeightMatrix(type: .q4_1, rows: 1536, columns: 576, base: tensorData)
/// MatMul.matvec(w, x, y, pool: pool)   // y[1536] = W · x[576]
/// ```
// @unchecked Sendable: the matrix is an immutable view of read-only weights.

public struct WeightMatrix: @unchecked Sendable {
    /// Element type of the stored blocks.
    public let type: GGMLType
    /// Number of rows (outputs of a product).
    public let rows: Int
    /// Elements per row (inputs of a product); a multiple of `type.blockSize`.
    public let columns: Int
    /// First byte of row 0.
    public let base: UnsafeRawPointer

    /// Bytes of one stored row.
    public var rowBytes: Int { columns / type.blockSize * type.bytesPerBlock }

    /// Bytes of the whole matrix.
    public var byteCount: Int { rows * rowBytes }

    /// Wraps `rows × columns` elements of `type` at `base`.
    ///
    /// - Precondition: the kernels support `type` (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
    ///   Q4_K, Q5_K, Q6_K; see `WeightMatrix.supports(_:)`) and `columns` is a multiple of its block size.
    public init(type: GGMLType, rows: Int, columns: Int, base: UnsafeRawPointer) {
        precondition(Self.supports(type), "Kernels has no products for \(type)")
        precondition(rows >= 0 && columns > 0 && columns % type.blockSize == 0,
            "\(columns) columns is not a positive multiple of \(type)'s block size \(type.blockSize)")
        self.type = type
        self.rows = rows
        self.columns = columns
        self.base = base
    }

    /// Whether matrices of `type` can be multiplied and dequantized.
    public static func supports(_ type: GGMLType) -> Bool { type.isSupportedWeight }

    /// Start of row `r`.
    @inline(__always)
    func row(_ r: Int) -> UnsafeRawPointer { base + r * rowBytes }
}
