// Activation rows quantized for the integer dot products. Layout differs from ggml's interleaved
// Q8_0/Q8_1/Q8_K blocks on purpose: quants of a row are contiguous (aligned vector loads) and the
// per-block scales sit in a separate array, as floats.

import TensorFormats

/// How an activation row must be prepared for a weight type.
public enum ActivationKind: Equatable, Sendable {
    /// Floats as they are (F32, F16, BF16 weights).
    case float
    /// Blocks of 32: int8 quants, per block `d` (rounded to half, as ggml's Q8_0 stores it) and
    /// `d·Σq` with that rounded `d` — exact, for the offset correction of Q4_0, Q5_0, Q8_0.
    case q8
    /// As `q8`, but the second value is ggml's Q8_1 `s`: half(d·Σq) with the unrounded `d`, the
    /// term the min of Q4_1 and Q5_1 multiplies (matching it keeps logits on llama.cpp's).
    case q8_1
    /// Blocks of 256: int8 quants, per block `d`, per 16 quants their sum (K-quants; ggml's Q8_K).
    case q8K

    @inlinable
    public init(_ type: GGMLType) {
        switch type {
        case .f32, .f16, .bf16: self = .float
        case .q4_0, .q5_0, .q8_0: self = .q8
        case .q4_1, .q5_1: self = .q8_1
        case .q4_K, .q5_K, .q6_K: self = .q8K
        case .q8_1, .q2_K, .q3_K, .q8_K: preconditionFailure("unsupported weight type \(type)")
        }
    }
}

/// One Q8 activation row: `qs[columns]`, and `ds[2·b]`, `ds[2·b + 1]` = d, d·Σq of block b.
public struct Q8Row {
    public let qs: UnsafePointer<Int8>
    public let ds: UnsafePointer<Float>

    @inlinable
    public init(qs: UnsafePointer<Int8>, ds: UnsafePointer<Float>) {
        self.qs = qs
        self.ds = ds
    }
}

/// One Q8_K activation row: `qs[columns]`, `d[columns / 256]`, `bsums[columns / 16]`, and for
/// the vector kernels `bsums32[columns / 32]` (sums of 32 quants) and `bsums16x32[columns / 16]`
/// (32 × `bsums`, as Int32).
public struct Q8KRow {
    public let qs: UnsafePointer<Int8>
    public let d: UnsafePointer<Float>
    public let bsums: UnsafePointer<Int16>
    public let columns: Int
    @inlinable public var bsums32: UnsafePointer<Int16> { bsums + columns / 16 }
    @inlinable public var bsums16x32: UnsafePointer<Int32> {
        UnsafeRawPointer(bsums + columns / 16 + columns / 32).assumingMemoryBound(to: Int32.self)
    }

    @inlinable
    public init(qs: UnsafePointer<Int8>, d: UnsafePointer<Float>, bsums: UnsafePointer<Int16>, columns: Int) {
        self.qs = qs
        self.d = d
        self.bsums = bsums
        self.columns = columns
    }
}

/// `count` activation rows of `columns` elements, quantized for one `ActivationKind`, in 64-byte
/// aligned memory: its own allocation (freed with `deallocate()`) or memory it is given.
public struct ActivationBuffer {
    public let kind: ActivationKind
    public let columns: Int
    public let count: Int
    public let rowStride: Int
    public let base: UnsafeMutableRawPointer

    public init(kind: ActivationKind, columns: Int, count: Int) {
        self.init(
            kind: kind, columns: columns, count: count,
            base: .allocate(
                byteCount: max(64, Self.byteCount(kind: kind, columns: columns, count: count)), alignment: 64))
    }

    /// A buffer in `base`, which holds `byteCount(kind:columns:count:)` bytes, 64-byte aligned.
    public init(kind: ActivationKind, columns: Int, count: Int, base: UnsafeMutableRawPointer) {
        self.kind = kind
        self.columns = columns
        self.count = count
        self.base = base
        rowStride = Self.rowStride(kind: kind, columns: columns)
    }

    public static func byteCount(kind: ActivationKind, columns: Int, count: Int) -> Int {
        rowStride(kind: kind, columns: columns) * count
    }

    private static func rowStride(kind: ActivationKind, columns: Int) -> Int {
        let bytes: Int
        switch kind {
        case .float: bytes = 0
        case .q8, .q8_1: bytes = columns + (columns / 32) * 8
        case .q8K: bytes = columns + (columns / 256) * 4 + (columns / 16) * 2 + (columns / 32) * 2 + (columns / 16) * 4
        }
        return (bytes + 63) & ~63
    }

    public func deallocate() { base.deallocate() }

    @inlinable
    public func q8(_ row: Int) -> Q8Row {
        let p = base + row * rowStride
        return Q8Row(
            qs: UnsafePointer(p.assumingMemoryBound(to: Int8.self)),
            ds: UnsafePointer((p + columns).assumingMemoryBound(to: Float.self)))
    }

    @inlinable
    public func q8K(_ row: Int) -> Q8KRow {
        let p = base + row * rowStride
        let d = p + columns
        return Q8KRow(
            qs: UnsafePointer(p.assumingMemoryBound(to: Int8.self)),
            d: UnsafePointer(d.assumingMemoryBound(to: Float.self)),
            bsums: UnsafePointer((d + (columns / 256) * 4).assumingMemoryBound(to: Int16.self)), columns: columns)
    }

    /// Quantizes `x[row]` (a row of `columns` floats) into row `row` with `kernels`' quantizers.
    public func quantize<Kernels: KernelSet>(_ x: UnsafePointer<Float>, row: Int, with kernels: Kernels.Type) {
        let p = base + row * rowStride
        switch kind {
        case .float: break
        case .q8, .q8_1:
            kernels.quantizeQ8(
                x, count: columns, qs: p.assumingMemoryBound(to: Int8.self),
                ds: (p + columns).assumingMemoryBound(to: Float.self), halfSum: kind == .q8_1)
        case .q8K:
            let d = p + columns
            let bsums = (d + (columns / 256) * 4).assumingMemoryBound(to: Int16.self)
            kernels.quantizeQ8K(
                x, count: columns, qs: p.assumingMemoryBound(to: Int8.self),
                d: d.assumingMemoryBound(to: Float.self), bsums: bsums)
            let bsums32 = bsums + columns / 16
            let bsums16x32 = UnsafeMutableRawPointer(bsums32 + columns / 32).assumingMemoryBound(to: Int32.self)
            for j in 0..<(columns / 32) { bsums32[j] = bsums[2 * j] &+ bsums[2 * j + 1] }
            for j in 0..<(columns / 16) { bsums16x32[j] = 32 * Int32(bsums[j]) }
        }
    }
}

/// Activation rows of one tile, consecutive in an `ActivationBuffer`.
public struct TileActivations {
    public let base: UnsafeRawPointer
    public let stride: Int
    public let columns: Int

    @inlinable
    public init(_ buffer: ActivationBuffer, firstRow: Int) {
        base = UnsafeRawPointer(buffer.base + firstRow * buffer.rowStride)
        stride = buffer.rowStride
        columns = buffer.columns
    }

    @inlinable @inline(__always) public func qs(_ k: Int) -> UnsafeRawPointer { base + k * stride }
    /// Q8: (d, d·Σq) per block of 32.
    @inlinable @inline(__always) public func ds(_ k: Int) -> UnsafePointer<Float> {
        (base + k * stride + columns).assumingMemoryBound(to: Float.self)
    }
    /// Q8_K: d per block of 256.
    @inlinable @inline(__always) public func d(_ k: Int) -> UnsafePointer<Float> {
        (base + k * stride + columns).assumingMemoryBound(to: Float.self)
    }
    /// Q8_K: sums of 16 quants, as Int16.
    @inlinable @inline(__always) public func bsums16(_ k: Int) -> UnsafePointer<Int16> {
        (base + k * stride + columns + columns / 64).assumingMemoryBound(to: Int16.self)
    }
    /// Q8_K: sums of 32 quants, as Int16.
    @inlinable @inline(__always) public func bsums32(_ k: Int) -> UnsafeRawPointer {
        base + k * stride + columns + columns / 64 + columns / 8
    }
    /// Q8_K: 32 × sums of 16 quants, as Int32.
    @inlinable @inline(__always) public func bsums16x32(_ k: Int) -> UnsafePointer<Int32> {
        (base + k * stride + columns + columns / 64 + columns / 8 + columns / 16).assumingMemoryBound(to: Int32.self)
    }
}
