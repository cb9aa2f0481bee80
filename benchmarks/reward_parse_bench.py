"""The slowest a completion of up to 1 MB gets to score, in every call syntax (issue 32).

Each case is a hostile or maximal completion: thousands of calls (python-style, JSON, hermes
``<tool_call>`` blocks, OpenAI messages, one message per call), the most calls and messages that are
still read, deep or huge literals, a megabyte of plain or ``<think>`` text. Each is scored against the
row with the most oracle calls of a small build, prepared (as a trainer scores the completions of one
prompt), best of three; the slowest is printed.

Bar: every completion of up to 1 MB scores in <= 50 ms.

Run: ``python benchmarks/reward_parse_bench.py [--dataset DIR]`` (default: builds 40 retail tasks).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from covert.io.reader import iter_rows
from covert.rewards import Scorer
from covert.rewards.parsing import MAX_MESSAGES, MAX_TEXT_CALLS

BAR_MS = 50.0
MB = 1 << 20


def _cases() -> dict[str, Any]:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
    many = 20_000
    filler = "x" * (MB // MAX_TEXT_CALLS - 40)
    return {
        "python 20,000 calls (140 KB)": "[" + ", ".join(["f(a=1)"] * many) + "]",
        "python 150,000 calls (1 MB)": "[" + ", ".join(["f(a=1)"] * 150_000) + "]",
        "python 256 calls, names in strings": "[" + ", ".join([f"f(a='{'g(' * 3}')"] * MAX_TEXT_CALLS) + "]",
        "python 256 calls with tuples": "[" + ", ".join(["f(a=((1, 2), (3, 4)), b=[1, 2, 3])"] * MAX_TEXT_CALLS) + "]",
        "python 190 KB number list": "[f(a=[" + ", ".join(["1"] * 60_000) + "])]",
        "python deep list": "[f(a=" + "[" * 90_000 + "]" * 90_000 + ")]",
        "python 1+1+... chain": "[f(a=" + "1+" * 90_000 + "1)]",
        "python f-string chain": "[f(a=f'{" + "1+" * 90_000 + "1}')]",
        "python 190 KB string with commas": "[f(a='" + "many words, " * 16_000 + "')]",
        "python 40,000 short strings": "[f(a=[" + ", ".join(["'x'"] * 40_000) + "])]",
        "json 20,000 calls": json.dumps([{"name": "f", "arguments": {"a": 1}}] * many),
        "json 30,000 calls (1 MB)": json.dumps([{"name": "f", "arguments": {"a": 1}}] * 30_000),
        "json 256 calls of 4 KB": json.dumps([{"name": "f", "arguments": {"a": filler}}] * MAX_TEXT_CALLS),
        "hermes 20,000 blocks": "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>" * many,
        "hermes 256 blocks of 4 KB": ("<tool_call>" + json.dumps({"name": "f", "arguments": {"a": filler}})
                                      + "</tool_call>") * MAX_TEXT_CALLS,
        "headers 60,000 turns (1 MB)": "<|im_start|>user\nhi<|im_end|>" * 35_000,
        "headers 512 turns": "<|im_start|>assistant\nok<|im_end|>" * MAX_MESSAGES,
        "messages 20,000 calls in one": [{"role": "assistant", "content": "", "tool_calls": [call] * many}],
        "messages 20,000 turns": [{"role": "assistant", "content": "", "tool_calls": [call]}] * many,
        "messages 256 calls over 256 turns": [{"role": "assistant", "content": "", "tool_calls": [call]}] * MAX_TEXT_CALLS,
        "plain text 1 MB": "word " * (MB // 5),
        "think 1 MB": "<think>" + "x" * MB,
        "brackets 1 MB": "[" * MB,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", help="a dataset folder (default: a 40-task retail build)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.dataset
        if root is None:
            from covert.build import BuildConfig, build

            root = str(Path(tmp) / "ds")
            build(BuildConfig(builders=["retail"], num_tasks=40, seed=3), root, workers=1, progress=False)
        rows = list(iter_rows(root, "rl"))
    row = max(rows, key=lambda r: len(r["reward_model"]["ground_truth"]["calls"]))
    scorer = Scorer()
    scorer.score(row, "warm up")
    worst = 0.0
    for name, completion in _cases().items():
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            result = scorer.score(row, completion)
            best = min(best, time.perf_counter() - start)
        worst = max(worst, best * 1000)
        print(f"{best * 1000:8.2f} ms  {name:38s} score {result.value:.2f}  {(result.reasons or [''])[0][:70]}")
    print(f"worst case: {worst:.2f} ms per completion of up to 1 MB (bar {BAR_MS:.0f} ms): "
          f"{'PASS' if worst <= BAR_MS else 'FAIL'}")


if __name__ == "__main__":
    main()
