import KernelsCore

/// Rotary position embedding: rotates pairs of a head's dimensions by position-dependent angles
/// θ_i = pos · base^(−2i/d) for the first `d` (= `ropeDimensionCount`) dimensions.
struct RotaryEmbedding {
    let style: RopeStyle
    let dimensions: Int
    let headDimension: Int
    /// base^(−2/d): each pair's angle is the previous one's times this.
    private let thetaScale: Float

    init(config: ModelConfig) {
        style = config.ropeStyle
        dimensions = config.ropeDimensionCount
        headDimension = config.headDimension
        thetaScale = powf(Float(config.ropeFrequencyBase), -2 / Float(config.ropeDimensionCount))
    }

    /// Fills `cos` and `sin` with `[count][d/2]` cosines and sines for positions
    /// `start..<start + count`.
    ///
    /// Angles are computed in float by repeated multiplication, exactly as ggml's rope cache does,
    /// so that rotated keys and queries round the same way as llama.cpp's.
    func fillTable(cos: UnsafeMutablePointer<Float>, sin: UnsafeMutablePointer<Float>, start: Int, count: Int) {
        let half = dimensions / 2
        for t in 0..<count {
            var theta = Float(start + t)
            for i in 0..<half {
                cos[t * half + i] = cosf(theta)
                sin[t * half + i] = sinf(theta)
                theta *= thetaScale
            }
        }
    }

    /// Rotates `heads` consecutive heads at `x` with the angles in `cos`/`sin` (d/2 each).
    @inline(__always)
    func apply(
        _ x: UnsafeMutablePointer<Float>, heads: Int, cos: UnsafePointer<Float>, sin: UnsafePointer<Float>,
        kernels: any KernelSet.Type
    ) {
        kernels.rotate(
            x, heads: heads, headDimension: headDimension, pairs: dimensions / 2, cos: cos, sin: sin,
            adjacentPairs: style == .adjacentPairs)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
