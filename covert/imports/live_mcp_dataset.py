"""Write live-MCP tasks as a dataset: ``sft/`` and ``rl/`` Parquet shards (covert's row features, so
``datasets.load_dataset(DIR, "rl")`` reads them back as written), a card, and ``manifest.json`` (counts,
rejections, the sandbox in use, every shard's sha256 in covert's manifest shape, so ``covert validate DIR``
checks the rows), published atomically. The same seed and task
count give the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import covert
from covert.imports.live_mcp import sandbox_mode
from covert.imports.live_mcp_tasks import NAME, make_tasks, task_rows

ROWS_PER_SHARD = 10_000


def write_dataset(out: str | Path, num_tasks: int, seed: int = 0, overwrite: bool = False,
                  workers: int = 1, progress: bool = False) -> dict[str, Any]:
    """Synthesize ``num_tasks`` verified tasks on the live git server into ``out`` (``workers`` tasks at
    once; the bytes do not depend on it); returns the manifest. ``progress`` draws a bar (on a terminal)."""
    from covert.env import get_builder
    from covert.io.parquet import ShardWriter, close_writers, encode_row
    from covert.io.staging import discard, prepare_output, publish

    if num_tasks < 1:
        raise ValueError("--num-tasks must be at least 1")
    out = Path(out)
    staging = prepare_output(out, overwrite)
    try:
        tasks, rejected = make_tasks(seed, num_tasks, workers=workers, progress=progress)
        writers = {config: ShardWriter(staging, config, "train", ROWS_PER_SHARD) for config in ("sft", "rl")}
        for index, task in enumerate(tasks):
            sft, rl = task_rows(task, index)
            writers["sft"].add(encode_row(sft, "sft"))
            writers["rl"].add(encode_row(rl, "rl"))
        shards, counts = close_writers(writers, staging)
        isolated, warning = sandbox_mode()
        builder = get_builder(NAME)
        manifest = {"covert_version": covert.__version__, "environment": NAME, "builder_version": builder.version,
                    "seed": seed, "num_tasks": num_tasks, "tasks": len(tasks), "rejected": dict(sorted(rejected.items())),
                    "kinds": _kinds(tasks), "sandbox": "bubblewrap" if isolated else "none", "warning": warning,
                    "license": builder.license, "sources": list(builder.sources), "files": shards, "rows": counts}
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        (staging / "README.md").write_text(_card(manifest, staging))
        publish(staging, out)
    except BaseException:
        discard(staging)
        raise
    return manifest


def _card(manifest: dict[str, Any], root: Path) -> str:
    """The dataset card: covert's Hub metadata (configs, sizes, ``dataset_info``, so ``load_dataset(DIR,
    "rl")`` and ``covert validate DIR`` read it) and where the rows come from."""
    from covert.io.card import card_data

    data = card_data({"rows": manifest["rows"], "files": manifest["files"], "config": {"license": manifest["license"]},
                      "summary": {"accepted": manifest["tasks"]}}, root)
    kinds = ", ".join(f"{k.removeprefix('live:')} {v}" for k, v in manifest["kinds"].items())
    sandbox = "under bubblewrap (no network; only the repository and /tmp writable)" if manifest["sandbox"] == \
        "bubblewrap" else f"WITHOUT the sandbox: {manifest['warning']}"
    return (f"---\n{data.to_yaml()}\n---\n\n# {manifest['environment']} tasks on a live MCP server\n\n"
            f"{manifest['tasks']} tasks (seed {manifest['seed']}; {kinds}) synthesized against "
            f"{'; '.join(manifest['sources'])}, each on a freshly seeded repository, the server run {sandbox}. "
            "Every task was replayed in a second episode, on a freshly written repository, with the same outputs and "
            "final-state hash. "
            f"Environment version {manifest['builder_version']}. Made with covert {manifest['covert_version']}: "
            "`covert live-mcp replay DIR` replays and scores every row again.\n")


def _kinds(tasks: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for task in tasks:
        counts[task.method] = counts.get(task.method, 0) + 1
    return dict(sorted(counts.items()))


def data_files(root: str | Path) -> dict[str, list[str]]:
    """The Parquet files of each config (for ``load_dataset("parquet", data_files=...)``)."""
    root = Path(root)
    return {config: sorted(str(p) for p in (root / config).glob("*.parquet")) for config in ("sft", "rl")}
