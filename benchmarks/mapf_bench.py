"""MAPF-FrozenLake: the exact solver's time per instance, and the 3,150-row benchmark regenerated twice.

    PYTHONPATH=. python benchmarks/mapf_bench.py [--count 200] [--sections solver,benchmark]

``solver``: median and p99 seconds of the conflict-based search per instance on 10x10 lakes with 5 agents and
30% holes (instances drawn by the environment's sampler, solved again from scratch), instances/s of the solver
alone and of sample + reference + score. ``benchmark``: writes the full benchmark grid twice (the second time
with 2 workers), checks the two are byte-identical, and prints the report for the reference and a noisy policy.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
from pathlib import Path

from covert.procgen.envs.mapf_frozenlake import ENV
from covert.procgen.mapf_grid import MapfMap
from covert.procgen.mapf_solver import solve

CONFIG = {"grid_size": 10, "agents": 5, "hole_percent": 30, "conflict_percent": 0}


def section_solver(args: argparse.Namespace) -> None:
    """Exact solver seconds per instance (median, p99) on 10x10, 5 agents, 30% holes."""
    instances = []
    start = time.perf_counter()
    for index in range(args.count):
        instance = ENV.sample(0, CONFIG, index)
        ENV.score(instance, ENV.reference(instance))
        instances.append(instance)
    pipeline = time.perf_counter() - start
    times, nodes = [], []
    for instance in instances:
        grid = MapfMap.from_data(instance.data)
        t0 = time.perf_counter()
        solution = solve(grid)
        times.append(time.perf_counter() - t0)
        assert solution is not None and solution.makespan == instance.data["optimal_makespan"]
        nodes.append(solution.nodes)
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(f"instances {len(times)} ({CONFIG})")
    print(f"solver median {statistics.median(times) * 1000:.2f} ms   p99 {p99 * 1000:.2f} ms   "
          f"max {times[-1] * 1000:.2f} ms   {len(times) / sum(times):.1f} instances/s")
    print(f"search nodes median {statistics.median(nodes):.0f}   max {max(nodes)}")
    print(f"sample + reference + score: {len(instances) / pipeline:.1f} instances/s")


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def section_benchmark(args: argparse.Namespace) -> None:
    """The 3,150-row benchmark, written twice, byte for byte; the report for two policies."""
    from covert.io.reader import iter_rows
    from covert.procgen.mapf_benchmark import (
        format_report,
        noisy_policy,
        reference_policy,
        report,
        write_benchmark,
    )

    with tempfile.TemporaryDirectory() as tmp:
        digests = []
        for run, workers in enumerate((1, 2)):
            out = Path(tmp) / f"run{run}"
            start = time.perf_counter()
            manifest = write_benchmark(out, seed=0, workers=workers)
            took = time.perf_counter() - start
            digests.append(_digest(out))
            print(f"run {run}: {manifest['summary']['accepted']} rows, {workers} worker(s), {took:.1f} s, "
                  f"sha256 {digests[-1][:16]}")
        print("byte-identical:", digests[0] == digests[1])
        rows = list(iter_rows(Path(tmp) / "run0", "rl-procgen"))
        print(format_report(report(rows, reference_policy), "reference policy"))
        print(format_report(report(rows, noisy_policy(0.5, seed=0)), "noisy policy (accuracy 0.5)"))


SECTIONS = {"solver": section_solver, "benchmark": section_benchmark}


def main() -> None:
    """Run the chosen sections and print their figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=200, help="instances for the solver timing")
    p.add_argument("--sections", default=",".join(SECTIONS), help=f"some of: {', '.join(SECTIONS)}")
    args = p.parse_args()
    for name in args.sections.split(","):
        print(f"== mapf {name}")
        SECTIONS[name](args)


if __name__ == "__main__":
    main()
