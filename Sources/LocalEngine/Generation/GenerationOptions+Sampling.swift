import FoundationModels
import Inference

extension GenerationOptions {
    /// The engine's sampler settings for these options.
    ///
    /// - `.greedy`: the most likely token (temperature ignored).
    /// - `.random(top: k, seed:)`: top-k, then the temperature (1 unless given), then a seeded draw.
    /// - `.random(probabilityThreshold: p, seed:)`: top-p keeping the token that crosses `p`,
    ///   then the temperature (1 unless given), then a seeded draw.
    /// - no mode: the engine's default chain (top-k 40, top-p 0.95, min-p 0.05, temperature 0.8
    ///   unless given).
    ///
    /// A temperature of 0 or less is greedy in every mode.
    package var samplingOptions: SamplingOptions {
        if let temperature, temperature <= 0 { return .greedy }
        switch sampling?.kind {
        case .greedy:
            return .greedy
        case .randomTopK(let k, let seed):
            if k <= 1 { return .greedy }
            return SamplingOptions(temperature: temperature ?? 1, topK: k, topP: 1, minP: 0, seed: seed)
        case .randomProbabilityThreshold(let threshold, let seed):
            if threshold <= 0 { return .greedy }
            return SamplingOptions(temperature: temperature ?? 1, topK: 0, topP: min(threshold, 1), minP: 0, seed: seed)
        case nil:
            var options = SamplingOptions()
            if let temperature { options.temperature = temperature }
            return options
        }
    }

    /// The most tokens a response may have when `available` fit in the context.
    package func responseTokenLimit(available: Int) -> Int {
        guard let maximumResponseTokens else { return max(available, 0) }
        return max(min(maximumResponseTokens, available), 0)
    }
}
