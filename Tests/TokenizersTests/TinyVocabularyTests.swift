import TestSupport
import Testing

@testable import Tokenizers

/// A tiny vocabulary: all 256 byte tokens plus a few merges.
private func tinyTokenizer(pre: String, extraTokens: [String] = []) throws -> Tokenizer {
    var tokens = (0..<256).map { b -> String in
        String(Character(Unicode.Scalar(ByteLevel.scalarForByte[b])!))
    }
    let merges = ["h e", "l l", "he ll", "hell o", "Ġ w"]
    for m in merges { tokens.append(m.replacingOccurrences(of: " ", with: "")) }
    tokens += extraTokens
    tokens.append("<|end|>")
    var types = [Int](repeating: 1, count: tokens.count)
    types[types.count - 1] = 3
    return try Tokenizer(
        tokens: tokens, tokenTypes: types, merges: merges + ["bad", "x nope"], preTokenizer: pre, bosTokenID: nil,
        eosTokenID: tokens.count - 1)
}

@Test(.onTestThreads) func unknownPreTokenizerFallsBackToGPT2() throws {
    let tokenizer = try tinyTokenizer(pre: "something-new")
    #expect(tokenizer.preTokenizer == .gpt2)
    #expect(tokenizer.usesFallbackPreTokenizer)
    #expect(tokenizer.skippedMergeCount == 2)
    #expect(tokenizer.decode(tokenizer.encode("hello world")) == "hello world")
    #expect(tokenizer.encode("hello")[0] == 256 + 3)  // "hello"
    #expect(tokenizer.encode("x<|end|>", parseSpecial: true) == [Int(UInt8(ascii: "x")), 261])
    #expect(tokenizer.endOfGenerationTokenIDs == [261])
}

/// Llama 3 takes a word that is itself a vocabulary entry whole, even when no merge path
/// leads to it; the other pre-tokenizers merge.
@Test(.onTestThreads) func llama3IgnoresMergesForWholeWords() throws {
    let llama3 = try tinyTokenizer(pre: "llama-bpe", extraTokens: ["xyz"])
    let gpt2 = try tinyTokenizer(pre: "gpt2", extraTokens: ["xyz"])
    let xyz = try #require(llama3.tokenID(for: "xyz"))
    #expect(llama3.encode("xyz") == [xyz])
    #expect(gpt2.encode("xyz") == Array("xyz".utf8).map(Int.init))
    // " xyz" is not an entry: merged as usual (byte b is token b in this vocabulary).
    #expect(llama3.encode("hello xyz") == [259, 32, 120, 121, 122])
}

@Test(.onTestThreads) func emptyAndSpecialOnlyInputs() throws {
    let tokenizer = try tinyTokenizer(pre: "qwen2")
    #expect(tokenizer.encode("").isEmpty)
    #expect(tokenizer.encode("<|end|><|end|>", parseSpecial: true) == [261, 261])
    #expect(tokenizer.decode([]) == "")
    #expect(tokenizer.decode([-1, 999_999]) == "")
}
