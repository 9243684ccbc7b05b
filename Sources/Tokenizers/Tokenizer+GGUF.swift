import GGUF

extension Tokenizer {
    /// Builds the tokenizer stored in a GGUF file's `tokenizer.ggml.*` metadata.
    ///
    /// Requires `tokenizer.ggml.model` = `gpt2` (byte-level BPE) with `tokens` and `merges`.
    /// A missing or unknown `tokenizer.ggml.pre` falls back to the GPT-2 rule (see
    /// `usesFallbackPreTokenizer`).
    ///
    /// - Throws: `TokenizerError` naming the missing key or the unsupported tokenizer model.
    public convenience init(gguf file: GGUFFile) throws {
        guard let model = file.string("tokenizer.ggml.model") else {
            throw TokenizerError.missingKey("tokenizer.ggml.model")
        }
        guard model == "gpt2" else { throw TokenizerError.unsupportedModel(model) }
        guard let tokens = file.stringArray("tokenizer.ggml.tokens") else {
            throw TokenizerError.missingKey("tokenizer.ggml.tokens")
        }
        guard let merges = file.stringArray("tokenizer.ggml.merges") else {
            throw TokenizerError.missingKey("tokenizer.ggml.merges")
        }
        try self.init(
            tokens: tokens,
            tokenTypes: file.intArray("tokenizer.ggml.token_type") ?? [],
            merges: merges,
            preTokenizer: file.string("tokenizer.ggml.pre") ?? "default",
            bosTokenID: file.int("tokenizer.ggml.bos_token_id"),
            eosTokenID: file.int("tokenizer.ggml.eos_token_id"),
            paddingTokenID: file.int("tokenizer.ggml.padding_token_id"))
    }
}
