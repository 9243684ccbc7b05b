import Kernels
import KernelsCore

/// Which of a segment's rows need logits.
enum LogitRows: Equatable {
    /// None (a prefill chunk before the prompt's last).
    case none
    /// The last row's (the next token).
    case last
    /// Every row's (a speculative draft being verified).
    case all
}

/// Rows of one sequence in a forward pass: `count` tokens at positions `start..<start + count`
/// of `cache`, from row `row` of the pass's tokens.
struct ForwardSegment {
    let cache: KVCache
    let start: Int
    let row: Int
    let count: Int
    let logits: LogitRows
}

/// One model evaluation over the rows of several sequences at once: every weight matrix is read
/// once and multiplied against all the rows (the tiled products), while each sequence keeps its
/// own KV cache, positions and attention. A decode step of eight conversations reads the weights
/// once, not eight times.
///
/// Owns the activation buffers for up to `rowCapacity` rows and `logitCapacity` logit rows; not
/// thread-safe (one owner: an `Evaluator`, or a `GenerationEngine`'s loop).
final class ForwardPass {
    let model: Model
    let pool: ThreadPool
    let kernels: any KernelSet.Type
    let scratch: ScratchBuffers
    let rotary: RotaryEmbedding
    let attention: Attention
    /// Rows one pass may hold.
    let rowCapacity: Int
    /// Logit rows one pass may produce.
    let logitCapacity: Int
    /// Positions the KV caches this pass reads hold at most.
    let contextLength: Int
    /// Per layer, the fused products' matrices, built once so a step allocates no arrays.
    private let fusedQueryKeyValue: [[WeightMatrix]]
    private let fusedGateUp: [[WeightMatrix]]
    private let queryKeyValueOutputs: [UnsafeMutablePointer<Float>]
    private let gateUpOutputs: [UnsafeMutablePointer<Float>]

    init(model: Model, rowCapacity: Int, logitCapacity: Int, contextLength: Int, pool: ThreadPool) {
        precondition(rowCapacity > 0 && logitCapacity > 0 && logitCapacity <= rowCapacity)
        self.model = model
        self.pool = pool
        self.rowCapacity = rowCapacity
        self.logitCapacity = logitCapacity
        self.contextLength = contextLength
        kernels = model.kernels
        let config = model.config
        scratch = ScratchBuffers(
            config: config, chunk: rowCapacity, logitRows: logitCapacity, contextLength: contextLength,
            threads: pool.threadCount)
        rotary = RotaryEmbedding(config: config)
        attention = Attention(config: config)
        fusedQueryKeyValue = model.weights.layers.map(\.queryKeyValue)
        fusedGateUp = model.weights.layers.map(\.gateUp)
        queryKeyValueOutputs = [scratch.query, scratch.key, scratch.value]
        gateUpOutputs = [scratch.gate, scratch.up]
    }

    /// The process's compute pool, or one of `threadCount` threads of its own when that differs
    /// from the shared pool's (tests and benchmarks of thread counts).
    static func pool(threadCount: Int?) -> ThreadPool {
        let shared = ThreadPool.shared
        let threads = threadCount ?? shared.threadCount
        precondition(threads > 0, "threadCount must be positive")
        return threads == shared.threadCount ? shared : ThreadPool(threadCount: threads)
    }

    /// Logit row `index` of the last pass (rows in the order of the segments that asked for
    /// them, a segment's rows in order); callers may modify them (masking).
    func logits(_ index: Int) -> UnsafeMutableBufferPointer<Float> {
        precondition(index < logitCapacity)
        return UnsafeMutableBufferPointer(
            start: scratch.logits + index * scratch.vocabularySize, count: scratch.vocabularySize)
    }

    /// Logit rows the segments ask for.
    static func logitRowCount(_ segments: [ForwardSegment]) -> Int {
        segments.reduce(0) { total, segment in
            switch segment.logits {
            case .none: total
            case .last: total + 1
            case .all: total + segment.count
            }
        }
    }

    /// Runs `tokens` through every block, each segment's rows at its positions in its cache
    /// (keys and values stored there), and computes the logit rows the segments ask for.
    ///
    /// Segments must cover `tokens` in order, without gaps; one forward step at a time on the
    /// pool (another evaluation sharing it waits its turn).
    func run(_ tokens: UnsafeBufferPointer<Int>, _ segments: [ForwardSegment]) {
        let n = tokens.count
        precondition(n > 0 && n <= rowCapacity, "\(n) rows, capacity \(rowCapacity)")
        precondition(Self.logitRowCount(segments) <= logitCapacity)
        pool.withExclusiveUse { forward(tokens, segments) }
    }

    private func forward(_ tokens: UnsafeBufferPointer<Int>, _ segments: [ForwardSegment]) {
        let config = model.config
        let weights = model.weights
        let s = scratch
        let n = tokens.count
        let dim = config.embeddingLength
        let qWidth = config.queryWidth
        let kvWidth = config.keyValueWidth
        let ffn = config.feedForwardLength
        let epsilon = Float(config.normEpsilon)
        let half = config.ropeDimensionCount / 2
        let cosines = s.rope
        let sines = s.rope + n * half
        let k = kernels

        for i in 0..<n {
            Dequantize.row(weights.tokenEmbedding, tokens[i], into: s.residual + i * dim)
        }
        for segment in segments {
            rotary.fillTable(
                cos: cosines + segment.row * half, sin: sines + segment.row * half, start: segment.start,
                count: segment.count)
        }

        for (l, layer) in weights.layers.enumerated() {
            // Attention.
            rows(n) { i in
                k.rmsNorm(
                    s.residual + i * dim, weight: layer.attentionNorm, epsilon: epsilon, into: s.normed + i * dim,
                    count: dim)
            }
            MatMul.matmul(fusedQueryKeyValue[l], s.normed, rows: n, queryKeyValueOutputs, pool: pool)
            rows(n) { i in
                let q = s.query + i * qWidth
                let key = s.key + i * kvWidth
                let v = s.value + i * kvWidth
                if let b = layer.queryBias { k.add(b, into: q, count: qWidth) }
                if let b = layer.keyBias { k.add(b, into: key, count: kvWidth) }
                if let b = layer.valueBias { k.add(b, into: v, count: kvWidth) }
                rotary.apply(q, heads: config.headCount, cos: cosines + i * half, sin: sines + i * half, kernels: k)
                rotary.apply(key, heads: config.headCountKV, cos: cosines + i * half, sin: sines + i * half, kernels: k)
            }
            for segment in segments {
                segment.cache.store(
                    layer: l, start: segment.start, count: segment.count, k: s.key + segment.row * kvWidth,
                    v: s.value + segment.row * kvWidth)
            }
            attention(
                layer: l, segments: segments, query: s.query, output: s.attention, scores: s.scores, pool: pool,
                kernels: k)
            MatMul.matmul(layer.attentionOutput, s.attention, rows: n, s.projected, pool: pool)
            k.add(s.projected, into: s.residual, count: n * dim)

            // Feed-forward.
            rows(n) { i in
                k.rmsNorm(
                    s.residual + i * dim, weight: layer.feedForwardNorm, epsilon: epsilon, into: s.normed + i * dim,
                    count: dim)
            }
            MatMul.matmul(fusedGateUp[l], s.normed, rows: n, gateUpOutputs, pool: pool)
            rows(n) { i in k.swiGLU(s.gate + i * ffn, s.up + i * ffn, count: ffn) }
            MatMul.matmul(layer.down, s.gate, rows: n, s.projected, pool: pool)
            k.add(s.projected, into: s.residual, count: n * dim)
        }

        // The rows that need logits, normed side by side, then one product with the LM head.
        var m = 0
        for segment in segments {
            let first: Int
            switch segment.logits {
            case .none: continue
            case .last: first = segment.row + segment.count - 1
            case .all: first = segment.row
            }
            for row in first..<(segment.row + segment.count) {
                k.rmsNorm(
                    s.residual + row * dim, weight: weights.outputNorm, epsilon: epsilon, into: s.normed + m * dim,
                    count: dim)
                m += 1
            }
        }
        guard m > 0 else { return }
        MatMul.matmul(weights.output, s.normed, rows: m, s.logits, pool: pool)
    }

    /// Runs `body` for rows `0..<n`: inline for one row, spread over the pool for a batch.
    @inline(__always)
    private func rows(_ n: Int, _ body: (Int) -> Void) {
        if n == 1 {
            body(0)
            return
        }
        pool.run { thread, threads in
            for i in stride(from: thread, to: n, by: threads) { body(i) }
        }
    }
}
