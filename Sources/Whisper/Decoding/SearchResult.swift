/// One decoded sequence of a window.
struct SearchResult {
    /// The text tokens, without end of text.
    var tokens: [Int]
    /// Sum of the tokens' log probabilities, end of text included.
    var logProbability: Float
    /// The score the search ranks by: the sum over `tokens.count ^ lengthPenalty`.
    var score: Float

    /// The average log probability per token (end of text counted), as faster-whisper reports it.
    var averageLogProbability: Float { logProbability / Float(tokens.count + 1) }
}
