import Foundation
import FoundationModels
import TestSupport
import Testing

@Suite struct GeneratedContentTests {
    @Test(.onTestThreads) func completeJSONParsesWithOrderedProperties() throws {
        let content = try GeneratedContent(json: #" {"b": 1, "a": [true, null, "x"], "c": {"d": -2.5e1}} "#)
        #expect(content.isComplete)
        guard case .structure(let properties, let keys) = content.kind else {
            Issue.record("expected a structure")
            return
        }
        #expect(keys == ["b", "a", "c"])
        #expect(
            properties["a"]?.kind
                == .array([GeneratedContent(kind: .bool(true)), GeneratedContent(kind: .null), "x".generatedContent]))
        #expect(try content.value(Double.self, forProperty: "b") == 1)
        #expect(content.jsonString == #"{"b":1,"a":[true,null,"x"],"c":{"d":-25}}"#)
    }

    /// Prefixes of a streamed response, and what each must read as.
    @Test(
        .onTestThreads,
        arguments: [
            (#"{"replies": ["Sure", "See y"#, #"{"replies":["Sure","See y"]}"#),
            (##"{"replies": ["Sure", ""##, #"{"replies":["Sure",""]}"#),
            (#"{"replies": ["Sure","#, #"{"replies":["Sure"]}"#),
            (#"{"replies": ["#, #"{"replies":[]}"#),
            (#"{"replies": "#, #"{}"#),
            (#"{"repl"#, #"{}"#),
            (#"{"#, #"{}"#),
            (#"{"n": 12"#, #"{"n":12}"#),
            (#"{"n": -"#, #"{}"#),
            (#"{"n": 1.5e"#, #"{"n":1.5}"#),
            (#"{"ok": tr"#, #"{}"#),
            (#"{"ok": true"#, #"{"ok":true}"#),
            (#"{"s": "a\"#, #"{"s":"a"}"#),
            (#"{"s": "caf\u00e"#, #"{"s":"caf"}"#),
            (#"{"s": "\ud83d\ude00"#, #"{"s":"😀"}"#),
            (#"["a", {"b": [1, 2"#, #"["a",{"b":[1,2]}]"#),
            (#""unterminated"#, #""unterminated""#),
        ])
    func partialJSONReadsAsMuchAsHasArrived(prefix: String, expected: String) throws {
        let content = try GeneratedContent(json: prefix)
        #expect(content.jsonString == expected)
        #expect(!content.isComplete)
    }

    @Test(.onTestThreads) func partialValuesAreMarkedIncompleteButFinishedOnesAreNot() throws {
        let content = try GeneratedContent(json: #"{"done": "yes", "items": ["a", "b"#)
        let properties = try content.properties()
        #expect(properties["done"]?.isComplete == true)
        #expect(properties["items"]?.isComplete == false)
        #expect(try properties["items"]?.elements().first?.isComplete == true)
        #expect(try properties["items"]?.elements().last?.isComplete == false)
    }

    @Test(.onTestThreads) func multibyteCharacterCutOffIsDropped() throws {
        // "é" is two bytes; cut after the first.
        var bytes = Array(#"{"s": "caf"#.utf8)
        bytes.append(0xC3)
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoding already replaced the lone byte; the parser must not crash and keeps "caf".
        let content = try GeneratedContent(json: text)
        #expect(try content.value(String.self, forProperty: "s").hasPrefix("caf"))
    }

    @Test(
        .onTestThreads,
        arguments: [
            (#"{"a" 1}"#, 5),
            (#"[1 2]"#, 3),
            (#"{"a": tru }"#, 9),
            (#"{"a": 01}"#, 6),
            (#"@"#, 0),
            (#"{"a": 1} x"#, 9),
            (#"{"s": "\q"}"#, 7),
            ("", 0),
            ("   ", 3),
        ])
    func invalidJSONThrowsWithItsOffset(text: String, offset: Int) {
        do {
            _ = try GeneratedContent(json: text)
            Issue.record("expected an error for \(text)")
        } catch let LanguageModelSession.GenerationError.decodingFailure(context) {
            #expect(context.debugDescription.contains("at byte \(offset):"), "\(context.debugDescription)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(.onTestThreads) func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 100_000)
        #expect(throws: LanguageModelSession.GenerationError.self) { try GeneratedContent(json: text) }
    }

    @Test(.onTestThreads) func stringsEscapeForJSON() throws {
        let content = GeneratedContent("quote \" backslash \\ newline \n tab \t bell \u{07} é")
        #expect(content.jsonString == #""quote \" backslash \\ newline \n tab \t bell \u0007 é""#)
        #expect(try GeneratedContent(json: content.jsonString) == content)
    }

    @Test(.onTestThreads) func numbersFormatCompactly() {
        #expect(GeneratedContent(3).jsonString == "3")
        #expect(GeneratedContent(2.5).jsonString == "2.5")
        #expect(GeneratedContent(-0.125).jsonString == "-0.125")
        #expect(GeneratedContent(1e20).jsonString == "1e+20")
        #expect(GeneratedContent(Double.nan).jsonString == "null")
    }

    @Test(.onTestThreads) func valueAccessorsConvertAndReportMismatches() throws {
        let content = try GeneratedContent(json: #"{"n": 3, "x": 2.5, "s": "hi", "list": [1, 2], "none": null}"#)
        #expect(try content.value(Int.self, forProperty: "n") == 3)
        #expect(try content.value(Float.self, forProperty: "x") == 2.5)
        #expect(try content.value(Decimal.self, forProperty: "x") == Decimal(string: "2.5"))
        #expect(try content.value([Int].self, forProperty: "list") == [1, 2])
        #expect(try content.value(String?.self, forProperty: "none") == nil)
        #expect(try content.value(String?.self, forProperty: "missing") == nil)
        #expect(throws: LanguageModelSession.GenerationError.self) { try content.value(Int.self, forProperty: "x") }
        #expect(throws: LanguageModelSession.GenerationError.self) {
            try content.value(String.self, forProperty: "missing")
        }
        #expect(throws: LanguageModelSession.GenerationError.self) { try content.value(Int.self) }
        do {
            _ = try content.value([String].self, forProperty: "list")
        } catch let LanguageModelSession.GenerationError.decodingFailure(context) {
            #expect(context.debugDescription.hasPrefix("property 'list': element 0: expected a string"))
        }
    }

    @Test(.onTestThreads) func decimalKeepsItsDecimalDigits() throws {
        #expect(try Decimal(GeneratedContent(json: "0.1")) == Decimal(string: "0.1"))
    }

    @Test(.onTestThreads) func propertiesInitializersKeepOrderAndResolveDuplicates() throws {
        let content = GeneratedContent(properties: ["z": 1, "a": "x", "z": 2])
        #expect(content.jsonString == #"{"z":2,"a":"x"}"#)
        let pairs: [(String, any ConvertibleToGeneratedContent)] = [("k", 1), ("k", 2), ("j", 3)]
        let summed = try GeneratedContent(properties: pairs) { first, second in
            try first.value(Int.self) + second.value(Int.self)
        }
        #expect(summed.jsonString == #"{"k":3,"j":3}"#)
        let array = GeneratedContent(elements: ["a", 1, true] as [any ConvertibleToGeneratedContent])
        #expect(array.jsonString == #"["a",1,true]"#)
    }

    @Test(.onTestThreads) func equalityIgnoresIDs() {
        #expect(GeneratedContent("a", id: GenerationID()) == GeneratedContent("a", id: GenerationID()))
        #expect(GeneratedContent("a") != GeneratedContent("b"))
    }
}
