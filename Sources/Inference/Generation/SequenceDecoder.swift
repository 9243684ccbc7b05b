import Tokenizers

/// One sequence's choices between forward passes, free of model evaluation: given the logits of
/// its last evaluated position, it picks the next tokens (sampled, or forced by the
/// constraint), emits them, and says what to evaluate next or why the generation ends.
///
/// The engine runs one per request, whatever else shares the forward pass.
struct SequenceDecoder {
    /// What the sequence needs next.
    enum Next: Equatable {
        /// Evaluate these tokens (the chosen one, and what the constraint forces after it).
        case evaluate([Int])
        /// The generation is over.
        case stop(StopReason)
    }

    private var constraint: (any TokenConstraint)?
    private var sampler: SamplerChain
    private var loop: GenerationLoop
    private var mask: TokenMask
    private let allowAll: [UInt64]

    init(
        prompt: [Int], options: DecodingOptions, constraint: (any TokenConstraint)?, tokenizer: Tokenizer,
        vocabularySize: Int
    ) {
        self.constraint = constraint
        sampler = SamplerChain(options: options.sampling)
        for token in prompt.suffix(options.sampling.repetitionWindow) { sampler.accept(token) }
        loop = GenerationLoop(tokenizer: tokenizer, options: options)
        mask = TokenMask(vocabularySize: vocabularySize, allowingAll: true)
        allowAll = mask.words
    }

    /// Tokens generated so far (end-of-generation tokens not counted).
    var generatedCount: Int { loop.generated.count }

    /// Chooses what follows `logits` (those of the last evaluated position, which may be
    /// modified), emitting each chosen token; `room` is how many positions the KV cache has left.
    ///
    /// - Throws: the constraint's error, or `InferenceError.noTokenAllowed`.
    mutating func next(
        logits: UnsafeMutableBufferPointer<Float>, room: Int, isStopped: () -> Bool,
        emit: (GenerationEvent) -> Void
    ) throws -> Next {
        if loop.isExhausted { return .stop(.maxTokens) }
        if isStopped() { return .stop(.cancelled) }
        if constraint?.isComplete == true { return .stop(.constraintComplete) }
        // Choose the next tokens: forced by the constraint, or sampled.
        var chosen = constraint?.forcedTokens() ?? []
        if chosen.isEmpty { chosen = [try sample(logits)] }
        var toEvaluate: [Int] = []
        var next = 0
        while next < chosen.count {
            let token = chosen[next]
            next += 1
            try constraint?.accept(token)
            sampler.accept(token)
            switch loop.accept(token) {
            case .emit(let text):
                emit(.token(id: token, text: text))
                toEvaluate.append(token)
            case .emitAndStop(let text, let why):
                emit(.token(id: token, text: text))
                return .stop(why)
            case .stop(let why):
                return .stop(why)
            }
            // What the constraint forces after a sampled token goes into the same forward
            // step: the logits in between would not be used (`",` closing one reply and
            // opening the next costs one evaluation, not two).
            if next == chosen.count, next == 1, !loop.isExhausted, constraint?.isComplete == false, !isStopped() {
                chosen += constraint?.forcedTokens() ?? []
            }
        }
        if toEvaluate.count > room { return .stop(.contextFull) }
        return .evaluate(toEvaluate)
    }

    /// Text held back at the end (an incomplete UTF-8 sequence, rendered with replacement characters).
    mutating func finish() -> String { loop.finish() }

    /// Samples the next token, consulting the constraint: the sampled token is kept if the
    /// constraint accepts it outright; otherwise the mask is built and the choice made again.
    private mutating func sample(_ logits: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let step = loop.generated.count
        guard constraint != nil else {
            guard let token = sampler.sample(logits, mask: nil) else { throw InferenceError.noTokenAllowed(step: step) }
            return token
        }
        if constraint!.checksSingleTokens, let token = sampler.sample(logits, mask: nil), constraint!.canAccept(token) {
            return token
        }
        mask.words = allowAll
        let restricted = constraint!.restrict(&mask)
        if restricted, constraint!.refinesRefusals, let best = SamplerChain.argmax(UnsafeBufferPointer(logits)),
            !mask.contains(best)
        {
            constraint!.refine(&mask, refusing: best)
        }
        guard let token = sampler.sample(logits, mask: restricted ? mask : nil) else {
            throw InferenceError.noTokenAllowed(step: step)
        }
        return token
    }
}
