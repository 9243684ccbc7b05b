import ChatTemplates
import TestSupport
import Testing

/// Language features, one construct per test; the golden fixtures compare the same features
/// with Python jinja2 byte for byte.
@Suite("Language features")
struct LanguageTests {
    private func render(_ source: String, _ context: [String: TemplateValue] = [:]) throws -> String {
        try ChatTemplate(source).render(context)
    }

    @Test(.onTestThreads) func forLoopVariables() throws {
        let source =
            "{% for x in xs %}{{ loop.index0 }}{{ loop.index }}{{ loop.length }}{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %} {% endfor %}"
        #expect(try render(source, ["xs": ["a", "b", "c"]]) == "013F 123 233L ")
    }

    @Test(.onTestThreads) func ifElifElse() throws {
        let source = "{% if n == 1 %}one{% elif n == 2 %}two{% else %}many{% endif %}"
        #expect(try render(source, ["n": 1]) == "one")
        #expect(try render(source, ["n": 2]) == "two")
        #expect(try render(source, ["n": 3]) == "many")
    }

    @Test(.onTestThreads) func setRebindsTheLoopVariable() throws {
        let source =
            "{% for call in calls %}{% if call.function is defined %}{% set call = call.function %}{% endif %}{{ call.name }}{% endfor %}"
        #expect(try render(source, ["calls": [["function": ["name": "a"]], ["name": "b"]]]) == "ab")
    }

    @Test(.onTestThreads) func namespaceCarriesValuesOutOfLoops() throws {
        let source =
            "{% set ns = namespace(count=0) %}{% for x in xs %}{% set ns.count = ns.count + x %}{% endfor %}{{ ns.count }}"
        #expect(try render(source, ["xs": [1, 2, 3]]) == "6")
        #expect(try render("{% set n = 0 %}{% for x in [1, 2] %}{% set n = n + x %}{% endfor %}{{ n }}") == "0")
    }

    @Test(.onTestThreads) func expressions() throws {
        #expect(try render("{{ messages[i - 1]['role'] }}", ["messages": [["role": "user"]], "i": 1]) == "user")
        #expect(try render("{{ 1 + 2 * 3 - 4 // 3 }} {{ 7 % 4 }}") == "6 3")
        #expect(try render("{{ 'a' + 'b' }}{{ 1 ~ 'c' }}") == "ab1c")
        #expect(try render("{{ 1 < 2 and not (2 < 1) or false }}") == "True")
        #expect(try render("{{ 'b' in 'abc' }}{{ 'x' not in ['y'] }}{{ 'k' in {'k': 1} }}") == "TrueTrueTrue")
        #expect(try render("{{ [1, 'two', {'three': 3.0}] }}") == "[1, 'two', {'three': 3.0}]")
    }

    @Test(.onTestThreads) func tests() throws {
        #expect(
            try render("{{ x is defined }}{{ y is not defined }}{{ x is none }}{{ 'a' is string }}", ["x": nil])
                == "TrueTrueTrueTrue")
    }

    @Test(.onTestThreads) func truthiness() throws {
        let source = "{% if v %}T{% else %}F{% endif %}"
        let cases: [(TemplateValue, String)] = [
            ("", "F"), ("x", "T"), ([], "F"), ([0], "T"), ([:], "F"), (["k": 1], "T"), (nil, "F"), (0, "F"), (2, "T"),
        ]
        for (value, expected) in cases {
            #expect(try render(source, ["v": value]) == expected)
        }
        #expect(try render(source) == "F")
    }

    @Test(.onTestThreads) func stringLiteralsInBothQuotesWithEscapes() throws {
        #expect(
            try render(#"{{ 'it\'s' }} {{ "say \"hi\"" }} {{ 'a\nb' }} {{ 'back\\slash' }}"#)
                == "it's say \"hi\" a\nb back\\slash")
        // `}}` inside a string literal is text, as the Qwen2.5 1.5B template needs.
        #expect(try render(#"{{- "{{\"name\": <function-name>}}" }}"#) == #"{{"name": <function-name>}}"#)
    }

    @Test(.onTestThreads) func whitespaceControl() throws {
        #expect(try render("a  {{- 'b' -}}  c") == "abc")
        #expect(try render("a\n  {%- if true -%}\n  b\n  {%- endif %}\nc") == "abc")
        // trim_blocks and lstrip_blocks: block lines vanish entirely.
        #expect(try render("x\n  {% if true %}\n  y\n  {% endif %}\nz") == "x\n  y\nz")
        #expect(try render("a{# comment #}b") == "ab")
    }

    @Test(.onTestThreads) func filters() throws {
        #expect(
            try render(
                "{{ '  x ' | trim }}|{{ 'aB' | upper }}{{ 'aB' | lower }}|{{ xs | length }}|{{ xs | join('-') }}",
                ["xs": [1, 2]]) == "x|ABab|2|1-2")
        #expect(
            try render("{{ xs | first }}{{ xs | last }}{{ missing | default('d') }}{{ 5 | string }}", ["xs": [1, 2]])
                == "12d5")
        #expect(try render("{{ d | tojson }}", ["d": ["b": 1, "a": "é"]]) == #"{"b": 1, "a": "é"}"#)
        #expect(try render("{{ d | tojson(indent=2) }}", ["d": ["a": [1]]]) == "{\n  \"a\": [\n    1\n  ]\n}")
    }

    @Test(.onTestThreads) func methods() throws {
        #expect(
            try render(
                "{{ s.startswith('ab') }}{{ s.endswith('x') }}{{ ' s '.strip() }}{{ 'a,b'.split(',') }}", ["s": "abc"])
                == "TrueFalses['a', 'b']")
        #expect(
            try render("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", ["d": ["z": 1, "a": 2]]) == "z=1;a=2;"
        )
    }

    @Test func compiledOnceRenderedManyTimesConcurrently() async throws {
        let template = try ChatTemplate("{% for m in messages %}{{ m.content }}{% endfor %}")
        let outputs = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<16 {
                group.addTask {
                    try template.render(
                        messages: [["role": "user", "content": .string("m\(i)")]], addGenerationPrompt: false)
                }
            }
            var all: [String] = []
            for try await output in group { all.append(output) }
            return all
        }
        #expect(Set(outputs) == Set((0..<16).map { "m\($0)" }))
    }

    @Test(.onTestThreads) func renderMessagesPassesToolsAsNoneLikeHuggingFace() throws {
        let template = try ChatTemplate(
            "{{ tools is defined }} {{ tools is none }} {{ add_generation_prompt }} {{ bos_token }}")
        let output = try template.render(
            messages: [], addGenerationPrompt: true, extra: ["bos_token": "<s>", "add_generation_prompt": false])
        #expect(output == "True True True <s>")
        let withTools = try ChatTemplate("{{ tools | length }}").render(
            messages: [], tools: [["name": "f"]], addGenerationPrompt: false)
        #expect(withTools == "1")
    }
}
