extension SequenceDecoder {
    /// Verifies a draft: `evaluated` went through the model in one pass (the tokens chosen last
    /// step, then the draft), and `logits(j)` are the logits after `evaluated[j]`. Starting after
    /// the chosen tokens, each row is decided exactly as ``next(logits:room:isStopped:emit:)``
    /// decides a step, and the draft is followed while what it chooses is the draft's next
    /// tokens; the first difference ends the walk. So the tokens, the sampler's draws and the
    /// constraint's states are those of the same generation without a draft — for sampling too:
    /// drawing from the model's distribution and keeping a drafted token only when the draw is
    /// that token is the standard acceptance rule for a draft that proposes one token for sure.
    ///
    /// - Parameters:
    ///   - chosen: how many of `evaluated` were chosen last step (the draft follows them).
    ///   - room: positions the KV cache has left after `evaluated[j]`, for each `j`.
    /// - Returns: how many of `evaluated` stay in the KV cache (the chosen ones and the draft
    ///   tokens the model confirmed), and what the sequence needs next.
    mutating func verify(
        _ evaluated: [Int], chosen: Int, logits: (Int) -> UnsafeMutableBufferPointer<Float>, room: (Int) -> Int,
        isStopped: () -> Bool, emit: (GenerationEvent) -> Void
    ) throws -> (kept: Int, next: Next) {
        precondition(chosen >= 1 && chosen <= evaluated.count)
        var j = chosen - 1
        while true {
            switch try next(logits: logits(j), room: room(j), isStopped: isStopped, emit: emit) {
            case .stop(let reason):
                return (j + 1, .stop(reason))
            case .evaluate(let tokens):
                var matched = 0
                while matched < tokens.count, j + 1 + matched < evaluated.count,
                    tokens[matched] == evaluated[j + 1 + matched]
                {
                    matched += 1
                }
                if matched == tokens.count {
                    // All drafted: the row after the last of them says what comes next.
                    j += matched
                    continue
                }
                return (j + 1 + matched, .evaluate(Array(tokens[matched...])))
            }
        }
    }
}
