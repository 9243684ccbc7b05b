/// How to transcribe: faster-whisper's settings, its defaults except where dictation differs
/// (no timestamps).
public struct TranscriptionOptions: Sendable, Equatable {
    /// What the decoder is asked for.
    public enum Task: String, Sendable {
        /// Text in the spoken language.
        case transcribe
        /// English text, whatever the spoken language.
        case translate
    }

    /// How much of the encoder's 30 s window a shorter clip pays for.
    public enum EncoderWindow: String, Sendable, CaseIterable {
        /// 30 s always, the clip padded (as faster-whisper and whisper.cpp do).
        case full
        /// The clip's frames plus a second of padding, rounded up: fewer encoder positions for a
        /// short clip (whisper.cpp's `audio_ctx`). Measured on 46 clips: the decoder loops on its
        /// sentence in a third of them (WER 136 % greedy against 13 % with `full`), so not the default.
        case fitted
    }

    /// The spoken language's code (`"en"`), or nil to detect it from the first window.
    public var language: String?
    public var task: Task = .transcribe
    /// Beams; 1 is greedy decoding.
    public var beamSize = 5
    /// Beam search stops after `round(beamSize · patience)` finished hypotheses.
    public var patience: Float = 1
    /// Scores are divided by length^penalty.
    public var lengthPenalty: Float = 1
    /// Temperatures tried in turn while a window's result looks wrong (too repetitive, or too
    /// unlikely); 0 is greedy or beam search, above 0 sampling of `bestOf` sequences.
    public var temperatures: [Float] = [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    /// Sequences sampled at a temperature above 0.
    public var bestOf = 5
    /// A result whose text compresses better than this (gzip ratio) is too repetitive.
    public var compressionRatioThreshold: Float? = 2.4
    /// A result whose average log probability is below this is too unlikely.
    public var logProbabilityThreshold: Float? = -1
    /// A window whose no-speech probability is above this (and whose result is too unlikely)
    /// is silence: it gives no text.
    public var noSpeechThreshold: Float? = 0.6
    /// Each window's prompt holds the text of the windows before it.
    public var conditionOnPreviousText = true
    /// Text put before the first window's prompt (names, spelling, style).
    public var initialPrompt: String?
    /// No blank or end of text as the first token.
    public var suppressBlank = true
    public var encoderWindow: EncoderWindow = .full
    /// Seed of the sampling at temperatures above 0.
    public var seed: UInt64 = 0

    public init(language: String? = nil, beamSize: Int = 5) {
        self.language = language
        self.beamSize = beamSize
    }
}
