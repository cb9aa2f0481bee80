"""``covert.rewards.match_bfcl`` called one-off against BFCL's own ``ast_checker``, in the same run.

The checks: every entry of BFCL's AST categories (read from the bfcl-eval wheel, see
:mod:`covert.rewards.bfcl_data`) with its reference answer and the catalogue of mutations of
``tests/rewards/bfcl_catalogue.py`` (wrong function, extra, missing and dropped parameters, numbers as
strings, case and punctuation variants, reordered parallel calls, ...). Each check is one call with
everything a user's call pays: ``match_bfcl(functions, calls, possible_answer, category)`` for covert,
``ast_checker(functions, calls, possible_answer, Language.PYTHON, category, model)`` for BFCL. Passes
alternate (BFCL, covert warm, covert cold, BFCL, ...) and each rate is the best of ``--rounds`` passes.
covert is timed warm (its caches as the previous pass left them) and cold (emptied before each pass).
Bar: covert one-off >= 1x BFCL's checks/s, warm and cold.

Verdicts must agree with BFCL's on every check; the one allowed difference is a correct parallel answer
that BFCL's greedy pairing rejects (covert pairs optimally), and only when BFCL accepts the same calls
put in the order covert paired them. Any other disagreement is printed and fails the run (exit 1).

BFCL's checker is imported in this process. ``pip install bfcl-eval --no-deps`` is enough: when the
full import fails (``bfcl_eval.constants.model_config`` imports every model handler and their SDKs),
the checker is imported with that one table cut to the model used here, whose only field the checker
reads, ``underscore_to_dot``, is ``False`` in BFCL's own table; every checking function is BFCL's.

Run: ``python benchmarks/bfcl_match_bench.py [--rounds R] [--categories a,b] [--profile N]``.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reward_bench import _clear_caches as clear_caches  # noqa: E402 - every cache covert keeps across calls
from reward_bench import _paired_order as paired_order  # noqa: E402

from covert.rewards import match_bfcl  # noqa: E402
from covert.rewards.bfcl_data import BfclUnavailable, load_bfcl  # noqa: E402
from tests.rewards.bfcl_catalogue import catalogue  # noqa: E402

MODEL = "gorilla-openfunctions-v2"  # a BFCL model config that keeps dotted function names as they are
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
              "live_parallel", "live_parallel_multiple")
BAR = 1.0


def bfcl_checker() -> tuple[Any, Any, str]:
    """BFCL's ``ast_checker``, its ``Language`` enum, and how it was imported."""
    try:
        from bfcl_eval.constants.enums import Language
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

        return ast_checker, Language, "bfcl_eval, full import"
    except ImportError:
        pass
    for name in [m for m in sys.modules if m.startswith("bfcl_eval")]:
        del sys.modules[name]  # a half-imported package: start again with the model table cut
    table = types.ModuleType("bfcl_eval.constants.model_config")
    table.MODEL_CONFIG_MAPPING = {MODEL: types.SimpleNamespace(model_name=MODEL, underscore_to_dot=False)}
    sys.modules[table.__name__] = table
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    return ast_checker, Language, f"bfcl_eval's checker, its model table cut to {MODEL} (the SDKs are not installed)"


def checks(data: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]) -> list[dict[str, Any]]:
    """Every (entry, reference or mutation) as one check."""
    out = []
    for category, entries in data.items():
        for question, answer in entries:
            try:
                cases = catalogue(question["function"], answer, category)
            except (ValueError, KeyError):
                continue  # no acceptable value for a required parameter: no answer passes (BFCL's or covert's)
            for kind, calls, _ in cases:
                out.append({"id": question["id"], "kind": kind, "category": category,
                            "functions": question["function"], "calls": calls, "answer": answer["ground_truth"]})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed passes of each side (best is reported)")
    parser.add_argument("--categories", default=",".join(CATEGORIES), help="BFCL AST categories to check")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="also print the N costliest functions of one cold covert pass (cProfile)")
    args = parser.parse_args()
    try:
        ast_checker, language, how = bfcl_checker()
    except ImportError as exc:
        print(f"BFCL's checker cannot be imported ({exc}); pip install bfcl-eval --no-deps")
        return 1
    try:
        data = load_bfcl(tuple(args.categories.split(",")))
    except BfclUnavailable as exc:
        print(f"BFCL data unavailable: {exc}")
        return 1
    items = checks(data)
    python = language.PYTHON
    groups = {"one call": [c for c in items if len(c["calls"]) == 1],
              "several calls": [c for c in items if len(c["calls"]) != 1]}
    groups = {name: group for name, group in groups.items() if group}  # --categories may leave one empty
    order = [c for group in groups.values() for c in group]

    def run(side: str, group: list[dict[str, Any]]) -> list[bool]:
        if side == "bfcl":
            return [ast_checker(c["functions"], c["calls"], c["answer"], python, c["category"], MODEL)["valid"]
                    for c in group]
        return [match_bfcl(c["functions"], c["calls"], c["answer"], c["category"]).value == 1.0 for c in group]

    print(f"python {platform.python_version()}, {platform.machine()}; {how}")
    print(f"{len(items)} checks over {sum(len(v) for v in data.values())} entries of {', '.join(data)}")
    sides = ("bfcl", "warm", "cold")
    best = {(side, name): float("inf") for side in sides for name in groups}
    verdicts: dict[tuple[str, str], list[bool]] = {}
    for _ in range(args.rounds):
        for side in sides:
            for name, group in groups.items():
                if side == "cold":
                    clear_caches()
                start = time.perf_counter()
                verdicts[side, name] = run(side, group)
                best[side, name] = min(best[side, name], time.perf_counter() - start)
    theirs = [v for name in groups for v in verdicts["bfcl", name]]
    ours = [v for name in groups for v in verdicts["warm", name]]
    ok = True
    for name, group in [*groups.items(), ("all", order)]:
        names = list(groups) if name == "all" else [name]
        rate = {side: len(group) / sum(best[side, n] for n in names) for side in sides}
        print(f"{name}: {len(group)} checks")
        print(f"  BFCL ast_checker                   {rate['bfcl']:>10,.0f} checks/s")
        for side, label in (("warm", "one-off, warm"), ("cold", "one-off, cold")):
            ratio = rate[side] / rate["bfcl"]
            barred = name == "all"
            ok &= ratio >= BAR or not barred
            verdict = f"   (bar >= {BAR:g}x: {'PASS' if ratio >= BAR else 'FAIL'})" if barred else ""
            print(f"  covert match_bfcl {label}     {rate[side]:>10,.0f} checks/s   {ratio:.2f}x BFCL{verdict}")
    items = order
    allowed, wrong = 0, []
    for case, mine, bfcl in zip(items, ours, theirs):
        if mine == bfcl:
            continue
        order = paired_order(case) if mine and len(case["answer"]) > 1 else None
        if order is not None and ast_checker(case["functions"], order, case["answer"], python, case["category"],
                                             MODEL)["valid"]:
            allowed += 1
        else:
            wrong.append((case["id"], case["kind"], mine, bfcl))
    print(f"verdicts: {len(items) - allowed - len(wrong)} of {len(items)} agree with BFCL; {allowed} correct "
          f"parallel answers BFCL's greedy pairing rejects; {len(wrong)} other disagreements")
    for case_id, kind, mine, bfcl in wrong[:20]:
        print(f"  DISAGREE {case_id} {kind}: covert {mine}, BFCL {bfcl}")
    if args.profile:
        clear_caches()
        profile = cProfile.Profile()
        profile.enable()
        for group in groups.values():
            run("cold", group)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)
    return 0 if ok and not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
