/// Which dimensions of a head rotary position embedding pairs up.
public enum RopeStyle: Sendable, Equatable {
    /// Adjacent pairs (2i, 2i+1): llama.cpp's `LLAMA_ROPE_TYPE_NORM`, used for `llama`. GGUF's
    /// converter permutes Llama's Q/K rows so this matches the Hugging Face "rotate half" model.
    case adjacentPairs
    /// Pairs (i, i + d/2), the "rotate half" layout: llama.cpp's `LLAMA_ROPE_TYPE_NEOX`, used for
    /// `qwen2`.
    case halves
}
