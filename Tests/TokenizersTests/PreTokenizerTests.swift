import Foundation
import TestSupport
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

@Test(.onTestThreads) func qwen2Splits() {
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

@Test(.onTestThreads) func llama3GroupsDigitsByThree() {
    #expect(words("1234567", .llama3) == ["123", "456", "7"])
}

@Test(.onTestThreads) func gpt2Splits() {
    #expect(words("DON'T it's", .gpt2) == ["DON", "'", "T", " it", "'s"])
    #expect(words("a  b", .gpt2) == ["a", " ", " b"])
    #expect(words("a\n b", .gpt2) == ["a", "\n", " b"])
    #expect(words("x 123", .gpt2) == ["x", " 123"])
}

@Test(.onTestThreads) func smollmIsolatesDigits() {
    #expect(words("x 123", .smollm) == ["x", " ", "1", "2", "3"])
    // The digit ends the fragment, so the whitespace run is not split for lookahead.
    #expect(words("a  1", .smollm) == ["a", "  ", "1"])
    #expect(words("a  b", .smollm) == ["a", " ", " b"])
}

@Test(.onTestThreads) func preTokenizerNames() {
    #expect(PreTokenizer(ggufName: "qwen2") == .qwen2)
    #expect(PreTokenizer(ggufName: "smollm") == .smollm)
    #expect(PreTokenizer(ggufName: "llama-bpe") == .llama3)
    #expect(PreTokenizer(ggufName: "gpt-2") == .gpt2)
    #expect(PreTokenizer(ggufName: "default") == nil)
}

@Test(.onTestThreads) func nfcTouchesOnlyWhatNeedsIt() {
    let samples = [
        "plain ascii", "café", "e\u{301}cole", "x\u{212B}y", "\u{1100}\u{1161}\u{11A8}", "ä\u{323}\u{302}",
        "q\u{307}\u{323} and more e\u{301} text", "한국어 텍스트", "か\u{3099}", "日本語", "\u{0627}\u{0653}",
    ]
    for sample in samples {
        var text = sample
        let expected = Array(sample.precomposedStringWithCanonicalMapping.utf8)
        let got = text.withUTF8 { NFC.normalize($0) } ?? Array(sample.utf8)
        #expect(got == expected, "\(sample.debugDescription)")
    }
    var ascii = "no change here"
    #expect(ascii.withUTF8 { NFC.normalize($0) } == nil)
}
