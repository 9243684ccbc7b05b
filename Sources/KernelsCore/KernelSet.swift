// The interface every instruction set's kernels implement. `Kernels` picks one at run time
// (the best the CPU supports, capped by `SOTTO_KERNELS`); the scalar set is the reference the
// others are tested against.

import TensorFormats

/// The kernel sets, best first.
public enum KernelSetID: String, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    /// AVX-512 F/BW/DQ/VL with VNNI: 16-row interleaved weights, `vpdpbusd` on 512-bit vectors.
    case avx512
    /// AVX2 with FMA and F16C: 8-row interleaved weights, `vpmaddubsw`/`vpmaddwd` on 256-bit vectors.
    case avx2
    /// Swift `SIMD` types only, lowered by the compiler to SSE2 on x86-64 and to NEON on ARM.
    case portable
    /// The plain loops every other set is tested against.
    case scalar

    public var description: String { rawValue }

    /// Lower sets rank higher: `.avx512 < .avx2` reads "avx512 is better than avx2".
    public static func < (a: KernelSetID, b: KernelSetID) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One implementation of the compute kernels. All requirements are static: a set is chosen once
/// and reached through its metatype (`any KernelSet.Type`), so a call crosses one indirect jump
/// and everything inside it is compiled for that set's instruction set.
///
/// Products take whole ranges of rows (or row groups) and activation rows, so the dispatch cost
/// is paid once per work item, not per dot product.
public protocol KernelSet {
    /// Which set this is.
    static var id: KernelSetID { get }

    /// How this set stores repacked weight matrices, or nil when it reads GGUF's rows as they are.
    static var interleave: InterleavedLayout? { get }

    /// `y[t·m.rows + r]` = row `r` of `m` (GGUF's row layout) · activation row `t`.
    static func rowProducts(
        _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, rows: Range<Int>,
        into y: UnsafeMutablePointer<Float>)

    /// `y[t·m.rows + r]` for the rows of row groups `groups` of `m` (this set's interleaved layout).
    static func groupProducts(
        _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, groups: Range<Int>,
        into y: UnsafeMutablePointer<Float>)

    /// Blocks of 32 as `QuantizeReference.q8`, bit for bit.
    static func quantizeQ8(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, ds: UnsafeMutablePointer<Float>,
        halfSum: Bool)

    /// Blocks of 256 as `QuantizeReference.q8K`, bit for bit.
    static func quantizeQ8K(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, d: UnsafeMutablePointer<Float>,
        bsums: UnsafeMutablePointer<Int16>)

    /// `Σ a[i]·b[i]`.
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float
    /// `y[i] += x[i]`.
    static func add(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int)
    /// `y[i] += s·x[i]`.
    static func addScaled(_ x: UnsafePointer<Float>, _ s: Float, into y: UnsafeMutablePointer<Float>, count: Int)
    /// `y[i] *= s`.
    static func scale(_ y: UnsafeMutablePointer<Float>, by s: Float, count: Int)
    /// `y = x / sqrt(mean(x²) + ε) · w`; `y` may equal `x`.
    static func rmsNorm(
        _ x: UnsafePointer<Float>, weight w: UnsafePointer<Float>, epsilon: Float, into y: UnsafeMutablePointer<Float>,
        count: Int)
    /// `gate[i] = silu(gate[i]) · up[i]`.
    static func swiGLU(_ gate: UnsafeMutablePointer<Float>, _ up: UnsafePointer<Float>, count: Int)
    /// Replaces `x[0..<count]` with its softmax.
    static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int)
    /// Rotates `heads` heads of `headDimension` at `x` by the angles in `cos`/`sin` (`pairs` each):
    /// pairs `(2i, 2i+1)` when `adjacentPairs`, else `(i, i + pairs)`.
    static func rotate(
        _ x: UnsafeMutablePointer<Float>, heads: Int, headDimension: Int, pairs: Int, cos: UnsafePointer<Float>,
        sin: UnsafePointer<Float>, adjacentPairs: Bool)
    /// One attention item: softmax(q·Kᵀ·scale)·V for up to four query heads sharing a KV head.
    static func attend(_ item: AttentionItem)
}

/// A weight matrix as the kernels see it: `rows × columns` elements of `type` at `base`, in
/// GGUF's rows or in a set's interleaved groups of rows (`groupStride` bytes per group).
public struct MatrixView {
    public let type: GGMLType
    public let rows: Int
    public let columns: Int
    public let base: UnsafeRawPointer
    /// Bytes of one interleaved group (0 for GGUF's rows).
    public let groupStride: Int

    public init(type: GGMLType, rows: Int, columns: Int, base: UnsafeRawPointer, groupStride: Int) {
        self.type = type
        self.rows = rows
        self.columns = columns
        self.base = base
        self.groupStride = groupStride
    }

    /// Bytes of one row in GGUF's layout.
    @inlinable public var rowBytes: Int { columns / type.blockSize * type.bytesPerBlock }
    /// Blocks per row.
    @inlinable public var blocks: Int { columns / type.blockSize }
    /// Start of row `r` (GGUF's layout).
    @inlinable public func row(_ r: Int) -> UnsafeRawPointer { base + r * rowBytes }
}

/// The input of a product: the float rows, and the quantized forms its matrices need.
public struct ProductInput {
    public let x: UnsafePointer<Float>
    public let columns: Int
    public let q8: ActivationBuffer?
    public let q8_1: ActivationBuffer?
    public let q8K: ActivationBuffer?

    public init(
        x: UnsafePointer<Float>, columns: Int, q8: ActivationBuffer?, q8_1: ActivationBuffer?, q8K: ActivationBuffer?
    ) {
        self.x = x
        self.columns = columns
        self.q8 = q8
        self.q8_1 = q8_1
        self.q8K = q8K
    }

    /// The quantized activations a weight type's kernel reads.
    @inlinable
    public func activations(for type: GGMLType) -> ActivationBuffer {
        switch ActivationKind(type) {
        case .q8: q8!
        case .q8_1: q8_1!
        case .q8K: q8K!
        case .float: preconditionFailure("float weights read the activations as floats")
        }
    }
}

/// One work item of attention: query rows of up to four heads that share a KV head, over
/// `length` cached positions. Missing heads repeat the last one (`heads` says how many are real).
public struct AttentionItem {
    /// Query vectors (already rotated), `dimension` floats each.
    public var queries: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)
    /// Score scratch, `length` rounded up to 16 floats each.
    public var scores:
        (
            UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
            UnsafeMutablePointer<Float>
        )
    /// Output vectors, `dimension` floats each.
    public var outputs:
        (
            UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
            UnsafeMutablePointer<Float>
        )
    /// Keys in tiles of 16 positions: key `d` of position `t` at `(t/16)·16·dimension + 16·d + t%16`.
    public var keys: UnsafePointer<Float>
    /// Values, `[length][dimension]`.
    public var values: UnsafePointer<Float>
    public var dimension: Int
    public var length: Int
    public var scale: Float
    /// Real heads (1…4).
    public var heads: Int

    public init(
        queries: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
        scores: (
            UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
            UnsafeMutablePointer<Float>
        ),
        outputs: (
            UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
            UnsafeMutablePointer<Float>
        ),
        keys: UnsafePointer<Float>, values: UnsafePointer<Float>, dimension: Int, length: Int, scale: Float,
        heads: Int
    ) {
        self.queries = queries
        self.scores = scores
        self.outputs = outputs
        self.keys = keys
        self.values = values
        self.dimension = dimension
        self.length = length
        self.scale = scale
        self.heads = heads
    }
}
