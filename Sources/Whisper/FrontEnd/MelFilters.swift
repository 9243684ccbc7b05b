import Foundation

/// Slaney-style mel filters, as librosa's `filters.mel(sr, n_fft, n_mels)` makes them (and
/// faster-whisper's `FeatureExtractor.get_mel_filters`): triangles between mel points spaced
/// evenly on Slaney's scale (linear below 1 kHz, logarithmic above), each scaled to unit area.
enum MelFilters {
    /// `[melBins][fftLength / 2 + 1]` weights, row-major.
    static func make(sampleRate: Int, fftLength: Int, melBins: Int) -> [Float] {
        let bins = fftLength / 2 + 1
        let frequencies = (0..<bins).map { Double($0) * Double(sampleRate) / Double(fftLength) }
        let minimumMel = 0.0
        let maximumMel = hertzToMel(Double(sampleRate) / 2)
        let points = (0..<(melBins + 2)).map { i in
            melToHertz(minimumMel + (maximumMel - minimumMel) * Double(i) / Double(melBins + 1))
        }
        var weights = [Float](repeating: 0, count: melBins * bins)
        for m in 0..<melBins {
            let lower = points[m], center = points[m + 1], upper = points[m + 2]
            let norm = 2 / (upper - lower)
            for k in 0..<bins {
                let rising = (frequencies[k] - lower) / (center - lower)
                let falling = (upper - frequencies[k]) / (upper - center)
                weights[m * bins + k] = Float(max(0, min(rising, falling)) * norm)
            }
        }
        return weights
    }

    static let linearStep = 200.0 / 3
    static let logRegionStart = 1000.0
    static let logStep = log(6.4) / 27

    static func hertzToMel(_ f: Double) -> Double {
        if f < logRegionStart { return f / linearStep }
        return logRegionStart / linearStep + log(f / logRegionStart) / logStep
    }

    static func melToHertz(_ mel: Double) -> Double {
        let start = logRegionStart / linearStep
        if mel < start { return mel * linearStep }
        return logRegionStart * exp(logStep * (mel - start))
    }
}
