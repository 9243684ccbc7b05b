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

    /// Fills `table` with `[count][d/2]` cosines followed by `[count][d/2]` sines for positions
    /// `start..<start + count`.
    ///
    /// Angles are computed in float by repeated multiplication, exactly as ggml's rope cache does,
    /// so that rotated keys and queries round the same way as llama.cpp's.
    func fillTable(_ table: UnsafeMutablePointer<Float>, start: Int, count: Int) {
        let half = dimensions / 2
        let sines = table + count * half
        for t in 0..<count {
            var theta = Float(start + t)
            for i in 0..<half {
                table[t * half + i] = cosf(theta)
                sines[t * half + i] = sinf(theta)
                theta *= thetaScale
            }
        }
    }

    /// Rotates `heads` consecutive heads at `x` with the angles in `cos`/`sin` (d/2 each).
    @inline(__always)
    func apply(
        _ x: UnsafeMutablePointer<Float>, heads: Int, cos: UnsafePointer<Float>, sin: UnsafePointer<Float>
    ) {
        let half = dimensions / 2
        for h in 0..<heads {
            let v = x + h * headDimension
            switch style {
            case .adjacentPairs:
                for i in 0..<half {
                    let a = v[2 * i]
                    let b = v[2 * i + 1]
                    v[2 * i] = a * cos[i] - b * sin[i]
                    v[2 * i + 1] = a * sin[i] + b * cos[i]
                }
            case .halves:
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
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
