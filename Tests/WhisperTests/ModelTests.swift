import Foundation
import Kernels
import Synchronization
import TestSupport
import Testing

@testable import Whisper

/// The real whisper-base model against the oracle (faster-whisper 1.2.1 / CTranslate2 4.8.5):
/// fixtures made by `scripts/make-whisper-fixtures.py`. Needs `sotto model pull whisper-base`.
@Suite("Whisper on the real model", .serialized)
struct ModelTests {
    /// One loaded model per weight format for the suite (loading takes a second).
    static let models = Mutex<[WhisperWeightFormat: WhisperModel]>([:])

    static func model(_ format: WhisperWeightFormat = .q8_0) throws -> WhisperModel {
        let file = try RealModels.file(RealModels.whisperBase)
        if let model = models.withLock({ $0[format] }) { return model }
        let model = try WhisperModel(directory: file.url.deletingLastPathComponent(), format: format)
        models.withLock { $0[format] = model }
        return model
    }

    /// The encoder output of the padded 30 s window against CTranslate2's float32 encoder at
    /// eight positions: cosine similarity above 0.999 per row and the largest difference under
    /// half the output's mean magnitude (Q8_0 weights and activations against float32; measured:
    /// 0.21 against a mean of 0.69).
    @Test(.onTestThreads, arguments: OracleFixture.names)
    func encoderMatchesTheOracle(name: String) throws {
        let model = try Self.model()
        let fixture = try OracleFixture.load(name)
        let samples = try OracleFixture.samples(name)
        let (features, frames) = model.features(of: samples)
        let window = model.frontEnd.window(of: features, frames: frames, start: 0, count: frames - 1)
        let output = model.encode(window: window, frames: LogMelSpectrogram.windowFrames)
        let width = model.config.width
        #expect(output.count == 1500 * width)
        for (row, expected) in zip(fixture.encoder_rows, fixture.encoder) {
            let got = Array(output[(row * width)..<((row + 1) * width)])
            var dot: Float = 0, a: Float = 0, b: Float = 0, worst: Float = 0
            for i in 0..<width {
                dot += got[i] * expected[i]
                a += got[i] * got[i]
                b += expected[i] * expected[i]
                worst = max(worst, abs(got[i] - expected[i]))
            }
            let cosine = dot / (a.squareRoot() * b.squareRoot())
            #expect(cosine > 0.999, "row \(row): cosine \(cosine)")
            #expect(worst < fixture.encoder_mean_abs / 2, "row \(row): largest difference \(worst)")
        }
    }

    /// Greedy decoding gives the oracle's float32 tokens exactly, and the language it detects.
    @Test(.onTestThreads, arguments: OracleFixture.names)
    func greedyTokensMatchTheOracle(name: String) throws {
        let model = try Self.model()
        let fixture = try OracleFixture.load(name)
        var options = TranscriptionOptions(language: "en", beamSize: 1)
        options.temperatures = [0]
        let result = model.transcribe(try OracleFixture.samples(name), options: options)
        #expect(result.segments.first?.tokens == fixture.greedy_float32)
        #expect(result.text == model.tokenizer.text(of: fixture.greedy_float32).trimmingCharacters(in: .whitespaces))

        var detect = options
        detect.language = nil
        let detected = model.transcribe(try OracleFixture.samples(name), options: detect)
        #expect(detected.language == "en")
        if case .probability(let p) = fixture.language[1] {
            #expect(abs(detected.languageProbability - p) < 0.05, "\(detected.languageProbability) vs \(p)")
        }
    }

    /// Beam search (5 beams, faster-whisper's default) reads the sentences too, and silence
    /// gives no text.
    @Test(.onTestThreads) func beamSearchAndSilence() throws {
        let model = try Self.model()
        let fox = model.transcribe(try OracleFixture.samples("fox"), options: TranscriptionOptions(language: "en"))
        #expect(fox.text.lowercased().contains("lazy dog"))
        let silence = model.transcribe(
            [Float](repeating: 0, count: 32000), options: TranscriptionOptions(language: "en"))
        #expect(silence.text.isEmpty, "silence gave '\(silence.text)'")
    }

    /// The tokenizer encodes a prompt as GPT-2's BPE does and decodes back.
    @Test(.onTestThreads) func tokenizerRoundTrips() throws {
        let tokenizer = try Self.model().tokenizer
        #expect(tokenizer.startOfTranscript == 50258 && tokenizer.noTimestamps == 50363 && tokenizer.endOfText == 50257)
        #expect(tokenizer.languages["en"] == 50259)
        let ids = tokenizer.encode(" Hello world")
        #expect(ids == [2425, 1002])
        #expect(tokenizer.text(of: ids + [50257]) == " Hello world")
    }
}
