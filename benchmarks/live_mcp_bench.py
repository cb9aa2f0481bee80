"""Live MCP environments: episode start (bubblewrap vs plain subprocess, one run), verified tasks/s and
scoring throughput on mcp-server-git. Prints its figures; no asserts.

    PYTHONPATH=. python benchmarks/live_mcp_bench.py [--tasks 6] [--episodes 5] [--workers 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def _episode_times(recipe: dict, count: int, sandbox: bool | None) -> list[float]:
    from covert.imports.live_mcp import LiveEpisode

    times = []
    for _ in range(count):
        start = time.perf_counter()
        with LiveEpisode(recipe, sandbox=sandbox) as episode:
            episode.snapshot()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()

    from covert.env import get_builder, item_rng
    from covert.imports.live_mcp import sandbox_warning, set_pool_size
    from covert.imports.live_mcp_git import make_recipe
    from covert.imports.live_mcp_tasks import make_tasks, task_rows
    from covert.rewards import score

    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    get_builder("mcp.git")
    recipe = make_recipe(item_rng("bench", 0))
    boxed, plain = [], []
    for _ in range(args.episodes):  # interleaved, so both see the same load
        boxed += _episode_times(recipe, 1, None)
        plain += _episode_times(recipe, 1, False)
    mode = "plain (bubblewrap unavailable)" if sandbox_warning() else "bubblewrap"
    print(f"episode start+snapshot, {mode}: median {statistics.median(boxed):.2f}s; plain subprocess: median "
          f"{statistics.median(plain):.2f}s; ratio {statistics.median(boxed) / statistics.median(plain):.2f}")
    rates = {}
    for workers in (1, args.workers):
        start = time.perf_counter()
        tasks, rejected = make_tasks(0, args.tasks, workers=workers)
        elapsed = time.perf_counter() - start
        rates[workers] = len(tasks) / elapsed
        print(f"verified tasks, {workers} worker(s): {len(tasks)} in {elapsed:.1f}s = {rates[workers]:.2f} tasks/s "
              f"(two server episodes each: oracle and replay); rejected: {dict(rejected) or 'none'}")
    print(f"speed-up with {args.workers} workers: {rates[args.workers] / rates[1]:.2f}x on {os.cpu_count()} CPUs")
    pairs = [task_rows(t, i) for i, t in enumerate(tasks)]
    for pool in (0, 1):
        set_pool_size(pool)
        start = time.perf_counter()
        values = [score(rl, sft["messages"][2:]).value for sft, rl in pairs]
        elapsed = time.perf_counter() - start
        print(f"scored {len(values)} oracle completions on fresh servers, warm pool {pool}: {elapsed:.1f}s = "
              f"{len(values) / elapsed:.2f} rows/s; all 1.0: {all(v == 1.0 for v in values)}")
    set_pool_size(0)


if __name__ == "__main__":
    main()
