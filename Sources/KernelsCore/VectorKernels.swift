// The forward pass's small vector operations, written once with Swift's SIMD types and compiled
// by each kernel set: the bodies are `@inlinable`, so every set's module instantiates them with
// its own instruction set (AVX-512, AVX2, or the baseline's SSE2 / NEON). Hot loops take raw
// pointers so they compile to plain vector loads and stores.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sixteen float lanes: one AVX-512 register, two AVX2 registers, four SSE or NEON registers.
public typealias Vector = SIMD16<Float>

/// How a set computes `a·b + c` lane-wise: sets whose target has FMA fuse it (`c.addingProduct(a,
/// b)`: `vfmadd…` on x86-64, `fmla` on ARM); the baseline x86-64 target has none, where
/// `addingProduct` would call `fmaf` once per lane, so it multiplies and adds.
///
/// Each kernel module conforms a type of its own, never a shared one: `VectorKernels<M>` is
/// specialized in every module that uses it, and a specialization's symbol is named after its
/// generic arguments. With a module's own `M` the AVX-512 module's `softmax` and the AVX2 module's
/// are different symbols; with a shared one they would be one name the linker merges, and a CPU
/// without AVX-512 could end up in AVX-512 code (`scripts/check-kernel-symbols` checks this).
public protocol MultiplyAdd {
    static func madd(_ a: Vector, _ b: Vector, _ c: Vector) -> Vector
}

@inlinable @inline(__always)
public func load(_ p: UnsafePointer<Float>) -> Vector {
    UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
}

@inlinable @inline(__always)
public func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vector.self)
}

/// Lane-wise maximum. (The generic `pointwiseMax`/`clamped` go through the stack lane by lane;
/// a vector compare and blend compiles to two instructions.)
@inlinable @inline(__always)
public func maximum(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: b .> a) }

/// Lane-wise minimum.
@inlinable @inline(__always)
public func minimum(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: b .< a) }

/// The vector operations, for a kernel set whose products fuse (or not) as `M` says.
public enum VectorKernels<M: MultiplyAdd> {
    @inlinable @inline(__always)
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var acc0 = Vector()
        var acc1 = Vector()
        var i = 0
        while i + 32 <= count {
            acc0 = M.madd(load(a + i), load(b + i), acc0)
            acc1 = M.madd(load(a + i + 16), load(b + i + 16), acc1)
            i += 32
        }
        if i + 16 <= count {
            acc0 = M.madd(load(a + i), load(b + i), acc0)
            i += 16
        }
        var sum = (acc0 + acc1).sum()
        while i < count {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }

    @inlinable @inline(__always)
    public static func addScaled(
        _ x: UnsafePointer<Float>, _ s: Float, into y: UnsafeMutablePointer<Float>, count: Int
    ) {
        var i = 0
        let sv = Vector(repeating: s)
        while i + 16 <= count {
            store(M.madd(sv, load(x + i), load(y + i)), y + i)
            i += 16
        }
        while i < count {
            y[i] += s * x[i]
            i += 1
        }
    }

    @inlinable
    public static func add(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 16 <= count {
            store(load(y + i) + load(x + i), y + i)
            i += 16
        }
        while i < count {
            y[i] += x[i]
            i += 1
        }
    }

    @inlinable
    public static func scale(_ y: UnsafeMutablePointer<Float>, by s: Float, count: Int) {
        var i = 0
        while i + 16 <= count {
            store(load(y + i) * s, y + i)
            i += 16
        }
        while i < count {
            y[i] *= s
            i += 1
        }
    }

    /// RMSNorm, rounded as ggml does it (float squares summed in double, in order; mean and scale
    /// in float; `(x·scale)·w`): the next product quantizes `y` to 8 bits, where a one-ulp
    /// difference can move a value to the next quantization step, so matching llama.cpp's
    /// rounding keeps the two engines' outputs close.
    @inlinable
    public static func rmsNorm(
        _ x: UnsafePointer<Float>, weight w: UnsafePointer<Float>, epsilon: Float,
        into y: UnsafeMutablePointer<Float>, count: Int
    ) {
        var sum: Double = 0
        for i in 0..<count { sum += Double(x[i] * x[i]) }
        let mean = Float(sum / Double(count))
        let s = 1 / (mean + epsilon).squareRoot()
        var i = 0
        let sv = Vector(repeating: s)
        while i + 16 <= count {
            store(load(x + i) * sv * load(w + i), y + i)
            i += 16
        }
        while i < count {
            y[i] = x[i] * s * w[i]
            i += 1
        }
    }

    /// `gate[i] = silu(gate[i]) · up[i]`, silu(g) = g / (1 + e^−g) (SwiGLU).
    @inlinable
    public static func swiGLU(_ gate: UnsafeMutablePointer<Float>, _ up: UnsafePointer<Float>, count: Int) {
        var i = 0
        let one = Vector(repeating: 1)
        while i + 16 <= count {
            let g = load(gate + i)
            store(g / (one + exp(-g)) * load(up + i), gate + i)
            i += 16
        }
        while i < count {
            let g = gate[i]
            gate[i] = g / (1 + expf(-g)) * up[i]
            i += 1
        }
    }

    /// Replaces `x[0..<count]` with its softmax.
    @inlinable
    public static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        var peak = Vector(repeating: -.infinity)
        while i + 16 <= count {
            peak = maximum(peak, load(x + i))
            i += 16
        }
        var largest = -Float.infinity
        for lane in 0..<16 { largest = max(largest, peak[lane]) }
        while i < count {
            largest = max(largest, x[i])
            i += 1
        }
        i = 0
        var acc = Vector()
        let m = Vector(repeating: largest)
        while i + 16 <= count {
            let e = exp(load(x + i) - m)
            store(e, x + i)
            acc += e
            i += 16
        }
        var sum = Double(acc.sum())
        while i < count {
            let e = expf(x[i] - largest)
            x[i] = e
            sum += Double(e)
            i += 1
        }
        scale(x, by: Float(1 / sum), count: count)
    }

    /// Rotary embedding of `heads` heads (see `KernelSet.rotate`).
    @inlinable
    public static func rotate(
        _ x: UnsafeMutablePointer<Float>, heads: Int, headDimension: Int, pairs half: Int, cos: UnsafePointer<Float>,
        sin: UnsafePointer<Float>, adjacentPairs: Bool
    ) {
        for h in 0..<heads {
            let v = x + h * headDimension
            if adjacentPairs {
                for i in 0..<half {
                    let a = v[2 * i]
                    let b = v[2 * i + 1]
                    v[2 * i] = a * cos[i] - b * sin[i]
                    v[2 * i + 1] = a * sin[i] + b * cos[i]
                }
                continue
            }
            var i = 0
            while i + 16 <= half {
                let a = load(v + i)
                let b = load(v + i + half)
                let c = load(cos + i)
                let s = load(sin + i)
                store(a * c - b * s, v + i)
                store(a * s + b * c, v + i + half)
                i += 16
            }
            while i < half {
                let a = v[i]
                let b = v[i + half]
                v[i] = a * cos[i] - b * sin[i]
                v[i + half] = a * sin[i] + b * cos[i]
                i += 1
            }
        }
    }

    /// e^x lane by lane, within 2 ulp (Cephes' expf polynomial) for x in [−87.3, 88.7]; inputs are
    /// clamped to that range, so below it the result is ≈ 1.2e−38 instead of 0 and above it
    /// ≈ 3.4e38 instead of +∞ — harmless for softmax (x ≤ 0) and SiLU, and cheaper than masking.
    ///
    /// Rounding to an integer and converting to Int32 go through the "magic number" 1.5·2²³
    /// (adding it rounds to nearest even and leaves the integer in the low mantissa bits): the
    /// generic SIMD `rounded` and Float→Int32 conversions compile to slow element loops.
    @inlinable @inline(__always)
    public static func exp(_ x: Vector) -> Vector {
        let magic = Vector(repeating: 12_582_912)  // 1.5 · 2^23
        let clamped = minimum(maximum(x, Vector(repeating: -87.336_544)), Vector(repeating: 88.722_839))
        let shifted = M.madd(clamped, Vector(repeating: 1.442_695_040_888_963_4), magic)
        let n = shifted - magic
        // r = x − n·ln 2, with ln 2 split in two for precision.
        var r = clamped - n * Vector(repeating: 0.693_359_375)
        r = r + n * Vector(repeating: 2.121_944_4e-4)
        var p = Vector(repeating: 1.987_569_150_0e-4)
        p = p * r + Vector(repeating: 1.398_199_950_7e-3)
        p = p * r + Vector(repeating: 8.333_451_907_3e-3)
        p = p * r + Vector(repeating: 4.166_579_589_4e-2)
        p = p * r + Vector(repeating: 1.666_666_545_9e-1)
        p = p * r + Vector(repeating: 5.000_000_120_1e-1)
        let y = p * (r * r) + r + Vector(repeating: 1)
        // 2^n from the exponent bits; n ∈ [−126, 128] after the clamp, so build it in two steps.
        let ni = unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- 0x4B40_0000
        let half = ni &>> 1
        let scale1 = unsafeBitCast((half &+ 127) &<< 23, to: Vector.self)
        let scale2 = unsafeBitCast((ni &- half &+ 127) &<< 23, to: Vector.self)
        return y * scale1 * scale2
    }
}

/// A kernel set whose vector math is `VectorKernels` and `AttentionKernels`, compiled in the
/// set's own module: the witnesses below are `@inlinable`, so the conformance instantiates them
/// with that module's instruction set.
public protocol SIMDVectorMath: KernelSet {
    associatedtype Arithmetic: MultiplyAdd
}

extension SIMDVectorMath {
    @inlinable
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        VectorKernels<Arithmetic>.dot(a, b, count: count)
    }

    @inlinable
    public static func add(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        VectorKernels<Arithmetic>.add(x, into: y, count: count)
    }

    @inlinable
    public static func addScaled(
        _ x: UnsafePointer<Float>, _ s: Float, into y: UnsafeMutablePointer<Float>, count: Int
    ) {
        VectorKernels<Arithmetic>.addScaled(x, s, into: y, count: count)
    }

    @inlinable
    public static func scale(_ y: UnsafeMutablePointer<Float>, by s: Float, count: Int) {
        VectorKernels<Arithmetic>.scale(y, by: s, count: count)
    }

    @inlinable
    public static func rmsNorm(
        _ x: UnsafePointer<Float>, weight w: UnsafePointer<Float>, epsilon: Float,
        into y: UnsafeMutablePointer<Float>, count: Int
    ) {
        VectorKernels<Arithmetic>.rmsNorm(x, weight: w, epsilon: epsilon, into: y, count: count)
    }

    @inlinable
    public static func swiGLU(_ gate: UnsafeMutablePointer<Float>, _ up: UnsafePointer<Float>, count: Int) {
        VectorKernels<Arithmetic>.swiGLU(gate, up, count: count)
    }

    @inlinable
    public static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        VectorKernels<Arithmetic>.softmax(x, count: count)
    }

    @inlinable
    public static func rotate(
        _ x: UnsafeMutablePointer<Float>, heads: Int, headDimension: Int, pairs: Int, cos: UnsafePointer<Float>,
        sin: UnsafePointer<Float>, adjacentPairs: Bool
    ) {
        VectorKernels<Arithmetic>.rotate(
            x, heads: heads, headDimension: headDimension, pairs: pairs, cos: cos, sin: sin,
            adjacentPairs: adjacentPairs)
    }

    @inlinable
    public static func attend(_ item: AttentionItem) {
        AttentionKernels<Arithmetic>.attend(item)
    }
}
