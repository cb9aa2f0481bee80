"""Rollout throughput: environment + user steps per second with the scripted oracle policy.

    python benchmarks/rollout_bench.py [--tasks 400]

Builds a small multi-turn dataset, then times rollouts (policy, tool execution, template user) and,
separately, the reward at the end of each rollout. One process, so steps/s is per core.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

BAR_STEPS = 5000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from covert.build import BuildConfig, build
    from covert.io.reader import iter_rows
    from covert.rollouts import runner
    from covert.rollouts.policies import ScriptedPolicy

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ds"
        build(BuildConfig(builders=["all"], num_tasks=args.tasks, seed=0, multi_turn=True), out, progress=False)
        rows = list(iter_rows(out, "rl-multiturn"))

    best_loop = best_full = 0.0
    steps = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        steps = 0
        for row in rows:
            steps += runner.run(ScriptedPolicy(row), row, reward=False).steps
        best_loop = max(best_loop, steps / (time.perf_counter() - start))
        start = time.perf_counter()
        full_steps = sum(runner.run(ScriptedPolicy(row), row).steps for row in rows)
        best_full = max(best_full, full_steps / (time.perf_counter() - start))
    print(f"rollouts: {len(rows)} multi-turn rows, {steps} env + user steps each pass, best of {args.repeat}")
    print(f"  env + user steps/s (covert.rollouts.run, reward skipped): {best_loop:,.0f}")
    print(f"  steps/s including the composite reward per rollout:      {best_full:,.0f}")
    print(f"bar: >= {BAR_STEPS} steps/s per core: {best_loop:,.0f} {'PASS' if best_loop >= BAR_STEPS else 'FAIL'}")


if __name__ == "__main__":
    main()
