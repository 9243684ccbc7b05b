import Tokenizers

/// The generation loop's bookkeeping, free of model evaluation: decides for each chosen token
/// whether to emit it and whether to go on, and turns token ids into text without ever splitting
/// a UTF-8 sequence.
struct GenerationLoop {
    enum Step: Equatable {
        /// Emit the token with this text, then evaluate it and continue.
        case emit(text: String)
        /// Emit the token with this text and stop (the limit is reached).
        case emitAndStop(text: String, StopReason)
        /// Stop without emitting the token.
        case stop(StopReason)
    }

    let maxTokens: Int
    let endTokens: Set<Int>
    private var detokenizer: StreamingDetokenizer
    private(set) var generated: [Int] = []

    init(tokenizer: Tokenizer, options: DecodingOptions) {
        maxTokens = options.maxTokens
        endTokens = options.stopsAtEndOfGeneration ? Set(tokenizer.endOfGenerationTokenIDs) : []
        detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
    }

    /// Whether any token may be generated at all.
    var isExhausted: Bool { generated.count >= maxTokens }

    /// Takes the next chosen token.
    mutating func accept(_ token: Int) -> Step {
        if endTokens.contains(token) { return .stop(.endOfGeneration(token: token)) }
        if isExhausted { return .stop(.maxTokens) }
        generated.append(token)
        let text = detokenizer.append(token)
        if isExhausted { return .emitAndStop(text: text + detokenizer.flush(), .maxTokens) }
        return .emit(text: text)
    }

    /// Text held back at the end (an incomplete UTF-8 sequence, rendered with replacement characters).
    mutating func finish() -> String { detokenizer.flush() }
}
