import Foundation

/// Sample-rate conversion by band-limited interpolation: each output sample is a windowed-sinc
/// (Kaiser, β = 8.6) sum of the input around its position, the cutoff at the lower of the two
/// Nyquist frequencies (with a 5 % transition band below it) so that downsampling does not alias.
/// The filter is tabulated finely (512 phases per input sample) and interpolated linearly.
public enum Resampler {
    /// Zero crossings of the sinc on each side.
    static let halfWidth = 24
    static let phases = 512
    static let beta = 8.6

    /// The filter table: `halfWidth · phases + 1` values of the windowed sinc at `i / phases`
    /// zero crossings from the center.
    static let table: [Double] = {
        let count = halfWidth * phases + 1
        let denominator = besselI0(beta)
        return (0..<count).map { i in
            let x = Double(i) / Double(phases)
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            let r = x / Double(halfWidth)
            let window = besselI0(beta * (1 - r * r).squareRoot()) / denominator
            return sinc * window
        }
    }()

    /// `samples` at `sourceRate` converted to `targetRate`.
    public static func resample(_ samples: [Float], from sourceRate: Int, to targetRate: Int) -> [Float] {
        guard sourceRate != targetRate, !samples.isEmpty else { return samples }
        let ratio = Double(targetRate) / Double(sourceRate)
        let outputCount = Int((Double(samples.count) * ratio).rounded(.down))
        // Cutoff relative to the input's Nyquist frequency.
        let cutoff = min(1, ratio) * 0.95
        let step = cutoff  // zero crossings of the scaled sinc per input sample
        let reach = Double(halfWidth) / step  // input samples on each side
        var out = [Float](repeating: 0, count: outputCount)
        table.withUnsafeBufferPointer { table in
            samples.withUnsafeBufferPointer { x in
                for n in 0..<outputCount {
                    let center = Double(n) / ratio
                    let first = max(0, Int((center - reach).rounded(.up)))
                    let last = min(samples.count - 1, Int((center + reach).rounded(.down)))
                    var sum = 0.0
                    if first <= last {
                        for i in first...last {
                            let distance = abs(Double(i) - center) * step * Double(phases)
                            let index = Int(distance)
                            guard index < table.count - 1 else { continue }
                            let fraction = distance - Double(index)
                            let weight = table[index] + (table[index + 1] - table[index]) * fraction
                            sum += Double(x[i]) * weight
                        }
                    }
                    out[n] = Float(sum * cutoff)
                }
            }
        }
        return out
    }

    /// The modified Bessel function of the first kind, order 0 (its series).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0
        let half = x / 2
        for k in 1..<64 {
            term *= (half / Double(k)) * (half / Double(k))
            sum += term
            if term < sum * 1e-17 { break }
        }
        return sum
    }
}
