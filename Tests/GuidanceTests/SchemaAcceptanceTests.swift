import TestSupport
import Testing

@testable import Guidance

/// Tables of complete texts each schema must and must not accept.
struct SchemaAcceptanceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var schema: Schema
        var accepted: [String]
        var rejected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "replies object", schema: .object([.init("replies", .array(.string(), minCount: 3, maxCount: 3))]),
            accepted: [#"{"replies": ["a", "b", "c"]}"#, #"{"replies": ["", "Sure, 7am!", "x\"y\\z\n"]}"#],
            rejected: [
                #"{"replies": ["a", "b"]}"#, #"{"replies": ["a", "b", "c", "d"]}"#, #"{"replies":["a","b","c"]}"#,
                #"{"replies": ["a", "b", "c"]} "#, #" {"replies": ["a", "b", "c"]}"#, #"{"Replies": ["a", "b", "c"]}"#,
            ]),
        Case(
            name: "optional properties",
            schema: .object([
                .init("a", .integer(), isOptional: true), .init("b", .boolean),
                .init("c", .null, isOptional: true),
            ]),
            accepted: [
                #"{"b": true}"#, #"{"a": 1, "b": false}"#, #"{"b": true, "c": null}"#,
                #"{"a": -5, "b": true, "c": null}"#,
            ],
            rejected: [#"{"a": 1}"#, #"{"b": true, "a": 1}"#, #"{}"#, #"{, "b": true}"#, #"{"b": true,}"#]),
        Case(
            name: "all optional",
            schema: .object([.init("x", .integer(), isOptional: true), .init("y", .integer(), isOptional: true)]),
            accepted: ["{}", #"{"x": 1}"#, #"{"y": 2}"#, #"{"x": 1, "y": 2}"#],
            rejected: [#"{"y": 2, "x": 1}"#, #"{, "y": 2}"#, #"{"x": 1, }"#]),
        Case(name: "empty object", schema: .object([]), accepted: ["{}"], rejected: ["{ }", "[]"]),
        Case(
            name: "array bounds", schema: .array(.integer(min: 0, max: 9), minCount: 1, maxCount: 3),
            accepted: ["[0]", "[1, 2]", "[9, 9, 9]"], rejected: ["[]", "[1, 2, 3, 4]", "[1,2]", "[10]", "[01]"]),
        Case(
            name: "unbounded array", schema: .array(.boolean),
            accepted: ["[]", "[true]", "[true, false, true, true, false, false, true]"],
            rejected: ["[true,]", "[, true]", "[True]"]),
        Case(
            name: "array at least two", schema: .array(.null, minCount: 2),
            accepted: ["[null, null]", "[null, null, null, null]"], rejected: ["[]", "[null]"]),
        Case(
            name: "empty array only", schema: .array(.integer(), minCount: 0, maxCount: 0), accepted: ["[]"],
            rejected: ["[1]"]),
        Case(
            name: "string choices", schema: .string(choices: ["happy", "sad", "happy-ish", "a\"b"]),
            accepted: [#""happy""#, #""sad""#, #""happy-ish""#, #""a\"b""#],
            rejected: [#""hap""#, #""Happy""#, #""happy ""#, "happy", #""a"b""#]),
        Case(
            name: "constant", schema: .constant("v1.0 ✓"), accepted: [#""v1.0 ✓""#],
            rejected: [#""v1.0""#, #""v1.0 ✓ ""#]),
        Case(
            name: "string max length", schema: .string(maxLength: 3),
            accepted: [#""""#, #""abc""#, #""日本語""#, #""\n\t\\""#, #""\u00e9ab""#, #""😀😀😀""#],
            rejected: [#""abcd""#, #""日本語x""#, #""\n\t\\\"""#, "\"a\u{01}\"", #""\ud800""#, #""\x41""#]),
        Case(
            name: "free string", schema: .string(),
            accepted: [
                #""""#, #""Ünïcödé 😀""#, #""quote \" slash \/ \b\f\n\r\t \u0041 \uFFFF \uD7FF""#,
                #""a'b""#,
            ],
            rejected: [
                "\"tab\there\"", "\"line\nbreak\"", #""bad \q escape""#, #""\u12""#, #""\uDC00""#, #""unterminated"#,
                #""a" "b""#,
            ]),
        Case(
            name: "integers", schema: .integer(min: -15, max: 120),
            accepted: ["-15", "-9", "-1", "0", "7", "99", "100", "120"],
            rejected: ["-16", "-0", "121", "007", "1.0", "+5", "1e2", " 5", "", "-"]),
        Case(
            name: "negative range", schema: .integer(min: -300, max: -20),
            accepted: ["-300", "-299", "-100", "-20"], rejected: ["-19", "-301", "0", "20", "-0"]),
        Case(
            name: "unbounded integer", schema: .integer(),
            accepted: ["0", "-1", "9223372036854775807", "-9223372036854775808", "42"],
            rejected: ["9223372036854775808", "-9223372036854775809", "00", "-0", "1.5"]),
        Case(
            name: "number range", schema: .number(min: -1.5, max: 2.25),
            accepted: ["-1.5", "-1", "-0.5", "0", "0.0", "1", "2.25", "2.2", "2.250", "-1.50", "0.123456789012345"],
            rejected: ["-1.6", "2.26", "2.2500001", "3", "-2", "1e0", ".5", "1.", "01.5", "0.1234567890123456", "-0"]),
        Case(
            name: "positive number", schema: .number(min: 0.1, max: 100),
            accepted: ["0.1", "0.15", "1", "99.999", "100", "100.000"],
            rejected: ["0.09", "0", "0.0999", "100.001", "-1"]),
        Case(
            name: "unbounded number", schema: .number(),
            accepted: ["0", "-0.5", "3.14159", "123456789012345", "-999999999999999.5"],
            rejected: ["1234567890123456", "+1", "1e5", "NaN", "--1"]),
        Case(
            name: "anyOf", schema: .anyOf([.integer(min: 0, max: 5), .string(choices: ["none"]), .null]),
            accepted: ["0", "5", #""none""#, "null"], rejected: ["6", #""some""#, "nul"]),
        Case(
            name: "overlapping anyOf", schema: .anyOf([.integer(min: 0, max: 20), .number(min: 10, max: 30)]),
            accepted: ["5", "15", "25.5", "30"], rejected: ["31", "-1"]),
        Case(
            name: "nested",
            schema: .object([
                .init(
                    "people",
                    .array(
                        .object([.init("name", .string(maxLength: 10)), .init("age", .integer(min: 0, max: 150))]),
                        maxCount: 2))
            ]),
            accepted: [#"{"people": []}"#, #"{"people": [{"name": "Ada", "age": 36}, {"name": "Bo", "age": 0}]}"#],
            rejected: [#"{"people": [{"age": 36, "name": "Ada"}]}"#, #"{"people": [{"name": "Ada", "age": 151}]}"#]),
        Case(
            name: "key escaping", schema: .object([.init("a \"quoted\" key", .boolean)]),
            accepted: [#"{"a \"quoted\" key": true}"#], rejected: [#"{"a "quoted" key": true}"#]),
        Case(
            name: "pattern", schema: .string(pattern: "^[A-Z]{2}-\\d{3}$"),
            accepted: [#""AB-123""#, #""ZZ-000""#], rejected: [#""ab-123""#, #""AB-1234""#, #""AB123""#, #""""#]),
        Case(
            name: "pattern with escaping", schema: .string(pattern: #"a"b\\c\n?"#),
            accepted: [#""a\"b\\c""#, #""a\"b\\c\n""#], rejected: [#""a"b\c""#, #""a\"b\\c\u000a""#]),
        Case(
            name: "pattern and max length", schema: .string(pattern: "[a-z]+", maxLength: 4),
            accepted: [#""a""#, #""abcd""#], rejected: [#""""#, #""abcde""#]),
        Case(
            name: "choices filtered by pattern",
            schema: .string(pattern: "[a-z]+", choices: ["ok", "NO", "fine"], maxLength: 3),
            accepted: [#""ok""#], rejected: [#""NO""#, #""fine""#]),
        Case(
            name: "any object", schema: .anyObject(maximumDepth: 3),
            accepted: [
                "{}", #"{"a": 1}"#, #"{"": "", "b": [], "c": {}}"#, #"{"x": [1, "two", true, false, null, -0.5]}"#,
                #"{"a": {"b": [1, 2]}}"#, #"{"a": {"b": {"c": 1}}}"#, #"{"a": [[1], {"k": "v"}]}"#,
                #"{"a \"b\"": "\u00e9\n"}"#,
            ],
            rejected: [
                "[]", "1", #""a""#, "null", #"{"a": {"b": {"c": {}}}}"#, #"{"a": [[[1]]]}"#, #"{"a": 1,}"#,
                #"{, "a": 1}"#, #"{"a" 1}"#, #"{a: 1}"#, #"{"a":1}"#, "{ }", #"{"a": 1} "#, #"{"a": [1,]}"#,
                #"{"a": 1e5}"#,
            ]),
        Case(
            name: "any object, one level", schema: .anyObject(maximumDepth: 1),
            accepted: ["{}", #"{"a": "b", "c": 3}"#], rejected: [#"{"a": []}"#, #"{"a": {}}"#]),
    ]

    @Test(.onTestThreads, arguments: cases)
    func table(_ testCase: Case) throws {
        let grammar = try Grammar(schema: testCase.schema)
        for text in testCase.accepted {
            #expect(grammar.accepts(text), "should accept \(text)")
        }
        for text in testCase.rejected {
            #expect(!grammar.accepts(text), "should reject \(text)")
        }
    }

    @Test(.onTestThreads) func prefixesOfAcceptedTextsStayAlive() throws {
        for testCase in Self.cases {
            let grammar = try Grammar(schema: testCase.schema)
            for text in testCase.accepted {
                let bytes = Array(text.utf8)
                for end in 0...bytes.count {
                    #expect(grammar.acceptsPrefix(bytes: bytes[..<end]), "\(testCase.name): prefix \(end) of \(text)")
                }
            }
        }
    }

    @Test(.onTestThreads) func inconsistentSchemasThrowWithTheirPath() {
        let cases: [(Schema, GuidanceError.Kind, String)] = [
            (.object([.init("n", .integer(min: 5, max: 4))]), .invalidSchema, "$.n"),
            (.array(.boolean, minCount: 3, maxCount: 2), .invalidSchema, "$"),
            (.object([.init("a", .array(.number(min: 2, max: 1)))]), .invalidSchema, "$.a[*]"),
            (.object([.init("p", .string(pattern: "(?=x)"))]), .unsupportedPattern, "$.p"),
            (.object([.init("p", .string(pattern: "a("))]), .invalidPattern, "$.p"),
            (.string(pattern: "[a-z]{5}", maxLength: 3), .emptyLanguage, "$"),
            (.object([.init("c", .string(pattern: "[a-z]+", choices: ["A", "B"]))]), .emptyLanguage, "$.c"),
            (
                .anyOf([.string(choices: ["toolong"], maxLength: 2), .string(pattern: "x{3}", maxLength: 2)]),
                .emptyLanguage, "$.anyOf[1]"
            ),
            (.anyOf([]), .invalidSchema, "$"),
            (.object([.init("a", .null), .init("a", .null)]), .invalidSchema, "$"),
            (.array(.string(maxLength: 100), minCount: 50, maxCount: 50), .tooLarge, "$[*]"),
        ]
        for (schema, kind, path) in cases {
            do {
                _ = try Grammar(schema: schema, stateLimit: 10_000)
                Issue.record("\(schema) compiled")
            } catch let error as GuidanceError {
                #expect(error.kind == kind, "\(error)")
                if !path.isEmpty { #expect(error.path == path, "\(error)") }
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test(.onTestThreads) func anyOfDropsOptionsNothingSatisfies() throws {
        let grammar = try Grammar(schema: .anyOf([.string(choices: ["toolong"], maxLength: 2), .boolean]))
        #expect(grammar.accepts("true"))
        #expect(!grammar.accepts(#""toolong""#))
    }

    @Test(.onTestThreads) func forcedBytesFollowTheStructure() throws {
        let grammar = try Grammar(
            schema: .object([
                .init("replies", .array(.string(), minCount: 2, maxCount: 2)),
                .init("mood", .string(choices: ["calm", "cross"])),
            ]))
        let matcher = TokenMatcher(grammar: grammar, index: Fixtures.syntheticIndex)
        #expect(String(decoding: matcher.forcedBytes, as: UTF8.self) == #"{"replies": [""#)
        try matcher.accept(bytes: Array(#"{"replies": ["hi"#.utf8))
        #expect(matcher.forcedBytes.isEmpty)
        try matcher.accept(bytes: Array(#"", "yo""#.utf8))
        #expect(String(decoding: matcher.forcedBytes, as: UTF8.self) == #"], "mood": "c"#)
        try matcher.accept(bytes: Array(#"], "mood": "cr"#.utf8))
        #expect(String(decoding: matcher.forcedBytes, as: UTF8.self) == #"oss"}"#)
        #expect(!matcher.canEnd && !matcher.isComplete)
        try matcher.accept(bytes: Array(#"oss"}"#.utf8))
        #expect(matcher.canEnd && matcher.isComplete)
        #expect(matcher.forcedBytes.isEmpty)
    }
}
