import Testing

@testable import Tokenizers

private func words(_ text: String, _ kind: PreTokenizer) -> [String] {
    var text = text
    return text.withUTF8 { buffer in
        CharClass.basicPlane.withUnsafeBufferPointer { classes in
            var scanner = WordScanner(
                text: buffer.baseAddress!, count: buffer.count, classes: classes.baseAddress!, kind: kind)
            var out: [String] = []
            while let r = scanner.next() { out.append(String(decoding: buffer[r], as: UTF8.self)) }
            return out
        }
    }
}

@Test func qwen2Splits() {
    #expect(words("Hello  world", .qwen2) == ["Hello", " ", " world"])
    #expect(words("DON'T it's", .qwen2) == ["DON", "'T", " it", "'s"])
    #expect(words("x123", .qwen2) == ["x", "1", "2", "3"])
    #expect(words("a\n\n  b", .qwen2) == ["a", "\n\n", " ", " b"])
    #expect(words("foo  \n\n  bar", .qwen2) == ["foo", "  \n\n", " ", " bar"])
    #expect(words("}\n\n    x", .qwen2) == ["}\n\n", "   ", " x"])
    #expect(words(" (hello", .qwen2) == [" (", "hello"])
    #expect(words("\thello", .qwen2) == ["\thello"])
    #expect(words("end   ", .qwen2) == ["end", "   "])
}

@Test func llama3GroupsDigitsByThree() {
    #expect(words("1234567", .llama3) == ["123", "456", "7"])
}

@Test func gpt2Splits() {
    #expect(words("DON'T it's", .gpt2) == ["DON", "'", "T", " it", "'s"])
    #expect(words("a  b", .gpt2) == ["a", " ", " b"])
    #expect(words("a\n b", .gpt2) == ["a", "\n", " b"])
    #expect(words("x 123", .gpt2) == ["x", " 123"])
}

@Test func smollmIsolatesDigits() {
    #expect(words("x 123", .smollm) == ["x", " ", "1", "2", "3"])
    // The digit ends the fragment, so the whitespace run is not split for lookahead.
    #expect(words("a  1", .smollm) == ["a", "  ", "1"])
    #expect(words("a  b", .smollm) == ["a", " ", " b"])
}

@Test func preTokenizerNames() {
    #expect(PreTokenizer(ggufName: "qwen2") == .qwen2)
    #expect(PreTokenizer(ggufName: "smollm") == .smollm)
    #expect(PreTokenizer(ggufName: "llama-bpe") == .llama3)
    #expect(PreTokenizer(ggufName: "gpt-2") == .gpt2)
    #expect(PreTokenizer(ggufName: "default") == nil)
}
