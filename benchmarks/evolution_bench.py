"""Environment engineering and evolution, end to end on CPU, printed stage by stage.

1. Tool environments, three stages: a scripted tool trainee (covert.evolve.tools.ToolTrainee) that
   improves on what it trains on rolls out on each configuration's rows; the stage summary goes to the
   rule-based engineer; its proposal (with reasons) is the next stage's configurations.
2. Tool evolution, four generations (``covert evolve``): the fixed reference policy's pass rate per
   generation, mutants kept and rejected by reason, and ``covert validate`` on the result.

3. MAPF-FrozenLake: the same three-stage loop with a scripted planner whose failure rate rises with agents
   and conflicts (it improves on what it trains on), then four generations of configurations
   (``covert evolve-procgen``), written and validated.

Run: ``python benchmarks/evolution_bench.py [--tasks N] [--seed S]``. Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from covert.build import BuildConfig, build
from covert.env import builder_names
from covert.evolve.dataset import EvolveConfig, evolve_dataset, row_pairs
from covert.evolve.engineer import RuleEngineer
from covert.evolve.loop import Curriculum
from covert.evolve.summary import stage_summary
from covert.evolve.tools import FAILURE_KNOBS, TOOL_KNOBS, ToolTrainee, config_rows, tool_episodes
from covert.validation.dataset import validate_dataset

TOOL_START = [
    {"calls": 1, "distractors": "none", "noise": "none", "ambiguity": False},   # too easy for skill 3
    {"calls": 2, "distractors": "low", "noise": "none", "ambiguity": False},
    {"calls": 4, "distractors": "high", "noise": "none", "ambiguity": False},   # too hard
]


def _short(config: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in config.items())


def tool_stages(pairs: list[Any], seed: int, stages: int = 3) -> None:
    print("== 1. tool environments: three stages, trainee improves on what it trains on")
    trainee = ToolTrainee(skill=2.0, seed=seed)
    curriculum = Curriculum(RuleEngineer(failure_knobs=FAILURE_KNOBS))
    configs = list(TOOL_START)
    for stage in range(stages):
        episodes = []
        for config in configs:
            episodes += tool_episodes(trainee, config_rows(pairs, config, seed=seed + stage, limit=40), k=2)
        summary = stage_summary("tools", "tool", "1", TOOL_KNOBS, stage, episodes)
        proposal = curriculum.after_stage(summary)
        print(f"stage {stage} (trainee skill {trainee.skill:.2f})")
        for entry, decision in zip(summary["configs"], proposal.decisions):
            top = ", ".join(f"{k} {v}" for k, v in list(entry["failures"].items())[:3]) or "-"
            print(f"  {_short(entry['config']):58s} pass {entry['pass_rate']:.2f}  failures: {top}")
            print(f"    -> {decision.action}: {decision.reason}")
        trainee.learn([(e["pass_rate"], e["episodes"]) for e in summary["configs"]])
        configs = proposal.configs
    print()


def tool_evolution(src: Path, out: Path, seed: int, tasks: int) -> None:
    print("== 2. tool evolution: four generations (covert evolve)")
    start = time.perf_counter()
    manifest = evolve_dataset(src, out, EvolveConfig(generations=4, seed=seed, k=8, tasks=tasks))
    elapsed = time.perf_counter() - start
    for g in manifest["evolution"]["schedule"]["generations"]:
        print(f"  generation {g['generation']}: {g['tasks']:4d} tasks, reference pass rate {g['reference_pass_rate']}")
    evo = manifest["evolution"]
    print(f"  kept by direction {evo['kept']}; rejected {evo['rejected']}; {elapsed:.1f} s")
    report = validate_dataset(out)
    print(f"  covert validate: {sum(report.rows.values())} rows, {len(report.failures)} failures")
    print()


MAPF_WEIGHTS = {"agents": 1.5, "conflict_percent": 1.2, "grid_size": 0.4, "hole_percent": 0.4}
MAPF_START = [{"grid_size": 3, "agents": 2, "hole_percent": 0, "conflict_percent": 0},
              {"grid_size": 6, "agents": 5, "hole_percent": 20, "conflict_percent": 75}]


def mapf(seed: int, out: Path, stages: int = 3) -> None:
    from covert.evolve.procedural import ProceduralTrainee, procedural_episodes
    from covert.evolve.procedural_dataset import lineage_of, write_procgen_generations
    from covert.procgen.envs.mapf_frozenlake import ENV

    print("== 3. MAPF-FrozenLake: three stages, planner improves on what it trains on")
    trainee = ProceduralTrainee(ENV, skill=2.0, weights=MAPF_WEIGHTS, seed=seed)
    curriculum = Curriculum(RuleEngineer(failure_knobs=ENV.failure_knobs))
    configs = list(MAPF_START)
    for stage in range(stages):
        episodes = []
        for config in configs:
            episodes += procedural_episodes(ENV, config, lambda inst, j, c=config: trainee.answer(inst, c, j),
                                            seed=seed + stage, n=30)
        summary = stage_summary(ENV.name, "procedural", ENV.version, ENV.knobs, stage, episodes, failure_order=())
        proposal = curriculum.after_stage(summary)
        print(f"stage {stage} (planner skill {trainee.skill:.2f})")
        for entry, decision in zip(summary["configs"], proposal.decisions):
            top = ", ".join(f"{k} {v}" for k, v in list(entry["failures"].items())[:3]) or "-"
            print(f"  {_short(entry['config']):58s} pass {entry['pass_rate']:.2f} valid {entry['valid_rate']:.2f}  "
                  f"failures: {top}")
            print(f"    -> {decision.action}: {decision.reason}")
        trainee.learn([(e["pass_rate"], e["episodes"]) for e in summary["configs"]])
        configs = proposal.configs
    print()
    print("== 4. MAPF-FrozenLake evolution: four generations (covert evolve-procgen)")
    start = time.perf_counter()
    lineage = lineage_of(ENV, [*MAPF_START[:1], {"grid_size": 4, "agents": 2, "hole_percent": 10, "conflict_percent": 25}],
                         4, 2.0, MAPF_WEIGHTS, seed=seed, instances=12, k=2)
    for g, (members, rate) in enumerate(zip(lineage.generations, lineage.pass_rates())):
        print(f"  generation {g}: {len(members)} configuration(s), reference pass rate {rate}: "
              + "; ".join(_short(m.config) for m in members))
    write_procgen_generations(ENV, lineage, out, seed=seed, per_config=20)
    report = validate_dataset(out)
    print(f"  kept {dict(lineage.kept)}, rejected {dict(lineage.rejected)}; {time.perf_counter() - start:.1f} s; "
          f"covert validate: {sum(report.rows.values())} rows, {len(report.failures)} failures")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1500, help="base tasks to build (default 1500)")
    parser.add_argument("--evolve-tasks", type=int, default=60, help="base tasks per split to evolve (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "base"
        build(BuildConfig(builders=builder_names(), num_tasks=args.tasks, seed=args.seed), src, progress=False)
        pairs = list(row_pairs(src, "train"))
        tool_stages(pairs, args.seed)
        tool_evolution(src, Path(tmp) / "evolved", args.seed, args.evolve_tasks)
        mapf(args.seed, Path(tmp) / "mapf-evolved")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
