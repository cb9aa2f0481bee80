"""``covert evolve``: a dataset's tool tasks evolved generation by generation, written as dataset configs.

The output holds the source's ``sft`` and ``rl`` configs as they are, plus ``sft-g<G>`` / ``rl-g<G>`` per
generation (rows carry a ``generation`` column, their structural measures and, with an LLM, its pass@k as
``pass_rate``), and ``schedule.json``: which generation trains at which stage and the mean structural
measures of each generation. The card's "Evolution" section shows the measures rising.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from covert.build import SPLITS
from covert.errors import UsageError
from covert.evolve.evolution import Lineage, evolve_tool_tasks
from covert.io.portable import portable_command, portable_path

REPLAY_SHARE = 0.25


class EvolveError(UsageError):
    """Bad input to ``covert evolve`` (one line, says what to do)."""


@dataclass(frozen=True)
class EvolveConfig:
    """Everything that determines an evolved dataset."""

    generations: int = 4
    seed: int = 0
    k: int = 4  # LLM rollouts per task for pass@k (with an LLM)
    tasks: int | None = None  # base tasks per split (default: all)
    rows_per_shard: int = 5000
    llm: str | None = None  # the LLM spec whose pass@k is measured (recorded; the backend is passed apart)

    def validate(self) -> None:
        """Raise :class:`EvolveError` on bad values."""
        if self.generations < 1:
            raise EvolveError("--generations must be at least 1")
        if self.k < 1:
            raise EvolveError("--k must be at least 1")
        if self.tasks is not None and self.tasks < 1:
            raise EvolveError("--tasks must be at least 1")


def llm_pass_rate(backend: Any, k: int, seed: int = 0) -> Any:
    """pass@k of an LLM policy on a pair's RL row: whether any of ``k`` sampled rollouts earns reward 1."""
    from covert.rollouts.policies import BackendPolicy
    from covert.rollouts.runner import run

    def rate(pair: Any) -> float:
        return float(any(run(BackendPolicy(backend, temperature=1.0, seed=seed + j), pair.rl).reward.value >= 1.0
                         for j in range(k)))

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
    """The generations of an evolved dataset of tool tasks, their mean structural measures (and LLM pass@k)
    and when each trains."""
    rows = []
    for g in range(generations):
        members = [m for lin in lineages for m in lin.generations[g]]
        names = sorted({n for m in members for n in m.measures})
        measures = {n: round(sum(m.measures[n] for m in members) / len(members), 4) for n in names} if members else {}
        rates = [m.pass_rate for m in members if m.pass_rate is not None]
        kinds = [len(m.pair.sft.get("augmentations") or []) for m in members]
        rows.append({"generation": g, "configs": [f"sft-g{g}", f"rl-g{g}"], "tasks": len(members),
                     "directions": dict(sorted(_count(m.direction for m in members if m.direction).items())),
                     "structure": measures, "stacked": dict(sorted(_count(str(n) for n in kinds).items())),
                     "llm_pass_rate": round(sum(rates) / len(rates), 4) if rates else None})
    for earlier, later in pairwise(rows):
        later["moved"] = {n: [earlier["structure"].get(n), v] for n, v in later["structure"].items()
                          if v != earlier["structure"].get(n)}
    return {"generations": rows, "stages": training_stages([f"rl-g{g}" for g in range(generations)])}


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out


def evolution_card_section(plan: dict[str, Any]) -> str:
    """The card's "Evolution" section: per generation, the tasks, the mean structural measures (those that
    moved from the generation before in bold), how many augmentations are stacked, and the LLM's pass@k."""
    names = sorted({n for g in plan["generations"] for n in g["structure"]})
    lines = ["", "## Evolution", "",
             "Each generation's tasks are the previous generation's made harder along one direction (horizon: a "
             "longer task; constraints: a value held back, an indirect request, a failing call; observations: "
             "distractor tools, noisy outputs), kept only when the row still validates and the direction's "
             "structural measures rose (with `--llm`: and the LLM's pass@k did not). Augmentations stack.", "",
             "| generation | tasks | " + " | ".join(names) + " | stacked kinds per task | LLM pass@k |",
             "|---|---|" + "---|" * len(names) + "---|---|"]
    for g in plan["generations"]:
        moved = g.get("moved", {})
        cells = [f"**{g['structure'][n]:g}**" if n in moved else f"{g['structure'].get(n, 0):g}" for n in names]
        stacked = ", ".join(f"{k}: {v}" for k, v in g["stacked"].items())
        rate = "-" if g["llm_pass_rate"] is None else f"{g['llm_pass_rate']:.2f}"
        lines.append(f"| {g['generation']} | {g['tasks']} | " + " | ".join(cells) + f" | {stacked} | {rate} |")
    return "\n".join(lines) + "\n"


def evolve_dataset(src: str | Path, out: str | Path, config: EvolveConfig, overwrite: bool = False,
                   backend: Any = None, progress: bool = False) -> dict[str, Any]:
    """Write the evolved dataset of ``src`` to ``out`` (atomically); returns its manifest. With ``backend``
    (an LLM), its pass@k over ``config.k`` rollouts is measured on every task and judges the mutants too;
    ``progress`` then draws a bar of the tasks and mutants it was run on."""
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
    from covert.progress import bar

    tried = bar(unit="task", desc="evolve", enabled=progress and backend is not None)
    measured = llm_pass_rate(backend, config.k, config.seed) if backend is not None else None

    def counted(pair: Any) -> float:
        tried.update(1)
        return measured(pair)

    rate = counted if measured is not None else None
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
                lineage = evolve_tool_tasks(list(row_pairs(src, split)), config.generations, seed=config.seed,
                                            tasks=config.tasks, pass_rate=rate)
                lineages.append(lineage)
                for g, members in enumerate(lineage.generations):
                    for i, member in enumerate(members):
                        calibration = {"policy": f"llm:{config.llm}" if backend is not None else None,
                                       "k": config.k if backend is not None else None, "parent": member.parent,
                                       "direction": member.direction, "config": member.config,
                                       "structure": member.measures}
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
        card = staging / "README.md"
        card.write_text(card.read_text() + evolution_card_section(plan))
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
    llm = f" --llm {config.llm} --k {config.k}" if config.llm else ""
    return f"covert evolve {src} --out {out} --generations {config.generations} --seed {config.seed}{tasks}{llm}"
