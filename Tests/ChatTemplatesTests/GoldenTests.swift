import ChatTemplates
import TestSupport
import Testing

@Suite("Golden renderings from Python jinja2")
struct GoldenTests {
    @Test(.onTestThreads) func fixturesAreLoaded() throws {
        #expect(GoldenFixtures.conversations.count == 108)
        #expect(GoldenFixtures.language.count == 151)
        for id in ["smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"] {
            #expect(try !GoldenFixtures.template(id).isEmpty)
        }
    }

    @Test(.onTestThreads, arguments: GoldenFixtures.conversations)
    func conversation(_ golden: GoldenCase) throws {
        let template = try ChatTemplate(golden.source)
        let context = golden.context
        let messages = context["messages"]?.arrayValue ?? []
        let tools = context["tools"]?.arrayValue
        let addGenerationPrompt = context["add_generation_prompt"] == .bool(true)
        if let expected = golden.expected {
            #expect(try template.render(context.dictionary) == expected)
            #expect(
                try template.render(messages: messages, tools: tools, addGenerationPrompt: addGenerationPrompt)
                    == expected)
        } else {
            #expect(throws: TemplateError.self) {
                try template.render(messages: messages, tools: tools, addGenerationPrompt: addGenerationPrompt)
            }
        }
    }

    @Test(.onTestThreads, arguments: GoldenFixtures.language)
    func language(_ golden: GoldenCase) throws {
        let template = try ChatTemplate(golden.source)
        if let expected = golden.expected {
            #expect(try template.render(golden.context.dictionary) == expected)
        } else {
            #expect(throws: TemplateError.self, "jinja2 raised \(golden.error ?? "")") {
                try template.render(golden.context.dictionary)
            }
        }
    }

    /// The 1.5B template differs from the 0.5B one only in writing `{{"name": …}}` inside a string
    /// literal; `}}` there is text, not the end of the expression.
    @Test(.onTestThreads) func qwenTemplatesDifferInOneLiteral() throws {
        let small = try GoldenFixtures.template("qwen2.5-coder-0.5b")
        let large = try GoldenFixtures.template("qwen2.5-coder-1.5b")
        #expect(small != large)
        #expect(large.contains(#"{{\"name\": <function-name>, \"arguments\": <args-json-object>}}"#))
        let tools: [TemplateValue] = [["type": "function", "function": ["name": "f"]]]
        let prompt = try ChatTemplate(large).render(
            messages: [["role": "user", "content": "x"]], tools: tools, addGenerationPrompt: true)
        #expect(
            prompt.contains(
                "<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>"))
    }
}
