"""Throughput of the augmentation kinds: augmented rows per second on one core, for each kind.

Builds a small base dataset (all builders) in a temporary directory, or reads ``--src``, loads its row
pairs into memory, then for each kind times ``augment_pair`` over every pair (repeated until at least
``--seconds`` have passed). Rows a kind does not apply to are counted apart (they cost a little too and
are included in the time). A second figure adds the preservation proof (``validate_augmented_pair``:
schema, two replays, L3, the kind's proof) that ``covert augment`` runs on every row it writes.

Run: ``python benchmarks/augment_bench.py [--src DIR] [--tasks N] [--seconds S]``. Single process, so
every figure is per core; times are CPU seconds of this process (``time.process_time``), so other
work on the machine does not count against it. The bar from the issue: >= 5000 augmented rows/s per core for each kind that
needs no LLM (all of them, by default).
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from covert.augment.registry import NotApplicable, RowPair, kind_names
from covert.augment.rows import augment_pair
from covert.augment.verify import validate_augmented_pair
from covert.build import BuildConfig, build
from covert.io.reader import iter_rows

BAR = 5000.0


def load_pairs(root: Path) -> list[RowPair]:
    rl = {r["task_id"]: r for r in iter_rows(root, "rl")}
    return [RowPair(s, rl[s["task_id"]]) for s in iter_rows(root, "sft")]


def time_kind(pairs: list[RowPair], kind: str, seconds: float, verify: bool) -> tuple[float, int, int]:
    """(augmented rows/s, rows made per pass, rows skipped per pass); one untimed warm-up pass first."""
    for pair in pairs:
        with contextlib.suppress(NotApplicable):
            augment_pair(pair, kind, 0, "medium")
    made = skipped = passes = 0
    start = time.process_time()
    while True:
        made = skipped = 0
        for pair in pairs:
            try:
                out = augment_pair(pair, kind, 0, "medium")
            except NotApplicable:
                skipped += 1
                continue
            if verify:
                validate_augmented_pair(out.sft, out.rl)
            made += 1
        passes += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return made * passes / elapsed, made, skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", help="an existing dataset directory (default: build one)")
    parser.add_argument("--tasks", type=int, default=400, help="tasks to build when --src is not given")
    parser.add_argument("--seconds", type=float, default=2.0, help="minimum timed seconds per figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.src) if args.src else Path(tmp) / "base"
        if not args.src:
            build(BuildConfig(builders=["all"], num_tasks=args.tasks, seed=0), root, progress=False)
        pairs = load_pairs(root)
    print(f"python {platform.python_version()} on {platform.machine()}; {len(pairs)} base row pairs; one core")
    print(f"{'kind':<14} {'rows/pass':>9} {'n/a':>5} {'augment rows/s':>15} {'+ proof rows/s':>15}  bar {BAR:.0f}/s")
    for kind in kind_names():
        rate, made, skipped = time_kind(pairs, kind, args.seconds, verify=False)
        proved, _, _ = time_kind(pairs, kind, args.seconds, verify=True)
        verdict = "ok" if rate >= BAR else "BELOW"
        print(f"{kind:<14} {made:>9} {skipped:>5} {rate:>15,.0f} {proved:>15,.0f}  {verdict}")


if __name__ == "__main__":
    main()
