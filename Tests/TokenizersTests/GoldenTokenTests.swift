import Foundation
import TestSupport
import Testing

@testable import Tokenizers

/// Token ids must equal the reference tokenizer's, byte for byte.
@Test("encode matches the reference tokenizer", .onTestThreads, arguments: FixtureCase.all)
func encodeMatchesReference(_ fixture: FixtureCase) throws {
    let tokenizer = try ModelTokenizers.tokenizer(fixture.model)
    #expect(tokenizer.encode(fixture.text, parseSpecial: fixture.parseSpecial) == fixture.ids)
}

@Test(
    "fixture corpus round-trips through decode and the streaming decoder", .onTestThreads,
    arguments: ModelTokenizers.models)
func roundTrip(_ model: String) throws {
    let tokenizer = try ModelTokenizers.tokenizer(model)
    for fixture in FixtureCase.all where fixture.model == model {
        // Qwen2 normalizes to NFC before splitting: that is what comes back.
        let expected = tokenizer.normalizesToNFC ? fixture.text.precomposedStringWithCanonicalMapping : fixture.text
        let ids = tokenizer.encode(fixture.text, parseSpecial: fixture.parseSpecial)
        #expect(tokenizer.decode(ids) == expected, "\(fixture.testDescription)")

        var stream = StreamingDetokenizer(tokenizer: tokenizer)
        var streamed = ""
        for id in ids {
            let piece = stream.append(id)
            #expect(!piece.unicodeScalars.contains("\u{FFFD}"), "broken UTF-8 in \(fixture.testDescription)")
            streamed += piece
        }
        streamed += stream.flush()
        #expect(streamed == expected, "\(fixture.testDescription)")
    }
}

@Test("fixture cases that differ from llama.cpp are only non-NFC text", .onTestThreads)
func llamaCppDifferencesAreNormalization() {
    for fixture in FixtureCase.all where fixture.llamaCppIDs != nil {
        let isNFC = fixture.text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(
            fixture.text.unicodeScalars)
        // Qwen's "</s>" is a normal token that llama.cpp turns into a control one (see
        // Tokenizer.endOfGenerationNames); the other differences come from NFC.
        #expect(!isNFC || fixture.text.contains("</s>"), "\(fixture.testDescription)")
    }
}

/// The heap merge (long words) and the scan merge (short words) apply the same rule.
@Test("heap and scan merges agree", .onTestThreads, arguments: ModelTokenizers.models)
func heapAndScanMergesAgree(_ model: String) throws {
    let tokenizer = try ModelTokenizers.tokenizer(model)
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("  aaabbbeeeinnorsstt_-.()éü中😀\n".utf8)
    for fixture in FixtureCase.all where fixture.model == model {
        let bytes = Array(fixture.text.utf8.prefix(200))
        guard !bytes.isEmpty else { continue }
        #expect(tokenizer.mergeWord(bytes, forceHeap: true) == tokenizer.mergeWord(bytes, forceHeap: false))
    }
    for _ in 0..<500 {
        let bytes = (0..<Int.random(in: 2...80, using: &generator)).map { _ in
            alphabet.randomElement(using: &generator)!
        }
        #expect(tokenizer.mergeWord(bytes, forceHeap: true) == tokenizer.mergeWord(bytes, forceHeap: false))
    }
}
