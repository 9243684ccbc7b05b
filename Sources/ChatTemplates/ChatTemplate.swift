/// A compiled chat template: a model's `tokenizer.chat_template` (Jinja) parsed once, rendered
/// as often as needed.
///
/// It renders the way Hugging Face's `apply_chat_template` does — jinja2 with `trim_blocks`,
/// `lstrip_blocks`, loop controls, and `tojson` writing Python `json.dumps` output (non-ASCII kept,
/// keys in insertion order). The supported subset covers what chat templates use: `for` (with
/// `loop.*`, `else`, `if` filter, `break`/`continue`), `if`/`elif`/`else`, `set` (names, tuples,
/// namespace attributes, blocks), the usual expressions, filters and tests. A construct outside
/// the subset is rejected by `init` with an `.unsupported` error naming it.
///
/// ```swift
/// let template = try ChatTemplate(source)
/// let prompt = try template.render(
///     messages: [["role": "user", "content": "Hi"]], addGenerationPrompt: true)
/// ```
public struct ChatTemplate: Sendable {
    private let body: [Statement]

    /// Compiles `source`; throws a `TemplateError` (`.syntax` or `.unsupported`) with its line
    /// and column.
    public init(_ source: String) throws(TemplateError) {
        body = try Parser.parse(source)
    }

    /// Renders with the given top-level variables. Throws a `TemplateError`: `.raised` when the
    /// template calls `raise_exception`, `.runtime` when a value is misused.
    public func render(_ context: [String: TemplateValue]) throws(TemplateError) -> String {
        var values: [String: Value] = [:]
        for (key, value) in context { values[key] = Value(value) }
        let renderer = Renderer(context: values)
        var out = ""
        _ = try renderer.render(body, into: &out)
        return out
    }

    /// Renders a conversation as Hugging Face's `apply_chat_template` does: the variables
    /// `messages`, `tools` (none when `nil`, as HF passes `tools=None`) and
    /// `add_generation_prompt`, plus `extra` (special tokens such as `bos_token`, or template
    /// options). The three named variables take precedence over the same keys in `extra`.
    ///
    /// - Parameters:
    ///   - messages: objects with `role`, `content`, and optionally `tool_calls`
    ///     (`[{type: "function", function: {name, arguments}}]`, `arguments` an object) and `name`.
    ///   - tools: JSON-schema-style tool definitions
    ///     (`{type: "function", function: {name, description, parameters}}`).
    public func render(
        messages: [TemplateValue], tools: [TemplateValue]? = nil, addGenerationPrompt: Bool,
        extra: [String: TemplateValue] = [:]
    ) throws(TemplateError) -> String {
        var context = extra
        context["messages"] = .array(messages)
        context["tools"] = tools.map { .array($0) } ?? TemplateValue.none
        context["add_generation_prompt"] = .bool(addGenerationPrompt)
        return try render(context)
    }
}
