import Foundation
import GGUF
import TestSupport
import Testing

@testable import Tokenizers

@Test(.onTestThreads) func qwenSpecialTokens() throws {
    let tokenizer = try ModelTokenizers.tokenizer("qwen2.5-coder-0.5b")
    #expect(tokenizer.vocabularySize == 151_936)
    #expect(tokenizer.preTokenizer == .qwen2)
    #expect(!tokenizer.usesFallbackPreTokenizer)
    #expect(tokenizer.tokenID(for: "<|im_end|>") == 151_645)
    #expect(tokenizer.tokenID(for: "<|im_start|>") == 151_644)
    #expect(tokenizer.tokenID(for: "<tool_call>") == 151_657)
    #expect(tokenizer.tokenID(for: "no such token") == nil)
    #expect(tokenizer.eosTokenID == 151_645)
    #expect(tokenizer.tokenType(151_657) == .userDefined)
    #expect(tokenizer.tokenBytes(151_644) == Array("<|im_start|>".utf8))
    #expect(tokenizer.tokenBytes(151_657) == Array("<tool_call>".utf8))
    #expect(tokenizer.tokenBytes(220) == [0x20])  // "Ġ"
    #expect(tokenizer.tokenBytes(-1).isEmpty && tokenizer.tokenBytes(1 << 40).isEmpty)
    #expect(tokenizer.isControl(151_644) && tokenizer.isControl(151_665))  // <|im_start|>, [PAD151665]
    #expect(!tokenizer.isControl(151_657) && !tokenizer.isControl(9707))  // <tool_call>, "Hello"
    #expect(tokenizer.isControl(151_936) && tokenizer.isControl(-3))
    #expect(tokenizer.suppressedTokenIDs.contains(151_644))
    #expect(!tokenizer.suppressedTokenIDs.contains(151_645))
    #expect(tokenizer.suppressedTokenIDs.isDisjoint(with: tokenizer.endOfGenerationTokenIDs))
}

/// The end-of-generation set mirrors llama.cpp's, except Qwen's normal "</s>" token (id
/// 128247), which llama.cpp's name list catches by accident.
@Test(.onTestThreads, arguments: ModelTokenizers.models)
func endOfGenerationMatchesLlamaCpp(_ model: String) throws {
    let tokenizer = try ModelTokenizers.tokenizer(model)
    let expected = Set(FixtureCase.fixture(model).llama_cpp_end_of_generation)
        .filter {
            tokenizer.tokenType($0) == .control || tokenizer.tokenType($0) == .userDefined || $0 == tokenizer.eosTokenID
        }
    #expect(tokenizer.endOfGenerationTokenIDs == expected)
    #expect(tokenizer.endOfGenerationTokenIDs.contains(tokenizer.tokenID(for: "<|im_end|>")!))
    #expect(tokenizer.endOfGenerationTokenIDs.contains(tokenizer.tokenID(for: "<|endoftext|>")!))
}

@Test(.onTestThreads) func smollmSpecialTokens() throws {
    let tokenizer = try ModelTokenizers.tokenizer("smollm2-135m")
    #expect(tokenizer.vocabularySize == 49_152)
    #expect(tokenizer.preTokenizer == .smollm)
    #expect(tokenizer.endOfGenerationTokenIDs == [0, 2, 4])  // <|endoftext|>, <|im_end|>, <reponame>
    #expect(tokenizer.encode("<|im_start|>", parseSpecial: true) == [1])
    #expect(tokenizer.encode("<|im_start|>", parseSpecial: false).count > 1)
    #expect(tokenizer.decode([1, 4093, 198, 6004, 2]) == "<|im_start|>user\nhi<|im_end|>")
}

@Test(.onTestThreads) func userDefinedTokensAreMatchedInBothModes() throws {
    let tokenizer = try ModelTokenizers.tokenizer("qwen2.5-coder-0.5b")
    for parseSpecial in [false, true] {
        let ids = tokenizer.encode("<tool_call>{}</tool_call>", parseSpecial: parseSpecial)
        #expect(ids.first == 151_657 && ids.last == 151_658)
    }
}

@Test(.onTestThreads) func streamingHoldsBackSplitCharacters() throws {
    let tokenizer = try ModelTokenizers.tokenizer("smollm2-135m")
    let ids = tokenizer.encode("😀👨‍👩‍👧!")
    #expect(ids.count > 3)
    // "😀" is three tokens in SmolLM's vocabulary: nothing may come out until the last one.
    var stream = StreamingDetokenizer(tokenizer: tokenizer)
    #expect(stream.append(ids[0]) == "")
    #expect(stream.append(ids[1]) == "")
    #expect(stream.append(ids[2]) == "😀")
    var rest = ""
    for id in ids.dropFirst(3) { rest += stream.append(id) }
    rest += stream.flush()
    #expect(rest == "👨‍👩‍👧!")
}

@Test(.onTestThreads) func streamingFlushReplacesAnUnfinishedCharacter() throws {
    let tokenizer = try ModelTokenizers.tokenizer("smollm2-135m")
    let ids = tokenizer.encode("😀")
    var stream = StreamingDetokenizer(tokenizer: tokenizer)
    #expect(stream.append(ids[0]) == "")
    #expect(stream.flush() == "\u{FFFD}")
    #expect(stream.flush() == "")
}

@Test(.onTestThreads) func completePrefixLength() {
    let euro: [UInt8] = [0xE2, 0x82, 0xAC]
    #expect(StreamingDetokenizer.completePrefixLength([0x41] + euro) == 4)
    #expect(StreamingDetokenizer.completePrefixLength([0x41] + euro.prefix(2)) == 1)
    #expect(StreamingDetokenizer.completePrefixLength([0x41, 0xF0]) == 1)
    #expect(StreamingDetokenizer.completePrefixLength([0x41, 0x80]) == 2)  // stray continuation: emit
    #expect(StreamingDetokenizer.completePrefixLength([0x41, 0xFF]) == 2)  // invalid lead: emit
    #expect(StreamingDetokenizer.completePrefixLength([]) == 0)
}
