/// Every GGUF metadata key Sotto reads, in one place (as llama.cpp's `llama-arch` does).
///
/// Keys that depend on the architecture are functions of `general.architecture`:
///
/// ```swift
/// file.int(GGUFKey.contextLength("qwen2"))  // "qwen2.context_length"
/// ```
public enum GGUFKey {
    // MARK: general
    public static let architecture = "general.architecture"
    public static let name = "general.name"
    public static let alignment = "general.alignment"
    public static let fileType = "general.file_type"
    public static let quantizationVersion = "general.quantization_version"

    // MARK: tokenizer
    public static let tokenizerModel = "tokenizer.ggml.model"
    public static let tokenizerPre = "tokenizer.ggml.pre"
    public static let tokens = "tokenizer.ggml.tokens"
    public static let tokenTypes = "tokenizer.ggml.token_type"
    public static let tokenScores = "tokenizer.ggml.scores"
    public static let merges = "tokenizer.ggml.merges"
    public static let bosTokenID = "tokenizer.ggml.bos_token_id"
    public static let eosTokenID = "tokenizer.ggml.eos_token_id"
    public static let eotTokenID = "tokenizer.ggml.eot_token_id"
    public static let eomTokenID = "tokenizer.ggml.eom_token_id"
    public static let unknownTokenID = "tokenizer.ggml.unknown_token_id"
    public static let paddingTokenID = "tokenizer.ggml.padding_token_id"
    public static let separatorTokenID = "tokenizer.ggml.seperator_token_id"  // sic: ggml's spelling
    public static let addBOSToken = "tokenizer.ggml.add_bos_token"
    public static let addEOSToken = "tokenizer.ggml.add_eos_token"
    public static let addSpacePrefix = "tokenizer.ggml.add_space_prefix"
    public static let chatTemplate = "tokenizer.chat_template"

    // MARK: per architecture (`<arch>.…`)
    public static func contextLength(_ arch: String) -> String { "\(arch).context_length" }
    public static func embeddingLength(_ arch: String) -> String { "\(arch).embedding_length" }
    public static func blockCount(_ arch: String) -> String { "\(arch).block_count" }
    public static func feedForwardLength(_ arch: String) -> String { "\(arch).feed_forward_length" }
    public static func vocabSize(_ arch: String) -> String { "\(arch).vocab_size" }
    public static func headCount(_ arch: String) -> String { "\(arch).attention.head_count" }
    public static func headCountKV(_ arch: String) -> String { "\(arch).attention.head_count_kv" }
    public static func keyLength(_ arch: String) -> String { "\(arch).attention.key_length" }
    public static func valueLength(_ arch: String) -> String { "\(arch).attention.value_length" }
    public static func rmsNormEpsilon(_ arch: String) -> String { "\(arch).attention.layer_norm_rms_epsilon" }
    public static func layerNormEpsilon(_ arch: String) -> String { "\(arch).attention.layer_norm_epsilon" }
    public static func ropeDimensionCount(_ arch: String) -> String { "\(arch).rope.dimension_count" }
    public static func ropeFreqBase(_ arch: String) -> String { "\(arch).rope.freq_base" }
    public static func ropeScalingType(_ arch: String) -> String { "\(arch).rope.scaling.type" }
    public static func ropeScalingFactor(_ arch: String) -> String { "\(arch).rope.scaling.factor" }
    public static func ropeScalingOriginalContextLength(_ arch: String) -> String {
        "\(arch).rope.scaling.original_context_length"
    }
}
