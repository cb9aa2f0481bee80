"""``covert evolve``: a dataset's tool tasks evolved generation by generation, written as dataset configs.

The output holds the source's ``sft`` and ``rl`` configs as they are, plus ``sft-g<G>`` / ``rl-g<G>`` per
generation (rows carry a ``generation`` column and, as ``pass_rate``, the fixed reference policy's pass
rate), and ``schedule.json``: which generation trains at which stage.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from covert.build import SPLITS
from covert.errors import UsageError
from covert.evolve.evolution import Lineage, evolve_tool_tasks
from covert.evolve.tools import ToolTrainee
from covert.io.portable import portable_command, portable_path

REPLAY_SHARE = 0.25


class EvolveError(UsageError):
    """Bad input to ``covert evolve`` (one line, says what to do)."""


@dataclass(frozen=True)
class EvolveConfig:
    """Everything that determines an evolved dataset."""

    generations: int = 4
    seed: int = 0
    k: int = 8  # reference-policy rollouts per task
    skill: float = 1.0  # the fixed reference policy's skill (covert.evolve.tools.ToolTrainee)
    tasks: int | None = None  # base tasks per split (default: all)
    rows_per_shard: int = 5000

    def validate(self) -> None:
        """Raise :class:`EvolveError` on bad values."""
        if self.generations < 1:
            raise EvolveError("--generations must be at least 1")
        if self.k < 1:
            raise EvolveError("--k must be at least 1")
        if self.tasks is not None and self.tasks < 1:
            raise EvolveError("--tasks must be at least 1")


def reference_pass_rate(trainee: ToolTrainee, k: int) -> Any:
    """The pass rate of ``trainee`` over ``k`` scripted rollouts of a pair's RL row."""
    from covert.rollouts.runner import run

    def rate(pair: Any) -> float:
        return sum(run(trainee.policy(pair.rl, j), pair.rl).reward.value >= 1.0 for j in range(k)) / k

    return rate


def row_pairs(root: Path, split: str) -> Iterator[Any]:
    """The (sft, rl) :class:`~covert.augment.registry.RowPair` s of one split of a built dataset (the sft and
    rl configs must hold the same tasks in the same order, as augmentation checks)."""
    from covert.augment.dataset import pairs_of
    from covert.augment.registry import RowPair

    for sft, rl in pairs_of(Path(root), split):
        yield RowPair(sft, rl)


def training_stages(train_configs: list[str]) -> list[dict[str, Any]]:
    """Stage ``g`` trains generation ``g``'s config and replays :data:`REPLAY_SHARE` of generation ``g - 1``."""
    return [{"stage": g, "train": name, "replay": [{"config": train_configs[g - 1], "share": REPLAY_SHARE}] if g else []}
            for g, name in enumerate(train_configs)]


def schedule(lineages: list[Lineage], generations: int) -> dict[str, Any]:
    """The generations of an evolved dataset of tool tasks and when each trains."""
    rates = []
    for g in range(generations):
        members = [m for lin in lineages for m in lin.generations[g]]
        rates.append({"generation": g, "configs": [f"sft-g{g}", f"rl-g{g}"], "tasks": len(members),
                      "reference_pass_rate": round(sum(m.pass_rate for m in members) / len(members), 4) if members else None})
    return {"generations": rates, "stages": training_stages([f"rl-g{g}" for g in range(generations)])}


def evolve_dataset(src: str | Path, out: str | Path, config: EvolveConfig, overwrite: bool = False,
                   progress: bool = False) -> dict[str, Any]:
    """Write the evolved dataset of ``src`` to ``out`` (atomically); returns its manifest. ``progress`` draws
    a bar of the tasks and mutants the reference policy was run on."""
    from covert.io.background import Background
    from covert.io.card import write_card
    from covert.io.checked import open_dataset
    from covert.io.parquet import ShardWriter, close_writers, encode_row, sha256_file
    from covert.io.reader import iter_rows
    from covert.io.staging import discard, prepare_output, publish

    config.validate()
    src, out = Path(src), Path(out)
    if out.resolve() == src.resolve():
        raise EvolveError("--out must be a new directory, not the source dataset")
    dataset = open_dataset(src)
    if "sft" not in dataset.configs or "rl" not in dataset.configs:
        from covert.io.kinds import does_not_apply

        raise EvolveError(does_not_apply("evolve", src, dataset.manifest, "tool datasets with sft and rl configs "
                                         "(covert build, covert live-mcp)", "for procedural environments run "
                                         "`covert evolve-procgen ENV --out DIR`"))
    trainee = ToolTrainee(skill=config.skill, seed=config.seed)
    from covert.progress import bar

    tried = bar(unit="task", desc="evolve", enabled=progress)
    reference = reference_pass_rate(trainee, config.k)

    def rate(pair: Any) -> float:
        tried.update(1)
        return reference(pair)

    staging = prepare_output(out, overwrite)
    try:
        files: dict[str, str] = {}
        rows: dict[str, int] = {}
        for base in ("sft", "rl"):
            for rel in dataset.shards(base):
                (staging / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src / rel, staging / rel)
                files[rel] = sha256_file(staging / rel)
            for split in SPLITS:
                key = f"{base}/{split}"
                if key in dataset.manifest.get("rows", {}):
                    rows[key] = dataset.manifest["rows"][key]
        lineages: list[Lineage] = []
        with Background() as background:
            writers = {(f"{v}-g{g}", s): ShardWriter(staging, f"{v}-g{g}", s, config.rows_per_shard, background)
                       for g in range(config.generations) for v in ("sft", "rl") for s in SPLITS}
            for split in SPLITS:
                lineage = evolve_tool_tasks(list(row_pairs(src, split)), config.generations, rate, seed=config.seed,
                                            tasks=config.tasks)
                lineages.append(lineage)
                for g, members in enumerate(lineage.generations):
                    for i, member in enumerate(members):
                        calibration = {"policy": "tool-trainee", "skill": config.skill, "k": config.k,
                                       "parent": member.parent, "direction": member.direction, "config": member.config}
                        for view, row in (("sft", member.pair.sft), ("rl", member.pair.rl)):
                            row = {**row, "generation": g, "pass_rate": member.pass_rate, "calibration": calibration}
                            if view == "rl":
                                row["extra_info"] = {**row["extra_info"], "index": i}
                            writers[(f"{view}-g{g}", split)].add(encode_row(row, f"{view}-g{g}"))
            written, counts = close_writers(writers, staging)
            files.update(written)
            rows.update(counts)
        tried.close()
        plan = schedule(lineages, config.generations)
        manifest = {
            **dataset.manifest,
            "command": portable_command("\n".join(c for c in (dataset.manifest.get("command", ""),
                                                               regenerate_command(src, out, config)) if c)),
            "evolution": {**asdict(config), "source": portable_path(str(src)), "schedule": plan,
                          "tried": _sum(lineages, "tried"), "kept": _sum(lineages, "kept"), "rejected": _sum(lineages, "rejected")},
            "rows": dict(sorted(rows.items())),
            "files": dict(sorted(files.items())),
        }
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        (staging / "schedule.json").write_text(json.dumps(plan, indent=2, sort_keys=True) + "\n")
        examples = {}
        for name in sorted({k.split("/")[0] for k in rows}):
            if not (staging / name).is_dir():  # a generation that kept no task of this kind has no shards
                continue
            first = next(iter_rows(staging, name), None)
            if first is not None:
                examples[name] = first
        write_card(staging, manifest, examples)
        publish(staging, out)
    except BaseException:
        tried.close()
        discard(staging)
        raise
    return manifest


def _sum(lineages: list[Lineage], attr: str) -> dict[str, int]:
    total: dict[str, int] = {}
    for lineage in lineages:
        for key, n in getattr(lineage, attr).items():
            total[key] = total.get(key, 0) + n
    return dict(sorted(total.items()))


def regenerate_command(src: Path, out: Path, config: EvolveConfig) -> str:
    """The command that writes this evolved dataset again."""
    tasks = f" --tasks {config.tasks}" if config.tasks is not None else ""
    return (f"covert evolve {src} --out {out} --generations {config.generations} --seed {config.seed} --k {config.k} "
            f"--skill {config.skill}{tasks}")
