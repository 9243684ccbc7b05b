import Foundation
import TestSupport
import Testing
import Tokenizers

@testable import Guidance

struct MaskTests {
    /// Every token of a real vocabulary checked one by one against the mask, at states of
    /// several kinds (structure, free string, bounded string, number, pattern, end).
    @Test(.onTestThreads, arguments: ["qwen2.5-coder-0.5b", "smollm2-135m"])
    func masksMatchBruteForce(model: String) throws {
        let index = try Fixtures.index(model)
        let schema = Schema.object([
            .init("replies", .array(.string(), minCount: 2, maxCount: 2)),
            .init("short", .string(maxLength: 5)),
            .init("age", .integer(min: -20, max: 150)),
            .init("ratio", .number(min: 0, max: 1), isOptional: true),
            .init("code", .string(pattern: "[A-Z]{2}-\\d{2,3}")),
            .init("mood", .string(choices: ["calm", "cross", "content"])),
        ])
        let grammar = try Grammar(schema: schema)
        let matcher = TokenMatcher(grammar: grammar, index: index)
        let prefixes = [
            "", "{", #"{"replies": ["#, #"{"replies": [""#, #"{"replies": ["Hi th"#, #"{"replies": ["a\"#,
            #"{"replies": ["\u00"#,
            #"{"replies": ["a", "b"], "short": "abc"#, #"{"replies": ["a", "b"], "short": "abcde"#,
            #"{"replies": ["a", "b"], "short": "", "age": "#, #"{"replies": ["a", "b"], "short": "", "age": -1"#,
            #"{"replies": ["a", "b"], "short": "", "age": 1, "ratio": 0."#,
            #"{"replies": ["a", "b"], "short": "", "age": 1, "code": "A"#,
            #"{"replies": ["a", "b"], "short": "", "age": 1, "code": "AB-12"#,
            #"{"replies": ["a", "b"], "short": "", "age": 1, "code": "AB-12", "mood": "c"#,
            #"{"replies": ["a", "b"], "short": "", "age": 1, "code": "AB-12", "mood": "calm""#,
            #"{"replies": ["a", "b"], "short": "", "age": 1, "code": "AB-12", "mood": "calm"}"#,
        ]
        // The last prefix stops inside a UTF-8 character.
        let byteStrings = prefixes.map { Array($0.utf8) } + [Array(#"{"replies": ["日"#.utf8) + [0xE6]]
        var mask = TokenMask(vocabularySize: index.vocabularySize)
        for bytes in byteStrings {
            let prefix = String(decoding: bytes, as: UTF8.self)
            matcher.reset()
            try matcher.accept(bytes: bytes)
            matcher.fillMask(&mask)
            var mismatches: [Int] = []
            for token in 0..<index.vocabularySize where mask.contains(token) != matcher.canAccept(token) {
                mismatches.append(token)
            }
            #expect(mismatches.isEmpty, "\(model) after \(prefix.debugDescription): \(mismatches.prefix(10))")
            #expect(!mask.isEmpty)
            // The same state again comes from the cache and must not differ.
            var again = TokenMask(vocabularySize: index.vocabularySize)
            matcher.fillMask(&again)
            #expect(again == mask)
        }
    }

    @Test(.onTestThreads) func maskAtStringStateAllowsMostOfTheVocabulary() throws {
        let index = try Fixtures.index("qwen2.5-coder-0.5b")
        let matcher = TokenMatcher(grammar: try Grammar(schema: .string()), index: index)
        try matcher.accept(bytes: [0x22])
        let allowed = matcher.mask.allowedCount
        #expect(allowed > 140_000 && allowed < index.vocabularySize)
        #expect(!matcher.mask.contains(index.vocabulary.endOfGenerationTokenIDs.first!))
        try matcher.accept(bytes: [0x22])
        #expect(matcher.isComplete && matcher.canEnd)
        #expect(matcher.mask.allowedTokens == index.vocabulary.endOfGenerationTokenIDs.sorted())
    }

    @Test(.onTestThreads) func acceptRefusesWhatTheMaskRefuses() throws {
        let index = Fixtures.syntheticIndex
        let matcher = TokenMatcher(grammar: try Grammar(schema: .boolean), index: index)
        let end = index.vocabulary.endOfGenerationTokenIDs.first!
        #expect(throws: GuidanceError.self) { try matcher.accept(end) }
        #expect(throws: GuidanceError.self) { try matcher.accept(Int(UInt8(ascii: "x"))) }
        #expect(throws: GuidanceError.self) { try matcher.accept(index.vocabularySize - 1) }  // excluded
        #expect(throws: GuidanceError.self) { try matcher.accept(-1) }
        try matcher.accept(Int(UInt8(ascii: "t")))
        #expect(matcher.forcedBytes == Array("rue".utf8))
        try matcher.accept(bytes: Array("rue".utf8))
        #expect(matcher.canEnd)
        try matcher.accept(end)
        #expect(matcher.isComplete && !matcher.canEnd && matcher.mask.isEmpty)
    }

    @Test(.onTestThreads, arguments: ["qwen2.5-coder-0.5b", "smollm2-135m"])
    func forcedTokensSpellTheForcedText(model: String) throws {
        let tokenizer = try Fixtures.tokenizer(model)
        let index = try Fixtures.index(model)
        let grammar = try Grammar(
            schema: .object([
                .init("replies", .array(.string(choices: ["Sure!", "Sure thing."]), minCount: 1, maxCount: 1))
            ]))
        let matcher = TokenMatcher(grammar: grammar, index: index)
        let forced = matcher.forcedTokens(using: tokenizer)
        #expect(!forced.isEmpty)
        let spelled = forced.flatMap { tokenizer.tokenBytes($0) }
        #expect(matcher.forcedBytes.starts(with: spelled) && spelled.count < matcher.forcedBytes.count)
        for token in forced { try matcher.accept(token) }
        // Finish by forced text and sampling the rest of the forced run token by token.
        try matcher.accept(bytes: matcher.forcedBytes)
        try matcher.accept(bytes: Array(" thing.".utf8))
        let tail = matcher.forcedTokens(using: tokenizer)
        #expect(tokenizer.decode(tail) == "\"]}", "the whole tail is forced when it completes the output")
        for token in tail { try matcher.accept(token) }
        #expect(matcher.isComplete)
    }

    @Test(.onTestThreads) func vocabularyIndexSlicesCoverEveryTextToken() throws {
        let index = Fixtures.syntheticIndex
        var seen = Set<Int32>()
        for node in index.trie.nodes where node.token >= 0 { #expect(seen.insert(node.token).inserted) }
        for (_, duplicate) in index.trie.duplicates { seen.insert(duplicate) }
        let text = (0..<index.vocabularySize).filter { index.vocabulary.isText($0) }
        #expect(seen == Set(text.map { Int32($0) }))
        let families = [
            ("hello", 0, 5), ("Hello", 1, 5), (" Hello", 2, 6), (" héllo", 3, 6), ("日本", 3, 2), ("a-b", 3, 3),
        ]
        for (text, family, length) in families {
            let classified = VocabularyIndex.classify(Array(text.utf8))
            #expect(classified?.family == family && classified?.length == Int32(length), "\(text)")
        }
        for bytes in [Array("a\"".utf8), [0xC3], Array("\n".utf8), Array("a\\".utf8), []] {
            #expect(VocabularyIndex.classify(bytes) == nil)
        }
    }
}
