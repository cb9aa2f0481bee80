"""``covert validate``: re-check every row of a dataset directory, independently of the build."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Any

from covert.augment.verify import is_augmented, validate_augmented_row
from covert.errors import Invalid
from covert.io.checked import open_dataset
from covert.io.features import kind_of
from covert.io.reader import DatasetError, SharedCells, iter_checked_rows
from covert.procgen.validate import is_procgen_config, validate_procgen_row
from covert.validation import validate_row


@dataclass
class Report:
    """Outcome of validating a dataset directory."""

    rows: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def reasons(self) -> Counter[str]:
        return Counter(reason for _, _, reason in self.failures)


def validate_dataset(root: str | Path, configs: tuple[str, ...] | None = None, limit_failures: int = 1000,
                     progress: bool = False, workers: int = 1, engine: str = "local",
                     ray_address: str | None = None) -> Report:
    """Validate a dataset directory: first the folder itself through
    :func:`~covert.io.checked.open_dataset` (manifest, shard list, sha256, footers, the card
    ``datasets.load_dataset`` needs), which raises :class:`~covert.io.reader.DatasetError` on the first
    file that fails; then every row of every config (L1-L3 plus replay), reported in the returned
    :class:`Report`. ``progress`` draws a bar of the rows checked (on a terminal). The rows are checked
    on ``workers`` local processes (``engine="local"``) or as Ray Data tasks (``engine="ray"``, on local
    Ray or the cluster at ``ray_address``); the report is the same either way."""
    from covert.progress import tracked
    from covert.scale.engine import open_pool, ordered_map

    root = Path(root)
    dataset = open_dataset(root)
    _check_builders(root, dataset.manifest)
    configs = configs or dataset.configs
    report = Report()
    ids: dict[str, set[str]] = {config: set() for config in configs}
    bases: dict[str, set[str]] = {}
    failed: dict[str, list[tuple[str, str, str]]] = {config: [] for config in configs}
    shared = SharedCells()  # the rows are only read: equal long cells (tools, initial states) decode once

    def items(config: str) -> Iterator[tuple[str, dict[str, Any], list[str]]]:
        for row, unloadable in iter_checked_rows(root, config, shared):
            report.rows[config] += 1
            ids[config].add(row["task_id"])
            if row.get("base_task_id"):
                bases.setdefault(config, set()).add(row["base_task_id"])
            yield config, row, unloadable

    pool = open_pool(engine, workers, ray_address=ray_address)
    try:
        for group in _view_groups(configs):
            total = sum(n for key, n in dataset.manifest["rows"].items() if key.split("/", 1)[0] in group)
            rows = tracked(_alternating([items(config) for config in group]), total,
                           desc=f"validate {'+'.join(sorted(group, key=lambda c: c.startswith('rl')))}", enabled=progress)
            for failures in ordered_map(row_failures, rows, pool, chunksize=32):
                for failure in failures:
                    if len(failed[failure[0]]) < limit_failures:
                        failed[failure[0]].append(failure)
    finally:
        if pool is not None:
            pool.close()
    report.rows = Counter({config: report.rows[config] for config in configs if config in report.rows})
    for config in configs:  # config by config, in order, as many as the limit leaves room for
        report.failures.extend(failed[config][:max(0, limit_failures - len(report.failures))])
    for first, second in _VIEWS:
        if first in ids and second in ids and ids[first] != ids[second]:
            report.failures.append((f"{first}/{second}", "", "configs_hold_different_tasks"))
    for config, wanted in bases.items():
        if "sft" in ids and wanted - ids["sft"]:
            report.failures.append((config, "", "base_row_missing"))
    return report


# configs that must hold the same tasks (the SFT and the RL view of them; single- and multi-turn SFT rows)
_VIEWS = (("sft", "rl"), ("sft-multiturn", "rl-multiturn"), ("sft", "sft-multiturn"), ("sft-augmented", "rl-augmented"),
          ("sft-procgen", "rl-procgen"), ("sft-procgen-tools", "rl-procgen-tools"))
_SFT_RL = tuple(pair for pair in _VIEWS if pair[1].startswith("rl"))


def _view_groups(configs: tuple[str, ...]) -> list[tuple[str, ...]]:
    """``configs`` in groups checked together: the SFT and the RL view of the same tasks side by side (row
    by row, so a task's second view finds its oracle's replays just made: :func:`covert.validation.validate_row`),
    every other config alone; in the order of ``configs``."""
    groups: list[tuple[str, ...]] = []
    grouped: set[str] = set()
    for config in configs:
        if config in grouped:
            continue
        other = next((b if a == config else a for a, b in _SFT_RL if config in (a, b) and {a, b} <= set(configs)), None)
        groups.append((config, other) if other is not None else (config,))
        grouped.update(groups[-1])
    return groups


def _alternating(streams: list[Iterator[Any]]) -> Iterator[Any]:
    """One item of each stream in turn, until every stream is done."""
    for row in zip_longest(*streams, fillvalue=_DONE):
        yield from (item for item in row if item is not _DONE)


_DONE = object()


def row_failures(item: tuple[str, dict[str, Any], list[str]]) -> list[tuple[str, str, str]]:
    """The failures of one row of a config, as ``(config, task_id, reason)``: values
    ``datasets.load_dataset`` would read back otherwise (``unloadable``, found by the reader), then the
    first L1-L3 or replay check it fails. The unit of work of :func:`validate_dataset` on every engine."""
    config, row, unloadable = item
    failures = []
    if unloadable:  # datasets.load_dataset would hand users other values than the ones validated here
        failures.append((config, row.get("task_id", "?"), f"loader_unsafe_value: {', '.join(unloadable[:3])}"[:200]))
    try:
        if is_procgen_config(config):
            validate_procgen_row(row, config)
        else:
            (validate_augmented_row if is_augmented(row) else validate_row)(row, kind_of(config))
    except Invalid as exc:
        failures.append((config, row.get("task_id", "?"), f"{exc.reason}: {exc.detail}"[:200]))
    return failures


def _check_builders(root: Path, manifest: dict[str, Any]) -> None:
    """Every builder the manifest names must be one this covert can replay; else one line (DatasetError)."""
    from covert.env import UnknownBuilderError, get_builder

    named = manifest.get("builders", {})
    if not isinstance(named, dict):
        raise DatasetError(f"{root / 'manifest.json'}: builders is not an object of builder names; restore "
                           "manifest.json from a good copy of the dataset")
    for name in sorted(named):
        try:
            get_builder(name)
        except (UnknownBuilderError, ValueError, TypeError):
            raise DatasetError(f"{root / 'manifest.json'} names builder {str(name)[:80]!r}, which this covert does "
                               "not have; import and verify it (`covert import ...`, `covert envs verify`) or "
                               "restore manifest.json from a good copy") from None


def describe(report: Report) -> dict[str, Any]:
    """Plain-data report for printing."""
    return {"rows": dict(report.rows), "failures": len(report.failures),
            "by_reason": dict(report.reasons().most_common()), "first": report.failures[:10]}
