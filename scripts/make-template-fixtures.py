#!/usr/bin/env python3
"""Make the golden fixtures for Tests/ChatTemplatesTests.

Reads `tokenizer.chat_template` from each model's GGUF file (the metadata is parsed here, no
`gguf` package needed), writes each template's source under Fixtures/templates/, and renders
conversations and small language snippets with Python jinja2 configured as Hugging Face's
`apply_chat_template` configures it (transformers' chat_template_utils):

    ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                  extensions=[jinja2.ext.loopcontrols])
    filters["tojson"] = json.dumps(x, ensure_ascii=False, indent=..., separators=..., sort_keys=...)
    globals["raise_exception"] raises TemplateError

Outputs (JSON, keys in insertion order):
    Fixtures/conversations.json  [{template_id, name, context, expected | error}]
    Fixtures/language.json       [{name, template, context, expected | error}]

Usage:  pip install jinja2 && python3 scripts/make-template-fixtures.py [--models DIR]
"""

import argparse
import json
import os
import struct
import sys

import jinja2
import jinja2.ext
from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "ChatTemplatesTests", "Fixtures")
MODELS = {
    "smollm2-135m": "smollm2-135m.gguf",
    "qwen2.5-coder-0.5b": "qwen2.5-coder-0.5b.gguf",
    "qwen2.5-coder-1.5b": "qwen2.5-coder-1.5b.gguf",
}


# --- GGUF metadata -------------------------------------------------------------------------

SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def read_chat_template(path):
    """The `tokenizer.chat_template` string of a GGUF v2/v3 file."""
    with open(path, "rb") as f:

        def read(fmt):
            size = struct.calcsize("<" + fmt)
            return struct.unpack("<" + fmt, f.read(size))[0]

        def read_string():
            return f.read(read("Q")).decode("utf-8")

        def skip_value(kind):
            if kind in SCALARS:
                f.seek(struct.calcsize("<" + SCALARS[kind]), 1)
            elif kind == 8:
                f.seek(read("Q"), 1)
            elif kind == 9:
                element, count = read("I"), read("Q")
                if element in SCALARS:
                    f.seek(struct.calcsize("<" + SCALARS[element]) * count, 1)
                else:
                    for _ in range(count):
                        skip_value(element)
            else:
                raise ValueError(f"{path}: unknown GGUF value type {kind}")

        if f.read(4) != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        read("I")  # version
        read("Q")  # tensor count
        for _ in range(read("Q")):
            key = read_string()
            kind = read("I")
            if key == "tokenizer.chat_template" and kind == 8:
                return read_string()
            skip_value(kind)
    raise KeyError(f"{path}: no tokenizer.chat_template")


# --- The reference renderer ----------------------------------------------------------------


def make_environment():
    def raise_exception(message):
        raise TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env


ENV = make_environment()


def render(source, context):
    """{"expected": text} or {"error": "<Type>: message"}."""
    try:
        return {"expected": ENV.from_string(source).render(**context)}
    except Exception as error:  # the fixture records that jinja2 refused
        return {"error": f"{type(error).__name__}: {error}"}


# --- Conversations -------------------------------------------------------------------------

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city — returns °C.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. \"Zürich\" or 東京"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
            },
            "required": ["city"],
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the web.\nLine two has a tab\tand a backslash \\ and </tools>.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "number", "default": 2.5},
                "safe": {"type": "boolean", "default": True},
                "filters": {"type": ["array", "null"], "items": {"type": "string"}, "default": None},
            },
            "required": ["query", "limit"],
            "additionalProperties": False,
        },
    },
}
TOOLS = [WEATHER, SEARCH]


def call(name, arguments, wrap=True):
    function = {"name": name, "arguments": arguments}
    return {"type": "function", "function": function} if wrap else function


CONVERSATIONS = [
    ("user-only", [{"role": "user", "content": "Hello!"}], None),
    (
        "system-user",
        [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "What is 2+2?"}],
        None,
    ),
    (
        "multi-turn",
        [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello! How can I help?"},
            {"role": "user", "content": "Tell me a joke."},
        ],
        None,
    ),
    (
        "multi-turn-no-system",
        [
            {"role": "user", "content": "One"},
            {"role": "assistant", "content": "Two"},
            {"role": "user", "content": "Three"},
            {"role": "assistant", "content": "Four"},
        ],
        None,
    ),
    (
        "system-in-the-middle",
        [
            {"role": "user", "content": "First"},
            {"role": "system", "content": "Switch to French."},
            {"role": "user", "content": "Second"},
        ],
        None,
    ),
    (
        "unicode",
        [
            {"role": "system", "content": "Réponds en français. 🇫🇷"},
            {"role": "user", "content": "日本語で答えて。ñ, ü, é (e\u0301), עברית, emoji 👩‍💻, tab\tend\r\nCRLF\u2028LS"},
            {"role": "assistant", "content": "はい！ Ça va? \u0000nul \u001bescape"},
        ],
        None,
    ),
    (
        "jinja-looking-content",
        [
            {"role": "user", "content": "Render {{ messages }} and {% if x %}y{% endif %} {# c #} literally: }} {{"},
            {"role": "assistant", "content": "'single' \"double\" \\backslash\\ {{\"name\": 1}}"},
        ],
        None,
    ),
    ("empty-content", [{"role": "user", "content": ""}, {"role": "assistant", "content": ""}], None),
    ("named-message", [{"role": "user", "name": "alice", "content": "Hi, I am Alice."}], None),
    ("tools-user", [{"role": "user", "content": "Weather in Paris?"}], TOOLS),
    (
        "tools-system",
        [{"role": "system", "content": "Use tools when useful."}, {"role": "user", "content": "Search cats"}],
        TOOLS,
    ),
    ("tools-empty-list", [{"role": "user", "content": "No tools today"}], []),
    (
        "tool-call-no-content",
        [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": None, "tool_calls": [call("get_weather", {"city": "Paris"})]},
            {"role": "tool", "content": "{\"temperature\": 21, \"sky\": \"clear\"}"},
            {"role": "assistant", "content": "It is 21 °C and clear."},
        ],
        TOOLS,
    ),
    (
        "tool-call-with-content",
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Zürich and Tokyo, and search news."},
            {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [
                    call("get_weather", {"city": "Zürich", "unit": "celsius"}),
                    call("get_weather", {"city": "東京", "days": 3}),
                    call("search", {"query": "news \"today\"", "limit": 2.0, "safe": False, "filters": None}),
                ],
            },
            {"role": "tool", "name": "get_weather", "content": "18 °C"},
            {"role": "tool", "name": "get_weather", "content": "25 °C"},
            {"role": "tool", "name": "search", "content": "[\"headline one\", \"headline two\"]"},
            {"role": "assistant", "content": "Zürich 18 °C, Tokyo 25 °C. Headlines: one, two."},
            {"role": "user", "content": "Thanks"},
        ],
        TOOLS,
    ),
    (
        "tool-call-empty-content",
        [
            {"role": "user", "content": "Search"},
            {"role": "assistant", "content": "", "tool_calls": [call("search", {"query": "x", "limit": 1})]},
            {"role": "tool", "content": "nothing found"},
        ],
        TOOLS,
    ),
    (
        "tool-call-unwrapped-and-string-arguments",
        [
            {"role": "user", "content": "Go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    call("search", {"query": "nested", "limit": 1, "filters": ["a", {"b": [1, 2.5, True]}]}, wrap=False),
                    call("search", "{\"query\": \"already a string\"}"),
                    call("get_weather", {}),
                ],
            },
            {"role": "tool", "content": "ok"},
            {"role": "tool", "content": "ok too"},
            {"role": "tool", "content": ""},
        ],
        TOOLS,
    ),
    (
        "tool-result-first",
        [{"role": "tool", "content": "orphan result"}, {"role": "user", "content": "And?"}],
        None,
    ),
    (
        "tool-calls-without-tools",
        [
            {"role": "user", "content": "Call it"},
            {"role": "assistant", "content": None, "tool_calls": [call("lookup", {"id": 7})]},
            {"role": "tool", "content": "found 7"},
        ],
        None,
    ),
]


def conversation_fixtures(templates):
    fixtures = []
    for template_id, source in templates.items():
        for name, messages, tools in CONVERSATIONS:
            for add_generation_prompt in (True, False):
                context = {"messages": messages, "tools": tools, "add_generation_prompt": add_generation_prompt}
                suffix = "gen" if add_generation_prompt else "nogen"
                entry = {"template_id": template_id, "name": f"{name}/{suffix}", "context": context}
                entry.update(render(source, context))
                fixtures.append(entry)
    return fixtures


# --- Language snippets ---------------------------------------------------------------------

MESSAGES = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "yo", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]},
]

SNIPPETS = [
    # Text, output, comments, whitespace control, trim_blocks / lstrip_blocks.
    ("text", "plain text", {}),
    ("trailing-newline-dropped", "a\n", {}),
    ("two-trailing-newlines", "a\n\n", {}),
    ("crlf-normalized", "a\r\nb\rc\n", {}),
    ("output-string", "{{ 'x' }}", {}),
    ("comment", "a{# note #}b", {}),
    ("comment-dash", "a  {#- note -#}  b", {}),
    ("comment-own-line", "a\n  {# note #}\nb", {}),
    ("dash-both", "a {{- 1 -}} b {%- if true -%}  c  {%- endif -%}  d", {}),
    ("dash-newlines", "x\n\n  {{- 'y' -}}\n\n  z", {}),
    ("trim-blocks", "{% if true %}\nyes\n{% endif %}\nafter", {}),
    ("lstrip-blocks", "  {% if true %}\n  x\n  {% endif %}\n  {{ 1 }}\n", {}),
    ("lstrip-not-after-text", "a  {% if true %}b{% endif %}\n  {#c#}\nd", {}),
    ("plus-disables", "a\n   {%+ if true %}b{% endif +%}\nc", {}),
    ("variable-no-trim", "{{ 1 }}\n{{ 2 }}\n", {}),
    ("lstrip-tabs", "\t {% if true %}x{% endif %}", {}),
    ("raw", "{% raw %}{{ not evaluated }}{% endraw %}", {}),
    ("lstrip-not-for-variables", "a\n  {{ x }}\n  {% if true %}y{% endif %}", {"x": 1}),
    ("loop-lines", "{% for x in xs %}\n  {{ x }}\n{% endfor %}\nend", {"xs": [1, 2]}),
    ("dash-mixed", "a\n{%- if true %}\nb{% endif -%}\n\nc", {}),
    ("trim-only-newline", "{% if true %}  \n x{% endif %}", {}),
    ("comment-dash-lstrip", "  {#- c -#}  x\n  {# d #}  y", {}),
    ("raw-dash", "a {%- raw -%}  {{ x }}  {%- endraw -%} b", {}),
    ("raw-trim", "{% raw %}\n  x\n  {% endraw %}\ny", {}),
    ("lstrip-vertical-tab", "a\n\x0b\x0c {% if true %}b{% endif %}", {}),
    ("lstrip-unicode-space", "a\n\u3000\u00a0{% if true %}b{% endif %}", {}),
    ("crlf-blocks", "a\r\n  {% if true %}\r\nb\r\n  {% endif %}\r\nc\r\n", {}),
    ("text-only-trailing-spaces", "x  \n  ", {}),
    ("block-at-end-of-template", "x\n{% if true %}{% endif %}", {}),
    ("variable-end-dash-newlines", "{{ 'a' -}}\n\n   {{ 'b' }}", {}),
    ("set-trims", "{% set x = 1 %}\n{{ x }}\n{% set y = 2 -%}\n   {{ y }}", {}),
    # Literals.
    ("string-escapes", "{{ 'a\\nb\\tc\\\\d\\'e\"f' }}|{{ \"q\\\"r\\'s\" }}", {}),
    ("string-hex-unicode", "{{ '\\x41\\u00e9\\U0001F600|\\d|\\101' }}", {}),
    ("string-multiline", "{{ 'line1\nline2' }}", {}),
    ("string-braces-inside", "{{ \"{{\\\"name\\\": x}}\" }}|{{ '%}' }}", {}),
    ("adjacent-strings", "{{ 'a' \"b\" 'c' }}", {}),
    ("numbers", "{{ 42 }} {{ 1_000 }} {{ 0x1F }} {{ 0o17 }} {{ 0b101 }} {{ 1.5 }} {{ 2e3 }} {{ 1.5e-7 }}", {}),
    ("float-repr", "{{ 1e20 }} {{ 1e16 }} {{ 1e15 }} {{ 0.0001 }} {{ 0.00001 }} {{ 1/3 }} {{ 0.1 + 0.2 }} {{ 2.0 }}", {}),
    ("constants", "{{ true }} {{ false }} {{ none }} {{ True }} {{ None }}", {}),
    ("list-literal", "{{ [1, 'a', none, true, 1.5, {'k': 'v'}, [2]] }}", {}),
    ("dict-literal", "{{ {'a': 1, 'b': [1, 2], \"c\": {'d': none}} }}", {}),
    ("dict-nested-braces", "{{ {'a': {'b': 1}}}}", {}),
    ("tuple-literal", "{{ (1, 'a') }}|{{ (1,) }}|{{ () }}", {}),
    ("repr-quotes", "{{ [\"it's\", 'a\"b', 'a\"b\\'c', 'x\\ny', '\\x01', 'é'] }}", {}),
    ("repr-dict-from-context", "{{ d }}", {"d": {"z": 1, "a": [True, None, 2.5, "s"]}}),
    # Arithmetic and operators.
    ("int-arithmetic", "{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 2 ** -1 }} {{ 10 / 4 }} {{ 10 / 2 }}", {}),
    ("float-arithmetic", "{{ 1.5 + 1 }} {{ 7.5 // 2 }} {{ -7.5 % 2 }} {{ 2 ** 0.5 }}", {}),
    ("unary", "{{ -3 }} {{ - 3 + 1 }} {{ +4 }} {{ -(1 + 2) }} {{ -1 | abs }}", {}),
    ("bool-arithmetic", "{{ true + 1 }} {{ true * 3 }}", {}),
    ("unary-binds-tighter-than-pow", "{{ -2 ** 2 }} {{ 2 ** 3 ** 2 }} {{ -1 + -1 }} {{ not none }}", {}),
    ("concat-values", "{{ 'a' ~ [1] }} {{ none ~ 1 }} {{ 1.5 | int }} {{ (messages | length) > 0 }}", {"messages": [1]}),
    ("unicode-compare", "{{ 'é' > 'z' }} {{ 'B' < 'a' }} {{ 'ab' < 'abc' }} {{ [1, 2] < [1, 3] }}", {}),
    ("filter-on-literal-and-neg", "{{ -3 | abs }} {{ 'x' | upper ~ 'y' }} {{ [3, 1] | first + 1 }}", {}),
    ("string-concat", "{{ 'a' + 'b' }} {{ 'a' ~ 1 ~ none ~ true }} {{ x ~ 'y' }}", {}),
    ("string-repeat", "{{ 'ab' * 3 }} {{ 2 * 'x' }} {{ [1] * 2 }}", {}),
    ("list-concat", "{{ [1] + [2, 3] }}", {}),
    ("precedence-concat-math", "{{ 'a' ~ 1 + 2 }}", {}),
    ("add-type-error", "{{ 'a' + 1 }}", {}),
    ("division-by-zero", "{{ 1 / 0 }}", {}),
    ("comparisons", "{{ 1 < 2 }} {{ 2 <= 1 }} {{ 'a' < 'b' }} {{ 1 == 1.0 }} {{ true == 1 }} {{ [1] == [1] }} {{ 'a' != 'a' }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}", {}),
    ("compare-type-error", "{{ 'a' < 1 }}", {}),
    ("dict-equality", "{{ {'a': 1, 'b': 2} == {'b': 2, 'a': 1} }}", {}),
    ("logic", "{{ 1 and 2 }} {{ 0 and 2 }} {{ 0 or 'x' }} {{ none or [] }} {{ not 0 }} {{ not 'a' }} {{ not 1 == 2 }}", {}),
    ("in", "{{ 'a' in 'cat' }} {{ 1 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'z' not in 'cat' }} {{ 3 not in [1] }} {{ 'x' in undefined_thing }}", {}),
    ("in-type-error", "{{ 1 in 'abc' }}", {}),
    ("conditional-expression", "{{ 'a' if true else 'b' }} {{ 'a' if false else 'b' }} [{{ 'a' if false }}] {{ 1 if 0 else 2 if 0 else 3 }}", {}),
    # Truthiness.
    ("truthiness", "{% for v in values %}{{ 'T' if v else 'F' }}{% endfor %}|{{ 'T' if missing else 'F' }}",
     {"values": ["", "a", [], [0], {}, {"a": 1}, 0, 1, 0.0, 0.5, None, True, False]}),
    # Attribute and subscript access.
    ("attribute-and-subscript", "{{ m.role }} {{ m['role'] }} {{ messages[0].content }} {{ messages[-1]['role'] }} {{ messages[1 - 1].role }}",
     {"m": {"role": "user"}, "messages": MESSAGES}),
    ("nested-access", "{{ messages[2].tool_calls[0].function.arguments.a }}", {"messages": MESSAGES}),
    ("missing-key-renders-empty", "[{{ m.nothing }}][{{ m['nothing'] }}][{{ items[5] }}]", {"m": {}, "items": [1]}),
    ("undefined-renders-empty", "[{{ missing }}]", {}),
    ("undefined-attribute-error", "{{ missing.attr }}", {}),
    ("undefined-subscript-error", "{{ missing['k'] }}", {}),
    ("missing-key-attribute-error", "{{ m.a.b }}", {"m": {}}),
    ("undefined-arithmetic-error", "{{ missing + 1 }}", {}),
    ("undefined-call-error", "{{ missing() }}", {}),
    ("undefined-iterates-empty", "{% for x in missing %}x{% endfor %}ok", {}),
    ("undefined-equality", "{{ missing == other_missing }} {{ missing == none }}", {}),
    ("dict-method-shadows-key", "{{ d['items'] }} {{ d.get('items') }}", {"d": {"items": 3}}),
    ("string-index", "{{ 'hello'[1] }} {{ 'hello'[-1] }} {{ 'héllo'[1] }}", {}),
    ("dot-integer", "{{ items.0 }} {{ items.1 }}", {"items": ["a", "b"]}),
    ("slices", "{{ 'abcdef'[1:3] }} {{ 'abcdef'[::-1] }} {{ [1,2,3,4][1:] }} {{ [1,2,3,4][:-1] }} {{ [1,2,3,4][::2] }} {{ [1,2,3][5:] }} {{ 'abc'[-2:] }} {{ [1,2,3,4][3:0:-1] }}", {}),
    ("messages-slice", "{% for m in messages[1:] %}{{ m.role }},{% endfor %}", {"messages": MESSAGES}),
    # Statements.
    ("if-elif-else", "{% for n in [1, 2, 3] %}{% if n == 1 %}one{% elif n == 2 %}two{% else %}other{% endif %},{% endfor %}", {}),
    ("for-loop-variables", "{% for x in ['a', 'b', 'c'] %}{{ loop.index0 }}{{ loop.index }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.revindex }}{{ loop.revindex0 }};{% endfor %}", {}),
    ("for-prev-next", "{% for x in [1, 2, 3] %}[{{ loop.previtem }}|{{ loop.nextitem }}]{% endfor %}", {}),
    ("for-cycle", "{% for x in [1, 2, 3] %}{{ loop.cycle('odd', 'even') }} {% endfor %}", {}),
    ("for-else", "{% for x in [] %}x{% else %}empty{% endfor %}", {}),
    ("for-filter", "{% for x in [1, 2, 3, 4] if x is even %}{{ loop.index }}:{{ x }} {% endfor %}", {}),
    ("for-unpack-items", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", {"d": {"b": 1, "a": 2}}),
    ("for-over-dict", "{% for k in d %}{{ k }};{% endfor %}", {"d": {"b": 1, "a": 2}}),
    ("for-over-string", "{% for c in 'héy' %}[{{ c }}]{% endfor %}", {}),
    ("nested-loops", "{% for a in [1, 2] %}{% for b in ['x', 'y'] %}{{ a }}{{ b }}{{ loop.index }} {% endfor %}{{ loop.index }}|{% endfor %}", {}),
    ("break-continue", "{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 5 %}{% break %}{% endif %}{{ i }}{% endfor %}", {}),
    ("for-none-error", "{% for x in none %}{% endfor %}", {}),
    ("set", "{% set x = 1 %}{% set y = x + 1 %}{{ x }}{{ y }}", {}),
    ("set-tuple", "{% set a, b = 1, 2 %}{{ a }}{{ b }}", {}),
    ("set-in-if-leaks", "{% if true %}{% set a = 1 %}{% endif %}{{ a }}", {}),
    ("set-in-loop-scoped", "{% set x = 0 %}{% for i in [1, 2] %}{{ x }}{% set x = x + i %}{{ x }},{% endfor %}{{ x }}", {}),
    ("set-reads-outer-before-shadow", "{% set y = 9 %}{% for i in [1, 2] %}{{ y }}{% set y = i %}{{ y }},{% endfor %}{{ y }}", {}),
    ("loop-variable-restored", "{% set x = 5 %}{% for x in [1, 2] %}{{ x }}{% endfor %}{{ x }}", {}),
    ("rebind-loop-variable", "{% for tc in calls %}{% if tc.function is defined %}{% set tc = tc.function %}{% endif %}{{ tc.name }};{% endfor %}",
     {"calls": [{"function": {"name": "a"}}, {"name": "b"}]}),
    ("namespace", "{% set ns = namespace(found=false, n=0) %}{% for m in messages %}{% if m.role == 'user' %}{% set ns.found = true %}{% set ns.n = ns.n + 1 %}{% endif %}{% endfor %}{{ ns.found }} {{ ns.n }}", {"messages": MESSAGES}),
    ("namespace-repr", "{{ namespace(a=1) }}", {}),
    ("set-block", "{% set x %}hello {{ 1 }}{% endset %}[{{ x }}]", {}),
    ("set-block-filter", "{% set x | upper %}hello{% endset %}{{ x }}", {}),
    ("print-tag", "{% print 'p' %}", {}),
    ("loop-outside", "[{{ loop }}]", {}),
    # Tests.
    ("tests-defined", "{{ x is defined }} {{ y is defined }} {{ y is undefined }} {{ m.role is defined }} {{ m.nope is defined }} {{ m.nope is not defined }}", {"x": None, "m": {"role": "r"}}),
    ("tests-types", "{{ 'x' is string }} {{ 1 is string }} {{ 1 is number }} {{ true is number }} {{ true is integer }} {{ 1 is integer }} {{ 1.0 is float }} {{ true is boolean }} {{ {} is mapping }} {{ [] is mapping }} {{ [] is iterable }} {{ 'a' is sequence }} {{ 3 is iterable }}", {}),
    ("tests-none", "{{ none is none }} {{ x is none }} {{ 0 is none }} {{ none is not none }}", {"x": None}),
    ("tests-values", "{{ true is true }} {{ 1 is true }} {{ false is false }} {{ 2 is even }} {{ 3 is odd }} {{ 6 is divisibleby 3 }} {{ 6 is divisibleby(4) }}", {}),
    ("tests-compare", "{{ 1 is eq 1 }} {{ 1 is equalto 2 }} {{ 1 is ne 2 }} {{ 1 is lt 2 }} {{ 2 is ge 3 }} {{ 'a' is in 'cat' }} {{ 'abc' is lower }} {{ 'ABC' is upper }} {{ none is sameas none }} {{ false is sameas false }}", {}),
    ("test-precedence", "{{ not x is defined }} {{ 1 + 1 is even }}", {}),
    # Filters.
    ("filter-trim", "[{{ '  x \\n' | trim }}] [{{ 'xxaxx' | trim('x') }}]", {}),
    ("filter-length", "{{ 'héllo' | length }} {{ [1, 2] | length }} {{ {'a': 1} | length }} {{ missing | length }} {{ [1] | count }}", {}),
    ("filter-case", "{{ 'aBc' | upper }} {{ 'aBc' | lower }} {{ 'hello wORLD' | capitalize }} {{ 'hello wORLD-x (y)' | title }} {{ 'straße' | upper }}", {}),
    ("filter-string", "{{ 5 | string }} {{ [1, 'a'] | string }} {{ none | string }} {{ 1.0 | string }} [{{ missing | string }}]", {}),
    ("filter-default", "{{ missing | default('d') }} {{ '' | default('d') }} {{ '' | default('d', true) }} {{ none | default('d') }} {{ none | d('d', true) }} {{ 'v' | default('d') }}", {}),
    ("filter-join", "{{ [1, 2, 3] | join(', ') }} {{ ['a', none] | join }} {{ 'abc' | join('-') }} {{ users | join(', ', attribute='name') }}", {"users": [{"name": "a"}, {"name": "b"}]}),
    ("filter-first-last", "{{ [1, 2, 3] | first }} {{ [1, 2, 3] | last }} {{ 'abc' | first }} [{{ [] | first }}] {{ (messages | last).role }}", {"messages": MESSAGES}),
    ("filter-replace", "{{ 'aaa' | replace('a', 'b') }} {{ 'aaa' | replace('a', 'b', 2) }} {{ 'abc' | replace('', '-') }}", {}),
    ("filter-list-reverse", "{{ 'abc' | list }} {{ [1, 2, 3] | reverse | list }} {{ 'abc' | reverse }} {{ {'a': 1, 'b': 2} | list }}", {}),
    ("filter-int-float", "{{ '42' | int }} {{ '4.7' | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ 3.9 | int }} {{ '2.5' | float }} {{ 2 | float }} {{ 'ff' | int(base=16) }}", {}),
    ("filter-items", "{% for k, v in d | items %}{{ k }}:{{ v }} {% endfor %}", {"d": {"x": 1, "y": [2]}}),
    ("filter-map", "{{ users | map(attribute='name') | join(',') }} {{ ['a', 'b'] | map('upper') | list }} {{ users | map(attribute='age', default=0) | list }}", {"users": [{"name": "a", "age": 3}, {"name": "b"}]}),
    ("filter-select", "{{ [1, 2, 3, 4] | select('even') | list }} {{ [1, 2, 3, 4] | reject('even') | list }} {{ [0, 1, '', 'a'] | select | list }}", {}),
    ("filter-selectattr", "{{ messages | selectattr('role', 'equalto', 'user') | list | length }} {{ messages | rejectattr('role', 'eq', 'user') | map(attribute='role') | join(',') }} {{ messages | selectattr('tool_calls') | list | length }} {{ messages | selectattr('tool_calls', 'defined') | map(attribute='role') | first }}", {"messages": MESSAGES}),
    ("filter-indent", "{{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}|{{ 'a\\n\\nb' | indent('> ', blank=true) }}", {}),
    ("filter-sum", "{{ [1, 2, 3] | sum }} {{ items | sum(attribute='n') }}", {"items": [{"n": 1}, {"n": 2.5}]}),
    ("filter-chain", "{{ ' Hello ' | trim | upper | replace('L', 'l') | length }}", {}),
    # tojson, Hugging Face style.
    ("tojson-basic", "{{ d | tojson }}", {"d": {"b": 1, "a": [1, 2.5, None, True, False, "s"], "é": "ü\n\"\\\u2028\u007f\u0001\t"}}),
    ("tojson-indent", "{{ d | tojson(indent=2) }}", {"d": {"a": [1, 2, {"b": None}], "e": [], "f": {}, "g": "x"}}),
    ("tojson-indent-string", "{{ [1, [2]] | tojson(indent='\\t') }}", {}),
    ("tojson-sort-separators", "{{ d | tojson(sort_keys=true) }} {{ d | tojson(separators=(',', ':')) }}", {"d": {"b": 1, "a": {"d": 2, "c": 3}}}),
    ("tojson-ensure-ascii", "{{ 'é😀\\x7f' | tojson(ensure_ascii=true) }}", {}),
    ("tojson-scalars", "{{ 1 | tojson }} {{ 1.0 | tojson }} {{ 1e20 | tojson }} {{ none | tojson }} {{ true | tojson }} {{ 'a\"b' | tojson }} {{ (1, 2) | tojson }}", {}),
    ("tojson-floats", "{{ values | tojson }}", {"values": [0.1, 1e-7, 123456789.123, 1e16, -0.0, 3.0, 2.5e-5]}),
    ("tojson-undefined-error", "{{ missing | tojson }}", {}),
    ("tojson-tools", "{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}", {"tools": TOOLS}),
    # Methods and globals.
    ("string-methods", "{{ 'abc'.startswith('a') }} {{ 'abc'.endswith(('x', 'c')) }} [{{ '  x  '.strip() }}] [{{ 'xxaxx'.lstrip('x') }}] [{{ 'xxaxx'.rstrip('x') }}] {{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ 'a b c'.split(' ', 1) }} {{ 'Hi'.upper() }} {{ 'Hi'.lower() }} {{ 'a-a'.replace('-', '+') }} {{ 'hello'.find('l') }} {{ '-'.join(['a', 'b']) }} {{ 'a\\nb'.splitlines() }}", {}),
    ("dict-methods", "{{ d.get('a') }} {{ d.get('z') }} {{ d.get('z', 5) }} {{ d.keys() | list }} {{ d.values() | list }} {% for k, v in d.items() %}{{ k }}{{ v }}{% endfor %}", {"d": {"a": 1, "b": 2}}),
    ("range", "{{ range(3) | list }} {{ range(1, 7, 2) | list }} {{ range(3, 0, -1) | list }}", {}),
    ("dict-global", "{{ dict(a=1, b='x') }}", {}),
    ("raise-exception", "{% if messages | length == 0 %}{{ raise_exception('No messages!') }}{% endif %}", {"messages": []}),
    ("raise-exception-not-reached", "{% if false %}{{ raise_exception('never') }}{% endif %}ok", {}),
    # Chat-template idioms.
    ("hf-first-system", "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system = 'default' %}{% endif %}{{ system }}|{% for m in loop_messages %}{{ m['role'] }}:{{ m['content'] }};{% endfor %}", {"messages": MESSAGES}),
    ("hf-alternation-check", "{% for m in messages %}{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{{ m.content }}{% endfor %}", {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}),
    ("hf-bos", "{{ bos_token }}{% for m in messages %}{{ m.content + eos_token }}{% endfor %}", {"bos_token": "<s>", "eos_token": "</s>", "messages": MESSAGES}),
    ("hf-last-user-index", "{% set ns = namespace(last=-1) %}{% for m in messages %}{% if m.role == 'user' %}{% set ns.last = loop.index0 %}{% endif %}{% endfor %}{{ ns.last }}", {"messages": MESSAGES}),
    ("hf-content-is-string", "{% for m in messages %}{% if m.content is string %}{{ m.content }}{% else %}{% for part in m.content %}{% if part.type == 'text' %}{{ part.text }}{% endif %}{% endfor %}{% endif %}|{% endfor %}",
     {"messages": [{"role": "user", "content": "plain"}, {"role": "user", "content": [{"type": "text", "text": "part"}, {"type": "image"}]}]}),
]


def language_fixtures():
    fixtures = []
    for name, source, context in SNIPPETS:
        entry = {"name": name, "template": source, "context": context}
        entry.update(render(source, context))
        fixtures.append(entry)
    return fixtures


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=os.path.expanduser(os.path.join(os.environ.get("SOTTO_HOME", "~/.sotto"), "models")))
    args = parser.parse_args()

    os.makedirs(os.path.join(FIXTURES, "templates"), exist_ok=True)
    templates = {}
    for template_id, filename in MODELS.items():
        source = read_chat_template(os.path.join(args.models, filename))
        templates[template_id] = source
        # newline="" keeps the text byte for byte.
        with open(os.path.join(FIXTURES, "templates", template_id + ".jinja"), "w", encoding="utf-8", newline="") as f:
            f.write(source)

    conversations = conversation_fixtures(templates)
    language = language_fixtures()
    write_json(os.path.join(FIXTURES, "conversations.json"), conversations)
    write_json(os.path.join(FIXTURES, "language.json"), language)
    errors = sum("error" in entry for entry in conversations + language)
    print(f"jinja2 {jinja2.__version__}: {len(templates)} templates, {len(conversations)} conversation and "
          f"{len(language)} language fixtures ({errors} expect an error)", file=sys.stderr)


if __name__ == "__main__":
    main()
