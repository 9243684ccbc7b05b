/// One link of a sampler chain: narrows or reshapes the candidate list.
///
/// Stages run in order on the same `TokenCandidates`; the chain's final pick (greedy or a seeded
/// draw) comes after the last stage. Custom stages (a logit bias, say) can be added to a
/// `SamplerChain`.
public protocol SamplingStage: Sendable {
    /// Applies the stage. `history` holds the tokens generated or fed so far, oldest first.
    func apply(to candidates: inout TokenCandidates, history: ArraySlice<Int>)
}

/// Penalises tokens that occurred in the last `window` tokens of the history (llama.cpp's
/// `repeat_penalty`): positive logits are divided by `penalty`, negative ones multiplied.
public struct RepetitionPenalty: SamplingStage {
    public var penalty: Float
    public var window: Int

    public init(penalty: Float, window: Int = 64) {
        self.penalty = penalty
        self.window = window
    }

    public func apply(to candidates: inout TokenCandidates, history: ArraySlice<Int>) {
        guard penalty != 1, window > 0, !history.isEmpty else { return }
        let recent = Set(history.suffix(window))
        for i in 0..<candidates.count where recent.contains(Int(candidates.ids[i])) {
            let l = candidates.logits[i]
            candidates.logits[i] = l > 0 ? l / penalty : l * penalty
        }
        candidates.isSorted = false
    }
}

/// Keeps the `k` candidates with the highest logits.
public struct TopK: SamplingStage {
    public var k: Int

    public init(_ k: Int) { self.k = k }

    public func apply(to candidates: inout TokenCandidates, history: ArraySlice<Int>) {
        guard k > 0 else { return }
        candidates.keepTop(k)
    }
}

/// Keeps the smallest set of most likely candidates whose probabilities sum to at least `p`
/// (nucleus sampling); the token that crosses the threshold is kept.
public struct TopP: SamplingStage {
    public var p: Float

    public init(_ p: Float) { self.p = p }

    public func apply(to candidates: inout TokenCandidates, history: ArraySlice<Int>) {
        guard p < 1, candidates.count > 1, let maximum = candidates.logits.max() else { return }
        // Unnormalised probabilities e_i = exp(l_i − max) and their total, so that the threshold
        // refers to the whole distribution even after the list is pruned below.
        var weights = candidates.logits.map { expf($0 - maximum) }
        let total = weights.reduce(0) { $0 + Double($1) }
        let target = Double(p) * total
        if !candidates.isSorted {
            // Sorting the whole vocabulary is costly; the nucleus lies within any set of top tokens
            // whose mass already reaches `p`, so try ever lower probability floors first.
            var floor = Float(1e-3 * total)
            while floor > Float(1e-8 * total) {
                var mass: Double = 0
                for w in weights where w >= floor { mass += Double(w) }
                if mass >= target {
                    let kept = weights
                    candidates.filter { kept[$0] >= floor }
                    break
                }
                floor /= 10
            }
            candidates.sort()
            weights = candidates.logits.map { expf($0 - maximum) }
        }
        var cumulative: Double = 0
        var keep = candidates.count
        for i in 0..<weights.count {
            cumulative += Double(weights[i])
            if cumulative >= target {
                keep = i + 1
                break
            }
        }
        candidates.truncate(to: keep)
    }
}

/// Keeps the candidates whose probability is at least `p` times the most likely one's.
public struct MinP: SamplingStage {
    public var p: Float

    public init(_ p: Float) { self.p = p }

    public func apply(to candidates: inout TokenCandidates, history: ArraySlice<Int>) {
        guard p > 0, candidates.count > 1 else { return }
        // p_i ≥ p · p_max  ⇔  l_i ≥ l_max + log p.
        guard let maximum = candidates.isSorted ? candidates.logits.first : candidates.logits.max() else { return }
        let threshold = maximum + logf(p)
        let logits = candidates.logits
        candidates.filter { logits[$0] >= threshold }
    }
}

/// Divides every logit by `temperature` (below 1 sharpens, above 1 flattens).
public struct Temperature: SamplingStage {
    public var temperature: Float

    public init(_ temperature: Float) { self.temperature = temperature }

    public func apply(to candidates: inout TokenCandidates, history: ArraySlice<Int>) {
        guard temperature > 0, temperature != 1 else { return }
        candidates.scale(by: 1 / temperature)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
