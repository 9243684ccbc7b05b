import GGUF
import Kernels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tensors of one transformer block, as views into the mapped file.
struct LayerWeights {
    let attentionNorm: UnsafePointer<Float>  // [dim]
    let query: WeightMatrix  // [headCount · headDim][dim]
    let key: WeightMatrix  // [headCountKV · headDim][dim]
    let value: WeightMatrix  // [headCountKV · headDim][dim]
    let queryBias: UnsafePointer<Float>?  // [headCount · headDim]
    let keyBias: UnsafePointer<Float>?  // [headCountKV · headDim]
    let valueBias: UnsafePointer<Float>?  // [headCountKV · headDim]
    let attentionOutput: WeightMatrix  // [dim][headCount · headDim]
    let feedForwardNorm: UnsafePointer<Float>  // [dim]
    let gate: WeightMatrix  // [ffn][dim]
    let up: WeightMatrix  // [ffn][dim]
    let down: WeightMatrix  // [dim][ffn]

    /// Q, K and V, multiplied together in one fused product.
    var queryKeyValue: [WeightMatrix] { [query, key, value] }
    /// Gate and up, multiplied together in one fused product.
    var gateUp: [WeightMatrix] { [gate, up] }
}

/// Every tensor the forward pass reads. Matrices and F32 vectors point into the memory-mapped
/// file; vectors stored in another type are converted once into `ownedVectors`.
final class ModelWeights {
    let tokenEmbedding: WeightMatrix  // [vocab][dim]
    let layers: [LayerWeights]
    let outputNorm: UnsafePointer<Float>  // [dim]
    /// The LM head: `output.weight`, or `token_embd.weight` when the model ties them.
    let output: WeightMatrix  // [vocab][dim]
    /// Whether `output` is the embedding matrix.
    let isOutputTied: Bool
    private var ownedVectors: [UnsafeMutablePointer<Float>] = []

    deinit {
        for vector in ownedVectors { vector.deallocate() }
    }

    /// Every interleaved matrix, in the order the loader prepared them (the order of a
    /// packed-weights file).
    private(set) var packedMatrices: [WeightMatrix] = []
    /// Whether every interleaved matrix came from the packed-weights file (none was repacked).
    private(set) var isFromPackedFile = false
    /// The packed-weights file the matrices view, kept mapped.
    private let packedFile: PackedWeightsFile?

    /// Maps every tensor; with `repackingWith`, copies the matrices into the kernels' interleaved
    /// layout (using that pool) and lets the file's pages for them go, so one copy stays resident.
    /// With `packed` as well, a matrix the file holds (same position, type and shape) is mapped
    /// from it instead of repacked.
    init(
        file: GGUFFile, config: ModelConfig, architecture: Architecture, kernels: KernelSetID,
        repackingWith pool: ThreadPool?, packed: PackedWeightsFile? = nil
    ) throws(InferenceError) {
        let source = pool == nil ? nil : packed
        packedFile = source
        let dim = config.embeddingLength
        let qWidth = config.queryWidth
        let kvWidth = config.keyValueWidth
        let ffn = config.feedForwardLength
        var owned: [UnsafeMutablePointer<Float>] = []
        // Release converted vectors if a later tensor is missing.
        var success = false
        defer { if !success { for vector in owned { vector.deallocate() } } }

        func tensor(_ name: String) throws(InferenceError) -> GGUFTensor {
            guard let t = file.tensor(named: name) else { throw .missingTensor(name) }
            return t
        }

        func matrix(_ name: String, rows: Int?, columns: Int) throws(InferenceError) -> WeightMatrix {
            let t = try tensor(name)
            guard t.shape.count == 2, t.shape[0] == columns, rows == nil || t.shape[1] == rows else {
                throw .tensorShape(name: name, expected: [columns, rows ?? -1], actual: t.shape)
            }
            guard WeightMatrix.supports(t.type) else {
                throw .unsupportedTensorType(name: name, type: t.type.name)
            }
            let plain = WeightMatrix(
                type: t.type, rows: t.shape[1], columns: columns, base: file.bytes(of: t).baseAddress!,
                kernels: kernels)
            return plain
        }

        func vector(_ name: String, count: Int) throws(InferenceError) -> UnsafePointer<Float> {
            let t = try tensor(name)
            guard t.elementCount == count, t.shape[0] == count else {
                throw .tensorShape(name: name, expected: [count], actual: t.shape)
            }
            let bytes = file.bytes(of: t)
            if t.type == .f32 {
                return bytes.baseAddress!.assumingMemoryBound(to: Float.self)
            }
            guard WeightMatrix.supports(t.type) else {
                throw .unsupportedTensorType(name: name, type: t.type.name)
            }
            let converted = UnsafeMutablePointer<Float>.allocate(capacity: count)
            Dequantize.blocks(type: t.type, bytes.baseAddress!, count: count, into: converted)
            owned.append(converted)
            return UnsafePointer(converted)
        }

        func optionalVector(_ name: String, count: Int, presence: TensorPresence) throws(InferenceError)
            -> UnsafePointer<Float>?
        {
            switch presence {
            case .absent: return nil
            case .required: return try vector(name, count: count)
            case .optional: return file.tensor(named: name) == nil ? nil : try vector(name, count: count)
            }
        }

        var embedding = try matrix("token_embd.weight", rows: nil, columns: dim)
        guard embedding.rows >= config.vocabularySize else {
            throw .tensorShape(
                name: "token_embd.weight", expected: [dim, config.vocabularySize], actual: [dim, embedding.rows])
        }
        var packedMatrices: [WeightMatrix] = []
        var repackedCount = 0
        func prepared(_ w: WeightMatrix) -> WeightMatrix {
            guard let pool else { return w }
            if let view = source?.matrix(packedMatrices.count, matching: w) {
                packedMatrices.append(view)
                return view
            }
            let copy = w.repacked(pool: pool)
            if copy.isRepacked {
                Self.dropPages(w.base, byteCount: w.byteCount)
                packedMatrices.append(copy)
                repackedCount += 1
            }
            return copy
        }
        var layers: [LayerWeights] = []
        for i in 0..<config.blockCount {
            let p = "blk.\(i)."
            let bias = architecture.attentionBias
            layers.append(
                LayerWeights(
                    attentionNorm: try vector(p + "attn_norm.weight", count: dim),
                    query: prepared(try matrix(p + "attn_q.weight", rows: qWidth, columns: dim)),
                    key: prepared(try matrix(p + "attn_k.weight", rows: kvWidth, columns: dim)),
                    value: prepared(try matrix(p + "attn_v.weight", rows: kvWidth, columns: dim)),
                    queryBias: try optionalVector(p + "attn_q.bias", count: qWidth, presence: bias),
                    keyBias: try optionalVector(p + "attn_k.bias", count: kvWidth, presence: bias),
                    valueBias: try optionalVector(p + "attn_v.bias", count: kvWidth, presence: bias),
                    attentionOutput: prepared(try matrix(p + "attn_output.weight", rows: dim, columns: qWidth)),
                    feedForwardNorm: try vector(p + "ffn_norm.weight", count: dim),
                    gate: prepared(try matrix(p + "ffn_gate.weight", rows: ffn, columns: dim)),
                    up: prepared(try matrix(p + "ffn_up.weight", rows: ffn, columns: dim)),
                    down: prepared(try matrix(p + "ffn_down.weight", rows: dim, columns: ffn))))
        }
        self.layers = layers
        outputNorm = try vector("output_norm.weight", count: dim)
        if file.tensor(named: "output.weight") != nil {
            output = prepared(try matrix("output.weight", rows: embedding.rows, columns: dim))
            isOutputTied = false
        } else {
            // Tied: one repacked copy serves as LM head and for the row gather.
            embedding = prepared(embedding)
            output = embedding
            isOutputTied = true
        }
        tokenEmbedding = embedding
        ownedVectors = owned
        self.packedMatrices = packedMatrices
        isFromPackedFile = repackedCount == 0 && !packedMatrices.isEmpty
        success = true
    }

    /// Removes the mapping's pages for a repacked matrix from this process's resident set. The
    /// file stays in the page cache (no disk read if it is needed again) and the mapping stays
    /// valid; `MADV_DONTNEED` on a shared file mapping only drops this process's page-table entries.
    /// (`MADV_PAGEOUT` skips pages other processes map too, so it does not lower resident memory
    /// while another process has the model open.)
    static func dropPages(_ base: UnsafeRawPointer, byteCount: Int) {
        #if os(Linux)
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: base) + page - 1) / page * page
            let end = (Int(bitPattern: base) + byteCount) / page * page
            if end > start {
                _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_DONTNEED)
            }
        #endif
    }

    /// Bytes of weights read to decode one token: every matrix and vector except the embedding
    /// table (one row is gathered), plus the LM head.
    var bytesPerToken: Int {
        var total = output.byteCount
        for layer in layers {
            for m in [layer.query, layer.key, layer.value, layer.attentionOutput, layer.gate, layer.up, layer.down] {
                total += m.byteCount
            }
        }
        return total
    }
}
