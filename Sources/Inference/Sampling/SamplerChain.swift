import Tokenizers

/// Picks tokens from logits through a chain of `SamplingStage`s and a final greedy or seeded
/// random choice, remembering the tokens it has seen for the repetition penalty.
///
/// ```swift
/// var sampler = SamplerChain(options: SamplingOptions(temperature: 0.7, seed: 1))
/// let token = try sampler.sample(logits)   // logits: UnsafeMutableBufferPointer<Float>
/// sampler.accept(token)
/// ```
///
/// A constrained decoder passes a `TokenMask`; disallowed tokens are set to −∞ before any stage
/// runs, so truncation only ever keeps legal tokens.
public struct SamplerChain: Sendable {
    /// The stages, in order.
    public var stages: [any SamplingStage]
    /// Whether the final pick is the argmax rather than a draw.
    public var isGreedy: Bool
    /// Tokens seen so far (prompt and generated), oldest first, for history-aware stages.
    public private(set) var history: [Int] = []

    private var generator: SeededGenerator
    private var candidates = TokenCandidates()
    private let historyLimit: Int

    /// A chain built from `options` in llama.cpp's order.
    public init(options: SamplingOptions) {
        var stages: [any SamplingStage] = []
        if options.repetitionPenalty != 1 {
            stages.append(
                RepetitionPenalty(penalty: Float(options.repetitionPenalty), window: options.repetitionWindow))
        }
        if !options.isGreedy {
            if options.topK > 0 { stages.append(TopK(options.topK)) }
            if options.topP < 1 { stages.append(TopP(Float(max(options.topP, 0)))) }
            if options.minP > 0 { stages.append(MinP(Float(min(options.minP, 1)))) }
            stages.append(Temperature(Float(options.temperature)))
        }
        self.init(
            stages: stages, greedy: options.isGreedy, seed: options.seed ?? UInt64.random(in: .min ... .max),
            historyLimit: max(options.repetitionWindow, 0))
    }

    /// A chain of custom stages.
    public init(stages: [any SamplingStage], greedy: Bool, seed: UInt64, historyLimit: Int = 64) {
        self.stages = stages
        self.isGreedy = greedy
        self.generator = SeededGenerator(seed: seed)
        self.historyLimit = historyLimit
    }

    /// Records a token that is now part of the sequence (sampled, forced or from the prompt).
    public mutating func accept(_ token: Int) {
        guard historyLimit > 0 else { return }
        history.append(token)
        if history.count > historyLimit * 2 { history.removeFirst(history.count - historyLimit) }
    }

    /// Chooses the next token. `logits` may be modified (masked entries become −∞).
    ///
    /// Returns `nil` when no token is possible (the mask allows none, or every logit is −∞ or NaN).
    public mutating func sample(_ logits: UnsafeMutableBufferPointer<Float>, mask: TokenMask? = nil) -> Int? {
        mask?.apply(to: logits)
        if isGreedy, stages.isEmpty { return Self.argmax(UnsafeBufferPointer(logits)) }
        candidates.reset(from: UnsafeBufferPointer(logits))
        let recent = history[...]
        for stage in stages { stage.apply(to: &candidates, history: recent) }
        guard candidates.count > 0 else { return nil }
        if isGreedy {
            var best = 0
            for i in 1..<candidates.count where candidates.logits[i] > candidates.logits[best] { best = i }
            return candidates.logits[best].isNaN ? nil : Int(candidates.ids[best])
        }
        let probabilities = candidates.probabilities()
        var r = Float(generator.nextUnitInterval())
        for i in 0..<probabilities.count {
            r -= probabilities[i]
            if r < 0 { return Int(candidates.ids[i]) }
        }
        // Rounding left a sliver of mass: take the last candidate with any probability.
        let last = probabilities.lastIndex { $0 > 0 } ?? 0
        return Int(candidates.ids[last])
    }

    /// The index of the largest logit (lowest index on ties); `nil` if all are −∞ or NaN.
    public static func argmax(_ logits: UnsafeBufferPointer<Float>) -> Int? {
        var best = -1
        var bestValue = -Float.infinity
        for i in 0..<logits.count where logits[i] > bestValue {
            best = i
            bestValue = logits[i]
        }
        return best >= 0 ? best : nil
    }
}
