import Foundation
import Kernels

/// The searches over one window's decoder state, as CTranslate2 runs them: greedy, beam search
/// (candidates twice the beam, finished hypotheses replaced by the next live candidate, stop
/// after `round(beam · patience)` hypotheses, scores divided by length^penalty) and sampling.
struct Search {
    let decoder: Decoder
    let filter: LogitFilter
    let endOfText: Int
    let vocabularySize: Int
    let pool: ThreadPool

    /// Runs `prompt` into beam 0 of `state` (from position 0); returns the logits of its rows in
    /// `logitRows`.
    func prime(prompt: [Int], state: DecoderState, logitRows: [Int]) -> [Float] {
        state.length = 0
        let logits = decoder.forward(
            tokens: prompt, beams: Array(repeating: 0, count: prompt.count), offsets: Array(0..<prompt.count),
            state: state, logitRows: logitRows, pool: pool)
        state.length = prompt.count
        return logits
    }

    /// Greedy decoding of at most `maxLength` tokens from `first`, the logits after the prompt.
    func greedy(first: [Float], state: DecoderState, maxLength: Int, lengthPenalty: Float) -> SearchResult {
        var logits = first
        var tokens: [Int] = []
        var sum: Float = 0
        for step in 0..<maxLength {
            let next = logits.withUnsafeMutableBufferPointer { row -> Int in
                filter.apply(row.baseAddress!, step: step)
                LogitMath.logSoftmax(row.baseAddress!, count: vocabularySize)
                let best = LogitMath.argmax(row.baseAddress!, count: vocabularySize)
                sum += row[best]
                return best
            }
            if next == endOfText { break }
            tokens.append(next)
            if step + 1 == maxLength { break }
            logits = decoder.forward(tokens: [next], beams: [0], offsets: [0], state: state, logitRows: [0], pool: pool)
            state.length += 1
        }
        return SearchResult(
            tokens: tokens, logProbability: sum, score: Self.score(sum, length: tokens.count, lengthPenalty))
    }

    /// Beam search with `beamSize` beams (`state` has that many slots).
    func beam(
        first: [Float], state: DecoderState, beamSize: Int, patience: Float, maxLength: Int, lengthPenalty: Float
    ) -> SearchResult {
        let candidates = 2 * beamSize
        let wanted = max(1, Int((Float(beamSize) * patience).rounded()))
        var logits = first
        // The live beams: tokens so far and cumulative log probability. One at first.
        var sequences: [[Int]] = [[]]
        var scores: [Float] = [0]
        var finished: [SearchResult] = []
        for step in 0..<maxLength {
            let rows = sequences.count
            // Log probabilities of every continuation, beam score added.
            logits.withUnsafeMutableBufferPointer { all in
                for b in 0..<rows {
                    let row = all.baseAddress! + b * vocabularySize
                    filter.apply(row, step: step)
                    LogitMath.logSoftmax(row, count: vocabularySize)
                    let base = scores[b]
                    for i in 0..<vocabularySize { row[i] += base }
                }
            }
            let top = logits.withUnsafeBufferPointer {
                LogitMath.top(candidates, of: $0.baseAddress!, count: rows * vocabularySize)
            }
            let isLast = step + 1 == maxLength
            var nextSequences: [[Int]] = []
            var nextScores: [Float] = []
            var parents: [Int] = []
            var secondary = beamSize
            for k in 0..<min(beamSize, top.count) {
                var chosen = k
                let token = top[k].index % vocabularySize
                if token == endOfText || isLast {
                    let parent = top[k].index / vocabularySize
                    let hypothesis = token == endOfText ? sequences[parent] : sequences[parent] + [token]
                    finished.append(
                        SearchResult(
                            tokens: hypothesis, logProbability: top[k].value,
                            score: Self.score(top[k].value, length: hypothesis.count, lengthPenalty)))
                    // Another live candidate takes this beam's place.
                    while secondary < top.count {
                        let candidate = secondary
                        secondary += 1
                        if top[candidate].index % vocabularySize != endOfText {
                            chosen = candidate
                            break
                        }
                    }
                }
                let parent = top[chosen].index / vocabularySize
                parents.append(parent)
                nextSequences.append(sequences[parent] + [top[chosen].index % vocabularySize])
                nextScores.append(top[chosen].value)
            }
            if isLast || finished.count >= wanted { break }
            // The first step ran one beam; every slot continues from it.
            state.reorder(parents: parents + Array(repeating: parents.last ?? 0, count: state.beams - parents.count))
            sequences = nextSequences
            scores = nextScores
            let tokens = sequences.map { $0.last! }
            logits = decoder.forward(
                tokens: tokens, beams: Array(0..<tokens.count), offsets: Array(repeating: 0, count: tokens.count),
                state: state, logitRows: Array(0..<tokens.count), pool: pool)
            state.length += 1
        }
        return finished.max { $0.score < $1.score } ?? SearchResult(tokens: [], logProbability: 0, score: -.infinity)
    }

    /// `count` sequences sampled at `temperature` from the whole distribution (CTranslate2's
    /// `sampling_topk` 0); the best by score. `state` has `count` slots.
    func sample<R: RandomNumberGenerator>(
        first: [Float], state: DecoderState, count: Int, temperature: Float, maxLength: Int, lengthPenalty: Float,
        generator: inout R
    ) -> SearchResult {
        state.reorder(parents: Array(repeating: 0, count: state.beams))
        var logits = Array(repeating: first, count: count).flatMap { $0 }
        var sequences = Array(repeating: [Int](), count: count)
        var sums = Array(repeating: Float(0), count: count)
        var live = Array(0..<count)
        var results: [SearchResult] = []
        for step in 0..<maxLength {
            var next: [Int] = []
            for (row, b) in live.enumerated() {
                let token = logits.withUnsafeMutableBufferPointer { all -> Int in
                    let x = all.baseAddress! + row * vocabularySize
                    filter.apply(x, step: step)
                    for i in 0..<vocabularySize { x[i] /= temperature }
                    LogitMath.logSoftmax(x, count: vocabularySize)
                    var u = Float.random(in: 0..<1, using: &generator)
                    var chosen = vocabularySize - 1
                    for i in 0..<vocabularySize where x[i] > -.infinity {
                        u -= expf(x[i])
                        if u < 0 {
                            chosen = i
                            break
                        }
                    }
                    sums[b] += x[chosen]
                    return chosen
                }
                if token == endOfText || step + 1 == maxLength {
                    if token != endOfText { sequences[b].append(token) }
                    results.append(
                        SearchResult(
                            tokens: sequences[b], logProbability: sums[b],
                            score: Self.score(sums[b], length: sequences[b].count, lengthPenalty)))
                } else {
                    sequences[b].append(token)
                    next.append(b)
                }
            }
            live = next
            if live.isEmpty { break }
            logits = decoder.forward(
                tokens: live.map { sequences[$0].last! }, beams: live, offsets: Array(repeating: 0, count: live.count),
                state: state, logitRows: Array(0..<live.count), pool: pool)
            state.length += 1
        }
        return results.max { $0.score < $1.score } ?? SearchResult(tokens: [], logProbability: 0, score: -.infinity)
    }

    static func score(_ logProbability: Float, length: Int, _ penalty: Float) -> Float {
        penalty == 0 ? logProbability : logProbability / powf(Float(length), penalty)
    }
}
