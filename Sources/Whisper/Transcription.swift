/// The text of a recording, with what the decoder knew about it.
public struct Transcription: Sendable, Equatable {
    /// One window's text.
    public struct Segment: Sendable, Equatable {
        /// Seconds from the start of the audio.
        public var start: Double
        public var end: Double
        public var text: String
        public var tokens: [Int]
        /// Average log probability per token.
        public var averageLogProbability: Float
        /// Probability that the window holds no speech.
        public var noSpeechProbability: Float
        /// The temperature of the accepted result (0: greedy or beam search).
        public var temperature: Float
        /// The text's gzip compression ratio.
        public var compressionRatio: Float
    }

    /// All the text, segments joined.
    public var text: String
    /// The language's code: the one given, or the one detected.
    public var language: String
    /// The detected language's probability (1 when it was given).
    public var languageProbability: Float
    /// Seconds of audio.
    public var duration: Double
    public var segments: [Segment]
    /// Seconds spent, for benchmarks: features, encoder, decoder.
    public var timings: Timings

    public struct Timings: Sendable, Equatable {
        public var features: Double = 0
        public var encoder: Double = 0
        public var decoder: Double = 0
        public var total: Double { features + encoder + decoder }
    }
}
