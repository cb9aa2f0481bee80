"""`benchmarks/build_bench.py --in-turns`: builds started together run by turns (SIGSTOP / SIGCONT), and
every one of them runs to its end with its output intact, also when one ends long before the other."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "build_bench.py"


def _bench():
    spec = importlib.util.spec_from_file_location("build_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _child(rounds: int) -> subprocess.Popen:
    # CPU work that takes several turns (or, with few rounds, ends within the first)
    code = f"total = sum(i * i for i in range({rounds})); print(total)"
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def test_processes_run_by_turns_to_their_ends():
    bench = _bench()
    long, short, longer = _child(3_000_000), _child(10), _child(4_000_000)
    bench.run_in_turns([long, short, longer], turn_s=0.02)
    outputs = [p.communicate(timeout=60)[0].strip() for p in (long, short, longer)]
    assert [p.returncode for p in (long, short, longer)] == [0, 0, 0]
    assert outputs == [str(sum(i * i for i in range(n))) for n in (3_000_000, 10, 4_000_000)]


def test_a_process_that_fails_ends_its_turns():
    bench = _bench()
    failing = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    working = _child(1_000_000)
    bench.run_in_turns([failing, working], turn_s=0.02)
    assert failing.wait(timeout=60) == 3
    assert working.communicate(timeout=60)[0].strip() == str(sum(i * i for i in range(1_000_000)))


def test_ended_processes_are_left_for_their_caller_to_reap():
    """The benchmark reads each build's CPU time from ``os.wait4`` once the turns are over: run_in_turns
    must not reap the processes (it did, and ``--in-turns`` failed with "No child processes")."""
    import os

    bench = _bench()
    busy = [_child(2_000_000), _child(10)]
    bench.run_in_turns(busy, turn_s=0.02)
    for process in busy:
        _, status, usage = os.wait4(process.pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert usage.ru_utime + usage.ru_stime > 0
        process.returncode = 0  # reaped here: the Popen must not wait for it again
        process.stdout.close()
