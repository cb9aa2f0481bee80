"""Killed runs leave nothing behind: kill -9 of ``covert build`` and ``covert augment`` over an existing
dataset, the leftovers of dead runs, the non-atomic publish, and workers that outlive their parent.

``COVERT_KILL_RUNS`` sets the kills per command (default 3; the issue's long profile is 10). Kill
moments are drawn from a seeded generator, spread over the length of a whole run of the same command.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from covert.build import BuildConfig, build
from covert.cli import main
from covert.io.staging import OWNER_FILE, leftover_of, prepare_output, publish, restore, sweep

KILLS = int(os.environ.get("COVERT_KILL_RUNS", "3"))
REPO = Path(__file__).resolve().parents[1]
GONE_WITHIN_S = 10.0  # how long workers may take to notice (they notice in milliseconds: see the figures)


def tree(root: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under ``root``."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def hidden_next_to(path: Path) -> list[str]:
    """Entries next to ``path`` that covert would leave while writing it."""
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(f".{path.name}.")
                  or p.name.startswith(f"..{path.name}."))


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry))
    return members


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "covert.cli", *args], capture_output=True, text=True, timeout=300,
                          env=_env(), check=False)


@dataclass
class Kill:
    """What one kill -9 left."""

    after_s: float
    out: str  # "old" (the existing dataset, intact) or "new" (replaced whole)
    leftovers: int  # hidden staging entries next to --out right after the kill
    members: int  # processes of the killed run's group alive right after the kill
    gone_s: float  # until none was alive
    cleaned: bool  # the next run removed the leftovers (and said so)


def kill_trials(argv: list[str], out: Path, kills: int, seed: int) -> list[Kill]:
    """Run ``covert ARGV`` (which replaces ``out``) to completion once, then ``kills`` times: start it,
    kill -9 it at a seeded random moment, check ``out`` and the run's processes, run it again to
    completion and check that nothing is left; ``out`` is put back to its old content between trials."""
    old = tree(out)
    keep = out.parent / f"{out.name}-original"
    shutil.copytree(out, keep)
    started = time.monotonic()
    done = cli(*argv)
    whole = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-2000:]
    new = tree(out)
    assert new != old and not hidden_next_to(out)
    rng = random.Random(seed)
    trials = []
    for _ in range(kills):
        shutil.rmtree(out)
        shutil.copytree(keep, out)
        proc = subprocess.Popen([sys.executable, "-m", "covert.cli", *argv], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=_env(), start_new_session=True)
        delay = rng.uniform(0.2, whole * 1.1)
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed_at = time.monotonic()
        members = len(group_members(proc.pid))
        while group_members(proc.pid) and time.monotonic() - killed_at < GONE_WITHIN_S:
            time.sleep(0.02)
        gone = time.monotonic() - killed_at
        assert not group_members(proc.pid), "workers outlived the killed run"
        assert out.is_dir(), f"--out was missing after a kill at {delay:.2f} s"
        now = tree(out)
        assert now in (old, new), f"--out holds a partial dataset after a kill at {delay:.2f} s"
        left = hidden_next_to(out)
        again = cli(*argv)
        assert again.returncode == 0, again.stderr[-2000:]
        assert tree(out) == new and not hidden_next_to(out), hidden_next_to(out)
        if left:
            assert "removed stale staging folder" in again.stderr, again.stderr
        trials.append(Kill(round(delay, 2), "old" if now == old else "new", len(left), members, round(gone, 2),
                           bool(left)))
    shutil.rmtree(keep)
    return trials


def test_kill_build_over_an_existing_dataset(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    args = ["build", "--builders", "retail,banking", "--num-tasks", "400", "--rows-per-shard", "50", "--workers", "2",
            "--out", str(out), "--quiet", "--overwrite"]
    assert cli(*args, "--seed", "1").returncode == 0
    trials = kill_trials([*args, "--seed", "2"], out, KILLS, seed=14)
    assert len(trials) == KILLS


def test_kill_augment_over_an_existing_dataset(tmp_path: Path) -> None:
    base = tmp_path / "base"
    build(BuildConfig(builders=["retail", "banking"], num_tasks=60, seed=4, rows_per_shard=20), base, progress=False)
    out = tmp_path / "aug"
    args = ["augment", str(base), "--out", str(out), "--workers", "2", "--quiet", "--overwrite"]
    assert cli(*args, "--seed", "1").returncode == 0
    before = tree(base)
    trials = kill_trials([*args, "--seed", "2"], out, KILLS, seed=15)
    assert len(trials) == KILLS and tree(base) == before  # the source is never written


# ---- the pieces, one at a time -------------------------------------------------------------------------

_POOL_SCRIPT = """
import sys, time
from covert.scale.parallel import WorkerPool

def init(_):
    pass

def slow(item):
    time.sleep(0.01)
    return item

if __name__ == "__main__":
    pool = WorkerPool(2, init, (0,))
    results = pool.imap(slow, range(10**9), chunksize=4)
    next(results)
    print("running", flush=True)
    for _ in results:
        pass
"""


def test_workers_die_with_a_parent_killed_by_sigkill(tmp_path: Path) -> None:
    """The issue's case: with two workers, a parent killed with SIGKILL left them alive and idle (at
    least 30 s). A worker holds its own task queue's write end, so it never reads end-of-file."""
    script = tmp_path / "pool.py"
    script.write_text(_POOL_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=_env(), start_new_session=True)
    assert proc.stdout.readline().strip() == b"running"
    assert len(group_members(proc.pid)) >= 3  # the parent, the fork server, two workers (and a resource tracker)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    deadline = time.monotonic() + GONE_WITHIN_S
    while group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert group_members(proc.pid) == []


def test_leftovers_are_parsed_by_kind_and_pid() -> None:
    assert leftover_of(".ds.partial-12", "ds").kind == "partial"
    assert leftover_of(".ds.old-12", "ds").pids == (12,)
    nested = leftover_of("..ds.base-7.partial-7", "ds")
    assert nested.kind == "partial" and nested.pids == (7, 7)
    assert leftover_of(".ds2.partial-12", "ds") is None and leftover_of(".ds.partial-x", "ds") is None
    assert leftover_of("ds.partial-12", "ds") is None and leftover_of(".ds.cache", "ds") is None


def test_stale_staging_is_removed_at_the_next_run_and_live_or_foreign_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    dead = dead_pid()
    stale = tmp_path / f".ds.partial-{dead}"
    (stale / "sft").mkdir(parents=True)
    (stale / "sft" / ".train-00000.parquet.tmp").write_bytes(b"x" * 1000)
    stale_base = tmp_path / f"..ds.base-{dead}.partial-{dead}"
    stale_base.mkdir()
    stale_tmp = tmp_path / f".ds.tmp-{dead}"
    stale_tmp.write_text("half an export")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".ds.partial-{sleeper.pid}"
        live.mkdir()
        foreign = tmp_path / f".ds.partial-{dead_pid()}"
        foreign.mkdir()
        (foreign / OWNER_FILE).write_text(json.dumps({"pid": 1, "host": socket.gethostname() + "-elsewhere"}))
        result = cli("build", "--builders", "retail", "--num-tasks", "10", "--out", str(out), "--quiet")
        assert result.returncode == 0, result.stderr
        assert not stale.exists() and not stale_base.exists() and not stale_tmp.exists()
        assert live.is_dir() and foreign.is_dir()
        lines = [line for line in result.stderr.splitlines() if line.startswith("covert: removed stale")]
        assert len(lines) == 3 and all(f"(left by process {dead}, no longer running)" in line for line in lines)
        assert any(f"staging folder .ds.partial-{dead} " in line for line in lines)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_kill_between_the_two_renames_is_restored_by_the_next_command(tmp_path: Path, capsys) -> None:
    """Where the atomic exchange is not available, publishing takes two renames; a kill between them
    leaves ``--out`` missing and the old data in ``.NAME.old-PID``: the next command puts it back."""
    out = tmp_path / "ds"
    build(BuildConfig(builders=["retail"], num_tasks=12, seed=1), out, progress=False)
    original = tree(out)
    dead = dead_pid()
    os.rename(out, tmp_path / f".ds.old-{dead}")  # what the first rename did before the kill
    (tmp_path / f".ds.partial-{dead}").mkdir()  # the finished staging folder the second rename never moved
    assert main(["validate", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"covert: restored {out} from .ds.old-{dead}" in err and tree(out) == original
    result = cli("build", "--builders", "retail", "--num-tasks", "12", "--seed", "2", "--out", str(out), "--quiet",
                 "--overwrite")
    assert result.returncode == 0 and "removed stale staging folder" in result.stderr
    assert hidden_next_to(out) == []


def test_restore_before_a_build_that_refuses_to_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    build(BuildConfig(builders=["retail"], num_tasks=12, seed=1), out, progress=False)
    original = tree(out)
    os.rename(out, tmp_path / f".ds.old-{dead_pid()}")
    result = cli("build", "--builders", "retail", "--num-tasks", "12", "--out", str(out), "--quiet")
    assert result.returncode == 2 and "already exists" in result.stderr and "restored" in result.stderr
    assert tree(out) == original


def test_a_live_runs_old_copy_is_not_restored(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    (tmp_path / f".ds.old-{os.getpid()}").mkdir()  # this process is mid-swap
    assert not restore(out) and not out.exists()


@pytest.mark.parametrize("exchange", [True, False])
def test_publish_replaces_the_old_folder_whole(tmp_path: Path, exchange: bool) -> None:
    out = tmp_path / "ds"
    out.mkdir()
    (out / "old.txt").write_text("old")
    staging = prepare_output(out, overwrite=True)
    assert (staging / OWNER_FILE).is_file()
    (staging / "new.txt").write_text("new")
    publish(staging, out, exchange=exchange)
    assert sorted(p.name for p in out.iterdir()) == ["new.txt"]  # no owner file, nothing of the old
    assert hidden_next_to(out) == []


def test_sweep_keeps_this_processes_own_staging(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    staging = prepare_output(out, overwrite=False)
    assert sweep(out) == [] and staging.is_dir()
    shutil.rmtree(staging)


if __name__ == "__main__":  # the long profile with figures: COVERT_KILL_RUNS=10 python -m tests.test_kill
    import tempfile

    for name in ("build", "augment"):
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            if name == "build":
                out = base / "ds"
                args = ["build", "--builders", "retail,banking", "--num-tasks", "400", "--rows-per-shard", "50",
                        "--workers", "2", "--out", str(out), "--quiet", "--overwrite"]
                cli(*args, "--seed", "1")
                trials = kill_trials([*args, "--seed", "2"], out, KILLS, seed=14)
            else:
                build(BuildConfig(builders=["retail", "banking"], num_tasks=60, seed=4, rows_per_shard=20),
                      base / "base", progress=False)
                out = base / "aug"
                args = ["augment", str(base / "base"), "--out", str(out), "--workers", "2", "--quiet", "--overwrite"]
                cli(*args, "--seed", "1")
                trials = kill_trials([*args, "--seed", "2"], out, KILLS, seed=15)
        for trial in trials:
            print(name, trial)
