import Kernels

/// Runs a model over token sequences, keeping their keys and values in a KV cache.
///
/// The evaluator is the low-level engine under generation: evaluate tokens, read the logits of
/// the last position, mask and sample them yourself, append the chosen (or forced) tokens.
///
/// ```swift
/// let evaluator = try Evaluator(model: model)
/// var logits = try evaluator.prepare(prompt: promptTokens).logits
/// var sampler = SamplerChain(options: .greedy)
/// let next = sampler.sample(logits)!
/// logits = try evaluator.evaluate([next])
/// ```
///
/// Single owner: an evaluator is not thread-safe. Use it from one thread (or one task) at a
/// time; a `GenerationEngine` owns its slots' evaluators on its own thread for concurrent
/// callers. The model it reads is shared freely.
public final class Evaluator {
    /// The model being run.
    public let model: Model
    /// Positions the KV cache holds.
    public let contextLength: Int
    /// Threads the forward pass uses.
    public var threadCount: Int { pool.threadCount }
    /// The tokens whose keys and values are in the cache, in order.
    public private(set) var cachedTokens: [Int] = []

    let pool: ThreadPool
    let cache: KVCache
    let pass: ForwardPass
    /// Whether `logits` belongs to the last cached token.
    private(set) var logitsAreCurrent = false

    /// Default context when none is requested (capped at the model's own).
    public static let defaultContextLength = 4096

    /// Prefill rows processed per forward pass.
    package static let prefillChunk = 128

    /// Creates an evaluator with a KV cache for `contextLength` positions (default 4096, capped
    /// at the model's trained context) that computes on the process's shared pool
    /// (`ThreadPool.shared`, one per process); a `threadCount` other than the shared pool's gives
    /// it a pool of its own (tests and benchmarks of thread counts).
    public convenience init(model: Model, contextLength: Int? = nil, threadCount: Int? = nil) {
        self.init(model: model, contextLength: contextLength, threadCount: threadCount, logitRows: 1)
    }

    /// An evaluator that can keep the logits of up to `logitRows` rows of one evaluation
    /// (``evaluate(_:everyRow:)``, to verify drafts).
    package init(model: Model, contextLength: Int?, threadCount: Int?, logitRows: Int) {
        self.model = model
        let requested = contextLength ?? Self.defaultContextLength
        precondition(requested > 0, "contextLength must be positive")
        self.contextLength = min(requested, model.config.contextLength)
        pool = ForwardPass.pool(threadCount: threadCount)
        let config = model.config
        cache = KVCache(
            layerCount: config.blockCount, headCount: config.headCountKV, headDimension: config.headDimension,
            capacity: self.contextLength)
        pass = ForwardPass(
            model: model, rowCapacity: Self.prefillChunk, logitCapacity: logitRows, contextLength: self.contextLength,
            pool: pool)
    }

    /// Logits of the last evaluated position (`vocabularySize` floats). Valid until the next call
    /// that changes the cache; callers may modify them (masking) in place.
    public var logits: UnsafeMutableBufferPointer<Float> { pass.logits(0) }

    /// After ``evaluate(_:everyRow:)`` with `everyRow`: the logits after its `row`th token.
    package func logits(row: Int) -> UnsafeMutableBufferPointer<Float> { pass.logits(row) }

    /// The final RMSNorm output of the last evaluated position (the LM head's input), for tests
    /// that compare hidden states with llama.cpp's embeddings.
    package var finalHiddenState: [Float] {
        Array(UnsafeBufferPointer(start: pass.scratch.normed, count: model.config.embeddingLength))
    }

    /// Bytes held by the KV cache.
    public var cacheByteCount: Int { cache.byteCount }

    /// Appends `tokens` to the sequence and returns the logits of the last one.
    ///
    /// Long inputs are processed in chunks; `shouldContinue` is asked between chunks and a `false`
    /// answer throws `CancellationError`, leaving the chunks already done in the cache.
    ///
    /// - Throws: `InferenceError.contextFull` before any work if the tokens do not fit,
    ///   `.invalidToken` for an id outside the vocabulary, `.emptyInput` for no tokens.
    @discardableResult
    public func evaluate(_ tokens: [Int], shouldContinue: () -> Bool = { true }) throws
        -> UnsafeMutableBufferPointer<Float>
    {
        guard !tokens.isEmpty else { throw InferenceError.emptyInput }
        guard cachedTokens.count + tokens.count <= contextLength else {
            throw InferenceError.contextFull(
                position: cachedTokens.count, adding: tokens.count, contextLength: contextLength)
        }
        let vocabulary = model.weights.tokenEmbedding.rows
        for (i, token) in tokens.enumerated() where token < 0 || token >= vocabulary {
            throw InferenceError.invalidToken(token, position: cachedTokens.count + i, vocabularySize: vocabulary)
        }
        logitsAreCurrent = false
        var done = 0
        while done < tokens.count {
            if done > 0, !shouldContinue() { throw CancellationError() }
            let n = min(pass.rowCapacity, tokens.count - done)
            let isLast = done + n == tokens.count
            let segment = ForwardSegment(
                cache: cache, start: cachedTokens.count, row: 0, count: n, logits: isLast ? .last : .none)
            tokens.withUnsafeBufferPointer { all in
                pass.run(UnsafeBufferPointer(rebasing: all[done..<done + n]), [segment])
            }
            cachedTokens.append(contentsOf: tokens[done..<done + n])
            done += n
        }
        logitsAreCurrent = true
        return logits
    }

    /// Appends `tokens` (at most the evaluator's `logitRows`) in one forward pass and keeps the
    /// logits after each of them (``logits(row:)``), as a draft's verification needs.
    package func evaluate(_ tokens: [Int], everyRow: Bool) throws {
        precondition(everyRow && tokens.count <= pass.logitCapacity)
        guard !tokens.isEmpty else { throw InferenceError.emptyInput }
        guard cachedTokens.count + tokens.count <= contextLength else {
            throw InferenceError.contextFull(
                position: cachedTokens.count, adding: tokens.count, contextLength: contextLength)
        }
        let segment = ForwardSegment(cache: cache, start: cachedTokens.count, row: 0, count: tokens.count, logits: .all)
        tokens.withUnsafeBufferPointer { pass.run($0, [segment]) }
        cachedTokens += tokens
        logitsAreCurrent = true
    }

    /// Makes the cache hold exactly `prompt`, reusing the longest common prefix with what is
    /// cached and evaluating only the rest; afterwards `logits` are those of the prompt's last
    /// token.
    ///
    /// - Returns: how many prompt tokens were reused from the cache.
    /// - Throws: `InferenceError.promptTooLong` (before any work) if the prompt exceeds the context.
    @discardableResult
    public func prepare(prompt: [Int], shouldContinue: () -> Bool = { true }) throws -> (
        reused: Int, logits: UnsafeMutableBufferPointer<Float>
    ) {
        guard !prompt.isEmpty else { throw InferenceError.emptyInput }
        guard prompt.count <= contextLength else {
            throw InferenceError.promptTooLong(tokens: prompt.count, contextLength: contextLength)
        }
        var common = 0
        let limit = min(prompt.count, cachedTokens.count)
        while common < limit && prompt[common] == cachedTokens[common] { common += 1 }
        if common == prompt.count && cachedTokens.count == prompt.count && logitsAreCurrent {
            return (common, logits)
        }
        // The last prompt token is always evaluated, so that its logits are available.
        common = min(common, prompt.count - 1)
        truncate(to: common)
        let result = try evaluate(Array(prompt[common...]), shouldContinue: shouldContinue)
        return (common, result)
    }

    /// Drops cached positions from `count` on.
    public func truncate(to count: Int) {
        precondition(count >= 0)
        guard count < cachedTokens.count else { return }
        cachedTokens.removeSubrange(count...)
        logitsAreCurrent = false
    }

    /// Empties the cache.
    public func reset() { truncate(to: 0) }
}
