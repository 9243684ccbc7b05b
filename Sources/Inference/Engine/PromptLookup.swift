/// Draft tokens copied from the sequence itself (prompt-lookup decoding): when the last few
/// tokens appeared earlier — a draft being proofread, a name being translated, a quoted line —
/// the tokens that followed them then are a likely continuation now. The engine verifies the
/// draft in one forward pass with the token before it and keeps what the model would have
/// chosen anyway, so the output is the output without drafts.
struct PromptLookup {
    /// The longest and shortest runs of recent tokens looked for.
    var longestMatch = 4
    var shortestMatch = 2

    /// Up to `limit` tokens that followed the most recent earlier occurrence of the longest run
    /// of `history`'s last tokens (`longestMatch` down to `shortestMatch`); empty when none
    /// occurs earlier.
    func draft(after history: [Int], limit: Int) -> [Int] {
        guard limit > 0 else { return [] }
        let count = history.count
        for n in stride(from: min(longestMatch, count - 1), through: shortestMatch, by: -1) {
            let tail = count - n
            // The most recent occurrence before the tail itself that has tokens after it.
            var start = tail - 1
            while start >= 0 {
                if history[start] == history[tail] && matches(history, start, tail, n) {
                    let from = start + n
                    return Array(history[from..<min(from + limit, count)])
                }
                start -= 1
            }
        }
        return []
    }

    private func matches(_ history: [Int], _ a: Int, _ b: Int, _ n: Int) -> Bool {
        for i in 0..<n where history[a + i] != history[b + i] { return false }
        return true
    }
}

/// How long a sequence's next draft may be, from how its drafts fared: a verified row costs
/// compute (on a CPU a decode step is bound by reading the weights, so a few rows are nearly
/// free, but not many), so the length doubles while drafts are confirmed whole, halves when the
/// first drafted token is refused, and drafting pauses for a while when even one-token drafts
/// keep failing (free text that does not repeat its prompt).
struct DraftLength: Equatable {
    static let start = 4
    static let longest = 16
    /// Steps without a draft after a one-token draft is refused.
    static let pause = 8

    private(set) var length = start
    private var paused = 0

    /// Whether this step may have a draft.
    var isDrafting: Bool { paused == 0 }

    mutating func stepWithoutDraft() {
        if paused > 0 { paused -= 1 }
    }

    mutating func verified(drafted: Int, accepted: Int) {
        if accepted == drafted {
            length = min(length * 2, Self.longest)
        } else if accepted == 0 {
            if length == 1 { paused = Self.pause }
            length = max(length / 2, 1)
        } else {
            length = max(accepted, 1)
        }
    }
}
