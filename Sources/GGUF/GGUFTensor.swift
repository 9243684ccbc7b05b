/// One entry of a GGUF file's tensor directory, with its location already checked against the file.
public struct GGUFTensor: Sendable, Equatable {
    /// The tensor's name, e.g. `blk.0.attn_q.weight`.
    public let name: String
    /// Dimensions in ggml order: `shape[0]` is the row length (ne0), the innermost, contiguous axis.
    public let shape: [Int]
    /// How the elements are encoded.
    public let type: GGMLType
    /// Absolute byte offset of the tensor's data in the file.
    public let offset: Int
    /// Bytes of data: `rowCount × type.rowByteCount(elements: shape[0])`.
    public let byteCount: Int

    public init(name: String, shape: [Int], type: GGMLType, offset: Int, byteCount: Int) {
        self.name = name
        self.shape = shape
        self.type = type
        self.offset = offset
        self.byteCount = byteCount
    }

    /// Product of all dimensions.
    public var elementCount: Int { shape.reduce(1, *) }

    /// Number of rows: the product of `shape[1...]` (1 for a vector).
    public var rowCount: Int { shape.dropFirst().reduce(1, *) }

    /// Elements in one row (`shape[0]`).
    public var rowLength: Int { shape[0] }

    /// Bytes one row occupies.
    public var rowByteCount: Int { type.rowByteCount(elements: shape[0]) }
}
