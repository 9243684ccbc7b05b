/// Llama-family models (SmolLM2, Llama 2/3, TinyLlama, Mistral without sliding windows).
///
/// Pre-norm blocks with RMSNorm, grouped-query attention without biases, SwiGLU feed-forward,
/// and RoPE on adjacent pairs — llama.cpp's `LLAMA_ROPE_TYPE_NORM`: the GGUF converter permutes
/// the Q/K projection rows so that adjacent-pair rotation reproduces Hugging Face's
/// rotate-half computation. The output matrix may be tied to `token_embd`.
enum Llama {
    static let architecture = Architecture(
        name: "llama", ropeStyle: .adjacentPairs, attentionBias: .optional,
        defaultRopeBase: 10_000, defaultNormEpsilon: 1e-5)
}
