"""Same bytes? The sha256 of every file a build (and, with ``--kinds``, an augment, a procgen run and a
multi-turn build) writes, for this tree and (optionally) a ref.

    python benchmarks/build_hashes.py                                  # seeds 11 and 21, 3,000 tasks
    python benchmarks/build_hashes.py --baseline HEAD                  # this tree against the last commit
    python benchmarks/build_hashes.py --seeds 3 --num-tasks 500 --baseline main
    python benchmarks/build_hashes.py --kinds build,augment,procgen,multi-turn --baseline 7e9ada9
    python benchmarks/build_hashes.py --imported 40 --num-tasks 800 --baseline main   # imported environments

A pure-speed change (or a pure move of modules) must print ``same bytes`` against the commit before it.
Each kind runs in a fresh subprocess with one worker. ``build`` calls ``covert.build.build`` (the API, so
no output path is recorded in the manifest and the two trees' files are comparable); the other kinds run
the CLI (``python -m covert.cli``), always into the same output path, so both trees record the same
path. ``augment`` augments a ``--small-tasks`` build of the same tree; ``procgen`` samples every
procedural environment; ``multi-turn`` is ``covert build --multi-turn``. ``--baseline REF`` exports the
committed tree ``REF`` with ``git archive``. ``--imported N`` builds on a seeded sample of ``N`` admitted
imported environments of ``$COVERT_ENVS`` (the sample ``build_bench.py --imported N`` takes) instead of the
hand-written builders; run it twice to compare builds that find the store's kept files (cut-down specs,
seeded states) with those that made them.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from build_bench import export_tree, imported_sample


def build_hashes(tree: Path, seed: int, num_tasks: int, out: Path, builders: tuple[str, ...] = ("all",)) -> dict[str, str]:
    """sha256 of every file (by path relative to the dataset) of one build of ``tree`` on ``builders``."""
    code = ("import sys; from covert.build import BuildConfig, build;"
            f"build(BuildConfig(builders={list(builders)!r}, num_tasks={num_tasks}, seed={seed}), {str(out)!r}, "
            "workers=1, overwrite=True, progress=False)")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True, capture_output=True)
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


KINDS = ("build", "augment", "procgen", "multi-turn")


def cli(tree: Path, *argv: str) -> None:
    """``python -m covert.cli ARGV`` of the code in ``tree``, with one worker, quiet."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-m", "covert.cli", *argv, "--workers", "1", "--overwrite", "--quiet"],
                   cwd=tree, env=env, check=True, capture_output=True)


def kind_hashes(kind: str, tree: Path, seed: int, num_tasks: int, small: int, work: Path,
                builders: tuple[str, ...] = ("all",)) -> dict[str, str]:
    """sha256 of every file one ``kind`` run of ``tree`` writes (into ``work/out``, the same path for every
    tree, so a path recorded in a manifest compares equal); a ``build`` is on ``builders``."""
    out = work / "out"
    if kind == "build":
        return build_hashes(tree, seed, num_tasks, out, builders)
    if kind == "augment":
        src = work / "src"
        cli(tree, "build", "--builders", "all", "--num-tasks", str(small), "--seed", str(seed), "--out", str(src))
        cli(tree, "augment", str(src), "--out", str(out), "--seed", str(seed))
    elif kind == "procgen":
        cli(tree, "procgen", "--envs", "all", "--num-tasks", str(small), "--seed", str(seed), "--out", str(out))
    elif kind == "multi-turn":
        cli(tree, "build", "--builders", "all", "--num-tasks", str(small), "--seed", str(seed), "--multi-turn",
            "--out", str(out))
    else:
        raise SystemExit(f"unknown kind {kind!r}: choose from {', '.join(KINDS)}")
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="11,21")
    parser.add_argument("--num-tasks", type=int, default=3000)
    parser.add_argument("--baseline", help="a git ref whose build to compare with")
    parser.add_argument("--kinds", default="build", help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--small-tasks", type=int, default=300,
                        help="tasks of the augment source, procgen and multi-turn runs")
    parser.add_argument("--imported", type=int, default=0,
                        help="build on a seeded sample of this many admitted imported environments ($COVERT_ENVS)")
    parser.add_argument("--sample-seed", type=int, default=0, help="with --imported: the sample's seed")
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]
    builders = imported_sample(args.imported, args.sample_seed) if args.imported else ("all",)
    if args.imported and args.kinds != "build":
        raise SystemExit("--imported compares builds only (--kinds build)")
    different = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = export_tree(args.baseline, Path(tmp) / "baseline") if args.baseline else None
        for kind in args.kinds.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                work = Path(tmp) / f"{kind}-{seed}"
                mine = kind_hashes(kind, repo, seed, args.num_tasks, args.small_tasks, work, builders)
                theirs = kind_hashes(kind, base, seed, args.num_tasks, args.small_tasks, work, builders) if base else {}
                for name, digest in mine.items():
                    other = theirs.get(name)
                    mark = "" if base is None else ("  same" if other == digest else "  DIFFERENT")
                    different += base is not None and other != digest
                    print(f"{kind} seed {seed}  {digest}  {name}{mark}")
                for name in sorted(set(theirs) - set(mine)):
                    different += 1
                    print(f"{kind} seed {seed}  {'-' * 64}  {name}  only in {args.baseline}")
    if base is not None:
        print("same bytes" if not different else f"{different} files differ from {args.baseline}")


if __name__ == "__main__":
    main()
