import Kernels

/// Whisper's text decoder: token and position embeddings, pre-norm layers of self-attention
/// (with a cache), cross-attention over the encoder output and a feed-forward block, a final
/// layer norm and the output projection tied to the embeddings.
struct Decoder {
    let weights: WhisperWeights
    let attention: AttentionRunner

    /// A state for decoding over `encoderOutput` (`[positions][width]`): the cross-attention
    /// keys and values of every layer are computed here, once.
    func makeState(encoderOutput: UnsafePointer<Float>, positions: Int, beams: Int, capacity: Int, pool: ThreadPool)
        -> DecoderState
    {
        let config = weights.config
        let width = config.width, heads = config.decoderHeads, headWidth = config.headWidth
        let state = DecoderState(
            layers: config.decoderLayers, heads: heads, headWidth: headWidth, audioPositions: positions,
            capacity: capacity, beams: beams)
        let kv = UnsafeMutablePointer<Float>.allocate(capacity: positions * 2 * width)
        defer { kv.deallocate() }
        for (l, layer) in weights.decoderLayers.enumerated() {
            layer.crossKeyValue.apply(encoderOutput, rows: positions, into: kv, pool: pool)
            Layers.parallelRows(heads, pool: pool, minimumRows: 2) { h in
                let keys = state.crossKeys(layer: l, head: h), values = state.crossValues(layer: l, head: h)
                for t in 0..<positions {
                    let row = kv + t * 2 * width
                    HeadLayout.storeKey(row + h * headWidth, position: t, width: headWidth, into: keys)
                    (values + t * headWidth).update(from: row + width + h * headWidth, count: headWidth)
                }
            }
        }
        return state
    }

    /// Runs `tokens[r]` of beam `beams[r]` at position `state.length + offsets[r]` for every row
    /// r, appending their keys and values to the caches; returns the logits of the rows in
    /// `logitRows` (`[logitRows.count][vocabularySize]`). Rows of one beam come in position order.
    func forward(
        tokens: [Int], beams: [Int], offsets: [Int], state: DecoderState, logitRows: [Int], pool: ThreadPool
    ) -> [Float] {
        let config = weights.config
        let width = config.width, heads = config.decoderHeads, headWidth = config.headWidth
        let n = tokens.count
        let x = UnsafeMutablePointer<Float>.allocate(capacity: n * width)
        let normed = UnsafeMutablePointer<Float>.allocate(capacity: n * width)
        let qkv = UnsafeMutablePointer<Float>.allocate(capacity: n * 3 * width)
        let attended = UnsafeMutablePointer<Float>.allocate(capacity: n * width)
        let hidden = UnsafeMutablePointer<Float>.allocate(capacity: n * config.feedForwardWidth)
        defer {
            x.deallocate()
            normed.deallocate()
            qkv.deallocate()
            attended.deallocate()
            hidden.deallocate()
        }
        for r in 0..<n {
            let position = state.length + offsets[r]
            precondition(position < min(state.capacity, config.textContext), "the decoder's context is full")
            weights.embed(tokens[r], into: x + r * width)
            Layers.add(weights.decoderPositions + position * width, into: x + r * width, count: width)
        }
        for (l, layer) in weights.decoderLayers.enumerated() {
            // Self-attention over each beam's cache.
            Layers.layerNorm(x, rows: n, width: width, layer.selfAttentionNorm, into: normed, pool: pool)
            layer.selfQKV.apply(normed, rows: n, into: qkv, pool: pool)
            for r in 0..<n {
                let position = state.length + offsets[r]
                let row = qkv + r * 3 * width
                for h in 0..<heads {
                    HeadLayout.storeKey(
                        row + width + h * headWidth, position: position, width: headWidth,
                        into: state.selfKeys(beam: beams[r], layer: l, head: h))
                    (state.selfValues(beam: beams[r], layer: l, head: h) + position * headWidth).update(
                        from: row + 2 * width + h * headWidth, count: headWidth)
                }
            }
            let longest = state.length + (offsets.max() ?? 0) + 1
            attention.run(count: n * heads, width: headWidth, maximumLength: longest, pool: pool) { index in
                let r = index / heads, h = index % heads
                return AttentionRunner.Item(
                    query: qkv + r * 3 * width + h * headWidth, queryStride: 0,
                    output: attended + r * width + h * headWidth, outputStride: 0, count: 1,
                    keys: state.selfKeys(beam: beams[r], layer: l, head: h),
                    values: state.selfValues(beam: beams[r], layer: l, head: h),
                    length: state.length + offsets[r] + 1)
            }
            layer.selfOutput.apply(attended, rows: n, into: normed, pool: pool)
            Layers.add(normed, into: x, count: n * width)

            // Cross-attention: up to four rows share each head's keys and values.
            Layers.layerNorm(x, rows: n, width: width, layer.crossNorm, into: normed, pool: pool)
            layer.crossQuery.apply(normed, rows: n, into: qkv, pool: pool)
            let groups = (n + 3) / 4
            attention.run(count: groups * heads, width: headWidth, maximumLength: state.audioPositions, pool: pool) {
                index in
                let g = index / heads, h = index % heads
                let rows = (4 * g)..<min(n, 4 * g + 4)
                return AttentionRunner.Item(
                    query: qkv + rows.lowerBound * width + h * headWidth, queryStride: width,
                    output: attended + rows.lowerBound * width + h * headWidth, outputStride: width,
                    count: rows.count,
                    keys: state.crossKeys(layer: l, head: h), values: state.crossValues(layer: l, head: h),
                    length: state.audioPositions)
            }
            layer.crossOutput.apply(attended, rows: n, into: normed, pool: pool)
            Layers.add(normed, into: x, count: n * width)

            Layers.layerNorm(x, rows: n, width: width, layer.feedForwardNorm, into: normed, pool: pool)
            layer.feedForwardIn.apply(normed, rows: n, into: hidden, pool: pool)
            Layers.gelu(hidden, count: n * config.feedForwardWidth, pool: pool)
            layer.feedForwardOut.apply(hidden, rows: n, into: normed, pool: pool)
            Layers.add(normed, into: x, count: n * width)
        }
        let m = logitRows.count
        for (i, r) in logitRows.enumerated() {
            Layers.layerNorm(
                x + r * width, rows: 1, width: width, weights.decoderNorm, into: normed + i * width, pool: pool)
        }
        var logits = [Float](repeating: 0, count: m * config.vocabularySize)
        logits.withUnsafeMutableBufferPointer { out in
            MatMul.matmul(weights.outputProjection, normed, rows: m, out.baseAddress!, pool: pool)
        }
        return logits
    }
}
