import Foundation
import Kernels

/// A Whisper model loaded for transcription: CTranslate2's `model.bin` with its `config.json`,
/// `vocabulary.txt` and `tokenizer.json` beside it, run on Sotto's kernels.
///
/// ```swift
/// let model = try WhisperModel(directory: URL(fileURLWithPath: "~/.sotto/models/whisper-base"))
/// let result = model.transcribe(samples, options: TranscriptionOptions(language: "en"))
/// print(result.text)
/// ```
///
/// `transcribe` blocks its thread while the model runs (on the compute pool); call it from a
/// thread made for blocking work. One transcription at a time may use a pool; transcriptions
/// sharing the process's pool take turns window by window.
public final class WhisperModel: Sendable {
    public let directory: URL
    public let config: WhisperConfig
    public let tokenizer: WhisperTokenizer
    /// The kernel set the products run on.
    public let kernels: KernelSetID
    public let weightFormat: WhisperWeightFormat
    /// Seconds the load took.
    public let loadSeconds: Double

    let weights: WhisperWeights
    let frontEnd: LogMelSpectrogram
    let attention: AttentionRunner

    /// Loads the model in `directory` (`model.bin`, `config.json`, `vocabulary.txt`,
    /// `tokenizer.json`).
    public init(
        directory: URL, format: WhisperWeightFormat = .q8_0, kernels: KernelSetID = KernelSelection.default,
        pool: ThreadPool = .shared
    ) throws(WhisperModelError) {
        let started = ContinuousClock.now
        self.directory = directory
        func read(_ name: String) throws(WhisperModelError) -> Data {
            let url = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw WhisperModelError(.io, "cannot read the file", path: url.path)
            }
            return data
        }
        let file = try CTranslate2File(path: directory.appendingPathComponent("model.bin").path)
        let config = try WhisperConfig(
            file: file, configJSON: try read("config.json"),
            configPath: directory.appendingPathComponent("config.json").path)
        self.config = config
        tokenizer = try WhisperTokenizer(
            vocabulary: try read("vocabulary.txt"),
            vocabularyPath: directory.appendingPathComponent("vocabulary.txt").path,
            tokenizerJSON: try read("tokenizer.json"),
            tokenizerPath: directory.appendingPathComponent("tokenizer.json").path,
            languageTokens: config.languageTokens, vocabularySize: config.vocabularySize)
        self.kernels = kernels
        weightFormat = format
        weights = try pool.withExclusiveUse { () throws(WhisperModelError) -> WhisperWeights in
            try WhisperWeights(file: file, config: config, format: format, kernels: kernels, pool: pool)
        }
        frontEnd = LogMelSpectrogram(melBins: config.melBins)
        attention = AttentionRunner(kernels: kernels)
        loadSeconds = Self.seconds(since: started)
    }

    /// The log-mel features of 16 kHz mono `samples` (`melBins` rows of `frames`).
    public func features(of samples: [Float], pool: ThreadPool = .shared) -> (values: [Float], frames: Int) {
        frontEnd.features(of: samples, pool: pool)
    }

    /// The encoder output of one window of features (`melBins` rows of `frames`, `frames` even):
    /// `[frames / 2][width]`.
    public func encode(window: [Float], frames: Int, pool: ThreadPool = .shared) -> [Float] {
        window.withUnsafeBufferPointer { mel in
            pool.withExclusiveUse {
                Encoder(weights: weights, attention: attention).encode(
                    mel: mel.baseAddress!, frames: frames, pool: pool)
            }
        }
    }

    /// Transcribes 16 kHz mono `samples` (floats in −1…1).
    public func transcribe(
        _ samples: [Float], options: TranscriptionOptions = TranscriptionOptions(), pool: ThreadPool = .shared
    ) -> Transcription {
        WindowedTranscription(model: self, options: options, pool: pool).run(samples)
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
