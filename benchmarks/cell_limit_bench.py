"""Peak memory of `covert validate` and `covert score` on a hostile shard: one 206 MB JSON cell in a
shard of under 1 MB (issue 32: 2.2 GB and 1.7 GB), beside the same commands on the dataset it was made
from. The cell limit is 16 MiB (covert.io.reader.MAX_CELL_BYTES); beyond it both exit 2 in one line.

Run: ``python benchmarks/cell_limit_bench.py [--cell-mb 206]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from covert.build import BuildConfig, build
from covert.io.reader import iter_rows

REPO = Path(__file__).resolve().parents[1]


def _peak(*args: str) -> tuple[int, float]:
    """Exit status and peak RSS (MB) of one covert command in a fresh process."""
    code = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]);"
            "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "covert.cli", *args], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
    status, kb = out.stdout.split()[-2:]
    return int(status), int(kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cell-mb", type=int, default=206)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "tests" / "io"))
    from test_cell_limit import hostile

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "ds"
        build(BuildConfig(builders=["retail"], num_tasks=20, seed=3), base, progress=False)
        bad = hostile(base, Path(tmp) / "bad", args.cell_mb * 2**20)
        predictions = Path(tmp) / "p.jsonl"
        predictions.write_text(json.dumps({"task_id": next(iter_rows(base, "rl"))["task_id"], "completion": "hi"}))
        worst = 0.0
        for name, root in (("clean", base), (f"{args.cell_mb} MB cell", bad)):
            for command in (("validate", str(root)), ("score", "--dataset", str(root), "--predictions", str(predictions),
                                                       "--quiet")):
                status, mb = _peak(*command)
                if root == bad:
                    worst = max(worst, mb)
                print(f"{name:>12}  covert {command[0]:<8}  exit {status}  peak RSS {mb:7.0f} MB")
        print(f"worst peak on the hostile shard: {worst:.0f} MB")


if __name__ == "__main__":
    main()
