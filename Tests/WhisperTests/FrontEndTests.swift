import Foundation
import TestSupport
import Testing

@testable import Whisper

@Suite("Log-mel front end")
struct FrontEndTests {
    /// The mixed-radix FFT against the plain DFT, for Whisper's 400 and other lengths.
    @Test(.onTestThreads, arguments: [400, 1, 2, 5, 12, 60, 128, 175])
    func fftMatchesTheDefinition(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let x = (0..<length).map { _ in Double.random(in: -1...1, using: &generator) }
        let fft = MixedRadixFFT(length: length)
        var re = [Double](repeating: 0, count: length), im = re
        var scratch = [Double](repeating: 0, count: fft.scratchCount)
        x.withUnsafeBufferPointer { x in
            fft.transform(real: x.baseAddress!, re: &re, im: &im, scratch: &scratch)
        }
        for k in 0..<length {
            var sr = 0.0, si = 0.0
            for n in 0..<length {
                let angle = -2 * Double.pi * Double(k * n) / Double(length)
                sr += x[n] * cos(angle)
                si += x[n] * sin(angle)
            }
            #expect(abs(re[k] - sr) < 1e-9 && abs(im[k] - si) < 1e-9, "bin \(k) of \(length)")
        }
    }

    /// Slaney's scale: 1 kHz is 15 mels, and the conversion round-trips.
    @Test(.onTestThreads) func melScale() {
        #expect(abs(MelFilters.hertzToMel(1000) - 15) < 1e-12)
        for f in [0.0, 300, 999, 1000, 4000, 8000] {
            #expect(abs(MelFilters.melToHertz(MelFilters.hertzToMel(f)) - f) < 1e-9)
        }
        let filters = MelFilters.make(sampleRate: 16_000, fftLength: 400, melBins: 80)
        #expect(filters.count == 80 * 201)
        // Each triangle has unit area in Hz (Slaney's normalization): Σ weights · 40 Hz ≈ 1.
        let bin = 16_000.0 / 400
        for m in [10, 40, 79] {
            let area = (0..<201).reduce(0.0) { $0 + Double(filters[m * 201 + $1]) } * bin
            #expect(abs(area - 1) < 0.1, "mel \(m): area \(area)")
        }
    }

    /// The features of the fixtures' clips against faster-whisper's FeatureExtractor: every
    /// value of the first 120 frames within 2e-3 (of a range of about 2; float32 FFT and sums
    /// in another order move the last digits).
    @Test(.onTestThreads, arguments: OracleFixture.names)
    func melMatchesTheOracle(name: String) throws {
        let fixture = try OracleFixture.load(name)
        let samples = try OracleFixture.samples(name)
        #expect(samples.count == fixture.samples)
        let (features, frames) = LogMelSpectrogram().features(of: samples)
        #expect(frames == fixture.mel_frames)
        let shown = fixture.mel.count / 80
        var worst: Float = 0
        for m in 0..<80 {
            for t in 0..<shown {
                worst = max(worst, abs(features[m * frames + t] - fixture.mel[m * shown + t]))
            }
        }
        #expect(worst < 2e-3, "largest difference \(worst)")
    }

    /// A window is the clip's frames then zeros, as faster-whisper's pad_or_trim.
    @Test(.onTestThreads) func windowsArePaddedWithZeros() {
        let frontEnd = LogMelSpectrogram(melBins: 2)
        let features: [Float] = [1, 2, 3, 4, 5, 6]  // 2 rows of 3 frames
        #expect(frontEnd.window(of: features, frames: 3, start: 1, count: 2, width: 4) == [2, 3, 0, 0, 5, 6, 0, 0])
    }
}
