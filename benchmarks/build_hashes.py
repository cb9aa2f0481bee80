"""Same bytes? The sha256 of every file a default build writes, for this tree and (optionally) a ref.

    python benchmarks/build_hashes.py                                  # seeds 11 and 21, 3,000 tasks
    python benchmarks/build_hashes.py --baseline HEAD                  # this tree against the last commit
    python benchmarks/build_hashes.py --seeds 3 --num-tasks 500 --baseline main

A pure-speed change must print ``same bytes`` against the commit before it. Each build runs
``covert.build.build`` in a fresh subprocess with one worker (the API, so no output path is recorded
in the manifest and the two trees' files are comparable); ``--baseline REF`` exports the committed tree
``REF`` with ``git archive``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from build_bench import export_tree


def build_hashes(tree: Path, seed: int, num_tasks: int, out: Path) -> dict[str, str]:
    """sha256 of every file (by path relative to the dataset) of one build of ``tree``."""
    code = ("import sys; from covert.build import BuildConfig, build;"
            f"build(BuildConfig(builders=['all'], num_tasks={num_tasks}, seed={seed}), {str(out)!r}, "
            "workers=1, overwrite=True, progress=False)")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True, capture_output=True)
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="11,21")
    parser.add_argument("--num-tasks", type=int, default=3000)
    parser.add_argument("--baseline", help="a git ref whose build to compare with")
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]
    different = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = export_tree(args.baseline, Path(tmp) / "baseline") if args.baseline else None
        for seed in (int(s) for s in args.seeds.split(",")):
            mine = build_hashes(repo, seed, args.num_tasks, Path(tmp) / f"new-{seed}")
            theirs = build_hashes(base, seed, args.num_tasks, Path(tmp) / f"base-{seed}") if base else {}
            for name, digest in mine.items():
                other = theirs.get(name)
                mark = "" if base is None else ("  same" if other == digest else "  DIFFERENT")
                different += base is not None and other != digest
                print(f"seed {seed}  {digest}  {name}{mark}")
            for name in sorted(set(theirs) - set(mine)):
                different += 1
                print(f"seed {seed}  {'-' * 64}  {name}  only in {args.baseline}")
    if base is not None:
        print("same bytes" if not different else f"{different} files differ from {args.baseline}")


if __name__ == "__main__":
    main()
