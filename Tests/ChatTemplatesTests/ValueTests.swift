import ChatTemplates
import TestSupport
import Testing

@Suite("TemplateValue and JSON")
struct ValueTests {
    @Test(.onTestThreads) func objectsKeepInsertionOrder() {
        var object = TemplateObject([("b", 1), ("a", 2), ("b", 3)])
        #expect(object.keys == ["b", "a"])
        #expect(object["b"] == 3)
        object["c"] = "x"
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(TemplateObject([("a", 1), ("b", 2)]) != TemplateObject([("b", 2), ("a", 1)]))
    }

    @Test(.onTestThreads) func literals() {
        let value: TemplateValue = ["role": "user", "n": 1, "x": 1.5, "ok": true, "none": nil, "list": [1, "a"]]
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["role", "n", "x", "ok", "none", "list"])
        #expect(value["role"]?.stringValue == "user")
        #expect(value["list"]?.arrayValue?.count == 2)
        #expect(value["none"] == TemplateValue.none)
    }

    @Test(.onTestThreads) func jsonParsingKeepsKeyOrderAndTypes() throws {
        let value = try TemplateValue(
            json: #" {"z": [1, 2.0, -3e2, true, null], "a": {"é\n\u00e9\ud83d\ude00": "\"q\""}} "#)
        #expect(value == ["z": [1, 2.0, -300.0, true, nil], "a": ["é\né😀": "\"q\""]])
        guard case .object(let object) = value else { return }
        #expect(object.keys == ["z", "a"])
    }

    @Test(
        .onTestThreads,
        arguments: [
            (#"{"a": }"#, 6), (#"[1, 2"#, 5), (#"{"a" 1}"#, 5), (#"tru"#, 3), (#""abc"#, 4), (#"[1] x"#, 4),
            (#"01x"#, 2),
        ])
    func jsonErrorsCarryTheOffset(text: String, offset: Int) {
        #expect(throws: TemplateJSONError.self) { try TemplateValue(json: text) }
        do {
            _ = try TemplateValue(json: text)
        } catch {
            #expect(error.offset == offset)
        }
    }

    @Test(.onTestThreads) func jsonStringMatchesPythonJsonDumps() {
        let value: TemplateValue = ["name": "f", "args": ["x": 1.0, "y": [true, nil], "s": "é\t\"\u{1}"], "e": [:]]
        #expect(
            value.jsonString() == #"{"name": "f", "args": {"x": 1.0, "y": [true, null], "s": "é\t\"\u0001"}, "e": {}}"#)
        #expect(TemplateValue.array([1, [2]]).jsonString(indent: 1) == "[\n 1,\n [\n  2\n ]\n]")
        #expect(TemplateValue.double(1e-7).jsonString() == "1e-07")
        #expect(TemplateValue.double(1e16).jsonString() == "1e+16")
        #expect(TemplateValue.double(123456.5).jsonString() == "123456.5")
    }
}
