import TestSupport
import Testing

@testable import JSONSyntax

@Suite struct StringLiteralTests {
    /// Decodes `literal` (which starts with its opening quote).
    func decode(_ literal: String, _ options: JSONStringLiteral.Options = .init()) throws(JSONStringLiteral.Failure)
        -> (text: String, end: Int?)
    {
        let (utf8, end) = try JSONStringLiteral.decode(Array(literal.utf8), openingQuoteAt: 0, options: options)
        return (String(decoding: utf8, as: UTF8.self), end)
    }

    @Test(.onTestThreads) func escapesAndWhereTheStringEnds() throws {
        let result = try decode(#""a\"b\\c\/d\n\t\r\b\f\u00e9\u65e5" rest"#)
        #expect(result.text == "a\"b\\c/d\n\t\r\u{8}\u{C}é日")
        #expect(result.end == 34)
        #expect(try decode(#""""#).end == 2)
        #expect(try decode(#""\ud83d\ude00""#).text == "😀")  // a surrogate pair is one scalar
    }

    @Test(.onTestThreads) func cutOffInputSaysSoAndKeepsWhatCameBefore() throws {
        for cut in [#""abc"#, #""abc\"#, #""abc\u00"#, #""abc\ud83d"#, #""abc\ud83d\"#, #""abc\ud83d\ude"#] {
            let result = try decode(cut)
            #expect(result.end == nil, "\(cut)")
            #expect(result.text == "abc", "\(cut)")
        }
    }

    @Test(.onTestThreads) func badSyntaxIsAnErrorWithItsOffset() {
        let cases: [(String, Int, String)] = [
            (#""a\q""#, 2, "invalid escape '\\q'"),
            (#""a\u12g4""#, 6, "invalid hex digit in \\u escape"),
            ("\"a\u{1}b\"", 2, "control character in string"),
            (#""\udc00""#, 1, "unpaired surrogate in \\u escape"),
            (#""\ud83dx""#, 1, "unpaired surrogate in \\u escape"),
            (#""\ud83d\u0041""#, 7, "invalid low surrogate in \\u escape"),
        ]
        for (literal, offset, message) in cases {
            #expect(throws: JSONStringLiteral.Failure(offset: offset, message: message), "\(literal)") {
                _ = try decode(literal)
            }
        }
    }

    @Test(.onTestThreads) func theOptionsRelaxWhatTheyName() throws {
        let lenient = JSONStringLiteral.Options(loneSurrogates: .replace, allowsControlCharacters: true)
        #expect(try decode("\"a\u{1}b\"", lenient).text == "a\u{1}b")
        #expect(try decode(#""\udc00x""#, lenient).text == "\u{FFFD}x")
        // A high half followed by something else: U+FFFD, then the rest read on its own.
        #expect(try decode(#""\ud83d\u0041""#, lenient).text == "\u{FFFD}A")
    }

    @Test(.onTestThreads) func encodingEscapesWhatJSONRequiresAndDecodesBack() throws {
        #expect(JSONStringLiteral.encode("a\"b\\c/d\n\t\r\u{8}\u{C}\u{1}é😀") == #""a\"b\\c/d\n\t\r\b\f\u0001é😀""#)
        for text in ["", "plain", "</script>", "\u{0}\u{1F}\u{7F}", "日本語 😀 e\u{301}"] {
            let encoded = JSONStringLiteral.encode(text)
            #expect(try decode(encoded).text == text)
            #expect(try decode(encoded).end == encoded.utf8.count)
        }
    }
}
