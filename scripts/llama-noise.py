#!/usr/bin/env python3
"""How far llama.cpp's own builds land from the committed parity fixtures.

The fixtures in Tests/InferenceTests/Fixtures were made by llama.cpp built for the development
machine (AVX-512). This evaluates the same prompts with another llama.cpp build — by default the
AVX2-only one (scripts/install-llama-cpp avx2), as a machine without AVX-512 would run it — and
prints, per model, the largest |Δ| on the fixture's 50 highest final-position logits and how often
its teacher-forced greedy choice differs (and whether each difference is the fixture's runner-up).
That is the noise of one implementation across instruction sets, against which the parity tests'
tolerances for Sotto's non-native kernel sets are set.

Usage:  scripts/llama-noise.py [--flavor avx2|native] [--threads 1]
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "InferenceTests", "Fixtures")

CHILD = r"""
import json, sys
import numpy as np
import llama_cpp
path, fixture_path, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
fixture = json.load(open(fixture_path))
llm = llama_cpp.Llama(model_path=path, n_ctx=1024, n_batch=512, n_ubatch=512, n_threads=threads,
                      type_k=0, type_v=0, flash_attn=False, verbose=False)
def logits():
    n = llm.n_vocab()
    return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(n,)).astype(np.float64)
worst, steps, swaps, foreign, worst_gap = 0.0, 0, 0, 0, 0.0
for case in fixture["cases"]:
    llm.reset(); llm.eval(case["prompt"]); l = logits()
    worst = max(worst, max(abs(l[i] - v) for i, v in case["top_logits"]))
    for step, token in enumerate(case["greedy"]):
        ours = int(np.argmax(l)); steps += 1
        if ours != token:
            swaps += 1
            if ours != case["runner_up"][step]:
                foreign += 1
            worst_gap = max(worst_gap, case["gaps"][step])
        llm.eval([token]); l = logits()
print(json.dumps({"worst_logit": worst, "steps": steps, "swaps": swaps, "not_runner_up": foreign,
                  "largest_gap_swapped": worst_gap}))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--flavor", default="avx2", choices=["avx2", "native"])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    site = subprocess.run([os.path.join(ROOT, "scripts", "install-llama-cpp"), args.flavor], check=True,
                          capture_output=True, text=True).stdout.strip().splitlines()[-1]
    home = os.environ.get("SOTTO_HOME", os.path.expanduser("~/.sotto"))
    env = dict(os.environ, PYTHONPATH=site)
    for fixture in sorted(f for f in os.listdir(FIXTURES) if f.endswith(".json")):
        model = fixture[:-len(".json")]
        out = subprocess.run([sys.executable, "-c", CHILD, os.path.join(home, "models", model + ".gguf"),
                              os.path.join(FIXTURES, fixture), str(args.threads)],
                             check=True, capture_output=True, text=True, env=env).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{model}: llama.cpp {args.flavor} vs the fixture: max |Δlogit| on the top 50 {r['worst_logit']:.3f}; "
              f"teacher-forced choices differing {r['swaps']} of {r['steps']} "
              f"({r['not_runner_up']} not the fixture's runner-up; largest fixture gap among them "
              f"{r['largest_gap_swapped']:.3f})")


if __name__ == "__main__":
    main()
