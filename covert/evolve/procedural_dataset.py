"""Evolved generations of procedural environments, written as one dataset (``covert evolve --procgen``).

Generation ``g`` of each environment is a set of configurations (see
:func:`covert.evolve.procedural.evolve_configs`); each configuration contributes ``per_config``
instances to configs ``sft-procgen-g<g>`` / ``rl-procgen-g<g>`` (rows with a ``generation`` column, in
the layout of ``covert procgen``), so ``covert validate`` re-derives every instance and reference and the
rewards score the rows as any procedural row. ``schedule.json`` says which generation trains when.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import covert
from covert.build import SPLITS
from covert.evolve.dataset import training_stages
from covert.evolve.procedural import ConfigLineage, evolve_configs
from covert.io.portable import portable_command
from covert.procgen.contract import ProceduralEnv, config_key
from covert.procgen.ladder import DEFAULT_MARGIN, LLMSolver


def lineage_of(env: ProceduralEnv, start: Sequence[dict[str, Any]], generations: int, seed: int = 0,
               instances: int = 32, margin: float = DEFAULT_MARGIN, llm: LLMSolver | None = None,
               k: int = 4) -> ConfigLineage:
    """The configuration lineage of one environment, judged by its solver ladder (and ``llm``'s pass@k)."""
    return evolve_configs(env, start, generations, seed=seed, instances=instances, margin=margin, llm=llm, k=k)


def write_procgen_generations(env: ProceduralEnv, lineage: ConfigLineage, out: str | Path, seed: int,
                              per_config: int, command: str = "", overwrite: bool = False) -> dict[str, Any]:
    """Write every generation of ``lineage`` to ``out`` (atomically); returns the manifest."""
    from covert.build import split_of
    from covert.io.background import Background
    from covert.io.parquet import ShardWriter, close_writers, encode_row
    from covert.io.staging import discard, prepare_output, publish
    from covert.procgen.card import write_procgen_card
    from covert.procgen.rows import RL_CONFIG, SFT_CONFIG, make_rows

    if per_config < 1:
        raise ValueError("per_config must be at least 1")
    # a generation that kept no configuration ends the lineage: no config is written or listed for it
    kept = next((g for g, members in enumerate(lineage.generations) if not members), len(lineage.generations))
    lineage = replace(lineage, generations=lineage.generations[:kept])
    assign = split_of(seed, (0.8, 0.1, 0.1))
    out = Path(out)
    staging = prepare_output(out, overwrite)
    try:
        rows: dict[str, int] = {}
        files: dict[str, str] = {}
        examples: dict[str, dict[str, Any]] = {}
        with Background() as background:
            names = [(f"{view}-g{g}", g) for g in range(len(lineage.generations)) for view in (SFT_CONFIG, RL_CONFIG)]
            writers = {(name, s): ShardWriter(staging, name, s, 5000, background) for name, _ in names for s in SPLITS}
            number = 0
            for g, members in enumerate(lineage.generations):
                for member in members:
                    for index in range(per_config):
                        sft, rl, instance = make_rows(env, seed, member.config, index, "train", number)
                        split = assign(f"procgen:{env.name}:{instance.prompt}")
                        rl["extra_info"]["split"] = split
                        for view, row in ((SFT_CONFIG, sft), (RL_CONFIG, rl)):
                            name = f"{view}-g{g}"
                            encoded = encode_row({**row, "generation": g}, name)
                            writers[(name, split)].add(encoded)
                            examples.setdefault(name, encoded)
                        number += 1
            written, counts = close_writers(writers, staging)
            files.update(written)
            rows.update(counts)
        schedule = {
            "generations": [{"generation": g, "configs": [f"{SFT_CONFIG}-g{g}", f"{RL_CONFIG}-g{g}"],
                             "environment_configs": [m.config for m in members],
                             "difficulty": [m.difficulty.to_dict() for m in members if m.difficulty is not None],
                             "measured_pass_rate": rate}
                            for g, (members, rate) in enumerate(zip(lineage.generations, lineage.pass_rates()))],
            "stages": training_stages([f"{RL_CONFIG}-g{g}" for g in range(len(lineage.generations))]),
        }
        total = sum(len(m) for m in lineage.generations) * per_config
        manifest = {
            "covert_version": covert.__version__, "kind": "procgen", "command": portable_command(command),
            "config": {"envs": [env.name], "num_tasks": total, "seed": seed, "license": "apache-2.0", "plan": "custom",
                       "configs": {}},
            "environments": {env.name: {"version": env.version, "license": env.license, "asymmetry": env.asymmetry,
                                        "description": env.description}},
            "summary": {"accepted": total, "candidates": total, "per_environment": {env.name: total}},
            "evolution": {"schedule": schedule, "tried": dict(sorted(lineage.tried.items())),
                          "kept": dict(sorted(lineage.kept.items())), "rejected": dict(sorted(lineage.rejected.items())),
                          "lineage": [[{"config": m.config, "parent": m.parent, "direction": m.direction,
                                        "measured_pass_rate": m.pass_rate,
                                        "difficulty": m.difficulty.to_dict() if m.difficulty else None}
                                       for m in members] for members in lineage.generations]},
            "rows": dict(sorted(rows.items())),
            "files": dict(sorted(files.items())),
        }
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        (staging / "schedule.json").write_text(json.dumps(schedule, indent=2, sort_keys=True) + "\n")
        write_procgen_card(staging, manifest, examples)
        _append_evolution(staging / "README.md", schedule)
        publish(staging, out)
    except BaseException:
        discard(staging)
        raise
    return manifest


def _append_evolution(card: Path, schedule: dict[str, Any]) -> None:
    lines = ["", "## Evolution", "",
             "Each generation's configurations were made harder along one direction (a knob one or two levels up) "
             "and kept only when the reference still solves every measured instance and the environment's solver "
             "ladder (independent, non-LLM solvers of increasing strength, each with a work budget) solves fresh "
             "instances less often than on the parent, by more than the instances' spread explains (with `--llm`: "
             "the LLM's pass@k). `schedule.json`: stage N trains generation N and replays a quarter of N-1.", "",
             "| generation | configuration | ladder solve rate | per rung (solved / optimal) | LLM pass@k |",
             "|---|---|---|---|---|"]
    for g in schedule["generations"]:
        for config, found in zip(g["environment_configs"], g["difficulty"]):
            rungs = ", ".join(f"{r['name']} {r['solve_rate']:.2f}/{r['optimal_rate']:.2f}" for r in found["rungs"])
            llm = f"{found['llm_pass_at_k']:.2f} (k={found['llm_k']})" if "llm_pass_at_k" in found else "-"
            lines.append(f"| {g['generation']} | `{config_key(config)}` | {found['solve_rate']:.2f} "
                         f"± {found['solve_error']:.2f} | {rungs} | {llm} |")
    card.write_text(card.read_text() + "\n".join(lines) + "\n")
