import ChatTemplates
import TestSupport
import Testing

/// Hostile or damaged templates end in a thrown error, never a crash or runaway allocation.
@Suite("Robustness")
struct RobustnessTests {
    @Test(.onTestThreads) func deepNestingIsRefused() throws {
        let parentheses =
            "{{ " + String(repeating: "(", count: 5_000) + "1" + String(repeating: ")", count: 5_000) + " }}"
        let nots = "{{ " + String(repeating: "not ", count: 5_000) + "x }}"
        let minus = "{{ " + String(repeating: "-", count: 5_000) + "1 }}"
        let lists = "{{ " + String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000) + " }}"
        let blocks = String(repeating: "{% if true %}", count: 5_000) + String(repeating: "{% endif %}", count: 5_000)
        for source in [parentheses, nots, minus, lists, blocks] {
            #expect(throws: TemplateError.self) { try ChatTemplate(source) }
        }
        // Reasonable nesting still works.
        #expect(try ChatTemplate("{{ ((((1)))) + [[[2]]][0][0][0] }}").render([:]) == "3")
    }

    @Test(.onTestThreads) func runawaySizesAreRefused() throws {
        for source in [
            "{{ 'a' * 100000000000 }}", "{{ range(1000000000000) | length }}", "{{ [1] * 9223372036854775807 }}",
            "{{ x | tojson(indent=100000000000) }}", "{{ 'a' | indent(100000000000) }}",
        ] {
            #expect(throws: TemplateError.self) { try ChatTemplate(source).render(["x": [1]]) }
        }
        #expect(try ChatTemplate("{{ [1, 2, 3][1::9223372036854775807] }}").render([:]) == "[2]")
    }

    /// Damaged copies of the real templates (deterministic byte edits) either compile and render
    /// or throw; none may crash the process.
    @Test(.onTestThreads, arguments: ["smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    func mutatedTemplatesNeverCrash(id: String) throws {
        let original = Array(try GoldenFixtures.template(id).utf8)
        let alphabet = Array("{}%#-+'\"()[]|.,:=~ \nabisnotdefined".utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let messages: [TemplateValue] = [
            ["role": "system", "content": "s"], ["role": "user", "content": "u"],
            [
                "role": "assistant", "content": nil,
                "tool_calls": [["type": "function", "function": ["name": "f", "arguments": ["a": 1]]]],
            ],
            ["role": "tool", "content": "r"],
        ]
        var compiled = 0
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<(1 + random(4)) {
                let at = random(bytes.count)
                switch random(3) {
                case 0: bytes[at] = alphabet[random(alphabet.count)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[random(alphabet.count)], at: at)
                }
            }
            guard let template = try? ChatTemplate(String(decoding: bytes, as: UTF8.self)) else { continue }
            compiled += 1
            _ = try? template.render(messages: messages, tools: [["type": "function"]], addGenerationPrompt: true)
        }
        #expect(compiled > 0)
    }
}
