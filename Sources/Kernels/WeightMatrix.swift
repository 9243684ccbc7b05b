import KernelsCore
import TensorFormats

#if canImport(Glibc)
    import Glibc
#endif

/// A weight matrix in a GGUF tensor's layout: `rows` rows of `columns` elements, each row stored
/// as consecutive quantized blocks (for a GGUF tensor with dimensions `[ne0, ne1]`, `columns = ne0`
/// and `rows = ne1`), multiplied by one kernel set.
///
/// The matrix does not own its memory: `base` usually points into the memory-mapped model file,
/// which must outlive every use.
///
/// ```swift
/// let w = WeightMatrix(type: .q4_1, rows: 1536, columns: 576, base: tensorData, kernels: .avx2)
/// MatMul.matvec(w.repacked(), x, y, pool: pool)   // y[1536] = W · x[576]
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
    /// The kernel set that multiplies this matrix (and whose layout a repacked copy has).
    public var kernelSet: KernelSetID { kernels.id }
    /// The arrangement of the rows at `base`: nil for GGUF's rows, else the set's interleaved groups.
    let layout: InterleavedLayout?
    let kernels: any KernelSet.Type
    /// Keeps a repacked copy alive.
    let storage: RepackedStorage?

    /// Bytes of one row in GGUF's layout.
    public var rowBytes: Int { columns / type.blockSize * type.bytesPerBlock }

    /// Bytes of the stored data (a repacked matrix pads its last group of rows).
    public var byteCount: Int { layout == nil ? rows * rowBytes : groupCount * groupStride }

    /// Whether the rows are stored in the kernel set's interleaved layout.
    public var isRepacked: Bool { layout != nil }

    /// Wraps `rows × columns` elements of `type` at `base`, multiplied by `kernels`.
    ///
    /// - Precondition: the kernels support `type` (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
    ///   Q4_K, Q5_K, Q6_K; see `WeightMatrix.supports(_:)`), `columns` is a multiple of its block
    ///   size, and `kernels` is one this CPU runs (`KernelSelection.available`).
    public init(
        type: GGMLType, rows: Int, columns: Int, base: UnsafeRawPointer, kernels: KernelSetID = KernelSelection.default
    ) {
        precondition(Self.supports(type), "Kernels has no products for \(type)")
        precondition(
            rows >= 0 && columns > 0 && columns % type.blockSize == 0,
            "\(columns) columns is not a positive multiple of \(type)'s block size \(type.blockSize)")
        self.type = type
        self.rows = rows
        self.columns = columns
        self.base = base
        self.kernels = Self.implementation(kernels)
        layout = nil
        storage = nil
    }

    /// Wraps memory that already holds `kernels`' interleaved copy of a `rows × columns` matrix
    /// of `type` — bytes a `repacked()` matrix had at `base`, saved and mapped back (the caller
    /// keeps the memory alive). Nil when that set has no interleaved layout for `type`; check
    /// `repackedByteCount(type:rows:columns:kernels:)` against the memory's size first.
    public init?(
        type: GGMLType, rows: Int, columns: Int, interleavedAt base: UnsafeRawPointer,
        kernels: KernelSetID = KernelSelection.default
    ) {
        guard Self.repackedByteCount(type: type, rows: rows, columns: columns, kernels: kernels) != nil else {
            return nil
        }
        self.type = type
        self.rows = rows
        self.columns = columns
        self.base = base
        self.kernels = Self.implementation(kernels)
        layout = self.kernels.interleave
        storage = nil
    }

    /// Bytes of `kernels`' interleaved copy of a `rows × columns` matrix of `type`, or nil when
    /// that set keeps such matrices in GGUF's rows.
    public static func repackedByteCount(
        type: GGMLType, rows: Int, columns: Int, kernels: KernelSetID = KernelSelection.default
    ) -> Int? {
        guard supports(type), let layout = implementation(kernels).interleave,
            let bytes = layout.groupBlockBytes(type), rows > 0, columns > 0, columns % type.blockSize == 0
        else { return nil }
        return (rows + layout.rows - 1) / layout.rows * (columns / type.blockSize * bytes)
    }

    /// A name for the layout of `kernels`' repacked matrices: equal names, equal bytes (for caches).
    public static func repackedLayoutName(kernels: KernelSetID) -> String? {
        implementation(kernels).interleave?.name
    }

    private init(_ w: WeightMatrix, repackedInto storage: RepackedStorage, layout: InterleavedLayout) {
        type = w.type
        rows = w.rows
        columns = w.columns
        base = UnsafeRawPointer(storage.pointer)
        kernels = w.kernels
        self.layout = layout
        self.storage = storage
    }

    /// A copy of this matrix in the layout its kernel set reads fastest, in memory it owns; or
    /// this matrix itself when the set keeps its type in GGUF's rows. Products and
    /// `Dequantize.row` work on either form and give the same results.
    ///
    /// Repack at load time and let the source pages go (`releasingSource`) so the process holds
    /// one copy of the weights. The copy has the same size plus the padding rows of the last group.
    /// - Parameters:
    ///   - pool: threads to copy with; the caller's thread alone if nil.
    ///   - releasingSource: after copying, advise the kernel that the source's whole pages may be
    ///     reclaimed (`MADV_PAGEOUT`, Linux). Contents are kept (a file mapping re-reads them from
    ///     the file, anonymous memory goes to swap or stays), so this is safe on any memory; use it
    ///     when the source is a mapped model file that the repacked copy replaces.
    public func repacked(pool: ThreadPool? = nil, releasingSource: Bool = false) -> WeightMatrix {
        guard self.layout == nil, let layout = kernels.interleave, let bytes = layout.groupBlockBytes(type) else {
            return self
        }
        let groupStride = columns / type.blockSize * bytes
        let groups = (rows + layout.rows - 1) / layout.rows
        let storage = RepackedStorage(byteCount: groups * groupStride)
        let source = self
        let run = { (thread: Int, threads: Int) in
            let first = groups * thread / threads, last = groups * (thread + 1) / threads
            let firstRow = min(source.rows, first * layout.rows)
            let part = MatrixView(
                type: source.type, rows: min(source.rows, last * layout.rows) - firstRow, columns: source.columns,
                base: source.row(firstRow), groupStride: 0)
            if part.rows > 0 {
                layout.pack(part, into: storage.pointer + first * groupStride, groupStride: groupStride)
            }
        }
        if let pool { pool.run(run) } else { run(0, 1) }
        if releasingSource { Self.release(base, byteCount: rows * rowBytes) }
        return WeightMatrix(self, repackedInto: storage, layout: layout)
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

    private static func implementation(_ id: KernelSetID) -> any KernelSet.Type {
        guard let kernels = KernelSelection.implementation(of: id) else {
            preconditionFailure("this build has no \(id) kernels")
        }
        return kernels
    }

    /// Start of row `r` (GGUF's layout only).
    @inline(__always)
    func row(_ r: Int) -> UnsafeRawPointer { base + r * rowBytes }

    /// Row groups of an interleaved matrix.
    var groupCount: Int { layout.map { (rows + $0.rows - 1) / $0.rows } ?? 0 }

    /// Bytes of one interleaved group of rows.
    var groupStride: Int { layout.map { columns / type.blockSize * ($0.groupBlockBytes(type) ?? 0) } ?? 0 }

    /// The matrix as its kernels take it.
    var view: MatrixView {
        MatrixView(type: type, rows: rows, columns: columns, base: base, groupStride: groupStride)
    }
}

/// Zeroed memory holding a repacked matrix; freed with the last `WeightMatrix` that uses it.
/// Large copies are anonymous mappings of ordinary pages. (Transparent huge pages spared decode
/// some TLB misses until the kernels prefetched far enough ahead to hide them; since then they
/// only made loading slower — faulting in and zeroing 2 MB pages took 1.9 s instead of 0.7 s for
/// the 1.5B model's copy on the development VM.)
final class RepackedStorage: @unchecked Sendable {
    // @unchecked Sendable: written once while repacking, read-only afterwards.
    let pointer: UnsafeMutableRawPointer
    let byteCount: Int
    private let mapped: Bool

    init(byteCount: Int) {
        self.byteCount = byteCount
        #if os(Linux)
            if byteCount >= 1 << 21,
                let p = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                p != MAP_FAILED
            {
                pointer = p
                mapped = true
                return
            }
        #endif
        pointer = .allocate(byteCount: max(byteCount, 64), alignment: 64)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 64))
        mapped = false
    }

    deinit {
        #if os(Linux)
            if mapped {
                munmap(pointer, byteCount)
                return
            }
        #endif
        pointer.deallocate()
    }
}
