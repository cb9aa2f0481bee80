"""The slowest a reward gets: adversarial completions against covert rows, the maximum time per case.

A policy under RL writes whatever it likes. Each case below is a completion designed to make scoring
work hard (many turns, many calls, calls that almost match, huge or deep arguments, long texts); each is
scored against every row of a sample of the rows with the most oracle calls, and the slowest single
``score()`` is printed (max over completions and rows, not median), with the row already prepared (as
when a trainer scores the completions of one prompt; each completion timed three times and its best
kept, so a pause of the machine is not taken for the completion's cost) and cold (a fresh scorer: the
row's preparation included, one timing).

Bar: no score() over 50 ms on any completion of up to 64 turns and 256 calls.

Run: ``python benchmarks/reward_tail_bench.py [--dataset DIR | --num-tasks N] [--rows R]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from covert.io.reader import iter_rows
from covert.rewards import Scorer

BAR_MS = 50.0
REPEATS = 3
Message = dict[str, Any]


def _flat(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for g in row["reward_model"]["ground_truth"]["calls"] for c in g]


def _spoil(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments with one value changed: the same tool, almost the right call."""
    out = dict(arguments)
    for key, value in out.items():
        if isinstance(value, str):
            out[key] = value + "x"
            return out
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value + 1
            return out
    out["unexpected"] = 1
    return out


def _turns(calls: list[tuple[str, dict[str, Any]]], per_turn: int) -> list[Message]:
    """Assistant turns of ``per_turn`` calls each, each call followed by a tool result, then an answer."""
    out: list[Message] = []
    for start in range(0, len(calls), per_turn):
        chunk = calls[start:start + per_turn]
        tool_calls = [{"id": f"c{start + k}", "type": "function", "function": {"name": n, "arguments": a}}
                      for k, (n, a) in enumerate(chunk)]
        out.append({"role": "assistant", "content": "", "tool_calls": tool_calls})
        out += [{"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"], "content": "{}"}
                for c in tool_calls]
    out.append({"role": "assistant", "content": "Done."})
    return out


def _cycle(row: dict[str, Any], count: int, spoil: bool) -> list[tuple[str, dict[str, Any]]]:
    flat = _flat(row) or [{"name": row["tools"][0]["function"]["name"], "arguments": {}}]
    picked = [flat[i % len(flat)] for i in range(count)]
    return [(c["name"], _spoil(c["arguments"]) if spoil else dict(c["arguments"])) for c in picked]


def _reversed_turns(row: dict[str, Any], repeat: int) -> list[Message]:
    """The oracle's calls, in reverse order and repeated, one call per turn (out of order everywhere)."""
    calls = [(c["name"], dict(c["arguments"])) for c in reversed(_flat(row))] * repeat
    return _turns(calls[:64], 1)


def _hermes_text(row: dict[str, Any], count: int) -> str:
    name = (_flat(row) or [{"name": "x"}])[0]["name"]
    return "".join(f'<tool_call>{{"name": "{name}", "arguments": {{"q": {i}}}}}</tool_call>' for i in range(count))


CASES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "64 turns x 1 near-miss call": lambda r: _turns(_cycle(r, 64, spoil=True), 1),
    "32 turns x 2 near-miss calls": lambda r: _turns(_cycle(r, 64, spoil=True), 2),
    "64 turns x 1 right call (repeated)": lambda r: _turns(_cycle(r, 64, spoil=False), 1),
    "16 turns x 4 right calls": lambda r: _turns(_cycle(r, 64, spoil=False), 4),
    "1 turn x 64 calls, half right": lambda r: _turns([*_cycle(r, 32, False), *_cycle(r, 32, True)], 64),
    "64 turns, oracle reversed and repeated": lambda r: _reversed_turns(r, 16),
    "64 turns x 4 calls (256 calls)": lambda r: _turns(_cycle(r, 256, spoil=True), 4),
    "256 turns x 1 call": lambda r: _turns(_cycle(r, 256, spoil=False), 1),
    "1 MB string argument": lambda r: _turns([(n, {**a, "note": "y" * 1_000_000}) for n, a in _cycle(r, 4, False)], 1),
    "deeply nested argument": lambda r: _turns([(n, {**a, "deep": _deep(200)}) for n, a in _cycle(r, 4, False)], 1),
    "20,000 hermes calls as text": lambda r: _hermes_text(r, 20_000),
    "200 KB of prose": lambda r: "All done. " * 20_000,
}


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def rows_with_most_calls(root: Path, count: int) -> list[dict[str, Any]]:
    """The ``count`` rl rows of a dataset with the most oracle calls."""
    return rows_with_most_calls_of(iter_rows(root, "rl"), count)


def rows_with_most_calls_of(rows: Any, count: int) -> list[dict[str, Any]]:
    """The ``count`` rows with the most oracle calls (ties by task id)."""
    chosen = [r for r in rows if r["reward_model"]["ground_truth"]["calls"]]
    chosen.sort(key=lambda r: (-len(_flat(r)), r["task_id"]))
    return chosen[:count]


def measure(rows: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Per case: (max ms with the row prepared, max ms cold)."""
    out = {}
    for name, make in CASES.items():
        warm = cold = 0.0
        for row in rows:
            completion = make(row)
            fresh = Scorer()
            start = time.perf_counter()
            fresh.score(row, completion)
            cold = max(cold, time.perf_counter() - start)
            best = float("inf")
            for _ in range(REPEATS):  # the best of a few: the completion's cost, not the machine's hiccups
                start = time.perf_counter()
                result = fresh.score(row, completion)
                best = min(best, time.perf_counter() - start)
            warm = max(warm, best)
            assert 0.0 <= result.value <= 1.0
        out[name] = (warm * 1000, cold * 1000)
    return out


def report(rows: list[dict[str, Any]]) -> bool:
    """Print the table; whether the bar holds."""
    figures = measure(rows)
    print(f"slowest score() per adversarial case, over {len(rows)} rows with the most oracle calls:")
    print(f"  {'case':<42} {'prepared ms':>12} {'cold ms':>9}")
    for name, (warm, cold) in figures.items():
        print(f"  {name:<42} {warm:>12.2f} {cold:>9.2f}")
    worst = max(w for w, _ in figures.values())
    ok = worst <= BAR_MS
    print(f"bar: every score() <= {BAR_MS:.0f} ms with the row prepared: worst {worst:.2f} ms {'PASS' if ok else 'FAIL'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path)
    parser.add_argument("--num-tasks", type=int, default=1500)
    parser.add_argument("--rows", type=int, default=40)
    args = parser.parse_args()
    if args.dataset is not None:
        report(rows_with_most_calls(args.dataset, args.rows))
        return
    from covert.build import BuildConfig, build

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ds"
        build(BuildConfig(builders=["all"], num_tasks=args.num_tasks, seed=0), root, progress=False)
        report(rows_with_most_calls(root, args.rows))


if __name__ == "__main__":
    main()
