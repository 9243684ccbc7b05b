import Foundation
import Kernels

/// Whisper's input: the log-mel spectrogram of 16 kHz audio, computed as faster-whisper's
/// `FeatureExtractor` does (and openai/whisper's `log_mel_spectrogram` with its padding):
/// 160 zero samples appended, frames of 400 samples every 160 (reflect-padded by 200 at both
/// ends), a periodic Hann window, the power spectrum, Slaney mel filters, `log10(max(x, 1e-10))`,
/// clamped to the maximum − 8, then `(x + 4) / 4`. The last frame is dropped.
public struct LogMelSpectrogram: Sendable {
    public static let sampleRate = 16_000
    public static let fftLength = 400
    public static let hopLength = 160
    /// Frames in a 30 s window.
    public static let windowFrames = 3000

    public let melBins: Int
    let filters: [Float]
    let window: [Double]
    let fft: MixedRadixFFT

    public init(melBins: Int = 80) {
        self.melBins = melBins
        filters = MelFilters.make(sampleRate: Self.sampleRate, fftLength: Self.fftLength, melBins: melBins)
        // Periodic Hann: numpy's hanning(N + 1) without its last point.
        window = (0..<Self.fftLength).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(Self.fftLength)) }
        fft = MixedRadixFFT(length: Self.fftLength)
    }

    /// The features of `samples` (16 kHz mono): `melBins` rows of `frames` values, row-major,
    /// where `frames` is `(samples.count + 160) / 160` (one per hop; faster-whisper's "content
    /// frames" are one fewer).
    public func features(of samples: [Float], pool: ThreadPool? = nil) -> (values: [Float], frames: Int) {
        let padding = Self.fftLength / 2
        let padded = samples + [Float](repeating: 0, count: Self.hopLength)
        let length = padded.count
        let frames = length / Self.hopLength  // 1 + (length + 2·200 − 400) / 160, less the last
        guard frames > 0 else { return ([], 0) }
        // Reflect padding (numpy's "reflect": the edge sample is not repeated).
        var signal = [Double](repeating: 0, count: length + 2 * padding)
        for i in 0..<signal.count {
            var j = i - padding
            if length == 1 {
                j = 0
            } else {
                let period = 2 * (length - 1)
                j = ((j % period) + period) % period
                if j >= length { j = period - j }
            }
            signal[i] = Double(padded[j])
        }
        let bins = Self.fftLength / 2 + 1
        var mel = [Float](repeating: 0, count: melBins * frames)
        signal.withUnsafeBufferPointer { signal in
            mel.withUnsafeMutableBufferPointer { buffer in
                let mel = buffer.baseAddress!
                let work = { (thread: Int, threads: Int) in
                    let buffer = UnsafeMutablePointer<Double>.allocate(capacity: 6 * Self.fftLength + bins)
                    defer { buffer.deallocate() }
                    let frame = buffer, re = buffer + Self.fftLength, im = re + Self.fftLength
                    let scratch = im + Self.fftLength, power = scratch + 2 * Self.fftLength
                    for t in Swift.stride(from: thread, to: frames, by: threads) {
                        let start = signal.baseAddress! + t * Self.hopLength
                        for n in 0..<Self.fftLength { frame[n] = start[n] * window[n] }
                        fft.transform(real: frame, re: re, im: im, scratch: scratch)
                        for k in 0..<bins {
                            // The spectrum is complex64 in faster-whisper before |·|².
                            let r = Float(re[k]), i = Float(im[k])
                            power[k] = Double(r * r + i * i)
                        }
                        for m in 0..<melBins {
                            var sum: Float = 0
                            let row = m * bins
                            for k in 0..<bins where filters[row + k] != 0 { sum += filters[row + k] * Float(power[k]) }
                            mel[m * frames + t] = sum
                        }
                    }
                }
                if let pool { pool.run(work) } else { work(0, 1) }
            }
        }
        var peak = -Float.infinity
        for i in 0..<mel.count {
            let v = log10(max(mel[i], 1e-10))
            mel[i] = v
            peak = max(peak, v)
        }
        let floor = peak - 8
        for i in 0..<mel.count { mel[i] = (max(mel[i], floor) + 4) / 4 }
        return (mel, frames)
    }

    /// Frames `start ..< start + count` of `features` (`frames` wide), padded with zeros (in
    /// the log-mel domain, as faster-whisper's `pad_or_trim` does) to `width` frames.
    public func window(
        of features: [Float], frames: Int, start: Int, count: Int, width: Int = LogMelSpectrogram.windowFrames
    ) -> [Float] {
        var out = [Float](repeating: 0, count: melBins * width)
        let n = min(count, width, max(0, frames - start))
        for m in 0..<melBins {
            for t in 0..<n { out[m * width + t] = features[m * frames + start + t] }
        }
        return out
    }
}
