import Foundation
import GGUF
import TestSupport
import Testing
import Tokenizers

@testable import Guidance

enum Fixtures {
    /// A synthetic vocabulary: every single byte, JSON punctuation runs, words with and without
    /// quotes, multi-byte characters (whole and cut), escapes, digits runs and random strings.
    /// The last two ids are end-of-generation and excluded.
    static let syntheticVocabulary: Vocabulary = {
        var tokens: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        let pieces = [
            "{\"", "\":", "\": ", " \"", "\", \"", "\"}", "\"},", "\"]", "\"]}", "\", ", ", ", ",", "[\"", " [\"",
            "[", "]", "{", "}", "\": [", "\": {\"", "}, {\"", "], ", "\":\"", "true", "false", "null", " true",
            "-", "0", "1", "12", "123", "2024", "00", ".", ".5", "0.", "e", "-1", "hello", "Hello", " world", "name",
            "age", "replies", "city", "x", "abc", "de", "\\n", "\\\"", "\\u00", "\\\\", "\\", "\\u", "é", "日本",
            "語", "😀", "🙂 ", "\u{00A0}", " ", "  ", "\n", "\t", "yes", "no", "maybe", "a", "b", "ab", "ba", "aa",
            "Z", "Zz", "ZZ", "_", "-_", "#", "@", "0x", "ff", "FF", "A1", "B2", "name\":", "age\": ",
            "\"Hello", "!\"", "?\",", ".\"]", "ok\"}", "AB-12", "ab-", "-12", "   ", "\"\"", "\"\":",
        ]
        tokens += pieces.map { Array($0.utf8) }
        tokens += [[0xE6], [0x97, 0xA5], [0xF0, 0x9F], [0x98, 0x80], [0xC3], [0xA9, 0x22]]  // cut UTF-8
        var random = SplitMix64(seed: 7)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABC0123456789 _-.,:\"\\{}[]é".unicodeScalars)
        for _ in 0..<600 {
            let length = Int.random(in: 1...7, using: &random)
            let text = String(
                String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &random)! }))
            tokens.append(Array(text.utf8))
        }
        tokens.append(Array("<|end|>".utf8))
        tokens.append(Array("<|control|>".utf8))
        return Vocabulary(
            tokenBytes: tokens, endOfGenerationTokenIDs: [tokens.count - 2], excludedTokenIDs: [tokens.count - 1])
    }()

    static let syntheticIndex = VocabularyIndex(syntheticVocabulary)

    /// The tokenizer of a real model, found through `RealModels` (a failure under `scripts/test`,
    /// a skip elsewhere, when the model is not downloaded).
    static func tokenizer(_ model: String) throws -> Tokenizer {
        if let cached = tokenizers.withLock({ $0[model] }) { return cached }
        let tokenizer = try Tokenizer(gguf: GGUFFile(path: try RealModels.path(model)))
        tokenizers.withLock { $0[model] = tokenizer }
        return tokenizer
    }

    /// The index of a real model's vocabulary, built once per test process.
    static func index(_ model: String) throws -> VocabularyIndex {
        if let cached = indexes.withLock({ $0[model] }) { return cached }
        let index = VocabularyIndex(Vocabulary(tokenizer: try tokenizer(model)))
        indexes.withLock { $0[model] = index }
        return index
    }

    private static let tokenizers = LockedDictionary<Tokenizer>()
    private static let indexes = LockedDictionary<VocabularyIndex>()
}

/// A dictionary behind a lock, for caches shared by parallel tests.
final class LockedDictionary<Value>: @unchecked Sendable {
    // Safe: every access goes through `lock`.
    private var values: [String: Value] = [:]
    private let lock = NSLock()

    func withLock<T>(_ body: (inout [String: Value]) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&values)
    }
}

extension Grammar {
    /// Whether `text` is accepted, compiling `schema` first.
    static func accepts(_ schema: Schema, _ text: String) throws -> Bool {
        try Grammar(schema: schema).accepts(text)
    }
}
