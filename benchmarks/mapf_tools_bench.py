"""MAPF-FrozenLake benchmark grid in its text form and its tool form, in one run: instances/s of each writer
(``covert mapf-benchmark`` and ``--form tools``), validation rows/s of each, and the oracle calls per tool row
(largest, against the bound a row may hold).

    PYTHONPATH=. python benchmarks/mapf_tools_bench.py --per-cell 10
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    """Write and validate the grid in both forms and print the figures."""
    from covert.io.reader import iter_rows
    from covert.procgen.mapf_benchmark import write_benchmark
    from covert.procgen.mapf_tools import TOOL_FORM
    from covert.procgen.tool_rows import RL_TOOLS_CONFIG
    from covert.validation.dataset import validate_dataset

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-cell", type=int, default=10, help="instances per (agents, size) cell (150: the full grid)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--forms", default="text,tools", help="comma-separated: text, tools")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        figures = {}
        for form in args.forms.split(","):
            out = Path(tmp) / form
            start = time.perf_counter()
            manifest = write_benchmark(out, seed=args.seed, per_cell=args.per_cell, workers=args.workers, form=form)
            written = time.perf_counter() - start
            start = time.perf_counter()
            report = validate_dataset(out)
            checked = time.perf_counter() - start
            n = manifest["summary"]["accepted"]
            figures[form] = (n, n / written, sum(report.rows.values()) / checked, report.ok)
            print(f"{form:<6} {n} instances  write {n / written:8.1f} instances/s  validate "
                  f"{sum(report.rows.values()) / checked:8.1f} rows/s  valid {report.ok}")
        if "tools" in figures:
            calls = sorted(row["num_calls"] for row in iter_rows(Path(tmp) / "tools", RL_TOOLS_CONFIG))
            print(f"tool rows: oracle calls median {calls[len(calls) // 2]}, max {calls[-1]} "
                  f"(bound {TOOL_FORM.max_calls})")
        if {"text", "tools"} <= set(figures):
            print(f"tools/text write-speed ratio {figures['tools'][1] / figures['text'][1]:.2f}")


if __name__ == "__main__":
    main()
