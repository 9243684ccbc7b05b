import GGUF
import TestSupport
import Testing

@testable import Tokenizers

private func ggufFile(_ entries: [(String, GGUFValue)]) throws -> GGUFFile {
    var writer = GGUFWriter()
    for (key, value) in entries { writer.add(key, value) }
    return try GGUFFile(bytes: writer.bytes())
}

@Test(.onTestThreads) func unsupportedTokenizerModelIsNamed() throws {
    let file = try ggufFile([
        ("tokenizer.ggml.model", .string("llama")), ("tokenizer.ggml.tokens", .array([.string("a")])),
    ])
    #expect(throws: TokenizerError.unsupportedModel("llama")) { try Tokenizer(gguf: file) }
    #expect(TokenizerError.unsupportedModel("llama").description.contains("'llama'"))
}

@Test(.onTestThreads) func missingKeysAreNamed() throws {
    #expect(throws: TokenizerError.missingKey("tokenizer.ggml.model")) { try Tokenizer(gguf: ggufFile([])) }
    let noMerges = try ggufFile([
        ("tokenizer.ggml.model", .string("gpt2")), ("tokenizer.ggml.tokens", .array([.string("a")])),
    ])
    #expect(throws: TokenizerError.missingKey("tokenizer.ggml.merges")) { try Tokenizer(gguf: noMerges) }
}

@Test(.onTestThreads) func inconsistentArraysAreRejected() {
    #expect(throws: TokenizerError.self) {
        try Tokenizer(
            tokens: ["a", "b"], tokenTypes: [1], merges: [], preTokenizer: "gpt2", bosTokenID: nil, eosTokenID: nil)
    }
    #expect(throws: TokenizerError.self) {
        try Tokenizer(tokens: ["a"], tokenTypes: [], merges: [], preTokenizer: "gpt2", bosTokenID: nil, eosTokenID: 7)
    }
    #expect(throws: TokenizerError.self) {
        try Tokenizer(tokens: [], tokenTypes: [], merges: [], preTokenizer: "gpt2", bosTokenID: nil, eosTokenID: nil)
    }
}
