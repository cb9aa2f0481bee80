"""Procedural environments: instances per second (sample + reference + score of the reference) per
environment and level, and the cost of scoring garbage.

    PYTHONPATH=. python benchmarks/procgen_bench.py [--envs all] [--levels 0,2,4] [--count 200]

Sections are functions in ``SECTIONS`` (name -> function(args) printing its figures); another
environment adds its own (the MAPF solver timing: median and p99 per instance) by appending one.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from covert.procgen.registry import env_names, get_env, resolve_envs


def throughput(env_name: str, level: int, count: int, seed: int = 0) -> tuple[float, float]:
    """``(instances per second, p99 seconds per instance)`` of sample + reference + score at ``level``."""
    env = get_env(env_name)
    config = env.config_at(level)
    times = []
    for index in range(count):
        start = time.perf_counter()
        instance = env.sample(seed, config, index)
        result = env.score(instance, env.reference(instance))
        times.append(time.perf_counter() - start)
        assert result.value == 1.0, (env_name, index, result)
    total = sum(times)
    return count / total, sorted(times)[min(len(times) - 1, int(0.99 * len(times)))]


def section_throughput(args: argparse.Namespace) -> None:
    """Instances per second per environment and level."""
    levels = [int(x) for x in args.levels.split(",")]
    names = [env.name for env in resolve_envs(args.envs)]
    print(f"{'environment':<22}" + "".join(f"  {'L' + str(lv) + ' inst/s':>12}  {'p99 ms':>8}" for lv in levels))
    for name in names:
        cells = []
        for level in levels:
            rate, p99 = throughput(name, level, args.count)
            cells.append(f"  {rate:>12,.0f}  {p99 * 1000:>8.2f}")
        print(f"{name:<22}" + "".join(cells))


def section_garbage(args: argparse.Namespace) -> None:
    """Seconds to score a 10 MB response (bounded work: the parser reads only the tail)."""
    text = "Answer: " + "1, " * 3_500_000
    print(f"{'environment':<22}  {'10 MB score ms':>14}")
    for name in [env.name for env in resolve_envs(args.envs)]:
        env = get_env(name)
        instance = env.sample(0, env.config_at(2), 0)
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            env.score(instance, text)
            runs.append(time.perf_counter() - start)
        print(f"{name:<22}  {statistics.median(runs) * 1000:>14.2f}")


SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {
    "throughput": section_throughput,
    "garbage": section_garbage,
}


def main() -> None:
    """Run the chosen sections and print their figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", default="all", help=f"'all' or some of: {', '.join(env_names())}")
    p.add_argument("--levels", default="0,2,4")
    p.add_argument("--count", type=int, default=200, help="instances per environment and level")
    p.add_argument("--sections", default=",".join(SECTIONS), help=f"some of: {', '.join(SECTIONS)}")
    args = p.parse_args()
    for name in args.sections.split(","):
        print(f"== {name}")
        SECTIONS[name](args)


if __name__ == "__main__":
    main()
