import ChatTemplates
import TestSupport
import Testing

@Suite("Errors carry kind, line and column")
struct ErrorTests {
    private func compileError(_ source: String) -> TemplateError? {
        do {
            _ = try ChatTemplate(source)
            return nil
        } catch {
            return error
        }
    }

    private func renderError(_ source: String, _ context: [String: TemplateValue] = [:]) throws -> TemplateError? {
        let template = try ChatTemplate(source)
        do {
            _ = try template.render(context)
            return nil
        } catch {
            return error
        }
    }

    @Test(.onTestThreads) func unsupportedTagIsNamedWithItsPosition() throws {
        let error = try #require(compileError("line one\nline two\n  {% macro greet(name) %}hi{% endmacro %}"))
        #expect(error.kind == .unsupported)
        #expect(error.message == "unsupported tag 'macro'")
        #expect((error.line, error.column) == (3, 6))
        #expect(error.description == "unsupported tag 'macro' at line 3, column 6")
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("{% include 'other.jinja' %}", "unsupported tag 'include'"),
            ("{% call foo() %}{% endcall %}", "unsupported tag 'call'"),
            ("{% filter upper %}x{% endfilter %}", "unsupported tag 'filter'"),
            ("{% extends 'base' %}", "unsupported tag 'extends'"),
            ("{% with a = 1 %}{% endwith %}", "unsupported tag 'with'"),
            ("{{ x | wordwrap }}", "unsupported filter 'wordwrap'"),
            ("{{ x | dictsort }}", "unsupported filter 'dictsort'"),
            ("{% if x is escaped %}{% endif %}", "unsupported test 'escaped'"),
            ("{% for x in xs recursive %}{% endfor %}", "unsupported recursive for loop"),
            ("{{ f(*args) }}", "unsupported argument unpacking"),
        ])
    func unsupportedConstructs(source: String, message: String) throws {
        let error = try #require(compileError(source))
        #expect(error.kind == .unsupported)
        #expect(error.message == message)
    }

    @Test(.onTestThreads) func unsupportedFilterPosition() throws {
        let error = try #require(compileError("{{ 'a' }}\n{{ messages | batch(2) }}"))
        #expect(error.message == "unsupported filter 'batch'")
        #expect((error.line, error.column) == (2, 15))
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("{% if x %}never closed", 1, 23, "unexpected end of template, expected 'elif' or 'else' or 'endif'"),
            ("{% for x in y %}\n{% endif %}", 2, 4, "unexpected tag 'endif', expected 'else' or 'endfor'"),
            ("{{ 'unterminated }}", 1, 4, "unterminated string literal"),
            ("{{ (1 + 2 }}", 1, 11, "unexpected '}', expected ')'"),
            ("text {{ 1 + }}", 1, 13, "unexpected end of print statement"),
            ("{% endif %}", 1, 4, "unexpected tag 'endif'"),
            ("{% frobnicate %}", 1, 4, "unknown tag 'frobnicate'"),
            ("{% break %}", 1, 4, "'break' outside of a loop"),
            ("{# never closed", 1, 1, "missing end of comment tag"),
            ("{{ x @ y }}", 1, 6, "unexpected char '@'"),
            ("{% set true = 1 %}", 1, 8, "can't assign to constant 'true'"),
        ])
    func syntaxErrors(source: String, line: Int, column: Int, message: String) throws {
        let error = try #require(compileError(source))
        #expect(error.kind == .syntax)
        #expect(error.message == message)
        #expect((error.line, error.column) == (line, column))
    }

    @Test(.onTestThreads) func unknownTagsSeenOnlyInsideABlockAreStillRejected() throws {
        let error = try #require(compileError("{% if x %}\n  {% unknown %}\n{% endif %}"))
        #expect(error.message == "unknown tag 'unknown'")
        #expect((error.line, error.column) == (2, 6))
    }

    @Test(.onTestThreads) func raiseExceptionThrowsTheTemplatesMessage() throws {
        let source =
            "{% for m in messages %}\n{% if m.role == 'bad' %}{{ raise_exception('Role ' + m.role + ' is not allowed') }}{% endif %}{% endfor %}"
        let error = try #require(try renderError(source, ["messages": [["role": "bad"]]]))
        #expect(error.kind == .raised)
        #expect(error.message == "Role bad is not allowed")
        #expect(error.line == 2)
    }

    @Test(.onTestThreads) func undefinedMisuseMatchesJinjaMessages() throws {
        let attribute = try #require(try renderError("{{ nothing.role }}"))
        #expect(attribute.kind == .runtime)
        #expect(attribute.message == "'nothing' is undefined")
        let nested = try #require(try renderError("\n  {{ m.tool_calls.function }}", ["m": ["role": "user"]]))
        #expect(nested.message == "'dict object' has no attribute 'tool_calls'")
        #expect((nested.line, nested.column) == (2, 18))
        let index = try #require(try renderError("{{ xs[3].a }}", ["xs": [1]]))
        #expect(index.message == "'list object' has no element 3")
    }

    @Test(.onTestThreads) func typeErrorsAreRuntimeErrors() throws {
        let concat = try #require(try renderError("{{ 'a' + n }}", ["n": 1]))
        #expect(concat.kind == .runtime)
        #expect(concat.message == "can only concatenate str (not \"int\") to str")
        let json = try #require(try renderError("{{ nothing | tojson }}"))
        #expect(json.message == "Object of type Undefined is not JSON serializable")
        let mutation = try #require(try renderError("{{ xs.append(1) }}", ["xs": []]))
        #expect(mutation.kind == .unsupported)
        #expect(mutation.message == "unsupported method 'append' of 'list'")
        let overflow = try #require(try renderError("{{ 9223372036854775807 + 1 }}"))
        #expect(overflow.message == "integer overflow")
        let unpack = try #require(try renderError("{% set a, b = [1, 2, 3] %}"))
        #expect(unpack.message == "too many values to unpack (expected 2, got 3)")
    }
}
