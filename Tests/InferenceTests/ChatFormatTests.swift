import ChatTemplates
import TestSupport
import Testing
import Tokenizers

@testable import Inference

/// The special-token rules of the one prompt path, on a vocabulary small enough to read:
/// llama.cpp's (`common_chat_templates_apply` strips a BOS the template wrote when the tokenizer
/// adds one; the tokenizer adds BOS/EOS by `add_bos_token`/`add_eos_token`).
@Suite struct ChatFormatTests {
    /// `h`, `i`, `o` and the special tokens `<s>` (BOS, id 3) and `</s>` (EOS, id 4), `|` (5).
    static let tokenizer: Tokenizer = {
        let tokens = ["h", "i", "o", "<s>", "</s>", "|"]
        return try! Tokenizer(
            tokens: tokens, tokenTypes: [1, 1, 1, 3, 3, 1], merges: [], preTokenizer: "gpt2", bosTokenID: 3,
            eosTokenID: 4)
    }()
    static let bos = 3
    static let eos = 4
    /// Writes BOS itself, the messages' contents between bars, and EOS at the end.
    static let writesSpecials = "{{ bos_token }}{% for m in messages %}{{ m.content }}|{% endfor %}{{ eos_token }}"
    static let plain = "{% for m in messages %}{{ m.content }}|{% endfor %}"
    static let messages = [ChatMessage(role: "user", content: "hi"), ChatMessage(role: "assistant", content: "oh")]

    static func tokens(_ template: String?, bos: Bool, eos: Bool) throws -> [Int] {
        try ChatFormat(tokenizer: tokenizer, templateSource: template, addsBOS: bos, addsEOS: eos)
            .promptTokens(for: messages)
    }

    @Test(.onTestThreads) func aBOSTheTemplateWritesIsNotDoubledWhenTheModelAddsOne() throws {
        let body = [0, 1, 5, 2, 0, 5]  // "hi|oh|"
        #expect(try Self.tokens(Self.writesSpecials, bos: true, eos: false) == [Self.bos] + body + [Self.eos])
        #expect(try Self.tokens(Self.plain, bos: true, eos: false) == [Self.bos] + body)
        // A model that adds none keeps what its template writes, read as the special token.
        #expect(try Self.tokens(Self.writesSpecials, bos: false, eos: false) == [Self.bos] + body + [Self.eos])
        #expect(try Self.tokens(Self.plain, bos: false, eos: false) == body)
    }

    @Test(.onTestThreads) func anEOSTheTemplateWritesIsNotDoubledWhenTheModelAddsOne() throws {
        let body = [0, 1, 5, 2, 0, 5]
        #expect(try Self.tokens(Self.writesSpecials, bos: true, eos: true) == [Self.bos] + body + [Self.eos])
        #expect(try Self.tokens(Self.plain, bos: false, eos: true) == body + [Self.eos])
    }

    @Test(.onTestThreads) func theTextLeavesOutWhatTheTokenizerAdds() throws {
        let format = ChatFormat(
            tokenizer: Self.tokenizer, templateSource: Self.writesSpecials, addsBOS: true, addsEOS: false)
        #expect(try format.text(messages: Self.messages.map(\.templateValue)) == "hi|oh|</s>")
    }

    @Test(.onTestThreads) func aModelWithoutATemplateReadsChatML() throws {
        let format = ChatFormat(tokenizer: Self.tokenizer, templateSource: nil, addsBOS: false, addsEOS: false)
        #expect(!format.hasTemplate)
        #expect(
            try format.text(messages: Self.messages.map(\.templateValue))
                == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\noh<|im_end|>\n<|im_start|>assistant\n")
    }

    @Test(.onTestThreads) func aTemplateThatDoesNotParseIsAnErrorNamingThePlace() {
        let format = ChatFormat(
            tokenizer: Self.tokenizer, templateSource: "{% for m in %}", addsBOS: false, addsEOS: false)
        #expect(throws: InferenceError.self) { try format.checkTemplate() }
        do {
            _ = try format.promptTokens(for: Self.messages)
            Issue.record("a broken template rendered")
        } catch let InferenceError.unusableChatTemplate(reason) {
            #expect(reason.contains("line 1"))
        } catch {
            Issue.record("expected unusableChatTemplate, got \(error)")
        }
    }

    @Test(.onTestThreads) func aTemplatesOwnRefusalIsItsError() {
        let format = ChatFormat(
            tokenizer: Self.tokenizer, templateSource: "{{ raise_exception('no') }}", addsBOS: false, addsEOS: false)
        #expect(throws: TemplateError.self) { try format.promptTokens(for: Self.messages) }
    }

    @Test(.onTestThreads) func theBOSDefaultFollowsLlamaCppsPreTokenizers() {
        #expect(ChatFormat.addsBOSByDefault(preTokenizer: "llama-bpe"))
        #expect(ChatFormat.addsBOSByDefault(preTokenizer: "llama3"))
        #expect(!ChatFormat.addsBOSByDefault(preTokenizer: "qwen2"))
        #expect(!ChatFormat.addsBOSByDefault(preTokenizer: "smollm"))
        #expect(!ChatFormat.addsBOSByDefault(preTokenizer: nil))
    }
}
