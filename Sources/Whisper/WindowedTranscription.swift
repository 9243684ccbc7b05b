import Foundation
import Kernels

/// One transcription: 30 s windows one after another, as faster-whisper's `generate_segments`
/// walks them without timestamps (each window's whole length consumed), the language detected
/// from the first window when not given, each window decoded at the first temperature whose
/// result passes the checks.
struct WindowedTranscription {
    let model: WhisperModel
    let options: TranscriptionOptions
    let pool: ThreadPool

    func run(_ samples: [Float]) -> Transcription {
        let tokenizer = model.tokenizer
        var timings = Transcription.Timings()
        var clock = ContinuousClock.now
        let (features, frames) = model.frontEnd.features(of: samples, pool: pool)
        timings.features = WhisperModel.seconds(since: clock)
        let content = max(0, frames - 1)
        let duration = Double(samples.count) / Double(LogMelSpectrogram.sampleRate)
        let secondsPerFrame = Double(LogMelSpectrogram.hopLength) / Double(LogMelSpectrogram.sampleRate)

        var language = options.language.flatMap { tokenizer.languages[$0] != nil ? $0 : nil }
        if !tokenizer.isMultilingual { language = "en" }
        var languageProbability: Float = language == nil ? 0 : 1
        var allTokens: [Int] = []
        var promptResetSince = 0
        if let initial = options.initialPrompt?.trimmingCharacters(in: .whitespacesAndNewlines), !initial.isEmpty {
            allTokens = tokenizer.encode(" " + initial)
        }
        var segments: [Transcription.Segment] = []
        let maxWindow = LogMelSpectrogram.windowFrames
        var seek = 0
        var generator = SplitMix64(seed: options.seed)
        while seek < content {
            let size = min(maxWindow, content - seek)
            let width = encoderFrames(forContent: size)
            let window = model.frontEnd.window(of: features, frames: frames, start: seek, count: size, width: width)
            clock = .now
            let encoded = model.encode(window: window, frames: width, pool: pool)
            timings.encoder += WhisperModel.seconds(since: clock)
            clock = .now
            let result = encoded.withUnsafeBufferPointer { encoderOutput in
                pool.withExclusiveUse {
                    decode(
                        encoderOutput: encoderOutput.baseAddress!, positions: width / 2, language: &language,
                        languageProbability: &languageProbability,
                        previous: options.conditionOnPreviousText ? Array(allTokens[promptResetSince...]) : [],
                        generator: &generator)
                }
            }
            timings.decoder += WhisperModel.seconds(since: clock)
            let start = Double(seek) * secondsPerFrame
            seek += size
            guard let result else { continue }  // silence
            let text = tokenizer.text(of: result.result.tokens)
            segments.append(
                Transcription.Segment(
                    start: start, end: Double(seek) * secondsPerFrame, text: text, tokens: result.result.tokens,
                    averageLogProbability: result.result.averageLogProbability,
                    noSpeechProbability: result.noSpeechProbability, temperature: result.temperature,
                    compressionRatio: CompressionRatio.of(text.trimmingCharacters(in: .whitespaces))))
            allTokens += result.result.tokens
            if !options.conditionOnPreviousText || result.temperature > 0.5 { promptResetSince = allTokens.count }
        }
        let text = segments.map(\.text).joined().trimmingCharacters(in: .whitespacesAndNewlines)
        return Transcription(
            text: text, language: language ?? "en", languageProbability: languageProbability, duration: duration,
            segments: segments, timings: timings)
    }

    /// Encoder frames for a window of `content` frames.
    func encoderFrames(forContent content: Int) -> Int {
        let full = LogMelSpectrogram.windowFrames
        switch options.encoderWindow {
        case .full: return full
        case .fitted:
            // The clip, a second of padding (the model saw padding after speech in training),
            // rounded up to 64 frames (32 encoder positions).
            let wanted = content + 100
            return min(full, (wanted + 63) / 64 * 64)
        }
    }

    struct WindowResult {
        var result: SearchResult
        var temperature: Float
        var noSpeechProbability: Float
    }

    /// Decodes one window; nil when it is silence.
    private func decode(
        encoderOutput: UnsafePointer<Float>, positions: Int, language: inout String?, languageProbability: inout Float,
        previous: [Int], generator: inout SplitMix64
    ) -> WindowResult? {
        let tokenizer = model.tokenizer
        let config = model.config
        let beams = max(options.beamSize, options.bestOf, 1)
        let textContext = config.textContext
        let decoder = Decoder(weights: model.weights, attention: model.attention)
        let state = decoder.makeState(
            encoderOutput: encoderOutput, positions: positions, beams: beams, capacity: textContext, pool: pool)
        let search = Search(
            decoder: decoder,
            filter: LogitFilter(
                suppressed: config.suppressedTokens,
                suppressedAtBegin: options.suppressBlank ? config.suppressedAtBegin : []),
            endOfText: tokenizer.endOfText, vocabularySize: config.vocabularySize, pool: pool)

        if language == nil {
            let logits = search.prime(prompt: [tokenizer.startOfTranscript], state: state, logitRows: [0])
            let ids = config.languageTokens
            let peak = ids.map { logits[$0] }.max() ?? 0
            let weights = ids.map { expf(logits[$0] - peak) }
            let total = weights.reduce(0, +)
            let best = weights.indices.max { weights[$0] < weights[$1] } ?? 0
            language = tokenizer.languageCode(of: ids[best]) ?? "en"
            languageProbability = weights[best] / total
        }
        var prompt: [Int] = []
        if !previous.isEmpty {
            prompt.append(tokenizer.startOfPrevious)
            prompt += previous.suffix(textContext / 2 - 1)
        }
        let sotIndex = prompt.count
        prompt.append(tokenizer.startOfTranscript)
        if tokenizer.isMultilingual {
            prompt.append(
                tokenizer.languages[language ?? "en"] ?? tokenizer.languages["en"] ?? config.languageTokens[0])
            prompt.append(options.task == .translate ? tokenizer.translate : tokenizer.transcribe)
        }
        prompt.append(tokenizer.noTimestamps)
        // CTranslate2 decodes min(448 / 2, 448 − (prompt − 1)) tokens at most.
        let maxLength = max(1, min(textContext / 2, textContext - (prompt.count - 1)))

        var noSpeech: Float = 0
        var attempts: [WindowResult] = []
        var belowThreshold: [WindowResult] = []
        for temperature in options.temperatures.isEmpty ? [0] : options.temperatures {
            let rows = tokenizer.noSpeech != nil ? [sotIndex, prompt.count - 1] : [prompt.count - 1]
            let logits = search.prime(prompt: prompt, state: state, logitRows: rows)
            let vocabulary = config.vocabularySize
            if let id = tokenizer.noSpeech {
                var sot = Array(logits[0..<vocabulary])
                sot.withUnsafeMutableBufferPointer { LogitMath.logSoftmax($0.baseAddress!, count: vocabulary) }
                noSpeech = expf(sot[id])
            }
            let first = Array(logits[(logits.count - vocabulary)...])
            let result: SearchResult
            if temperature > 0 {
                result = search.sample(
                    first: first, state: state, count: max(1, options.bestOf), temperature: temperature,
                    maxLength: maxLength, lengthPenalty: options.lengthPenalty, generator: &generator)
            } else if options.beamSize > 1 {
                result = search.beam(
                    first: first, state: state, beamSize: options.beamSize, patience: options.patience,
                    maxLength: maxLength, lengthPenalty: options.lengthPenalty)
            } else {
                result = search.greedy(
                    first: first, state: state, maxLength: maxLength, lengthPenalty: options.lengthPenalty)
            }
            let attempt = WindowResult(result: result, temperature: temperature, noSpeechProbability: noSpeech)
            attempts.append(attempt)
            let text = tokenizer.text(of: result.tokens).trimmingCharacters(in: .whitespaces)
            var needsFallback = false
            if let threshold = options.compressionRatioThreshold {
                if CompressionRatio.of(text) > threshold {
                    needsFallback = true
                } else {
                    belowThreshold.append(attempt)
                }
            }
            if let threshold = options.logProbabilityThreshold, result.averageLogProbability < threshold {
                needsFallback = true
            }
            if let threshold = options.noSpeechThreshold, noSpeech > threshold,
                let logThreshold = options.logProbabilityThreshold, result.averageLogProbability < logThreshold
            {
                needsFallback = false  // silence
            }
            if !needsFallback { break }
            if temperature == options.temperatures.last {
                var best = (belowThreshold.isEmpty ? attempts : belowThreshold).max {
                    $0.result.averageLogProbability < $1.result.averageLogProbability
                }!
                best.temperature = temperature
                attempts = [best]
            }
        }
        let accepted = attempts.last!
        // faster-whisper skips a window the model thinks is silence unless its text is likely.
        if let threshold = options.noSpeechThreshold, accepted.noSpeechProbability > threshold {
            if let logThreshold = options.logProbabilityThreshold,
                accepted.result.averageLogProbability > logThreshold
            {
                return accepted
            }
            return nil
        }
        return accepted
    }
}

/// A small seeded generator, so sampled fallbacks repeat from run to run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
