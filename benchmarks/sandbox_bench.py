"""Cost of the sandbox: worker spawn time (bubblewrap + Python start + init), and warm calls per second.

Run: ``python benchmarks/sandbox_bench.py [--spawns N] [--calls N]``. Prints the median and p90 wall
time of a cold worker (start to first answer), the bare ``bwrap ... true`` spawn for comparison, and
warm calls/s of one worker on a small function (JSON in and out) and on a procgen-sized payload, and
the time to run the seed environments through candidate admission (every stage in the sandbox). Wall
times on a shared machine: read them as an order of magnitude.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from covert.sandbox import Limits, SandboxPool
from covert.sandbox.launch import bwrap_argv

SMALL = "def f(p):\n    return {'sum': sum(p['xs'])}\n"
SORT = "def f(p):\n    return sorted(p['xs'], reverse=True)\n"


def _quantiles(times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms"


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawns", type=int, default=20)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    limits = Limits(cpu_s=2, memory_mb=256, wall_s=10)
    probe = SandboxPool(limits=limits, size=1)
    print(f"sandbox: {'bubblewrap' if probe.isolated else 'FALLBACK'} {probe.warning}")
    bwrap = shutil.which("bwrap")
    if bwrap and probe.isolated:
        argv = bwrap_argv(bwrap, limits.file_mb)
        bare = [*argv[: argv.index("--proc")], "/usr/bin/true"]
        times = []
        for _ in range(args.spawns):
            start = time.perf_counter()
            subprocess.run(bare, check=True)
            times.append(time.perf_counter() - start)
        print(f"bare bwrap spawn (true):            {_quantiles(times)}")
    cold = []
    for _ in range(args.spawns):
        with SandboxPool(limits=limits, size=1) as pool:
            start = time.perf_counter()
            result = pool.call(SMALL, "f", {"xs": [1, 2, 3]})
            cold.append(time.perf_counter() - start)
            assert result.ok, result
    print(f"cold worker (spawn + init + 1 call): {_quantiles(cold)}")
    with SandboxPool(limits=limits, size=1) as pool:
        pool.call(SMALL, "f", {"xs": [1]})
        for name, source, payload in (("small", SMALL, {"xs": list(range(10))}),
                                      ("sort 1k ints", SORT, {"xs": list(range(1000))})):
            start = time.perf_counter()
            for _ in range(args.calls):
                assert pool.call(source, "f", payload).ok
            elapsed = time.perf_counter() - start
            print(f"warm calls/s, {name:13s}        {args.calls / elapsed:,.0f} ({elapsed / args.calls * 1e6:.0f} us/call)")
        print(f"spawns for {2 * args.calls + 1} warm calls: {pool.stats['spawns']}")
    from covert.procgen.candidates import Admission, admit_all, seed_candidates

    seeds = seed_candidates()
    start = time.perf_counter()
    with Admission() as admission:
        report = admit_all(seeds, admission)
        calls = admission.sandbox.stats["calls"]
    elapsed = time.perf_counter() - start
    print(f"candidate admission (L1-L5, noisy solver) of the {len(seeds)} seeds: {len(report.admitted)} admitted "
          f"in {elapsed:.2f} s ({elapsed / max(1, len(seeds)):.2f} s per candidate, {calls} sandbox calls)")


if __name__ == "__main__":
    main()
