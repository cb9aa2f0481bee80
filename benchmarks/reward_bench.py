"""Throughput of covert's rewards.

1. BFCL checks/s: covert's matcher against BFCL's own ``ast_checker`` on the same BFCL data in the same
   run, for single-call categories (simple_python, multiple, live_simple: the reference answers) and
   parallel ones (parallel, parallel_multiple: the reference answers in order and reversed). A check is
   a verdict (valid or not). covert's references are compiled once per entry (as a trainer scoring many
   completions per prompt does); the figure with compilation included is printed too. Each side's
   rate is its best of ``--rounds`` timed passes (the machine may be shared). BFCL's checker runs in this process if
   ``bfcl_eval`` imports, else in the Python given by ``--bfcl-python`` / ``$COVERT_BFCL_PYTHON``
   (a venv with ``pip install bfcl-eval``); otherwise its figures are reported as unavailable.
   Bar: covert >= 10x BFCL on both.
2. State-match rewards/s on covert rows, one core: replay a completion's calls on the row's initial
   state and compare the final state with the oracle's (exact hash, or Jaccard of the changes when it
   differs). Bar: >= 10,000/s. The full composite ``score()`` rate is printed for reference.

Run: ``python benchmarks/reward_bench.py [--bfcl-python PATH] [--dataset DIR | --num-tasks N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from covert.rewards import Scorer, compile_bfcl, match_bfcl, oracle_completion, reference_calls, state_score
from covert.rewards.bfcl_data import BfclUnavailable, load_bfcl

BFCL_BAR = 10.0
STATE_BAR = 10_000.0
SINGLE = ("simple_python", "multiple", "live_simple")
PARALLEL = ("parallel", "parallel_multiple")
MODEL = "gorilla-openfunctions-v2"  # a BFCL model config that keeps dotted function names as they are

BFCL_TIMER = r"""
import json, sys, time
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
from bfcl_eval.constants.enums import Language
cases = json.load(open(sys.argv[1]))
rounds = int(sys.argv[2])
out = {}
for group, items in cases.items():
    verdicts = [ast_checker(c["functions"], c["calls"], c["answer"], Language.PYTHON, c["category"], MODEL)["valid"]
                for c in items]
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for c in items:
            ast_checker(c["functions"], c["calls"], c["answer"], Language.PYTHON, c["category"], MODEL)
        best = min(best, time.perf_counter() - start)
    out[group] = {"rate": len(items) / best, "verdicts": verdicts}
print(json.dumps(out))
""".replace("MODEL", repr(MODEL))


def bfcl_cases(data: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]) -> dict[str, list[dict[str, Any]]]:
    cases: dict[str, list[dict[str, Any]]] = {"single": [], "parallel": []}
    for category, entries in data.items():
        for question, answer in entries:
            try:
                ref = reference_calls(answer, question["function"])
            except ValueError:
                continue  # BFCL lists no acceptable value for a required parameter: no answer passes
            variants = [ref] if category in SINGLE else [ref, list(reversed(ref))]
            for calls in variants:
                cases["single" if category in SINGLE else "parallel"].append(
                    {"functions": question["function"], "calls": calls, "answer": answer["ground_truth"],
                     "category": category})
    return cases


def time_covert(items: list[dict[str, Any]], rounds: int) -> tuple[float, float, list[bool]]:
    compiled = [compile_bfcl(c["functions"], c["answer"], c["category"]) for c in items]
    verdicts = [ref.score(c["calls"]).value == 1.0 for ref, c in zip(compiled, items)]
    pairs = [(ref.accepts, c["calls"]) for ref, c in zip(compiled, items)]
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for accepts, calls in pairs:
            accepts(calls)
        best = min(best, time.perf_counter() - start)
    checked = len(items) / best
    start = time.perf_counter()
    for c in items:
        match_bfcl(c["functions"], c["calls"], c["answer"], c["category"])
    with_compile = len(items) / (time.perf_counter() - start)
    return checked, with_compile, verdicts


def time_bfcl(cases: dict[str, list[dict[str, Any]]], rounds: int, python: str | None) -> dict[str, Any] | str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.json"
        path.write_text(json.dumps(cases))
        try:
            import bfcl_eval.eval_checker.ast_eval.ast_checker  # noqa: F401

            python = sys.executable
        except Exception:  # noqa: BLE001 - any import failure means: use another interpreter, or none
            if not python:
                return "bfcl_eval is not importable here; pass --bfcl-python or set COVERT_BFCL_PYTHON"
        try:
            result = subprocess.run([python, "-c", BFCL_TIMER, str(path), str(rounds)], capture_output=True,
                                    text=True, timeout=1800, check=True)
        except (subprocess.SubprocessError, OSError) as exc:
            return f"BFCL's checker could not run under {python}: {type(exc).__name__}"
        return json.loads(result.stdout.strip().splitlines()[-1])


def bfcl_section(args: argparse.Namespace) -> bool:
    print("== BFCL: covert's matcher vs BFCL's ast_checker (same data, same run) ==")
    try:
        data = load_bfcl(SINGLE + PARALLEL)
    except BfclUnavailable as exc:
        print(f"BFCL data unavailable: {exc}")
        return False
    cases = bfcl_cases(data)
    bfcl = time_bfcl(cases, args.rounds, args.bfcl_python or os.environ.get("COVERT_BFCL_PYTHON"))
    ok = True
    for group in ("single", "parallel"):
        items = cases[group]
        rate, with_compile, verdicts = time_covert(items, args.rounds)
        label = "single-call" if group == "single" else "parallel"
        print(f"{label}: {len(items)} checks ({', '.join(SINGLE if group == 'single' else PARALLEL)})")
        print(f"  covert      {rate:>12,.0f} checks/s   ({with_compile:,.0f}/s including compiling the reference)")
        if isinstance(bfcl, str):
            print(f"  BFCL        unavailable: {bfcl}")
            ok = False
            continue
        theirs = bfcl[group]
        agree = sum(a == b for a, b in zip(verdicts, theirs["verdicts"]))
        ratio = rate / theirs["rate"]
        passed = ratio >= BFCL_BAR
        ok &= passed
        print(f"  BFCL        {theirs['rate']:>12,.0f} checks/s")
        print(f"  speed-up    {ratio:>12.1f}x   (bar >= {BFCL_BAR:.0f}x: {'PASS' if passed else 'FAIL'})")
        print(f"  verdicts    {agree}/{len(items)} agree; covert accepts {sum(verdicts)}, BFCL {sum(theirs['verdicts'])}"
              " (differences: BFCL's greedy parallel pairing)")
    return ok


def state_section(args: argparse.Namespace) -> bool:
    from covert.build import BuildConfig, build
    from covert.io.reader import iter_rows

    print("== State matching on covert rows (one core) ==")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.dataset
        if root is None:
            root = Path(tmp) / "ds"
            build(BuildConfig(builders=["all"], num_tasks=args.num_tasks, seed=0), root, progress=False)
        rows = list(iter_rows(root, "rl"))
    scorer = Scorer()
    prepared = [scorer.prepare(row) for row in rows]  # what a trainer's cache holds after the first rollout
    rollouts = []
    for p in prepared:
        calls = [(c["name"], c.get("arguments") or {}) for g in p.calls for c in g]
        rollouts.append((p, calls))
        if len(calls) > 1:
            rollouts.append((p, calls[:-1]))  # a rollout that stops one call short: partial credit path
    best = float("inf")
    for _ in range(args.rounds):
        start = time.perf_counter()
        for p, calls in rollouts:
            session = p.session()
            for name, arguments in calls:
                session.call(name, arguments)
            state_score(p.initial, session.state, p.expected_hash, p.expected_items)
        best = min(best, time.perf_counter() - start)
    rate = len(rollouts) / best
    completions = [(row, oracle_completion(row, scorer)) for row in rows]
    best = float("inf")
    for _ in range(args.rounds):
        start = time.perf_counter()
        for row, completion in completions:
            scorer.score(row, completion)
        best = min(best, time.perf_counter() - start)
    full = len(completions) / best
    passed = rate >= STATE_BAR
    print(f"rows {len(rows)}, rollouts {len(rollouts)} (oracle calls, and one call short), best of {args.rounds} passes")
    print(f"  state-match rewards/s   {rate:>10,.0f}   (bar >= {STATE_BAR:,.0f}/s per core: {'PASS' if passed else 'FAIL'})")
    print(f"  full score() rewards/s  {full:>10,.0f}   (parse + replay + calls + state + facts + judge)")
    return passed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bfcl-python", help="a Python that can import bfcl_eval (default: $COVERT_BFCL_PYTHON)")
    parser.add_argument("--dataset", type=Path, help="score this dataset's rl rows instead of a fresh build")
    parser.add_argument("--num-tasks", type=int, default=1000, help="size of the fresh build (default 1000)")
    parser.add_argument("--rounds", type=int, default=7, help="timed passes over the data; the best one counts")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, single process")
    bfcl_ok = bfcl_section(args)
    state_ok = state_section(args)
    return 0 if bfcl_ok and state_ok else 1


if __name__ == "__main__":
    sys.exit(main())
