// Helpers of the portable kernels: Swift `SIMD` types only, no intrinsics, so the compiler lowers
// them to SSE2 on x86-64 (the baseline, no flags in Package.swift) and to NEON on ARM. Each helper
// is written in the shape LLVM recognizes as one instruction where the target has it: `madd` is
// `pmaddwd` on SSE2 (`smull` + `addp` on NEON), `&*`/`&+` on Int16 lanes `pmullw`/`paddw`.

import KernelsCore

typealias Chunk = (SIMD16<UInt8>, SIMD16<UInt8>)

/// Σ of adjacent Int16 products into Int32 lanes. Written lane by lane: LLVM matches this shape
/// to one `pmaddwd` (SSE2); the generic `SIMD8<Int32>(truncatingIfNeeded:)` is not inlined in
/// larger kernels and would turn every widening into a call.
@inline(__always)
func madd(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD4<Int32> {
    SIMD4<Int32>(
        Int32(a[0]) &* Int32(b[0]) &+ Int32(a[1]) &* Int32(b[1]),
        Int32(a[2]) &* Int32(b[2]) &+ Int32(a[3]) &* Int32(b[3]),
        Int32(a[4]) &* Int32(b[4]) &+ Int32(a[5]) &* Int32(b[5]),
        Int32(a[6]) &* Int32(b[6]) &+ Int32(a[7]) &* Int32(b[7]))
}

/// 16 activations (four chunks of 4) split into the Int16 pairs a chunk product multiplies:
/// lane c of `even` holds (a[4c], a[4c+2]), of `odd` (a[4c+1], a[4c+3]), sign-extended.
struct ActivationQuads {
    let even: SIMD4<UInt32>
    let odd: SIMD4<UInt32>

    @inline(__always)
    init(_ p: UnsafeRawPointer) {
        let x = p.loadUnaligned(as: SIMD8<Int16>.self)
        even = unsafeBitCast((x &<< 8) &>> 8, to: SIMD4<UInt32>.self)
        odd = unsafeBitCast(x &>> 8, to: SIMD4<UInt32>.self)
    }

    /// Chunk c's pattern, repeated for four rows (one `pshufd` each).
    @inline(__always)
    func pattern(_ c: Int) -> Pattern {
        Pattern(
            even: unsafeBitCast(SIMD4<UInt32>(repeating: even[c]), to: SIMD8<Int16>.self),
            odd: unsafeBitCast(SIMD4<UInt32>(repeating: odd[c]), to: SIMD8<Int16>.self))
    }
}

/// Four activations as (a0, a2) and (a1, a3) Int16 pairs, repeated for four rows.
struct Pattern {
    let even: SIMD8<Int16>
    let odd: SIMD8<Int16>
}

/// 16 bytes of a chunk (4 rows × 4 weights, row i at bytes 4i..<4i+4) as 16-bit lanes split into
/// the weights the patterns meet: lane 2i of `even` holds row i's weight 0, lane 2i+1 weight 2;
/// `odd` weights 1 and 3. Masks and shifts only: no widening shuffles.
struct WeightQuads {
    var even: SIMD8<Int16>
    var odd: SIMD8<Int16>

    /// Plain bytes, unsigned (`signed`: two's complement).
    @inline(__always)
    init(bytes q: SIMD16<UInt8>, signed: Bool) {
        let lanes = unsafeBitCast(q, to: SIMD8<Int16>.self)
        even = signed ? (lanes &<< 8) &>> 8 : lanes & 0x00FF
        odd =
            signed
            ? lanes &>> 8 : unsafeBitCast(unsafeBitCast(lanes, to: SIMD8<UInt16>.self) &>> 8, to: SIMD8<Int16>.self)
    }

    /// The low (`high: false`) or high nibbles of 16 bytes.
    @inline(__always)
    init(nibbles q: SIMD16<UInt8>, high: Bool) {
        let lanes = unsafeBitCast(q, to: SIMD8<UInt16>.self)
        let e = high ? (lanes &>> 4) & 0x000F : lanes & 0x000F
        let o = high ? lanes &>> 12 : (lanes &>> 8) & 0x000F
        even = unsafeBitCast(e, to: SIMD8<Int16>.self)
        odd = unsafeBitCast(o, to: SIMD8<Int16>.self)
    }

    /// Adds 16 (the fifth bit) to the weight of byte b wherever bit b of `bits` is set (the low
    /// 16 bits, for the 16 bytes these lanes came from): lane i of `even` is byte 2i, of `odd`
    /// byte 2i + 1. One broadcast, then `pand`, `pcmpeqw`, `pand` for each half.
    @inline(__always)
    mutating func addFifthBits(_ bits: UInt32) {
        let m = SIMD8<UInt16>(repeating: UInt16(truncatingIfNeeded: bits))
        let evenBits = SIMD8<UInt16>(0x1, 0x4, 0x10, 0x40, 0x100, 0x400, 0x1000, 0x4000)
        let oddBits = evenBits &<< 1
        even |= unsafeBitCast((m & evenBits) .== evenBits, to: SIMD8<Int16>.self) & 0x10
        odd |= unsafeBitCast((m & oddBits) .== oddBits, to: SIMD8<Int16>.self) & 0x10
    }
}

/// Int16 partial sums of 4 rows: lane 2i holds row i's Σ w0·a0 + w1·a1 over the chunks added,
/// lane 2i+1 its Σ w2·a2 + w3·a3. Each chunk adds two products of at most 127·|w| to a lane, so
/// callers widen (`rows`) before the sum could pass 2¹⁵: after 8 chunks of 4-bit weights (16 ×
/// 1,905), 4 of 5-bit ones (8 × 3,937), 2 of 6-bit ones (4 × 8,001), 1 of 8-bit ones (2 × 16,256).
struct QuadSums {
    var lanes = SIMD8<Int16>()

    @inline(__always)
    mutating func add(_ w: WeightQuads, _ a: Pattern) {
        lanes &+= w.even &* a.even &+ w.odd &* a.odd
    }

    /// Each row's sum: its two lanes added, as Int32.
    @inline(__always)
    var rows: SIMD4<Int32> {
        let x = unsafeBitCast(lanes, to: SIMD4<Int32>.self)
        return ((x &<< 16) &>> 16) &+ (x &>> 16)
    }
}

/// Exact Int32 sums of 8 rows (a group): rows 0–3 and 4–7.
struct RowSums {
    var low = SIMD4<Int32>()
    var high = SIMD4<Int32>()

    @inline(__always)
    mutating func add(_ a: QuadSums, _ b: QuadSums) {
        low &+= a.rows
        high &+= b.rows
    }

    @inline(__always)
    var floats: SIMD8<Float> {
        SIMD8<Float>(
            Float(low[0]), Float(low[1]), Float(low[2]), Float(low[3]), Float(high[0]), Float(high[1]),
            Float(high[2]), Float(high[3]))
    }

    @inline(__always)
    static func &- (sums: RowSums, offset: Int32) -> RowSums {
        RowSums(low: sums.low &- offset, high: sums.high &- offset)
    }
}

/// 32 bytes at `p` as two 16-byte halves (rows 0–3, rows 4–7 of a chunk).
@inline(__always)
func loadChunk(_ p: UnsafeRawPointer) -> (SIMD16<UInt8>, SIMD16<UInt8>) {
    (p.loadUnaligned(as: SIMD16<UInt8>.self), p.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self))
}

/// `a·b + c`, fused where the baseline target has FMA (ARM), two roundings on x86-64's SSE2.
@inline(__always)
func madd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
    #if arch(arm64)
        c.addingProduct(a, b)
    #else
        a * b + c
    #endif
}

/// Eight IEEE binary16 values at `p` as floats, by bit manipulation (the baseline x86-64 target
/// has no F16C; `Float(Float16)` would call a library routine per lane). Exact for finite values,
/// subnormals included: the magnitude's bits shifted into a float's place are the value ·2⁻¹¹²,
/// which one multiplication restores. Infinities and NaNs (never in weights) come out finite.
@inline(__always)
func halves(_ p: UnsafeRawPointer) -> SIMD8<Float> {
    let pairs = p.loadUnaligned(as: SIMD4<UInt32>.self)
    let first = pairs & 0xFFFF, second = pairs &>> 16
    let bits = SIMD8<UInt32>(
        lowHalf: SIMD4(first[0], second[0], first[1], second[1]),
        highHalf: SIMD4(first[2], second[2], first[3], second[3]))
    let magnitude = unsafeBitCast((bits & 0x7FFF) &<< 13, to: SIMD8<Float>.self) * SIMD8<Float>(repeating: 0x1p112)
    return unsafeBitCast(
        unsafeBitCast(magnitude, to: SIMD8<UInt32>.self) | ((bits & 0x8000) &<< 16), to: SIMD8<Float>.self)
}

/// 0x10 in byte k where bit k of `bits` is set (the fifth bit of Q5 quants), for the two halves
/// of a chunk: each mask byte is spread over eight bytes by a multiplication, then tested bit by bit.
@inline(__always)
func fifthBits(_ bits: UInt32) -> (SIMD16<UInt8>, SIMD16<UInt8>) {
    @inline(__always) func half(_ b: UInt32) -> SIMD16<UInt8> {
        let spread = SIMD2<UInt64>(
            UInt64(b & 0xFF) &* 0x0101_0101_0101_0101, UInt64((b >> 8) & 0xFF) &* 0x0101_0101_0101_0101)
        let select = unsafeBitCast(SIMD2<UInt64>(repeating: 0x8040_2010_0804_0201), to: SIMD16<UInt8>.self)
        let set = (unsafeBitCast(spread, to: SIMD16<UInt8>.self) & select) .== select
        return SIMD16<UInt8>(repeating: 0).replacing(with: 0x10, where: set)
    }
    return (half(bits & 0xFFFF), half(bits >> 16))
}

/// The low and high nibbles of a chunk.
@inline(__always)
func nibbles(_ q: (SIMD16<UInt8>, SIMD16<UInt8>)) -> (
    low: (SIMD16<UInt8>, SIMD16<UInt8>), high: (SIMD16<UInt8>, SIMD16<UInt8>)
) {
    ((q.0 & 0x0F, q.1 & 0x0F), ((q.0 &>> 4) & 0x0F, (q.1 &>> 4) & 0x0F))
}

/// Bytes of two chunk halves or-ed together.
@inline(__always)
func | (a: (SIMD16<UInt8>, SIMD16<UInt8>), b: (SIMD16<UInt8>, SIMD16<UInt8>)) -> (SIMD16<UInt8>, SIMD16<UInt8>) {
    (a.0 | b.0, a.1 | b.1)
}
