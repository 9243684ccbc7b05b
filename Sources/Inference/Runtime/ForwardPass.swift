import Kernels
import KernelsCore

extension Evaluator {
    /// Runs `tokens` (positions `start..<start + tokens.count`, at most one chunk) through every
    /// block, storing their keys and values; with `logits`, computes the last row's logits.
    ///
    /// Per block the pool is entered a handful of times: the fused Q/K/V product, attention, the
    /// output projection, the fused gate/up product and the down projection. Norms, biases, RoPE
    /// and SwiGLU run on the calling thread for one token and in the pool for a batch.
    func forward(_ tokens: UnsafeBufferPointer<Int>, start: Int, logits computeLogits: Bool) {
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
        rotary.fillTable(s.rope, start: start, count: n)

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
            cache.store(layer: l, start: start, count: n, k: s.key, v: s.value)
            attention(
                layer: l, query: s.query, output: s.attention, count: n, start: start, cache: cache, scores: s.scores,
                pool: pool, kernels: k)
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

        guard computeLogits else { return }
        let last = s.residual + (n - 1) * dim
        k.rmsNorm(last, weight: weights.outputNorm, epsilon: epsilon, into: s.normed, count: dim)
        MatMul.matvec(weights.output, s.normed, s.logits, pool: pool)
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
