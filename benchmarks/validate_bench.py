"""`covert validate` (L1 format, L2 replay twice, L3) rows/s per core, on this tree and fixed commits, in one run.

    python benchmarks/validate_bench.py --baseline a4f85a7                 # 3,000 tasks (6,000 rows: sft + rl)
    python benchmarks/validate_bench.py --baseline 8fa3513 --baseline a4f85a7 --num-tasks 1000 --repeats 5

Each tree (this working tree, and each ``--baseline`` commit checked out with ``git worktree add``) first
builds its own dataset (``covert build --builders all --num-tasks N --seed S --workers 1``: a commit
validates the rows of its own builders), then the rounds run ``covert validate DIR`` once per tree,
the order rotating between rounds. Printed: rows per CPU-second (all threads, the whole command: imports,
the dataset's files, every row) best and median, and per baseline the ratio of rates. Bar (issue 35):
>= 1,000 rows/s per core.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from build_bench import checked_out, cli_build_result, start_cli_build

BAR_ROWS_PER_CORE = 1000


def start_validate(dataset: Path, tree: Path) -> subprocess.Popen:
    """``covert validate DIR`` of the code in ``tree``, as a subprocess (read with ``cli_build_result``)."""
    code = f"import sys; from covert.cli import main; sys.exit(main(['validate', {str(dataset)!r}]))"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed by cli_build_result)
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=errors, cwd=tree,
                               env=env)
    process.errors = errors  # type: ignore[attr-defined]
    return process


def rows_of(dataset: Path) -> int:
    """Rows the dataset's manifest counts, over every config and split."""
    return sum(json.loads((dataset / "manifest.json").read_text())["rows"].values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", action="append", default=[], help="a commit to measure against (repeatable)")
    parser.add_argument("--num-tasks", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="rounds (the best and the median are printed)")
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]
    print(f"covert validate benchmark: this tree against {', '.join(args.baseline) or 'nothing'}; datasets of "
          f"{args.num_tasks} tasks (seed {args.seed}), {args.repeats} rounds, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        trees = [("this tree", repo)] + [
            (ref, stack.enter_context(checked_out(ref, Path(tmp) / f"tree-{k}"))) for k, ref in enumerate(args.baseline)]
        datasets = {}
        for k, (label, tree) in enumerate(trees):
            datasets[label] = Path(tmp) / f"data-{k}"
            cli_build_result(start_cli_build(args.num_tasks, args.seed, "all", datasets[label], tree))
        cpu: dict[str, list[float]] = {label: [] for label, _ in trees}
        for round_ in range(args.repeats):
            order = trees[round_ % len(trees):] + trees[:round_ % len(trees)]
            for label, tree in order:
                cpu[label].append(cli_build_result(start_validate(datasets[label], tree))[1])
                print(f"  round {round_ + 1}: {label:<10} {rows_of(datasets[label]) / cpu[label][-1]:8.1f} rows/s/core",
                      flush=True)
        rows = {label: rows_of(path) for label, path in datasets.items()}
    result: dict = {"tasks": args.num_tasks, "trees": {}, "against": {}}
    print(f"\n  {'tree':<10} {'rows':>6} {'best rows/s/core':>17} {'median':>8}")
    for label, _ in trees:
        best, median = rows[label] / min(cpu[label]), rows[label] / statistics.median(cpu[label])
        result["trees"][label] = {"rows": rows[label], "rows_per_s_per_core": round(best, 1), "median": round(median, 1)}
        print(f"  {label:<10} {rows[label]:>6} {best:>17.1f} {median:>8.1f}")
    mine = result["trees"]["this tree"]
    for ref in args.baseline:
        paired = sorted((rows["this tree"] / n) / (rows[ref] / b) for n, b in zip(cpu["this tree"], cpu[ref], strict=True))
        best = mine["rows_per_s_per_core"] / result["trees"][ref]["rows_per_s_per_core"]
        result["against"][ref] = {"best": round(best, 3), "median": round(statistics.median(paired), 3)}
        print(f"  this tree / {ref}: {best:.3f} (best against best), median of the rounds' ratios "
              f"{statistics.median(paired):.3f} (range {paired[0]:.3f}-{paired[-1]:.3f})")
    rate = mine["rows_per_s_per_core"]
    print(f"bar: >= {BAR_ROWS_PER_CORE} rows/s per core: {rate} {'PASS' if rate >= BAR_ROWS_PER_CORE else 'FAIL'}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
