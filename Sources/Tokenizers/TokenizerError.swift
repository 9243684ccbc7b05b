/// Why a tokenizer could not be built from a model's metadata.
public enum TokenizerError: Error, Equatable, CustomStringConvertible {
    /// A required GGUF key is absent.
    case missingKey(String)
    /// `tokenizer.ggml.model` names a tokenizer other than byte-level BPE (`gpt2`).
    case unsupportedModel(String)
    /// A key holds a value that cannot be used; `reason` says what is wrong with it.
    case invalidValue(key: String, reason: String)

    public var description: String {
        switch self {
        case .missingKey(let key):
            return "tokenizer metadata is missing the key '\(key)'"
        case .unsupportedModel(let model):
            return
                "unsupported tokenizer model '\(model)' in tokenizer.ggml.model: only byte-level BPE ('gpt2') is supported"
        case .invalidValue(let key, let reason):
            return "invalid tokenizer metadata '\(key)': \(reason)"
        }
    }
}

/// A vocabulary entry's kind (`tokenizer.ggml.token_type`).
public enum TokenType: Int, Sendable {
    case undefined = 0
    case normal = 1
    case unknown = 2
    /// Control tokens (`<|im_start|>`, `<|endoftext|>`): recognized in text only when
    /// special tokens are parsed.
    case control = 3
    /// Added tokens (`<tool_call>`): always recognized whole.
    case userDefined = 4
    case unused = 5
    case byte = 6
}
