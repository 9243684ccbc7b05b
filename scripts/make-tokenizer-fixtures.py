#!/usr/bin/env python3
"""Writes the golden token ids the Tokenizers tests compare against.

For each model, builds the reference tokenizer from the GGUF's own vocabulary and merges with
Hugging Face `tokenizers` (BPE plus the pre-tokenizer and normalizer of the model's
tokenizer.json: Qwen2 = NFC + its split regex + ByteLevel; SmolLM = Digits + ByteLevel), and
checks every case against llama.cpp (`llama-cpp-python`, vocab only). Where the two disagree the
fixture keeps the Hugging Face ids and records llama.cpp's as `llama_cpp_ids` (only text that is
not in NFC, which llama.cpp does not normalize, may differ).

    pip install tokenizers gguf llama-cpp-python
    python3 scripts/make-tokenizer-fixtures.py [--models DIR]

Writes Tests/TokenizersTests/Fixtures/<model>.json.
"""
import argparse
import json
import os
import random
import sys

from gguf import GGUFReader
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

MODELS = ["smollm2-135m", "qwen2.5-coder-0.5b"]
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
               r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "TokenizersTests", "Fixtures")


def reference_tokenizer(path):
    r = GGUFReader(path)
    field = lambda k: r.fields[k].contents()
    tokens, types = field("tokenizer.ggml.tokens"), field("tokenizer.ggml.token_type")
    merges, pre = field("tokenizer.ggml.merges"), field("tokenizer.ggml.pre")
    bpe = models.BPE(vocab={t: i for i, t in enumerate(tokens)},
                     merges=[tuple(m.split(" ", 1)) for m in merges], byte_fallback=False)
    tk = Tokenizer(bpe)
    if pre == "qwen2":
        tk.normalizer = normalizers.NFC()
        tk.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    elif pre == "smollm":
        tk.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    else:
        sys.exit(f"no reference pre-tokenizer for '{pre}'")
    tk.decoder = decoders.ByteLevel()
    # Control tokens are "special" (split only when specials are parsed); user-defined ones
    # (<tool_call>) are plain added tokens, always matched whole.
    tk.add_tokens([AddedToken(t, special=(ty == 3), normalized=False)
                   for t, ty in zip(tokens, types) if ty in (3, 4)])
    return tk, tokens, types


def corpus(control_texts):
    texts = [
        "",
        "Hello world",
        "Hello, world! How are you today?",
        "The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX.",
        "It was the best of times, it was the worst of times, it was the age of wisdom,\n"
        "it was the age of foolishness, it was the epoch of belief.",
        "DON'T I'M we'RE they'll YOU'VE she'D it's O'Neil rock'n'roll",
        "don't I'm we're they'll you've she'd 'tis 'TWAS",
        "' '' ''' 's 'S 'x 'll 'LL 'Ll",
        "ſ 'ſ K",
        "func greet(_ name: String) -> String {\n    return \"Hello, \\(name)!\"\n}\n",
        "def fib(n):\n\tif n < 2:\n\t\treturn n\n\treturn fib(n - 1) + fib(n - 2)\n",
        "#include <stdio.h>\nint main(void) {\n  printf(\"%d\\n\", 42);\n  return 0;\n}\n",
        '{"name": "sotto", "version": [1, 2, 3], "ok": true, "nested": {"a": null}}',
        "<div class=\"x\"><p>Hi &amp; bye</p></div>",
        "SELECT id, name FROM users WHERE age >= 21 ORDER BY name;",
        "x+=1;y-=2;z*=3;w/=4;a<<=1;b>>=2;c&&d||e!=f==g",
        "https://example.com/path/to/page?query=1&other=two#frag",
        "   ", " ", "  ", "\t", "\t\t\t", "\n", "\n\n\n", "\r\n", "\r\n\r\n", " \n \n ",
        "a  b", "a   b", "a \t b", "a\t\tb", "a\n  b", "a  \n\n  b", "a\r\n\tb", "  leading", "trailing  ",
        "    indented\n        more\n    back\n", "a\u00a0b\u3000c\u2003d\u2028e\u0085f",
        "1234567890", "3.14159", "1,000,000.00", "-42 +7 1e10 0x1F", "2024-01-31T12:34:56Z",
        "\u0661\u0662\u0663 \u0967\u0968 \u00bd \u2167 \u00b2 \u2460", "a1b2c3 abc123 123abc",
        "😀", "👨‍👩‍👧‍👦 family", "🇺🇸🇯🇵 flags", "👍🏽 👋🏿", "1️⃣ ❤️ ☺︎", "I ❤ 🍕 and 🍣!!",
        "中文分词测试，你好世界。", "日本語のテキスト、カタカナとひらがな。", "한국어 텍스트입니다.",
        "café naïve résumé façade Ångström", "e\u0301cole A\u030a \u212b \u2126 q\u0307\u0323",
        "Ελληνικά κείμενα", "Русский текст, ёжик.", "עברית טקסט", "ภาษาไทย",
        "العربية: مرحبا بالعالم", "हिन्दी: नमस्ते दुनिया", "Tiếng Việt có dấu",
        "\u200bzero\u200bwidth\u00adsoft", "\x00\x01\x7f control", "tab\there\vvt\fff",
        "a" * 120, "ab" * 70, " " * 100, "\n" * 60, "x" + " " * 70 + "y",
        "supercalifragilisticexpialidocious" * 3,
        "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw==",
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        "before<tool_call>inside</tool_call>after",
        "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n"
        "<|im_start|>assistant\n",
        "<|im_start|><|im_end|><|endoftext|>", "<|im_start", "<<|im_end|>>", "text<|endoftext|>more",
        "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>", "<repo_name>x<file_sep>y",
        "</s> <s> <unk> [PAD151665]",
    ]
    texts += control_texts
    # Deterministic soup of code points from many classes, to catch class-table differences.
    rng = random.Random(1234)
    pools = [
        "abcXYZ", "0123456789", "  \t\n\r", ".,;:!?'\"()[]{}<>-_/\\|@#$%^&*+=~`",
        "éüñçÅøß", "αβγΩ", "жЯё", "中文字", "かなカナ", "한글", "ابت", "कखग", "\u0301\u0308\u0327",
        "😀🎉👍🏽", "\u00a0\u3000\u2003", "\u0660\u0967\u00bd\u2167",
    ]
    for _ in range(40):
        n = rng.randint(1, 40)
        texts.append("".join(rng.choice(rng.choice(pools)) for _ in range(n)))
    return texts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=os.path.expanduser("~/.sotto/models"))
    args = ap.parse_args()
    try:
        import llama_cpp
    except ImportError:
        llama_cpp = None
        print("llama-cpp-python not installed: fixtures are not cross-checked", file=sys.stderr)

    os.makedirs(OUT, exist_ok=True)
    for name in MODELS:
        path = os.path.join(args.models, name + ".gguf")
        tk, tokens, types = reference_tokenizer(path)
        control = [t for t, ty in zip(tokens, types) if ty == 3]
        llm = eog = None
        if llama_cpp:
            llm = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
            vocab = llama_cpp.llama_model_get_vocab(llm.model)
            eog = [i for i in range(len(tokens)) if llama_cpp.llama_vocab_is_eog(vocab, i)]
        cases, disagreements = [], 0
        for text in corpus(control):
            for parse_special in (False, True):
                tk.encode_special_tokens = not parse_special
                ids = tk.encode(text, add_special_tokens=False).ids
                case = {"text": text, "parse_special": parse_special, "ids": ids}
                if llm is not None:
                    ll = llm.tokenize(text.encode(), add_bos=False, special=parse_special)
                    if ll != ids:
                        disagreements += 1
                        case["llama_cpp_ids"] = ll
                cases.append(case)
        fixture = {
            "model": name,
            "reference": "tokenizers %s BPE from the GGUF vocabulary; checked against llama.cpp" % __import__("tokenizers").__version__,
            "llama_cpp_end_of_generation": eog,
            "cases": cases,
        }
        out = os.path.join(OUT, name + ".json")
        with open(out, "w", encoding="utf-8") as f:  # one case per line: readable diffs
            head = {k: v for k, v in fixture.items() if k != "cases"}
            f.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "cases": [\n')
            f.write(",\n".join(json.dumps(c, ensure_ascii=False) for c in cases))
            f.write("\n]}\n")
        print(f"{name}: {len(cases)} cases, {disagreements} differ from llama.cpp -> {out}")
        for c in cases:
            if "llama_cpp_ids" in c:
                print("   differs:", repr(c["text"][:60]), "special" if c["parse_special"] else "")


if __name__ == "__main__":
    main()
