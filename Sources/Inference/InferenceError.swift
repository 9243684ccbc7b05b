/// Why a model could not be loaded or run.
///
/// Each case carries what went wrong and where (metadata key, tensor name, token position), so
/// the message alone tells a user what to fix.
public enum InferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `general.architecture` names an architecture Sotto does not implement.
    case unsupportedArchitecture(String, supported: [String])
    /// A metadata key the architecture needs is absent.
    case missingMetadata(key: String)
    /// A metadata value has the wrong type or an impossible value.
    case invalidMetadata(key: String, reason: String)
    /// A tensor the architecture needs is absent.
    case missingTensor(String)
    /// A tensor's shape (ggml order, row length first) is not the one the config implies.
    case tensorShape(name: String, expected: [Int], actual: [Int])
    /// A tensor's element type cannot be used where it appears.
    case unsupportedTensorType(name: String, type: String)
    /// The prompt does not fit in the context window.
    case promptTooLong(tokens: Int, contextLength: Int)
    /// Evaluating more tokens would overflow the KV cache.
    case contextFull(position: Int, adding: Int, contextLength: Int)
    /// A token id outside the vocabulary.
    case invalidToken(Int, position: Int, vocabularySize: Int)
    /// Nothing to evaluate.
    case emptyInput
    /// The logit mask (or NaN logits) left no token to sample, at this generated-token index.
    case noTokenAllowed(step: Int)
    /// The model's chat template cannot be parsed (the parser's message and place).
    case unusableChatTemplate(String)

    public var description: String {
        switch self {
        case .unsupportedArchitecture(let name, let supported):
            "unsupported architecture '\(name)' (supported: \(supported.joined(separator: ", ")))"
        case .missingMetadata(let key):
            "metadata key '\(key)' is missing"
        case .invalidMetadata(let key, let reason):
            "metadata key '\(key)': \(reason)"
        case .missingTensor(let name):
            "tensor '\(name)' is missing"
        case .tensorShape(let name, let expected, let actual):
            "tensor '\(name)' has shape \(actual), expected \(expected)"
        case .unsupportedTensorType(let name, let type):
            "tensor '\(name)' has type \(type), which cannot be used there"
        case .promptTooLong(let tokens, let contextLength):
            "the prompt is \(tokens) tokens, longer than the context of \(contextLength) tokens"
        case .contextFull(let position, let adding, let contextLength):
            "the context is full: \(position) tokens cached + \(adding) new > \(contextLength)"
        case .invalidToken(let token, let position, let vocabularySize):
            "token id \(token) at position \(position) is outside the vocabulary of \(vocabularySize)"
        case .emptyInput:
            "no tokens to evaluate"
        case .noTokenAllowed(let step):
            "no token is allowed at generated token \(step) (empty mask or invalid logits)"
        case .unusableChatTemplate(let reason):
            "the model's chat template (tokenizer.chat_template) cannot be used: \(reason); use a raw prompt"
        }
    }
}
