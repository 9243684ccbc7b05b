import ChatTemplates
import GGUF
import Tokenizers

/// How a model reads a conversation: its chat template (parsed once), its tokenizer, and the
/// rules for the special tokens around a prompt. Every prompt the engine builds from messages
/// goes through one (`sotto chat` and `generate`, the server's features, the OpenAI API, the
/// engine service), so the same conversation is the same tokens everywhere.
///
/// The special-token rules are llama.cpp's (`common_chat_templates_apply`, then tokenization
/// with `add_special`):
/// - the template sees `bos_token` and `eos_token` as text and may write them itself;
/// - when the model adds a BOS token (`tokenizer.ggml.add_bos_token`; when the key is absent,
///   llama.cpp's default for the pre-tokenizer: true for `llama3`-style vocabularies, false for
///   the other byte-level BPE ones), a BOS the template wrote at the very start is removed from
///   the text and one BOS token is put before the tokens, so there is never a second;
/// - likewise an EOS at the very end when the model adds one (`add_eos_token`, default false).
///
/// A file without a template is read as ChatML (llama.cpp's default too).
///
/// ```swift
/// let format = model.chatFormat
/// let prompt = try format.promptTokens(for: [.init(role: "user", content: "Hi")])
/// ```
public struct ChatFormat: Sendable {
    /// The model's tokenizer.
    public let tokenizer: Tokenizer
    /// Whether a BOS token starts every prompt.
    public let addsBOS: Bool
    /// Whether an EOS token ends every prompt.
    public let addsEOS: Bool
    /// The template, or why it cannot be used; nil when the file has none (ChatML).
    private let template: Result<ChatTemplate, TemplateError>?
    private let bosText: String?
    private let eosText: String?
    /// Template variables besides the conversation (`bos_token`, `eos_token`).
    private let variables: [String: TemplateValue]

    /// The format of the model in `file`, with its tokenizer already built from the same file.
    public init(file: GGUFFile, tokenizer: Tokenizer) {
        self.init(
            tokenizer: tokenizer, templateSource: file.string(GGUFKey.chatTemplate),
            addsBOS: file.bool(GGUFKey.addBOSToken)
                ?? Self.addsBOSByDefault(preTokenizer: file.string(GGUFKey.tokenizerPre)),
            addsEOS: file.bool(GGUFKey.addEOSToken) ?? false)
    }

    /// A format from its parts (`templateSource` nil: ChatML).
    public init(tokenizer: Tokenizer, templateSource: String?, addsBOS: Bool, addsEOS: Bool) {
        self.tokenizer = tokenizer
        self.addsBOS = addsBOS && tokenizer.bosTokenID != nil
        self.addsEOS = addsEOS && tokenizer.eosTokenID != nil
        template = templateSource.map { source in Result { () throws(TemplateError) in try ChatTemplate(source) } }
        bosText = tokenizer.bosTokenID.map { tokenizer.decode([$0]) }
        eosText = tokenizer.eosTokenID.map { tokenizer.decode([$0]) }
        var variables: [String: TemplateValue] = [:]
        if let bosText { variables["bos_token"] = .string(bosText) }
        if let eosText { variables["eos_token"] = .string(eosText) }
        self.variables = variables
    }

    /// llama.cpp's `add_bos` for a byte-level BPE vocabulary whose file does not say.
    static func addsBOSByDefault(preTokenizer: String?) -> Bool {
        switch preTokenizer {
        case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "tekken",
            "chameleon":
            true
        default:
            false
        }
    }

    /// Whether the file has a chat template (without one, prompts are ChatML).
    public var hasTemplate: Bool { template != nil }

    /// Throws the template's parse error, if it has one: a command can fail at start rather
    /// than at its first prompt.
    public func checkTemplate() throws {
        if case .failure(let error) = template { throw InferenceError.unusableChatTemplate(error.description) }
    }

    /// The prompt text of a conversation: the template rendered with `messages`, `tools` and
    /// the special tokens, less a leading BOS (trailing EOS) the tokenizer adds anyway.
    ///
    /// - Parameters:
    ///   - messages: objects with `role` and `content`, and the optional keys chat templates read
    ///     (`tool_calls`, `name`, `tool_call_id`).
    ///   - tools: OpenAI-style function definitions; nil for none.
    /// - Throws: `InferenceError.unusableChatTemplate` when the template does not parse, or the
    ///   template's `TemplateError` when it fails on this conversation (a template may refuse some
    ///   orders of roles with `raise_exception`).
    public func text(messages: [TemplateValue], tools: [TemplateValue]? = nil, addGenerationPrompt: Bool = true)
        throws -> String
    {
        var text: String
        switch template {
        case nil:
            text = Self.chatML(messages, addGenerationPrompt: addGenerationPrompt)
        case .failure(let error):
            throw InferenceError.unusableChatTemplate(error.description)
        case .success(let template):
            text = try template.render(
                messages: messages, tools: tools, addGenerationPrompt: addGenerationPrompt, extra: variables)
        }
        // Compared as bytes: a special token's text may join a following character into one
        // grapheme, which `hasPrefix` would not see as a prefix.
        if addsBOS, let bosText, !bosText.isEmpty, text.utf8.starts(with: bosText.utf8) {
            text = String(decoding: text.utf8.dropFirst(bosText.utf8.count), as: UTF8.self)
        }
        if addsEOS, let eosText, !eosText.isEmpty, text.utf8.reversed().starts(with: eosText.utf8.reversed()) {
            text = String(decoding: text.utf8.dropLast(eosText.utf8.count), as: UTF8.self)
        }
        return text
    }

    /// The tokens of prompt text made by ``text(messages:tools:addGenerationPrompt:)``: special
    /// tokens written in it are read as such, and the model's BOS (and EOS) are added.
    public func tokens(ofPrompt text: String) -> [Int] {
        var tokens = tokenizer.encode(text, parseSpecial: true)
        if addsBOS, let bos = tokenizer.bosTokenID { tokens.insert(bos, at: 0) }
        if addsEOS, let eos = tokenizer.eosTokenID { tokens.append(eos) }
        return tokens
    }

    /// The prompt tokens of a conversation (``text(messages:tools:addGenerationPrompt:)``, then
    /// ``tokens(ofPrompt:)``).
    public func promptTokens(
        messages: [TemplateValue], tools: [TemplateValue]? = nil, addGenerationPrompt: Bool = true
    ) throws -> [Int] {
        tokens(ofPrompt: try text(messages: messages, tools: tools, addGenerationPrompt: addGenerationPrompt))
    }

    /// The prompt tokens of plain role/content messages (what `sotto chat` keeps).
    public func promptTokens(for messages: [ChatMessage], addGenerationPrompt: Bool = true) throws -> [Int] {
        try promptTokens(messages: messages.map(\.templateValue), addGenerationPrompt: addGenerationPrompt)
    }

    /// ChatML, for a model without a template.
    static func chatML(_ messages: [TemplateValue], addGenerationPrompt: Bool) -> String {
        var text = ""
        for message in messages {
            text += "<|im_start|>" + (message["role"]?.stringValue ?? "user") + "\n"
            text += (message["content"]?.stringValue ?? "") + "<|im_end|>\n"
        }
        return addGenerationPrompt ? text + "<|im_start|>assistant\n" : text
    }
}

/// One message of a plain conversation: a role (`system`, `user`, `assistant`) and its text.
public struct ChatMessage: Sendable, Equatable {
    public var role: String
    public var content: String

    public init(role: String, content: String) {
        self.role = role
        self.content = content
    }

    /// The message as chat templates take it.
    public var templateValue: TemplateValue {
        .object(TemplateObject([("role", .string(role)), ("content", .string(content))]))
    }
}
