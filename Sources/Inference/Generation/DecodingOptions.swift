/// What a generation produces and when it stops: the engine's own options (FoundationModels'
/// `GenerationOptions`, Apple's, are turned into these by the local engine).
///
/// ```swift
/// var options = DecodingOptions(maxTokens: 64, sampling: .greedy)
/// options.sampling.seed = 42
/// ```
public struct DecodingOptions: Sendable {
    /// Generated tokens after which generation stops (end-of-generation tokens not counted).
    public var maxTokens: Int
    /// How each token is chosen.
    public var sampling: SamplingOptions
    /// Whether a model end-of-generation token (`<|im_end|>`, `<|endoftext|>`) ends the reply.
    public var stopsAtEndOfGeneration: Bool

    public init(
        maxTokens: Int = 256, sampling: SamplingOptions = SamplingOptions(), stopsAtEndOfGeneration: Bool = true
    ) {
        self.maxTokens = maxTokens
        self.sampling = sampling
        self.stopsAtEndOfGeneration = stopsAtEndOfGeneration
    }
}

/// Why a generation ended.
public enum StopReason: Sendable, Equatable {
    /// The model produced an end-of-generation token (not part of the text).
    case endOfGeneration(token: Int)
    /// `maxTokens` tokens were generated.
    case maxTokens
    /// The constraint declared the output complete.
    case constraintComplete
    /// The KV cache is full.
    case contextFull
    /// The consumer stopped listening or the task was cancelled.
    case cancelled
}

/// One thing that happened during a generation, in order: `promptProcessed`, then `token`s, then
/// `finished`.
public enum GenerationEvent: Sendable, Equatable {
    /// The prompt is in the KV cache: `reused` of its `tokens` came from the previous request.
    case promptProcessed(tokens: Int, reused: Int, duration: Duration)
    /// A generated token and the text it completes. `text` may be empty while a multi-byte
    /// character is still incomplete; concatenating all `text`s gives the whole reply.
    case token(id: Int, text: String)
    /// Text held back when generation stopped inside a multi-byte character (rendered with
    /// replacement characters). Rare; concatenate it like a token's text.
    case text(String)
    /// Generation ended.
    case finished(GenerationSummary)
}

/// Counts and timings of a finished generation.
public struct GenerationSummary: Sendable, Equatable {
    public var reason: StopReason
    /// Tokens of the prompt, including reused ones.
    public var promptTokens: Int
    /// Prompt tokens taken from the KV cache rather than evaluated.
    public var reusedTokens: Int
    /// Generated tokens (the end-of-generation token excluded).
    public var generatedTokens: Int
    /// Time to evaluate the prompt's new tokens.
    public var prefillDuration: Duration
    /// Time from the first generated token to the end.
    public var decodeDuration: Duration
    /// Forward passes after the prompt's: one per sampled token, with the tokens the constraint
    /// forces after it in the same pass (and a draft being verified).
    public var forwardSteps = 0
    /// Draft tokens (copied from the sequence itself) verified along the way, and how many of
    /// them the model confirmed (each one a token without a forward pass of its own).
    public var draftedTokens = 0
    public var acceptedDraftTokens = 0

    /// Prompt tokens evaluated per second.
    public var prefillTokensPerSecond: Double {
        Self.rate(promptTokens - reusedTokens, prefillDuration)
    }

    /// Generated tokens per second.
    public var decodeTokensPerSecond: Double {
        Self.rate(generatedTokens, decodeDuration)
    }

    package static func rate(_ count: Int, _ duration: Duration) -> Double {
        let seconds = duration.inSeconds
        return seconds > 0 ? Double(count) / seconds : 0
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
