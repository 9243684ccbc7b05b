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

    /// `x = gelu(x)` with the exact (erf) form, for `count` floats.
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int, pool: ThreadPool) {
        let chunk = 4096
        parallelRows((count + chunk - 1) / chunk, pool: pool, minimumRows: 4) { c in
            let end = min(count, (c + 1) * chunk)
            for i in (c * chunk)..<end { x[i] = 0.5 * x[i] * (1 + erf(x[i] * 0.70710678118654752)) }
        }
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
