import Foundation
import Kernels

/// The element-wise steps of the network, on rows of floats. Compiled for the baseline CPU (the
/// products and attention run in the kernel sets); rows are split among the pool's threads.
enum Layers {
    /// `y[t] = (x[t] − mean) / sqrt(var + 1e-5) · γ + β` for `n` rows of `width`.
    static func layerNorm(
        _ x: UnsafePointer<Float>, rows n: Int, width: Int, _ norm: Norm, into y: UnsafeMutablePointer<Float>,
        pool: ThreadPool
    ) {
        parallelRows(n, pool: pool, minimumRows: 16) { t in
            let row = x + t * width, out = y + t * width
            var sum: Float = 0
            for i in 0..<width { sum += row[i] }
            let mean = sum / Float(width)
            var squares: Float = 0
            for i in 0..<width {
                let d = row[i] - mean
                squares += d * d
            }
            let scale = 1 / (squares / Float(width) + 1e-5).squareRoot()
            for i in 0..<width { out[i] = (row[i] - mean) * scale * norm.gamma[i] + norm.beta[i] }
        }
    }

    /// `x = gelu(x)` in its exact form, `x/2 · (1 + erf(x/√2))`, for `count` floats.
    ///
    /// erf is Abramowitz and Stegun's 7.1.28, `1 − (1 + a₁t + … + a₆t⁶)^−16` (absolute error
    /// below 3·10⁻⁷): polynomials and a division only, so eight lanes at a time in baseline SIMD
    /// (libm's `erff` cost a twentieth of the encoder's time).
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int, pool: ThreadPool) {
        let chunk = 4096
        parallelRows((count + chunk - 1) / chunk, pool: pool, minimumRows: 4) { c in
            var i = c * chunk
            let end = min(count, (c + 1) * chunk)
            while i + 8 <= end {
                let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(x + i).storeBytes(of: geluLanes(v), as: SIMD8<Float>.self)
                i += 8
            }
            while i < end {
                x[i] = geluLanes(SIMD8<Float>(repeating: x[i]))[0]
                i += 1
            }
        }
    }

    @inline(__always)
    static func geluLanes(_ v: SIMD8<Float>) -> SIMD8<Float> {
        let t = v * 0.70710678118654752
        let a = t.replacing(with: -t, where: t .< 0)
        var p = SIMD8<Float>(repeating: 0.0000430638)
        p = p * a + 0.0002765672
        p = p * a + 0.0001520143
        p = p * a + 0.0092705272
        p = p * a + 0.0422820123
        p = p * a + 0.0705230784
        p = p * a + 1
        let p2 = p * p, p4 = p2 * p2, p8 = p4 * p4, p16 = p8 * p8
        let e = 1 - 1 / p16
        let erf = e.replacing(with: -e, where: t .< 0)
        return 0.5 * v * (1 + erf)
    }

    /// `y[i] += x[i]` for `count` floats.
    static func add(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { y[i] += x[i] }
    }

    /// Runs `body(row)` for rows `0..<n`, on the pool's threads when there are enough rows.
    static func parallelRows(_ n: Int, pool: ThreadPool, minimumRows: Int, _ body: (Int) -> Void) {
        if n < minimumRows || pool.threadCount == 1 {
            for t in 0..<n { body(t) }
            return
        }
        pool.run { thread, threads in
            let first = n * thread / threads, last = n * (thread + 1) / threads
            for t in first..<last { body(t) }
        }
    }
}
