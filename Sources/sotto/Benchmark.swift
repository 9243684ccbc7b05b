import Inference

/// Measures prefill and decode speed of a model the way llama.cpp's `llama-bench` does
/// (`pp<N>`: one batch of N prompt tokens; `tg<M>`: M tokens decoded one at a time, greedy).
enum Benchmark {
    /// Speeds measured by one `run`.
    struct Result: Sendable {
        var promptTokens: Int
        var generatedTokens: Int
        var threads: Int
        var prefillTokensPerSecond: Double
        var decodeTokensPerSecond: Double
        /// Weight bytes read per decoded token.
        var weightBytesPerToken: Int
        /// Bytes the KV cache holds for the benchmark's context.
        var cacheBytes: Int
    }

    /// Runs a prefill of `promptTokens` tokens, then, on a fresh KV cache holding one token,
    /// `generatedTokens` greedy decode steps, `repetitions` times, and reports the best speeds.
    ///
    /// The prompt is a fixed pseudo-random sequence of ordinary tokens (as llama-bench uses random
    /// tokens), so results do not depend on a tokenizer.
    static func run(
        model: Model, promptTokens: Int = 512, generatedTokens: Int = 128, threads: Int? = nil, repetitions: Int = 1
    ) throws -> Result {
        precondition(promptTokens > 0 && generatedTokens >= 0 && repetitions > 0)
        let evaluator = Evaluator(
            model: model, contextLength: promptTokens + generatedTokens + 1, threadCount: threads)
        guard promptTokens + generatedTokens <= evaluator.contextLength else {
            throw InferenceError.promptTooLong(
                tokens: promptTokens + generatedTokens, contextLength: evaluator.contextLength)
        }
        var generator = SeededGenerator(seed: 1)
        let ordinary = min(model.config.vocabularySize, model.tokenizer.vocabularySize)
        let prompt = (0..<promptTokens).map { _ in
            var token: Int
            repeat { token = Int(generator.next() % UInt64(ordinary)) } while model.tokenizer.isControl(token)
            return token
        }
        let clock = ContinuousClock()
        var bestPrefill = 0.0
        var bestDecode = 0.0
        for _ in 0..<repetitions {
            evaluator.reset()
            let start = clock.now
            var logits = try evaluator.evaluate(prompt)
            bestPrefill = max(bestPrefill, GenerationSummary.rate(promptTokens, clock.now - start))
            guard generatedTokens > 0 else { continue }
            // As llama-bench's tg test: decode from an (almost) empty cache, not after the prompt.
            evaluator.reset()
            logits = try evaluator.evaluate([prompt[0]])
            let decodeStart = clock.now
            for _ in 0..<generatedTokens {
                let next = SamplerChain.argmax(UnsafeBufferPointer(logits)) ?? 0
                logits = try evaluator.evaluate([next])
            }
            bestDecode = max(bestDecode, GenerationSummary.rate(generatedTokens, clock.now - decodeStart))
        }
        return Result(
            promptTokens: promptTokens, generatedTokens: generatedTokens, threads: evaluator.threadCount,
            prefillTokensPerSecond: bestPrefill, decodeTokensPerSecond: bestDecode,
            weightBytesPerToken: model.weightBytesPerToken, cacheBytes: evaluator.cacheByteCount)
    }
}
