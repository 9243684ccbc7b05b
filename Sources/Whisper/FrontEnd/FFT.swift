import Foundation

/// A complex discrete Fourier transform of one fixed length, any length whose prime factors are
/// small (Whisper's 400 = 4 · 4 · 5 · 5): mixed-radix decimation in time, the twiddle factors
/// computed once, in double precision (the spectrum's small bins decide the log-mel floor).
///
/// ```swift
/// let fft = MixedRadixFFT(length: 400)
/// fft.transform(real: frame, re: &re, im: &im)   // re[k] + i·im[k] = Σ x[n]·e^(−2πikn/N)
/// ```
public struct MixedRadixFFT: Sendable {
    public let length: Int
    /// Doubles of scratch `transform` needs: the imaginary input and a butterfly's 2 × 7.
    public var scratchCount: Int { length + 14 }
    /// The radices, in the order the recursion splits by them.
    let factors: [Int]
    /// `e^(−2πij/N)` for j in 0..<N.
    let cosines: [Double]
    let sines: [Double]

    /// A transform of `length` points.
    /// - Precondition: `length` ≥ 1 and its prime factors are all at most 7.
    public init(length: Int) {
        precondition(length >= 1, "an FFT needs at least one point")
        var factors: [Int] = []
        var n = length
        for p in [4, 2, 3, 5, 7] {
            while n % p == 0 {
                factors.append(p)
                n /= p
            }
        }
        precondition(n == 1, "\(length) has a prime factor above 7")
        self.length = length
        self.factors = factors
        cosines = (0..<length).map { cos(-2 * Double.pi * Double($0) / Double(length)) }
        sines = (0..<length).map { sin(-2 * Double.pi * Double($0) / Double(length)) }
    }

    /// The spectrum of `length` real samples at `input`, into `re`/`im` (`length` each);
    /// `scratch` holds ``scratchCount`` doubles.
    public func transform(
        real input: UnsafePointer<Double>, re: UnsafeMutablePointer<Double>, im: UnsafeMutablePointer<Double>,
        scratch: UnsafeMutablePointer<Double>
    ) {
        let zeros = scratch
        zeros.initialize(repeating: 0, count: length)
        step(
            xr: input, xi: zeros, stride: 1, n: length, level: 0, outRe: re, outIm: im,
            scratch: scratch + length)
    }

    /// One level of the recursion: the `n`-point DFT of `x[0], x[stride], …` into `out`.
    private func step(
        xr: UnsafePointer<Double>, xi: UnsafePointer<Double>, stride: Int, n: Int, level: Int,
        outRe: UnsafeMutablePointer<Double>, outIm: UnsafeMutablePointer<Double>,
        scratch: UnsafeMutablePointer<Double>
    ) {
        if n == 1 {
            outRe[0] = xr[0]
            outIm[0] = xi[0]
            return
        }
        let p = factors[level]
        let m = n / p
        // The p sub-transforms of the decimated sequences, side by side in out.
        for r in 0..<p {
            step(
                xr: xr + r * stride, xi: xi + r * stride, stride: stride * p, n: m, level: level + 1,
                outRe: outRe + r * m, outIm: outIm + r * m, scratch: scratch)
        }
        // Butterflies: X[k + q·m] = Σ_r W_n^(r·k) · Y_r[k] · W_p^(r·q).
        let twiddleStep = length / n
        let rootStep = length / p
        let tr = scratch, ti = scratch + p
        for k in 0..<m {
            for r in 0..<p {
                let yr = outRe[r * m + k], yi = outIm[r * m + k]
                let w = (r * k * twiddleStep) % length
                tr[r] = yr * cosines[w] - yi * sines[w]
                ti[r] = yr * sines[w] + yi * cosines[w]
            }
            for q in 0..<p {
                var sr = 0.0, si = 0.0
                for r in 0..<p {
                    let w = (r * q * rootStep) % length
                    sr += tr[r] * cosines[w] - ti[r] * sines[w]
                    si += tr[r] * sines[w] + ti[r] * cosines[w]
                }
                outRe[k + q * m] = sr
                outIm[k + q * m] = si
            }
        }
    }
}
