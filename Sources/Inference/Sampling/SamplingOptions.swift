/// How the next token is chosen from the logits.
///
/// The chain runs like llama.cpp's: repetition penalty → top-k → top-p → min-p → temperature →
/// a seeded draw. Truncation sees untempered probabilities. A temperature of 0 means greedy (the
/// most likely token, after the repetition penalty).
///
/// ```swift
/// let creative = SamplingOptions(temperature: 0.8, topK: 40, topP: 0.95, seed: 7)
/// let exact = SamplingOptions.greedy
/// ```
public struct SamplingOptions: Sendable, Equatable {
    /// 0 is greedy; otherwise logits are divided by it before the draw.
    public var temperature: Double
    /// Keep only the `topK` most likely tokens; 0 disables.
    public var topK: Int
    /// Nucleus threshold in (0, 1]; 1 disables.
    public var topP: Double
    /// Drop tokens less likely than `minP` × the most likely one; 0 disables.
    public var minP: Double
    /// Penalty for tokens seen in the last `repetitionWindow` tokens; 1 disables.
    public var repetitionPenalty: Double
    /// How many recent tokens the repetition penalty looks at.
    public var repetitionWindow: Int
    /// Seed of the random draw; `nil` picks a fresh random seed.
    public var seed: UInt64?

    public init(
        temperature: Double = 0.8, topK: Int = 40, topP: Double = 0.95, minP: Double = 0.05,
        repetitionPenalty: Double = 1, repetitionWindow: Int = 64, seed: UInt64? = nil
    ) {
        self.temperature = temperature
        self.topK = topK
        self.topP = topP
        self.minP = minP
        self.repetitionPenalty = repetitionPenalty
        self.repetitionWindow = repetitionWindow
        self.seed = seed
    }

    /// Always the most likely token.
    public static let greedy = SamplingOptions(temperature: 0, topK: 0, topP: 1, minP: 0)

    /// Whether the choice is deterministic argmax.
    public var isGreedy: Bool { temperature <= 0 }
}
