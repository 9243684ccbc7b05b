import Foundation
import TestSupport
import Testing

@testable import Guidance

struct RegexTests {
    /// The JSON string literal for `text`, as the grammar writes it.
    static func json(_ text: String) -> String {
        String(decoding: JSONText.quoted(text), as: UTF8.self)
    }

    static func grammar(_ pattern: String, maxLength: Int? = nil) throws -> Grammar {
        try Grammar(schema: .string(pattern: pattern, maxLength: maxLength))
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("abc", ["abc"], ["ab", "abcd", ""]),
            ("a|bc|", ["a", "bc", ""], ["b", "abc"]),
            ("(ab)*c", ["c", "abc", "ababc"], ["ac", "abab"]),
            ("a+b?", ["a", "aaab"], ["b", "abb"]),
            ("a{2,3}", ["aa", "aaa"], ["a", "aaaa"]),
            ("a{2}", ["aa"], ["a", "aaa"]),
            ("a{2,}", ["aa", "aaaaa"], ["a"]),
            ("x{,2}", ["x{,2}"], ["x", "xx"]),
            ("[a-cx-z]+", ["abc", "zyx"], ["d", "abcd"]),
            ("[^a-c]", ["d", "é", "😀", " ", "\n"], ["a", "dd"]),
            ("[-a]", ["-", "a"], ["b"]),
            ("[a-]", ["-", "a"], ["b"]),
            ("\\d{3}-\\w+", ["123-a_b9"], ["12-a", "123-", "123-a b"]),
            ("\\s\\S", [" x", "\tx"], ["xx", "  "]),
            ("[\\d.]+", ["1.5", "..."], ["a"]),
            ("\\D\\W", ["a-", "--"], ["1-", "a1"]),
            (".", ["a", "é", "\"", "\\", "\u{1}"], ["\n", "\r", "ab", ""]),
            ("\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\\\/", [".*+?()[]{}|^$\\/"], []),
            ("\\x41\\u00e9\\u{1F600}\\t", ["Aé😀\t"], ["A"]),
            ("^(?:yes|no)$", ["yes", "no"], ["yesno", "maybe"]),
            ("(?<word>hi)+", ["hi", "hihi"], ["h"]),
            ("colou?r", ["color", "colour"], ["colouur"]),
            ("a*?b+?", ["b", "aab"], ["a"]),
            ("[日本]語", ["日語", "本語"], ["語"]),
            ("\"quoted\"", ["\"quoted\""], ["quoted"]),
            ("[\\n\\t]x", ["\nx", "\tx"], [" x"]),
            ("^a|b$", ["a", "b"], ["ab"]),
        ] as [(String, [String], [String])])
    func table(pattern: String, matches: [String], nonMatches: [String]) throws {
        let grammar = try Self.grammar(pattern)
        for text in matches {
            #expect(grammar.accepts(Self.json(text)), "\(pattern) should match \(text.debugDescription)")
        }
        for text in nonMatches {
            #expect(!grammar.accepts(Self.json(text)), "\(pattern) should not match \(text.debugDescription)")
        }
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("(?=a)b", GuidanceError.Kind.unsupportedPattern, 0),
            ("a(?!b)", .unsupportedPattern, 1),
            ("(?<=a)b", .unsupportedPattern, 0),
            ("(a)\\1", .unsupportedPattern, 3),
            ("\\bword", .unsupportedPattern, 0),
            ("a*+", .unsupportedPattern, 2),
            ("(?i)abc", .unsupportedPattern, 0),
            ("\\p{L}", .unsupportedPattern, 0),
            ("a^b", .unsupportedPattern, 1),
            ("a$b", .unsupportedPattern, 1),
            ("(a", .invalidPattern, 0),
            ("a)", .invalidPattern, 1),
            ("*a", .invalidPattern, 0),
            ("[a-", .invalidPattern, 0),
            ("[z-a]", .invalidPattern, 3),
            ("a{3,2}", .invalidPattern, 1),
            ("\\q", .invalidPattern, 0),
            ("a\\", .invalidPattern, 1),
        ] as [(String, GuidanceError.Kind, Int)])
    func refusedPatterns(pattern: String, kind: GuidanceError.Kind, offset: Int) {
        #expect {
            _ = try Self.grammar(pattern)
        } throws: { error in
            guard let error = error as? GuidanceError else { return false }
            return error.kind == kind && error.offset == offset && error.description.contains(pattern)
        }
    }

    /// Random strings checked against Foundation's regular expressions (ICU) as the oracle.
    @Test(
        .onTestThreads,
        arguments: [
            "[a-c]{1,3}(x|yz)*", "(a|ab)(c|bcd)", "\\d+(\\.\\d{1,2})?", "[^x]*x[^x]*", "(ab|a)*b?", "\\w{2,4}\\s?\\d",
            "(a*b*)*c?", "[ -~]{0,3}", ".{2}", "[aeiou]+[^aeiou ]",
        ])
    func agreesWithFoundation(pattern: String) throws {
        let grammar = try Self.grammar(pattern)
        let oracle = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z")
        var random = SplitMix64(seed: UInt64(pattern.utf8.count))
        // ICU's \w knows letters beyond ASCII; Sotto's is ASCII, so keep é out of those tests.
        let letters = pattern.contains("\\w") ? "abcdxyz" : "abcdxyzé"
        let alphabet = Array((letters + "019. \t\n_\"\\").unicodeScalars)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...6, using: &random)
            let text = String(
                String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &random)! }))
            let range = NSRange(text.startIndex..., in: text)
            let expected = oracle.firstMatch(in: text, range: range) != nil
            #expect(grammar.accepts(Self.json(text)) == expected, "\(pattern) on \(text.debugDescription)")
        }
    }

    @Test(.onTestThreads) func maxLengthCountsCharactersNotBytes() throws {
        let grammar = try Self.grammar(".*", maxLength: 2)
        #expect(grammar.accepts(Self.json("日本")))
        #expect(grammar.accepts(Self.json("\"\\")))
        #expect(!grammar.accepts(Self.json("日本語")))
    }

    @Test(.onTestThreads) func utf8SequencesCoverRangesExactly() {
        let ranges: [ClosedRange<UInt32>] = [
            0...0x10FFFF, 0x7F...0x80, 0x7FF...0x800, 0xD000...0xE0FF, 0xFFFF...0x10000, 0x1234...0x56789,
        ]
        for range in ranges {
            let sequences = ScalarSet.utf8Sequences(range)
            var random = SplitMix64(seed: UInt64(range.lowerBound))
            let probes =
                (0..<2000).map { _ in UInt32.random(in: 0...0x10FFFF, using: &random) }
                + [range.lowerBound, range.upperBound, 0xD7FF, 0xE000, 0x7F, 0x80, 0xFFFF, 0x10000]
            for scalar in probes where !ScalarSet.surrogates.contains(scalar) {
                let bytes = ScalarSet.encode(scalar)
                let matched = sequences.filter { sequence in
                    sequence.count == bytes.count && zip(sequence, bytes).allSatisfy { $0.contains($1) }
                }.count
                #expect(matched == (range.contains(scalar) ? 1 : 0), "U+\(String(scalar, radix: 16)) in \(range)")
            }
        }
    }
}
