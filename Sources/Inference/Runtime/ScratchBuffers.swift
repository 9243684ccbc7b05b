/// Every activation buffer of the forward pass, allocated once per pass for `chunk` rows and
/// `logitRows` rows of logits.
///
/// Shapes are `[rows][width]`, row-major, 64-byte aligned.
final class ScratchBuffers {
    let chunk: Int
    let residual: UnsafeMutablePointer<Float>  // [chunk][dim]  x, the residual stream
    let normed: UnsafeMutablePointer<Float>  // [chunk][dim]  RMSNorm(x)
    let projected: UnsafeMutablePointer<Float>  // [chunk][dim]  output of attn_output / ffn_down
    let query: UnsafeMutablePointer<Float>  // [chunk][headCount · headDim]
    let key: UnsafeMutablePointer<Float>  // [chunk][headCountKV · headDim]
    let value: UnsafeMutablePointer<Float>  // [chunk][headCountKV · headDim]
    let attention: UnsafeMutablePointer<Float>  // [chunk][headCount · headDim]
    let gate: UnsafeMutablePointer<Float>  // [chunk][ffn]
    let up: UnsafeMutablePointer<Float>  // [chunk][ffn]
    let rope: UnsafeMutablePointer<Float>  // [2][chunk][ropeDims / 2]  cosines, then sines
    let scores: UnsafeMutablePointer<Float>  // [threads][4][contextLength rounded up to 16]
    let logits: UnsafeMutablePointer<Float>  // [logitRows][vocab]
    let vocabularySize: Int
    private var allocations: [UnsafeMutableRawPointer] = []

    init(config: ModelConfig, chunk: Int, logitRows: Int, contextLength: Int, threads: Int) {
        self.chunk = chunk
        vocabularySize = config.vocabularySize
        var allocations: [UnsafeMutableRawPointer] = []
        func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 16) * 4, alignment: 64)
            allocations.append(raw)
            return raw.initializeMemory(as: Float.self, repeating: 0, count: max(count, 16))
        }
        residual = buffer(chunk * config.embeddingLength)
        normed = buffer(chunk * config.embeddingLength)
        projected = buffer(chunk * config.embeddingLength)
        query = buffer(chunk * config.queryWidth)
        key = buffer(chunk * config.keyValueWidth)
        value = buffer(chunk * config.keyValueWidth)
        attention = buffer(chunk * config.queryWidth)
        gate = buffer(chunk * config.feedForwardLength)
        up = buffer(chunk * config.feedForwardLength)
        rope = buffer(chunk * config.ropeDimensionCount)
        scores = buffer(threads * Attention.scratchCount(contextLength: contextLength))
        logits = buffer(logitRows * config.vocabularySize)
        self.allocations = allocations
    }

    deinit {
        for allocation in allocations { allocation.deallocate() }
    }
}
