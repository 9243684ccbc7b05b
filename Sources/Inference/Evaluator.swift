import Kernels
import KernelsCore

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
    /// The model's kernel set.
    let kernels: any KernelSet.Type
    let cache: KVCache
    let scratch: ScratchBuffers
    let rotary: RotaryEmbedding
    let attention: Attention
    /// Per layer, the fused products' matrices, built once so a step allocates no arrays.
    let fusedQueryKeyValue: [[WeightMatrix]]
    let fusedGateUp: [[WeightMatrix]]
    /// Output buffers of the fused products.
    let queryKeyValueOutputs: [UnsafeMutablePointer<Float>]
    let gateUpOutputs: [UnsafeMutablePointer<Float>]
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
    public init(model: Model, contextLength: Int? = nil, threadCount: Int? = nil) {
        self.model = model
        let requested = contextLength ?? Self.defaultContextLength
        precondition(requested > 0, "contextLength must be positive")
        self.contextLength = min(requested, model.config.contextLength)
        let shared = ThreadPool.shared
        let threads = threadCount ?? shared.threadCount
        precondition(threads > 0, "threadCount must be positive")
        pool = threads == shared.threadCount ? shared : ThreadPool(threadCount: threads)
        kernels = model.kernels
        let config = model.config
        cache = KVCache(
            layerCount: config.blockCount, headCount: config.headCountKV, headDimension: config.headDimension,
            capacity: self.contextLength)
        scratch = ScratchBuffers(
            config: config, chunk: Self.prefillChunk, contextLength: self.contextLength, threads: threads)
        rotary = RotaryEmbedding(config: config)
        attention = Attention(config: config)
        fusedQueryKeyValue = model.weights.layers.map(\.queryKeyValue)
        fusedGateUp = model.weights.layers.map(\.gateUp)
        queryKeyValueOutputs = [scratch.query, scratch.key, scratch.value]
        gateUpOutputs = [scratch.gate, scratch.up]
    }

    /// Logits of the last evaluated position (`vocabularySize` floats). Valid until the next call
    /// that changes the cache; callers may modify them (masking) in place.
    public var logits: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: scratch.logits, count: scratch.vocabularySize)
    }

    /// The final RMSNorm output of the last evaluated position (the LM head's input), for tests
    /// that compare hidden states with llama.cpp's embeddings.
    package var finalHiddenState: [Float] {
        Array(UnsafeBufferPointer(start: scratch.normed, count: model.config.embeddingLength))
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
            let n = min(scratch.chunk, tokens.count - done)
            let isLast = done + n == tokens.count
            // One forward step at a time per pool: a second evaluation sharing it waits its turn.
            pool.withExclusiveUse {
                tokens.withUnsafeBufferPointer { all in
                    forward(
                        UnsafeBufferPointer(rebasing: all[done..<done + n]), start: cachedTokens.count, logits: isLast)
                }
            }
            cachedTokens.append(contentsOf: tokens[done..<done + n])
            done += n
        }
        logitsAreCurrent = true
        return logits
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

    /// Whether the cache holds exactly `prompt` and `logits` are its last token's.
    func holdsCurrent(_ prompt: [Int]) -> Bool { logitsAreCurrent && cachedTokens == prompt }

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
