#!/usr/bin/env python3
"""Make the golden model fixtures for Tests/InferenceTests from llama.cpp.

For each small model and each prompt below, llama.cpp (through llama-cpp-python) evaluates the
prompt and then 32 greedy tokens one at a time, recording:

    prompt       the prompt's token ids (chat prompts rendered with the model's own template by
                 jinja2, configured as Hugging Face's apply_chat_template, then tokenized by
                 llama.cpp with special tokens parsed)
    greedy       the 32 argmax tokens (generation continues past end-of-generation tokens, so
                 the comparison covers the model, not the stopping rule)
    gaps         at each greedy step, the top-1 minus top-2 logit (a near tie may legitimately
                 go either way in another implementation)
    runner_up    at each greedy step, the second most likely token
    top_logits   the 50 highest logits at the prompt's last position, as [id, logit] pairs

It also checks the arithmetic of the forward pass without quantization noise: each model is cut
to its first TRUNCATED_LAYERS blocks, those blocks' matrices are dequantized to F32 (the token
embedding stays as stored, `output.weight` is dropped so the head is tied), and llama.cpp's final
normalized hidden state at the last position of a few prompts is recorded:

    hidden       [{"name", "prompt", "state"}], `state` being embedding_length floats

The Swift test builds the same truncated model in memory and compares hidden states.

The KV cache is F32 (type_k = type_v = GGML_TYPE_F32) so the reference does not carry F16
rounding; everything else is llama.cpp's default CPU path (its Q8 activation quantization
included).

Output: Tests/InferenceTests/Fixtures/<model id>.json (a few tens of kB each).

Usage:  pip install llama-cpp-python jinja2 numpy
        python3 scripts/make-llama-fixtures.py [--models DIR]
"""

import argparse
import json
import os

import tempfile

import gguf
import jinja2
import numpy as np
from jinja2.sandbox import ImmutableSandboxedEnvironment
import llama_cpp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "InferenceTests", "Fixtures")
MODELS = {"smollm2-135m": "smollm2-135m.gguf", "qwen2.5-coder-0.5b": "qwen2.5-coder-0.5b.gguf"}
GREEDY_STEPS = 32
TOP_LOGITS = 50
TRUNCATED_LAYERS = 2
HIDDEN_PROMPTS = ["question", "multi_turn", "long_raw"]

LONG_PROSE = (
    "The lighthouse keeper had lived on the island for thirty-one years. Every evening he climbed the "
    "hundred and twelve steps of the spiral staircase, trimmed the wick, polished the great lens and "
    "watched the beam sweep across the dark water. Ships passed in the night, some close enough that he "
    "could hear the engines, others no more than a faint light on the horizon. In winter the storms came "
    "from the north-west, throwing spray as high as the gallery, and he would sit by the stove with a mug "
    "of tea, listening to the wind trying every window in turn. In summer there were visitors: birdwatchers "
    "with long lenses, children who wanted to see the lamp, now and then a painter who stayed for a week "
    "and left behind a canvas of grey rocks and greyer sky. He kept a logbook of every ship, every storm, "
    "every visitor, in a neat hand that had not changed since he was a boy. When the letter came saying "
    "that the light would be automated and his post abolished, he read it twice, folded it carefully, and "
    "put it in the drawer with the others. Then he went up the stairs as usual, because the sun was setting "
    "and the light had to be lit. That night the sea was calm, and the beam went round and round, and "
    "somewhere far out a captain saw it and corrected his course by half a degree, as captains had done "
    "for a hundred years. The keeper wrote the ship's name in the log. In the morning he began to pack."
)

# (name, kind, payload): kind "chat" renders a message list, "raw" tokenizes the text as is.
PROMPTS = [
    ("question", "chat", [{"role": "user", "content": "What is the capital of France?"}]),
    ("code", "chat", [{"role": "user", "content": "Write a Python function that checks whether a number is prime."}]),
    ("french", "chat", [{"role": "user", "content": "Donne-moi trois conseils pour bien dormir."}]),
    ("list", "chat", [{"role": "user", "content": "List five fruits that are red."}]),
    ("system", "chat", [
        {"role": "system", "content": "You are a pirate. Answer in one sentence."},
        {"role": "user", "content": "Tell me about the sea."},
    ]),
    ("multi_turn", "chat", [
        {"role": "user", "content": "Hi!"},
        {"role": "assistant", "content": "Hello! How can I help you today?"},
        {"role": "user", "content": "Count from one to ten, in words."},
    ]),
    ("prose_raw", "raw", "Once upon a time, in a small village by the sea,"),
    ("code_raw", "raw", "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n"),
    ("japanese_raw", "raw", "東京は日本の首都です。大阪は"),
    ("special_raw", "raw", "<|im_start|>user\nHow many legs does a spider have?<|im_end|>\n<|im_start|>assistant\n"),
    ("long_raw", "raw", LONG_PROSE + "\n\nSummary of the story in one sentence:"),
]


def read_chat_template(llm):
    return llm.metadata["tokenizer.chat_template"]


def render(template_source, messages):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = lambda x, **kw: json.dumps(x, ensure_ascii=False)
    return env.from_string(template_source).render(messages=messages, add_generation_prompt=True)


def last_logits(llm):
    n_vocab = llm.n_vocab()
    pointer = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
    return np.ctypeslib.as_array(pointer, shape=(n_vocab,)).astype(np.float64)


def run_case(llm, prompt_ids):
    llm.reset()
    llm.eval(prompt_ids)
    logits = last_logits(llm)
    top = np.argsort(-logits, kind="stable")[:TOP_LOGITS]
    top_logits = [[int(i), round(float(logits[i]), 5)] for i in top]
    greedy, gaps, runner_up = [], [], []
    for _ in range(GREEDY_STEPS):
        order = np.argsort(-logits, kind="stable")[:2]
        token = int(order[0])
        greedy.append(token)
        runner_up.append(int(order[1]))
        gaps.append(round(float(logits[order[0]] - logits[order[1]]), 6))
        llm.eval([token])
        logits = last_logits(llm)
    return greedy, gaps, runner_up, top_logits


def field_value(field):
    """A metadata value of gguf-py's reader in a form its writer takes."""
    kind = field.types[0]
    if kind == gguf.GGUFValueType.ARRAY:
        sub = field.types[1]
        if sub == gguf.GGUFValueType.STRING:
            return [bytes(field.parts[i]).decode("utf-8", errors="surrogateescape") for i in field.data], kind, sub
        return [field.parts[i][0].item() for i in field.data], kind, sub
    if kind == gguf.GGUFValueType.STRING:
        return bytes(field.parts[field.data[0]]).decode("utf-8"), kind, None
    return field.parts[field.data[0]][0].item(), kind, None


def write_truncated(source, destination, layers):
    """The first `layers` blocks of `source`, their matrices as F32; no output.weight."""
    reader = gguf.GGUFReader(source)
    arch = bytes(reader.fields["general.architecture"].parts[-1]).decode()
    writer = gguf.GGUFWriter(destination, arch)
    for key, field in reader.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture":
            continue
        value, kind, sub = field_value(field)
        if key == f"{arch}.block_count":
            value = layers
        if kind == gguf.GGUFValueType.ARRAY and sub == gguf.GGUFValueType.STRING:
            writer.add_array(key, value)
        elif kind == gguf.GGUFValueType.ARRAY:
            writer.add_key_value(key, value, kind, sub_type=sub)
        else:
            writer.add_key_value(key, value, kind)
    for tensor in reader.tensors:
        if tensor.name == "output.weight":
            continue
        if tensor.name.startswith("blk."):
            if int(tensor.name.split(".")[1]) >= layers:
                continue
            shape = [int(x) for x in reversed(tensor.shape)]
            values = gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype(np.float32).reshape(shape)
            writer.add_tensor(tensor.name, values)
        else:
            data = np.array(tensor.data)
            writer.add_tensor(tensor.name, data, raw_shape=data.shape, raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def hidden_states(path, cases):
    llm = llama_cpp.Llama(
        model_path=path, n_ctx=1024, n_batch=512, n_ubatch=512, n_threads=1, type_k=0, type_v=0,
        flash_attn=False, embedding=True, pooling_type=0, verbose=False)
    states = []
    for case in cases:
        if case["name"] not in HIDDEN_PROMPTS:
            continue
        llm.reset()
        llm.eval(case["prompt"])
        width = llama_cpp.llama_model_n_embd(llm.model)
        state = np.ctypeslib.as_array(llama_cpp.llama_get_embeddings_ith(llm.ctx, -1), shape=(width,))
        states.append({"name": case["name"], "prompt": case["prompt"], "state": [float(f"{v:.7g}") for v in state]})
    return states


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=os.path.expanduser("~/.sotto/models"))
    args = parser.parse_args()
    os.makedirs(FIXTURES, exist_ok=True)
    for model_id, filename in MODELS.items():
        llm = llama_cpp.Llama(
            model_path=os.path.join(args.models, filename), n_ctx=1024, n_batch=512, n_ubatch=512, n_threads=1,
            type_k=0, type_v=0, flash_attn=False, verbose=False)
        template = read_chat_template(llm)
        cases = []
        for name, kind, payload in PROMPTS:
            text = render(template, payload) if kind == "chat" else payload
            prompt_ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
            greedy, gaps, runner_up, top_logits = run_case(llm, prompt_ids)
            cases.append({
                "name": name, "kind": kind, "text": text, "prompt": prompt_ids, "greedy": greedy, "gaps": gaps,
                "runner_up": runner_up, "top_logits": top_logits,
            })
            print(f"{model_id} {name}: {len(prompt_ids)} prompt tokens -> {llm.detokenize(greedy)[:60]!r}")
        with tempfile.TemporaryDirectory() as scratch:
            truncated = os.path.join(scratch, "truncated.gguf")
            write_truncated(os.path.join(args.models, filename), truncated, TRUNCATED_LAYERS)
            hidden = hidden_states(truncated, cases)
        fixture = {
            "model": model_id,
            "generator": f"llama-cpp-python {llama_cpp.__version__}, F32 KV cache, 1 thread",
            "cases": cases,
            "truncated_layers": TRUNCATED_LAYERS,
            "hidden": hidden,
        }
        with open(os.path.join(FIXTURES, model_id + ".json"), "w", encoding="utf-8") as f:
            json.dump(fixture, f, ensure_ascii=False, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
