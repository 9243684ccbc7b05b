import GGUF

/// The hyperparameters of a model, read from its GGUF metadata.
///
/// ```swift
/// let config = try ModelConfig(metadata: file.metadata)
/// config.headDimension   // 64 for SmolLM2-135M
/// ```
public struct ModelConfig: Sendable, Equatable {
    /// `general.architecture`, e.g. `llama` or `qwen2`.
    public var architecture: String
    /// Number of transformer blocks.
    public var blockCount: Int
    /// Width of the residual stream (d_model).
    public var embeddingLength: Int
    /// Width of the SwiGLU hidden layer.
    public var feedForwardLength: Int
    /// Query heads.
    public var headCount: Int
    /// Key/value heads (fewer than `headCount` with grouped-query attention).
    public var headCountKV: Int
    /// Width of one attention head.
    public var headDimension: Int
    /// Leading dimensions of each head that RoPE rotates.
    public var ropeDimensionCount: Int
    /// RoPE base frequency θ.
    public var ropeFrequencyBase: Double
    /// How RoPE pairs dimensions.
    public var ropeStyle: RopeStyle
    /// ε of every RMSNorm.
    public var normEpsilon: Double
    /// Context length the model was trained for.
    public var contextLength: Int
    /// Number of tokens (rows of the embedding matrix).
    public var vocabularySize: Int

    /// Width of all query heads together.
    public var queryWidth: Int { headCount * headDimension }
    /// Width of all key (or value) heads together.
    public var keyValueWidth: Int { headCountKV * headDimension }

    /// Reads the config. `vocabularySize` falls back to the token list's length when
    /// `{arch}.vocab_size` is absent (the caller may correct it from `token_embd`'s shape).
    public init(metadata: [String: GGUFValue]) throws(InferenceError) {
        let reader = MetadataReader(metadata: metadata)
        let name = try reader.string("general.architecture")
        let arch = try ArchitectureRegistry.architecture(named: name)
        try self.init(architecture: arch, reader: reader)
    }

    init(architecture arch: Architecture, reader: MetadataReader) throws(InferenceError) {
        let p = arch.name + "."
        architecture = arch.name
        blockCount = try reader.positiveInt(p + "block_count", maximum: 1024)
        embeddingLength = try reader.positiveInt(p + "embedding_length", maximum: 1 << 16)
        feedForwardLength = try reader.positiveInt(p + "feed_forward_length", maximum: 1 << 18)
        headCount = try reader.positiveInt(p + "attention.head_count", maximum: 1024)
        headCountKV = try reader.positiveInt(p + "attention.head_count_kv", maximum: 1024, default: headCount)
        guard headCount % headCountKV == 0 else {
            throw .invalidMetadata(
                key: p + "attention.head_count_kv",
                reason: "\(headCountKV) does not divide the \(headCount) query heads")
        }
        let defaultHead = embeddingLength / headCount
        headDimension = try reader.positiveInt(p + "attention.key_length", maximum: 1024, default: defaultHead)
        let valueLength = try reader.positiveInt(p + "attention.value_length", maximum: 1024, default: headDimension)
        guard valueLength == headDimension else {
            throw .invalidMetadata(
                key: p + "attention.value_length", reason: "\(valueLength) differs from the key length \(headDimension)"
            )
        }
        guard headDimension % 2 == 0 else {
            throw .invalidMetadata(key: p + "attention.key_length", reason: "head width \(headDimension) is odd")
        }
        ropeDimensionCount = try reader.positiveInt(
            p + "rope.dimension_count", maximum: headDimension, default: headDimension)
        guard ropeDimensionCount % 2 == 0 else {
            throw .invalidMetadata(key: p + "rope.dimension_count", reason: "\(ropeDimensionCount) is odd")
        }
        ropeFrequencyBase = try reader.positiveDouble(p + "rope.freq_base", default: arch.defaultRopeBase)
        ropeStyle = arch.ropeStyle
        normEpsilon = try reader.positiveDouble(
            p + "attention.layer_norm_rms_epsilon", default: arch.defaultNormEpsilon)
        contextLength = try reader.positiveInt(p + "context_length", maximum: 1 << 24, default: 2048)
        if let count = reader.metadata[p + "vocab_size"] {
            guard let v = count.intValue, v > 0 else {
                throw .invalidMetadata(key: p + "vocab_size", reason: "expected a positive integer, found \(count)")
            }
            vocabularySize = v
        } else if let tokens = reader.metadata["tokenizer.ggml.tokens"]?.arrayValue, !tokens.isEmpty {
            vocabularySize = tokens.count
        } else {
            throw .missingMetadata(key: p + "vocab_size")
        }
    }
}

/// Typed, validated access to GGUF metadata, with errors naming the key.
struct MetadataReader {
    let metadata: [String: GGUFValue]

    func string(_ key: String) throws(InferenceError) -> String {
        guard let value = metadata[key] else { throw .missingMetadata(key: key) }
        guard let text = value.stringValue else {
            throw .invalidMetadata(key: key, reason: "expected a string, found \(value)")
        }
        return text
    }

    func positiveInt(_ key: String, maximum: Int, default fallback: Int? = nil) throws(InferenceError) -> Int {
        guard let value = metadata[key] else {
            guard let fallback else { throw .missingMetadata(key: key) }
            return fallback
        }
        guard let number = value.intValue, number > 0, number <= maximum else {
            throw .invalidMetadata(key: key, reason: "expected an integer in 1...\(maximum), found \(value)")
        }
        return number
    }

    func positiveDouble(_ key: String, default fallback: Double) throws(InferenceError) -> Double {
        guard let value = metadata[key] else { return fallback }
        guard let number = value.doubleValue, number.isFinite, number > 0 else {
            throw .invalidMetadata(key: key, reason: "expected a positive number, found \(value)")
        }
        return number
    }
}
