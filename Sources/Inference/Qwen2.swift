/// Qwen2 and Qwen2.5 models.
///
/// The Llama block with bias vectors on the Q, K and V projections and RoPE in the
/// rotate-half layout (llama.cpp's `LLAMA_ROPE_TYPE_NEOX`), since its converter does not permute
/// Q/K. Small models tie the output matrix to `token_embd`; larger ones have `output.weight`.
enum Qwen2 {
    static let architecture = Architecture(
        name: "qwen2", ropeStyle: .halves, attentionBias: .required,
        defaultRopeBase: 1_000_000, defaultNormEpsilon: 1e-6)
}
