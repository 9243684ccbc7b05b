import AudioDecoding
import Foundation
import Kernels
import ModelStore
import Whisper

/// `sotto transcribe`: speech to text with a Whisper model, on this machine.
struct TranscribeCommand: Command {
    static let name = "transcribe"
    static let summary = "Turn speech (WAV or raw PCM) into text with a Whisper model."
    static let usage = """
        usage: sotto transcribe [--model M] [--language L] [--beam N] [--temperature T] [--prompt TEXT]
                                [--window full|fitted] [--weights q8_0|f16] [--raw s16le|f32le --rate HZ]
                                [--threads N] [--kernels SET] [--json] [--verbose] FILE...

        Transcribes each FILE (WAV: PCM 8/16/24/32-bit or float, any rate, mono or stereo; `-` reads
        standard input) with one loaded model, one line of text per file.

          --model M          a speech model id or a folder holding model.bin (default:
                             $SOTTO_SPEECH_MODEL, else \(ModelCatalog.defaultSpeechModelID); `sotto model pull` it first)
          --language L       the spoken language's code, e.g. en (default: detected)
          --translate        English text whatever the language
          --beam N           beams (default 5, faster-whisper's); 1 is greedy decoding
          --temperature T    one temperature (0: no sampling, no fallback); default: the
                             fallback sequence 0, 0.2, … 1.0
          --prompt TEXT      text the model reads before the audio (names, spelling)
          --window W         full (30 s encoder window, default) or fitted (short clips pay
                             for their length only; measured: the decoder often loops, see README)
          --weights F        q8_0 (quantized at load, default) or f16 (the file's weights)
          --raw F --rate HZ  the files are raw samples (s16le or f32le, mono) at HZ
          --threads N        compute threads (default: all cores)
          --kernels SET      avx512, avx2, portable or scalar
          --json             one JSON object per file: text, language, duration, segments, timings
          --verbose          the model, kernel set, threads and load time on stderr
        """
    static let valueOptions: Set<String> = [
        "model", "language", "beam", "temperature", "prompt", "window", "weights", "raw", "rate", "threads", "kernels",
    ]
    static let switchOptions: Set<String> = ["json", "verbose", "translate"]

    struct Output: Encodable {
        struct Segment: Encodable {
            let start: Double
            let end: Double
            let text: String
            let tokens: [Int]
            let avg_logprob: Float
            let no_speech_prob: Float
            let temperature: Float
            let compression_ratio: Float
        }
        let file: String
        let text: String
        let language: String
        let language_probability: Float
        let duration: Double
        let segments: [Segment]
        let seconds: Double
        let features_seconds: Double
        let encoder_seconds: Double
        let decoder_seconds: Double
        let load_seconds: Double
        let kernels: String
        let weights: String
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let files = arguments.positionals
        guard !files.isEmpty else { throw UsageError(description: "expected one or more audio files") }
        let threads = try CLIModel.threads(arguments)
        let kernels = try CLIModel.kernels(arguments)
        let options = try Self.options(arguments)
        guard let format = WhisperWeightFormat(rawValue: arguments.string("weights") ?? "q8_0") else {
            throw UsageError(description: "--weights expects q8_0 or f16")
        }
        let raw: AudioInput.RawFormat?
        if let name = arguments.string("raw") {
            guard let value = AudioInput.RawFormat(rawValue: name) else {
                throw UsageError(description: "--raw expects s16le or f32le")
            }
            raw = value
        } else {
            raw = nil
        }
        let rate = try arguments.int("rate", default: AudioInput.targetRate) ?? AudioInput.targetRate
        let name =
            arguments.string("model") ?? ProcessInfo.processInfo.environment["SOTTO_SPEECH_MODEL"]
            ?? ModelCatalog.defaultSpeechModelID
        let directory: URL
        do { directory = try CLIModel.store.resolveSpeechModel(name) } catch {
            throw CommandFailure(description: error.description)
        }
        // Like `generate`, the command blocks while the model works: it is the process's only task.
        do {
            let model: WhisperModel
            do { model = try WhisperModel(directory: directory, format: format, kernels: kernels) } catch {
                throw CommandFailure(description: error.description)
            }
            if arguments.has("verbose") {
                CLIModel.log(
                    "model \(directory.path) (\(model.config.width) wide, \(model.config.encoderLayers)+\(model.config.decoderLayers) layers), weights \(format.rawValue), kernels \(kernels), threads \(threads ?? ThreadPool.shared.threadCount), loaded in \(String(format: "%.2f", model.loadSeconds)) s"
                )
            }
            for file in files {
                let bytes: [UInt8]
                if file == "-" {
                    bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
                } else {
                    guard let data = FileManager.default.contents(atPath: file) else {
                        throw CommandFailure(description: "cannot read \(file)")
                    }
                    bytes = Array(data)
                }
                let samples: [Float]
                do {
                    if let raw {
                        samples = try AudioInput.samples(raw: bytes, format: raw, rate: rate)
                    } else {
                        samples = try AudioInput.samples(of: bytes)
                    }
                } catch {
                    throw CommandFailure(description: "\(file): \(error.description)")
                }
                let started = Date()
                let result = model.transcribe(samples, options: options)
                let seconds = Date().timeIntervalSince(started)
                if arguments.has("json") {
                    try CLIModel.printJSON(
                        Output(
                            file: file, text: result.text, language: result.language,
                            language_probability: result.languageProbability, duration: result.duration,
                            segments: result.segments.map {
                                .init(
                                    start: $0.start, end: $0.end, text: $0.text, tokens: $0.tokens,
                                    avg_logprob: $0.averageLogProbability, no_speech_prob: $0.noSpeechProbability,
                                    temperature: $0.temperature, compression_ratio: $0.compressionRatio)
                            }, seconds: seconds, features_seconds: result.timings.features,
                            encoder_seconds: result.timings.encoder, decoder_seconds: result.timings.decoder,
                            load_seconds: model.loadSeconds, kernels: kernels.rawValue, weights: format.rawValue))
                } else {
                    print(result.text)
                }
            }
            return 0
        }
    }

    /// The transcription options the flags give.
    static func options(_ arguments: Arguments) throws -> TranscriptionOptions {
        var options = TranscriptionOptions(language: arguments.string("language"))
        if arguments.has("translate") { options.task = .translate }
        if let beam = try arguments.int("beam") {
            guard beam >= 1 && beam <= 16 else { throw UsageError(description: "--beam must be between 1 and 16") }
            options.beamSize = beam
        }
        if let t = try arguments.double("temperature") {
            guard t >= 0 && t <= 1 else { throw UsageError(description: "--temperature must be between 0 and 1") }
            options.temperatures = [Float(t)]
        }
        options.initialPrompt = arguments.string("prompt")
        if let window = arguments.string("window") {
            guard let value = TranscriptionOptions.EncoderWindow(rawValue: window) else {
                throw UsageError(description: "--window expects full or fitted")
            }
            options.encoderWindow = value
        }
        return options
    }
}
