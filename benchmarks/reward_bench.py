"""Throughput of covert's rewards.

1. BFCL checks/s: covert's matcher against BFCL's own ``ast_checker`` on the same BFCL data in the same
   run, for single-call categories (simple_python, multiple, live_simple: the reference answers) and
   parallel ones (parallel, parallel_multiple: the reference answers in order and reversed); then,
   for information, the same entries with one argument made wrong. A check is a verdict (valid or
   not). covert is timed three ways: with a prepared reference (``compile_bfcl`` once per entry,
   ``accepts`` per completion, as a trainer scoring many completions per prompt does), and one-off
   (``match_bfcl(functions, calls, possible_answer, category)`` per check, everything a user's call
   pays), warm (the caches covert keeps across calls left as the previous pass left them) and cold
   (emptied before each pass: normalised strings, code generated per call shape). Each
   rate is the best of ``--rounds`` timed passes (the machine may be shared). BFCL's checker runs in
   this process if ``bfcl_eval`` imports, else in the Python given by ``--bfcl-python`` /
   ``$COVERT_BFCL_PYTHON`` (a venv with ``pip install bfcl-eval``); otherwise its figures are reported
   as unavailable. Bars, on the reference answers: prepared >= 10x BFCL, one-off (warm and cold) >= 1x.
   Verdicts must agree with BFCL's on every check; the one allowed difference is a correct parallel
   answer that BFCL's greedy pairing rejects, and only when BFCL accepts the same calls put in the
   order covert paired them. Any other disagreement is printed and fails the run.
2. State-match rewards/s on covert rows, one core: replay a completion's calls on the row's initial
   state and compare the final state with the oracle's (exact hash, or Jaccard of the changes when it
   differs). Bar: >= 10,000/s. The full composite ``score()`` rate is printed for reference.
3. The slowest ``score()`` on adversarial completions (``reward_tail_bench.py``: many turns, near-miss
   calls, huge or deep arguments, thousands of calls in a text) against the rows with the most oracle
   calls, max not median. Bar: <= 50 ms with the row prepared.

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

from covert.rewards import (
    BFCL,
    Scorer,
    assign,
    compile_bfcl,
    match_bfcl,
    oracle_completion,
    reference_calls,
    state_score,
)
from covert.rewards.bfcl_data import BfclUnavailable, load_bfcl
from covert.rewards.fastmatch import _code

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reward_tail_bench  # noqa: E402

BFCL_BAR = 10.0  # prepared reference
ONE_OFF_BAR = 1.0
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
    # the calls in the order covert paired them (parallel entries covert accepts): untimed
    ordered = [ast_checker(c["functions"], c["ordered"], c["answer"], Language.PYTHON, c["category"], MODEL)["valid"]
               if c.get("ordered") is not None else None for c in items]
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for c in items:
            ast_checker(c["functions"], c["calls"], c["answer"], Language.PYTHON, c["category"], MODEL)
        best = min(best, time.perf_counter() - start)
    out[group] = {"rate": len(items) / best, "verdicts": verdicts, "ordered": ordered}
print(json.dumps(out))
""".replace("MODEL", repr(MODEL))
WAYS = (("prepared", "prepared     "), ("warm", "one-off, warm"), ("cold", "one-off, cold"))
GROUPS = {"single": "single-call", "parallel": "parallel",
          "single_wrong": "single-call, one argument wrong", "parallel_wrong": "parallel, one argument wrong"}


def _wrong(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls with the first argument of the first call made wrong, its type kept (no argument:
    the function renamed)."""
    ((name, arguments),) = calls[0].items()
    if not arguments:
        return [{name + "_x": arguments}, *calls[1:]]
    param, value = next(iter(arguments.items()))
    if isinstance(value, bool):
        value = not value
    elif isinstance(value, (int, float)):
        value = value + 7919
    elif isinstance(value, str):
        value = value + " covert"
    elif isinstance(value, list):
        value = [*value, value[0] if value else 7919]
    else:
        value = {"covert": 7919}
    return [{name: {**arguments, param: value}}, *calls[1:]]


def bfcl_cases(data: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]) -> dict[str, list[dict[str, Any]]]:
    cases: dict[str, list[dict[str, Any]]] = {group: [] for group in GROUPS}
    for category, entries in data.items():
        group = "single" if category in SINGLE else "parallel"
        for question, answer in entries:
            try:
                ref = reference_calls(answer, question["function"])
            except ValueError:
                continue  # BFCL lists no acceptable value for a required parameter: no answer passes
            variants = {group: [ref] if group == "single" else [ref, list(reversed(ref))], group + "_wrong": [_wrong(ref)]}
            for kind, calls_list in variants.items():
                for calls in calls_list:
                    cases[kind].append({"id": question["id"], "functions": question["function"], "calls": calls,
                                        "answer": answer["ground_truth"], "category": category})
    for items in cases.values():
        for c in items:
            c["ordered"] = _paired_order(c) if len(c["answer"]) > 1 else None
    return cases


def _paired_order(case: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The calls reordered to follow the expected calls covert pairs them with (None: not all paired)."""
    reference = compile_bfcl(case["functions"], case["answer"], case["category"])
    calls = case["calls"]
    weights = [[1.0 if type(c) is dict and len(c) == 1 and type(c.get(m.name)) is dict and m.matches(c[m.name])
                else 0.0 for m in reference.expected] for c in calls]
    pairs = assign(weights)
    if len(pairs) != len(reference.expected) or len(calls) != len(pairs):
        return None
    by_expected = {j: i for i, j in pairs}
    return [calls[by_expected[j]] for j in range(len(reference.expected))]


def _clear_caches() -> None:
    """Every cache covert keeps across calls: normalised strings, generated code."""
    BFCL.cached.cache_clear()
    _code.cache_clear()


def _best(run: Any, rounds: int, before: Any = None) -> float:
    best = float("inf")
    for _ in range(rounds):
        if before is not None:
            before()
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def time_covert(items: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    """Rates (prepared, one-off warm and cold) and verdicts; the three ways must give the same verdicts."""
    by_entry: dict[tuple[str, str], Any] = {}  # prepared: one reference per entry (a parallel entry is checked twice)
    for c in items:
        if (c["category"], c["id"]) not in by_entry:
            by_entry[c["category"], c["id"]] = compile_bfcl(c["functions"], c["answer"], c["category"])
    compiled = [by_entry[c["category"], c["id"]] for c in items]
    verdicts = [ref.score(c["calls"]).value == 1.0 for ref, c in zip(compiled, items)]
    fast = [ref.accepts(c["calls"]) for ref, c in zip(compiled, items)]
    one_off = [match_bfcl(c["functions"], c["calls"], c["answer"], c["category"]).value == 1.0 for c in items]
    inconsistent = [c["id"] for c, a, b, d in zip(items, verdicts, fast, one_off) if not a == b == d]
    pairs = [(ref.accepts, c["calls"]) for ref, c in zip(compiled, items)]
    args = [(c["functions"], c["calls"], c["answer"], c["category"]) for c in items]

    def prepared() -> None:
        for accepts, calls in pairs:
            accepts(calls)

    def oneoff() -> None:
        for functions, calls, answer, category in args:
            match_bfcl(functions, calls, answer, category)

    rate = len(items) / _best(prepared, rounds)
    warm = len(items) / _best(oneoff, rounds)
    cold = len(items) / _best(oneoff, rounds, before=_clear_caches)
    return {"prepared": rate, "warm": warm, "cold": cold, "verdicts": verdicts, "inconsistent": inconsistent}


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


def _bar(ratio: float, bar: float | None) -> str:
    if bar is None:
        return ""
    return f"   (bar >= {bar:g}x: {'PASS' if ratio >= bar else 'FAIL'})"


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
    for group, label in GROUPS.items():
        items = cases[group]
        barred = not group.endswith("_wrong")
        covert = time_covert(items, args.rounds)
        names = ", ".join(SINGLE if group.startswith("single") else PARALLEL)
        print(f"{label}: {len(items)} checks ({names}){'' if barred else ', for information (no bar)'}")
        if covert["inconsistent"]:
            ok = False
            print(f"  FAIL: covert's one-off, prepared and explained verdicts differ on {covert['inconsistent'][:10]}")
        if isinstance(bfcl, str):
            print(f"  BFCL                 unavailable: {bfcl}")
            for way, text in WAYS:
                print(f"  covert {text} {covert[way]:>12,.0f} checks/s")
            ok = False
            continue
        theirs = bfcl[group]
        base = theirs["rate"]
        print(f"  BFCL ast_checker     {base:>12,.0f} checks/s")
        for (way, text), bar in zip(WAYS, (BFCL_BAR, ONE_OFF_BAR, ONE_OFF_BAR)):
            ratio = covert[way] / base
            ok &= ratio >= bar or not barred
            print(f"  covert {text} {covert[way]:>12,.0f} checks/s {ratio:>7.2f}x{_bar(ratio, bar if barred else None)}")
        explained, unexplained = [], []
        for c, ours, verdict, ordered in zip(items, covert["verdicts"], theirs["verdicts"], theirs["ordered"]):
            if ours == verdict:
                continue
            # the one allowed difference: BFCL's greedy pairing rejects calls it accepts in covert's pairing
            (explained if ours and not verdict and ordered else unexplained).append(c)
        agree = len(items) - len(explained) - len(unexplained)
        print(f"  verdicts    {agree}/{len(items)} agree; covert accepts {sum(covert['verdicts'])},"
              f" BFCL {sum(theirs['verdicts'])}")
        if explained:
            print(f"              {len(explained)} differ only by BFCL's greedy pairing (BFCL accepts the same calls"
                  f" in covert's pairing order): {', '.join(c['id'] for c in explained)}")
        if unexplained:
            ok = False
            print(f"  FAIL: {len(unexplained)} verdicts differ from BFCL's:")
            for c in unexplained[:20]:
                print(f"    {c['id']} ({c['category']}): {json.dumps(c['calls'])[:300]}")
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
    print("\n== Adversarial completions: the slowest score() (max, not median) ==")
    tail_ok = reward_tail_bench.report(reward_tail_bench.rows_with_most_calls_of(rows, 30))
    return passed and tail_ok


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
