"""Difficulty calibration (EvoEnv's solver-relative difficulty, EnvFactory's pass@k label): each task's
pass rate under a policy, written into every config's rows as ``pass_rate`` and ``calibration``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from covert.io.card import write_card
from covert.io.checked import open_dataset
from covert.io.parquet import sha256_file
from covert.io.portable import portable_command
from covert.io.reader import DatasetError, iter_rows
from covert.io.staging import discard, prepare_output, publish
from covert.rollouts.policies import ScriptedPolicy, parse_policy_spec
from covert.rollouts.runner import run

PASS = 1.0


def task_passes(item: tuple[dict[str, Any], float, int, int]) -> int:
    """Passes out of ``k`` rollouts of one task ``(row, error_rate, seed, k)`` under the scripted policy
    (a rollout passes when its reward is 1): the unit of work of :func:`calibrate` on every engine."""
    row, error_rate, seed, k = item
    return sum(1 for j in range(k)
               if run(ScriptedPolicy(row, error_rate=error_rate, seed=seed * 1_000_003 + j), row).reward.value >= PASS)


def frontier(rows: list[dict[str, Any]], low: float = 0.2, high: float = 0.8) -> list[dict[str, Any]]:
    """Rows whose calibrated pass rate lies in ``[low, high]`` (the learnable frontier)."""
    return [r for r in rows if r.get("pass_rate") is not None and low <= r["pass_rate"] <= high]


def calibrate(root: str | Path, policy: str = "scripted", k: int = 8, seed: int = 0,
              out: str | Path | None = None, overwrite: bool = False, progress: bool = False, workers: int = 1,
              engine: str = "local", ray_address: str | None = None) -> dict[str, Any]:
    """Calibrate a dataset directory; writes to ``out`` (or replaces ``root``) atomically. Returns the
    calibration summary recorded in the manifest. ``progress`` draws a bar of the tasks rolled out. The
    rollouts run on ``workers`` local processes (``engine="local"``) or as Ray Data tasks (``engine="ray"``,
    on local Ray or the cluster at ``ray_address``): the same bytes either way."""
    if k <= 0:
        raise ValueError("--k must be a positive integer")
    _, error_rate = parse_policy_spec(policy)
    root = Path(root)
    dataset = open_dataset(root)
    manifest, configs = dataset.manifest, dataset.configs
    source = "rl-multiturn" if "rl-multiturn" in configs else "rl"
    if source not in configs:
        from covert.io.kinds import does_not_apply

        raise ValueError(does_not_apply("calibrate", root, manifest, "tool datasets with an rl config (covert build, "
                                        "covert live-mcp)", "a procedural environment's difficulty is its --level "
                                        "and --config knobs (`covert list` shows them)"))
    rows = list(iter_rows(root, source))
    from covert.progress import tracked
    from covert.scale.engine import open_pool, ordered_map

    pool = open_pool(engine, workers, ray_address=ray_address)
    try:
        counts = ordered_map(task_passes, ((row, error_rate, seed, k) for row in rows), pool, chunksize=8)
        passes = {row["task_id"]: n for row, n in zip(rows, tracked(counts, len(rows), unit="task", desc="calibrate",
                                                                      enabled=progress), strict=True)}
    finally:
        if pool is not None:
            pool.close()
    record = {"policy": policy, "k": k, "seed": seed, "source_config": source}
    target = Path(out) if out is not None else root
    staging = prepare_output(target, overwrite=True if out is None else overwrite)
    try:
        files: dict[str, str] = {}
        for config in configs:
            for rel in dataset.shards(config):
                shard = root / rel
                (staging / config).mkdir(parents=True, exist_ok=True)
                _rewrite(shard, staging / rel, passes, k, record)
                files[rel] = sha256_file(staging / rel)
        rates = [p / k for p in passes.values()]
        summary = {**record, "tasks": len(rates), "mean_pass_rate": round(sum(rates) / len(rates), 4) if rates else 0.0}
        manifest = {**manifest, "files": dict(sorted(files.items())), "calibration": summary,
                    "command": _with_calibrate_line(manifest.get("command", ""), root, record, out)}
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        examples = {c: next(iter_rows(staging, c)) for c in configs}
        write_card(staging, manifest, examples)
        publish(staging, target)
    except BaseException:
        discard(staging)
        raise
    return summary


def _with_calibrate_line(command: str, root: Path, record: dict[str, Any], out: str | Path | None) -> str:
    """The manifest's command lines with this calibration's last (it replaces a calibration recorded last: a
    new one rewrites every pass rate), so ``covert regenerate`` can repeat it; local paths are recorded by
    their last component (:func:`covert.io.portable.portable_command`)."""
    lines = [line for line in str(command or "").splitlines() if line]
    if lines and lines[-1].startswith("covert calibrate "):
        lines.pop()
    where = f" --out {shlex.quote(str(out))}" if out is not None else ""
    lines.append(f"covert calibrate {shlex.quote(str(root))} --policy {shlex.quote(str(record['policy']))} "
                 f"--k {record['k']} --seed {record['seed']}{where}")
    return portable_command("\n".join(lines))


def _rewrite(src: Path, dst: Path, passes: dict[str, int], k: int, record: dict[str, Any]) -> None:
    try:
        table = pq.read_table(src)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DatasetError(f"{src} cannot be read ({type(exc).__name__}); the shard is damaged: restore it from a "
                           "good copy, or rebuild the dataset with `covert regenerate`") from None
    ids = table.column("task_id").to_pylist()
    rates = [passes[i] / k if i in passes else None for i in ids]
    info = [orjson.dumps({**record, "passes": passes[i]}).decode() if i in passes else None for i in ids]
    schema = table.schema
    table = table.set_column(schema.get_field_index("pass_rate"), schema.field("pass_rate"), pa.array(rates, pa.float64()))
    calibration = pa.ExtensionArray.from_storage(pa.json_(), pa.array(info, pa.string()))
    table = table.set_column(schema.get_field_index("calibration"), schema.field("calibration"), calibration)
    pq.write_table(table, dst, compression="zstd", row_group_size=1000, write_statistics=False, store_schema=False)
