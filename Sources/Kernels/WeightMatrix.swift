import GGUF

#if canImport(Glibc)
    import Glibc
#endif

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
    /// First byte of the stored data: row 0 in GGUF's layout, or the repacked copy (see `repacked()`).
    public let base: UnsafeRawPointer
    /// The arrangement of the rows at `base`.
    let packing: Packing
    /// Keeps a repacked copy alive.
    let storage: RepackedStorage?

    /// Bytes of one row in GGUF's layout.
    public var rowBytes: Int { columns / type.blockSize * type.bytesPerBlock }

    /// Bytes of the stored data (a repacked matrix pads its last group of rows).
    public var byteCount: Int {
        switch packing {
        case .rows: rows * rowBytes
        case .interleaved16: groupCount * groupStride
        }
    }

    /// Whether the rows are stored in the kernels' interleaved layout.
    public var isRepacked: Bool { packing == .interleaved16 }

    /// Wraps `rows × columns` elements of `type` at `base`.
    ///
    /// - Precondition: the kernels support `type` (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
    ///   Q4_K, Q5_K, Q6_K; see `WeightMatrix.supports(_:)`) and `columns` is a multiple of its block size.
    public init(type: GGMLType, rows: Int, columns: Int, base: UnsafeRawPointer) {
        precondition(Self.supports(type), "Kernels has no products for \(type)")
        precondition(
            rows >= 0 && columns > 0 && columns % type.blockSize == 0,
            "\(columns) columns is not a positive multiple of \(type)'s block size \(type.blockSize)")
        self.type = type
        self.rows = rows
        self.columns = columns
        self.base = base
        packing = .rows
        storage = nil
    }

    /// Wraps memory that already holds the interleaved copy of a `rows × columns` matrix of
    /// `type` — bytes a `repacked()` matrix had at `base`, saved and mapped back (the caller keeps
    /// the memory alive). Nil when this build has no interleaved layout for `type`; check
    /// `repackedByteCount(type:rows:columns:)` against the memory's size first.
    public init?(type: GGMLType, rows: Int, columns: Int, interleavedAt base: UnsafeRawPointer) {
        guard Self.repackedByteCount(type: type, rows: rows, columns: columns) != nil else { return nil }
        self.type = type
        self.rows = rows
        self.columns = columns
        self.base = base
        packing = .interleaved16
        storage = nil
    }

    /// Bytes of the interleaved copy of a `rows × columns` matrix of `type`, or nil when this
    /// build has no interleaved layout for it (no vector kernels, or another type).
    public static func repackedByteCount(type: GGMLType, rows: Int, columns: Int) -> Int? {
        guard vectorPathAvailable, supports(type), let bytes = Interleave.groupBlockBytes(type), rows > 0,
            columns > 0, columns % type.blockSize == 0
        else { return nil }
        return (rows + Interleave.rows - 1) / Interleave.rows * (columns / type.blockSize * bytes)
    }

    private init(_ w: WeightMatrix, repackedInto storage: RepackedStorage) {
        type = w.type
        rows = w.rows
        columns = w.columns
        base = UnsafeRawPointer(storage.pointer)
        packing = .interleaved16
        self.storage = storage
    }

    /// A copy of this matrix in the layout the vector kernels read fastest, in memory it owns; or
    /// this matrix itself when its type has no such layout (or the kernels have no vector path on
    /// this CPU). Products and `Dequantize.row` work on either form and give the same results.
    ///
    /// Repack at load time and let the source pages go (`releasingSource`) so the process holds
    /// one copy of the weights. Interleaved layouts exist for Q4_1, Q5_0, Q8_0, Q4_K and Q6_K; the
    /// copy has the same size plus up to 15 padding rows, in huge pages where the system allows.
    /// - Parameters:
    ///   - pool: threads to copy with; the caller's thread alone if nil.
    ///   - releasingSource: after copying, advise the kernel that the source's whole pages may be
    ///     reclaimed (`MADV_PAGEOUT`, Linux). Contents are kept (a file mapping re-reads them from
    ///     the file, anonymous memory goes to swap or stays), so this is safe on any memory; use it
    ///     when the source is a mapped model file that the repacked copy replaces.
    public func repacked(pool: ThreadPool? = nil, releasingSource: Bool = false) -> WeightMatrix {
        guard packing == .rows, vectorPathAvailable, let bytes = Interleave.groupBlockBytes(type) else { return self }
        let groupStride = columns / type.blockSize * bytes
        let groups = (rows + Interleave.rows - 1) / Interleave.rows
        let storage = RepackedStorage(byteCount: groups * groupStride)
        let source = self
        let run = { (thread: Int, threads: Int) in
            let first = groups * thread / threads, last = groups * (thread + 1) / threads
            let part = WeightMatrix(
                type: source.type, rows: min(source.rows, last * Interleave.rows) - first * Interleave.rows,
                columns: source.columns, base: source.row(min(source.rows, first * Interleave.rows)))
            if part.rows > 0 {
                Interleave.pack(part, into: storage.pointer + first * groupStride, groupStride: groupStride)
            }
        }
        if let pool { pool.run(run) } else { run(0, 1) }
        if releasingSource { Self.release(base, byteCount: rows * rowBytes) }
        return WeightMatrix(self, repackedInto: storage)
    }

    /// Advises the kernel that the whole pages inside `base ..< base + byteCount` may be reclaimed.
    private static func release(_ base: UnsafeRawPointer, byteCount: Int) {
        #if os(Linux)
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: base) + page - 1) / page * page
            let end = (Int(bitPattern: base) + byteCount) / page * page
            if end > start {
                _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_PAGEOUT)
            }
        #endif
    }

    /// Whether matrices of `type` can be multiplied and dequantized.
    public static func supports(_ type: GGMLType) -> Bool { type.isSupportedWeight }

    /// Start of row `r` (GGUF's layout only).
    @inline(__always)
    func row(_ r: Int) -> UnsafeRawPointer { base + r * rowBytes }

    /// Row groups of an interleaved matrix.
    var groupCount: Int { (rows + Interleave.rows - 1) / Interleave.rows }

    /// Bytes of one interleaved group of rows.
    var groupStride: Int { columns / type.blockSize * (Interleave.groupBlockBytes(type) ?? 0) }
}
