"""Scoring imported rows against hand-written rows: rows/s of ``Scorer.score`` on each row's oracle completion
and three corruptions of it, one core, in one run.

    python benchmarks/score_bench.py                          # 40 imported environments x 20 tasks vs 800 hand-written
    python benchmarks/score_bench.py --environments 10 --tasks-per-env 10 --rounds 5
    python benchmarks/score_bench.py --profile /tmp/score.prof   # also cProfile one pass over the imported rows

The imported environments are a seeded sample of the store's admitted ones (``--store``, default
``$COVERT_ENVS``); the hand-written rows are as many tasks of ``--builders`` (default all). Each row is scored
four times, each time by a fresh :class:`~covert.rewards.Scorer` (one-off scoring: every row prepared again):
its oracle completion, the oracle without its last tool call, the oracle with the first call's first argument
changed, and the oracle with its final answer replaced. A rate is rows per second (four completions each),
best of ``--rounds`` passes. Bar (issue 35): imported >= 0.6x hand-written.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

BAR_RATIO = 0.6


def corruptions(oracle: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Three wrong completions made from an oracle completion (assistant and tool messages)."""
    calls = [i for i, m in enumerate(oracle) if m.get("role") == "assistant" and m.get("tool_calls")]
    short = copy.deepcopy(oracle)
    if calls:  # the last tool-call turn and its tool messages left out
        last = calls[-1]
        short = [m for i, m in enumerate(short) if i < last or (i > last and m.get("role") == "assistant")]
    changed = copy.deepcopy(oracle)
    if calls:
        function = changed[calls[0]]["tool_calls"][0]["function"]
        arguments = function["arguments"]
        decoded = dict(arguments) if isinstance(arguments, dict) else orjson.loads(arguments)
        for key in sorted(decoded)[:1]:
            decoded[key] = "a value nobody asked for" if not isinstance(decoded[key], str) else decoded[key] + " (changed)"
        function["arguments"] = decoded if isinstance(arguments, dict) else orjson.dumps(decoded).decode()
    answered = copy.deepcopy(oracle)
    if answered and answered[-1].get("role") == "assistant" and not answered[-1].get("tool_calls"):
        answered[-1] = {**answered[-1], "content": "Done. Everything went through as you asked."}
    return [short, changed, answered]


def completions_of(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[Any]]]:
    from covert.rewards import Scorer, oracle_completion

    scorer = Scorer()
    out = []
    for row in rows:
        oracle = oracle_completion(row, scorer)
        out.append((row, [oracle, *corruptions(oracle)]))
    return out


def time_scoring(work: list[tuple[dict[str, Any], list[Any]]], rounds: int) -> float:
    """Rows per second (all four completions of each scored by a fresh Scorer), best of ``rounds`` passes."""
    from covert.rewards import Scorer

    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for row, completions in work:
            scorer = Scorer()
            for completion in completions:
                scorer.score(row, completion)
        best = min(best, time.process_time() - start)
    return len(work) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--environments", type=int, default=40)
    parser.add_argument("--tasks-per-env", type=int, default=20)
    parser.add_argument("--builders", default="all", help="the hand-written builders")
    parser.add_argument("--store", default=None, help="the environment store (default $COVERT_ENVS)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0, help="seed of the environment sample and of the builds")
    parser.add_argument("--profile", default=None, help="write a cProfile of one pass over the imported rows here")
    args = parser.parse_args()
    from covert.build import BuildConfig, build
    from covert.imports.envs import admitted_names, store_dir
    from covert.io.reader import iter_rows

    root = store_dir(args.store)
    os.environ["COVERT_ENVS"] = str(root)
    names = list(admitted_names(str(root)))
    if not names:
        sys.exit(f"{root} admits no environments; run `covert import ...` and `covert envs verify` first")
    sample = sorted(random.Random(args.seed).sample(names, min(args.environments, len(names))))
    tasks = len(sample) * args.tasks_per_env
    with tempfile.TemporaryDirectory() as tmp:
        build(BuildConfig(builders=sample, num_tasks=tasks, seed=args.seed), Path(tmp) / "imported", progress=False)
        build(BuildConfig(builders=[args.builders], num_tasks=tasks, seed=args.seed), Path(tmp) / "hand", progress=False)
        imported = completions_of(list(iter_rows(Path(tmp) / "imported", "rl")))
        hand = completions_of(list(iter_rows(Path(tmp) / "hand", "rl")))
    print(f"scoring: {len(imported)} rows on {len(sample)} imported environments, {len(hand)} hand-written rows "
          f"({args.builders}); oracle + 3 corruptions per row, a fresh Scorer per row; best of {args.rounds}, "
          f"load {os.getloadavg()[0]:.2f}")
    # hand-written, imported, hand-written again (best kept): both see the machine of one stretch of time
    rates = {"hand-written": time_scoring(hand, args.rounds), "imported": time_scoring(imported, args.rounds)}
    rates["hand-written"] = max(rates["hand-written"], time_scoring(hand, args.rounds))
    for label, rate in rates.items():
        print(f"  {label:<13} {rate:9.1f} rows/s per core")
    ratio = rates["imported"] / rates["hand-written"]
    print(f"ratio imported / hand-written: {ratio:.3f} (bar >= {BAR_RATIO}: {'PASS' if ratio >= BAR_RATIO else 'FAIL'})")
    if args.profile:
        import cProfile

        cProfile.runctx("time_scoring(imported, 1)", globals(), {"imported": imported, "time_scoring": time_scoring},
                        args.profile)
        print(f"profile of one pass over the imported rows: {args.profile}")


if __name__ == "__main__":
    main()
