import GGUF
import Testing

@testable import Tokenizers

private func ggufFile(_ entries: [(String, GGUFValue)]) throws -> GGUFFile {
    var writer = GGUFWriter()
    for (key, value) in entries { writer.add(key, value) }
    return try GGUFFile(bytes: writer.bytes())
}

@Test func unsupportedTokenizerModelIsNamed() throws {
    let file = try ggufFile([
        ("tokenizer.ggml.model", .string("llama")), ("tokenizer.ggml.tokens", .array([.string("a")])),
    ])
    #expect(throws: TokenizerError.unsupportedModel("llama")) { try Tokenizer(gguf: file) }
    #expect(TokenizerError.unsupportedModel("llama").description.contains("'llama'"))
}

@Test func missingKeysAreNamed() throws {
    #expect(throws: TokenizerError.missingKey("tokenizer.ggml.model")) { try Tokenizer(gguf: ggufFile([])) }
    let noMerges = try ggufFile([
        ("tokenizer.ggml.model", .string("gpt2")), ("tokenizer.ggml.tokens", .array([.string("a")])),
    ])
    #expect(throws: TokenizerError.missingKey("tokenizer.ggml.merges")) { try Tokenizer(gguf: noMerges) }
}

@Test func inconsistentArraysAreRejected() {
    #expect(throws: TokenizerError.self) {
        try Tokenizer(tokens: ["a", "b"], tokenTypes: [1], merges: [], preTokenizer: "gpt2", bosTokenID: nil, eosTokenID: nil)
    }
    #expect(throws: TokenizerError.self) {
        try Tokenizer(tokens: ["a"], tokenTypes: [], merges: [], preTokenizer: "gpt2", bosTokenID: nil, eosTokenID: 7)
    }
    #expect(throws: TokenizerError.self) {
        try Tokenizer(tokens: [], tokenTypes: [], merges: [], preTokenizer: "gpt2", bosTokenID: nil, eosTokenID: nil)
    }
}

/// A tiny vocabulary: all 256 byte tokens plus a few merges.
private func tinyTokenizer(pre: String) throws -> Tokenizer {
    var tokens = (0..<256).map { b -> String in
        String(Character(Unicode.Scalar(ByteLevel.scalarForByte[b])!))
    }
    let merges = ["h e", "l l", "he ll", "hell o", "Ġ w"]
    for m in merges { tokens.append(m.replacingOccurrences(of: " ", with: "")) }
    tokens.append("<|end|>")
    var types = [Int](repeating: 1, count: tokens.count)
    types[types.count - 1] = 3
    return try Tokenizer(
        tokens: tokens, tokenTypes: types, merges: merges + ["bad", "x nope"], preTokenizer: pre, bosTokenID: nil,
        eosTokenID: tokens.count - 1)
}

@Test func unknownPreTokenizerFallsBackToGPT2() throws {
    let tokenizer = try tinyTokenizer(pre: "something-new")
    #expect(tokenizer.preTokenizer == .gpt2)
    #expect(tokenizer.usesFallbackPreTokenizer)
    #expect(tokenizer.skippedMergeCount == 2)
    #expect(tokenizer.decode(tokenizer.encode("hello world")) == "hello world")
    #expect(tokenizer.encode("hello")[0] == 256 + 3)  // "hello"
    #expect(tokenizer.encode("x<|end|>", parseSpecial: true) == [Int(UInt8(ascii: "x")), 261])
    #expect(tokenizer.endOfGenerationTokenIDs == [261])
}
