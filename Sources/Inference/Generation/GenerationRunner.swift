import Tokenizers

/// Drives one generation on an evaluator: prefill with prefix reuse, then sample, emit and
/// evaluate token by token until a stop condition.
struct GenerationRunner {
    let evaluator: Evaluator
    let options: DecodingOptions
    var constraint: (any TokenConstraint)?
    let isStopped: () -> Bool
    let emit: (GenerationEvent) -> Void

    init(
        evaluator: Evaluator, options: DecodingOptions, constraint: (any TokenConstraint)?,
        isStopped: @escaping () -> Bool, emit: @escaping (GenerationEvent) -> Void
    ) {
        self.evaluator = evaluator
        self.options = options
        self.constraint = constraint
        self.isStopped = isStopped
        self.emit = emit
    }

    /// Runs to completion; returns the summary also sent as `.finished`.
    @discardableResult
    mutating func run(prompt: [Int]) throws -> GenerationSummary {
        let clock = ContinuousClock()
        let prefillStart = clock.now
        let prepared: (reused: Int, logits: UnsafeMutableBufferPointer<Float>)
        do {
            prepared = try evaluator.prepare(prompt: prompt, shouldContinue: { !isStopped() })
        } catch is CancellationError {
            return finish(.cancelled, prompt: prompt, reused: 0, prefill: clock.now - prefillStart, decode: .zero)
        }
        let prefill = clock.now - prefillStart
        emit(.promptProcessed(tokens: prompt.count, reused: prepared.reused, duration: prefill))

        let model = evaluator.model
        var sampler = SamplerChain(options: options.sampling)
        for token in prompt.suffix(options.sampling.repetitionWindow) { sampler.accept(token) }
        var loop = GenerationLoop(tokenizer: model.tokenizer, options: options)
        var mask = TokenMask(vocabularySize: model.config.vocabularySize, allowingAll: true)
        let allowAll = mask.words
        var logits = prepared.logits
        let decodeStart = clock.now
        var reason = StopReason.maxTokens
        var forwardSteps = 0

        generation: while true {
            if loop.isExhausted {
                reason = .maxTokens
                break
            }
            if isStopped() {
                reason = .cancelled
                break
            }
            if constraint?.isComplete == true {
                reason = .constraintComplete
                break
            }
            // Choose the next tokens: forced by the constraint, or sampled.
            var chosen = constraint?.forcedTokens() ?? []
            if chosen.isEmpty {
                chosen = [try sample(&sampler, logits, mask: &mask, allowAll: allowAll, step: loop.generated.count)]
            }
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
                    reason = why
                    break generation
                case .stop(let why):
                    reason = why
                    break generation
                }
                // What the constraint forces after a sampled token goes into the same forward
                // step: the logits in between would not be used (`",` closing one reply and
                // opening the next costs one evaluation, not two).
                if next == chosen.count, next == 1, !loop.isExhausted, constraint?.isComplete == false, !isStopped() {
                    chosen += constraint?.forcedTokens() ?? []
                }
            }
            if evaluator.cachedTokens.count + toEvaluate.count > evaluator.contextLength {
                reason = .contextFull
                break
            }
            logits = try evaluator.evaluate(toEvaluate)
            forwardSteps += 1
        }
        let tail = loop.finish()
        if !tail.isEmpty { emit(.text(tail)) }
        let summary = GenerationSummary(
            reason: reason, promptTokens: prompt.count, reusedTokens: prepared.reused,
            generatedTokens: loop.generated.count, prefillDuration: prefill, decodeDuration: clock.now - decodeStart,
            forwardSteps: forwardSteps)
        emit(.finished(summary))
        return summary
    }

    /// Samples the next token, consulting the constraint: the sampled token is kept if the
    /// constraint accepts it outright; otherwise the mask is built and the choice made again.
    private mutating func sample(
        _ sampler: inout SamplerChain, _ logits: UnsafeMutableBufferPointer<Float>, mask: inout TokenMask,
        allowAll: [UInt64], step: Int
    ) throws -> Int {
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

    private func finish(_ reason: StopReason, prompt: [Int], reused: Int, prefill: Duration, decode: Duration)
        -> GenerationSummary
    {
        let summary = GenerationSummary(
            reason: reason, promptTokens: prompt.count, reusedTokens: reused, generatedTokens: 0,
            prefillDuration: prefill, decodeDuration: decode)
        emit(.finished(summary))
        return summary
    }
}
