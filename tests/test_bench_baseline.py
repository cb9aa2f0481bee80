"""`benchmarks/build_bench.py --baseline COMMIT`: a commit checked out with `git worktree add` and removed again,
the issue-35 build run through the CLI of a given tree with its CPU time, and the Parquet floor of its rows."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks" / "build_bench.py"


def _bench():
    spec = importlib.util.spec_from_file_location("build_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _worktrees() -> str:
    return subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout


def test_a_commit_is_checked_out_and_removed_again(tmp_path):
    bench = _bench()
    before = _worktrees()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    with bench.checked_out("HEAD", tmp_path / "tree") as tree:
        assert (tree / "covert" / "__init__.py").is_file()
        assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True,
                              check=True).stdout.strip() == head
    assert not (tmp_path / "tree").exists()
    assert _worktrees() == before


def test_a_cli_build_of_a_tree_and_its_parquet_floor(tmp_path):
    bench = _bench()
    out = tmp_path / "built"
    wall, cpu = bench.cli_build_result(bench.start_cli_build(40, 3, "all", out, REPO))
    assert wall > 0 and cpu > 0
    floor = bench.parquet_floor(out, tmp_path / "floor")
    assert floor > 0
    written = sorted((tmp_path / "floor").glob("*.parquet"))
    built = sorted(out.rglob("*.parquet"))
    assert len(written) == len(built)
    for again, original in zip(written, built, strict=True):  # the same rows (JSON columns as data), written again
        table = pq.read_table(original)
        kinds = [(field.name, field.type) for field in table.schema]
        want = [{name: bench._from_json(row[name], kind, {}) for name, kind in kinds} for row in table.to_pylist()]
        got = [{name: bench._from_json(row[name], kind, {}) for name, kind in kinds}
               for row in pq.read_table(again).to_pylist()]
        assert got == want and len(got) > 0


def test_a_failing_build_says_why(tmp_path):
    bench = _bench()
    process = bench.start_cli_build(10, 3, "no_such_builder", tmp_path / "x", REPO)
    try:
        bench.cli_build_result(process)
    except subprocess.CalledProcessError as exc:
        assert "no_such_builder" in exc.stderr
    else:
        raise AssertionError("a build of an unknown builder should fail")
