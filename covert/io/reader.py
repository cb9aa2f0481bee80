"""Reading a covert dataset directory back: rows with their JSON columns decoded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from covert.io.features import features_for
from covert.io.loader_safe import unsafe_numbers


class DatasetError(ValueError):
    """A dataset directory that cannot be read; the message says what to do."""


def load_manifest(root: str | Path) -> dict[str, Any]:
    """The dataset's ``manifest.json``."""
    path = Path(root) / "manifest.json"
    if not path.is_file():
        raise DatasetError(f"{root} is not a covert dataset (no manifest.json); build one with `covert build`")
    return json.loads(path.read_text())


def shard_paths(root: str | Path, config: str, split: str | None = None) -> list[Path]:
    """The Parquet shards of a config (optionally one split), sorted."""
    pattern = f"{split}-*.parquet" if split else "*.parquet"
    return sorted((Path(root) / config).glob(pattern))


def _decode(value: Any, feature: dict[str, Any]) -> Any:
    if feature.get("_type") == "Json":
        return orjson.loads(value) if isinstance(value, (str, bytes)) else value
    if feature.get("_type") is None and isinstance(value, dict):
        return {k: _decode(value.get(k), f) for k, f in feature.items()}
    return value


def iter_rows(root: str | Path, config: str, split: str | None = None) -> Iterator[dict[str, Any]]:
    """Rows of a config, decoded, shard by shard (streaming)."""
    for row, _ in _rows(root, config, split, check_loadable=False):
        yield row


def iter_checked_rows(root: str | Path, config: str) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """``(row, problems)`` for each row of a config: ``problems`` names each stored number that
    ``datasets.load_dataset`` would read back as another value (``"messages: 0.3"``)."""
    yield from _rows(root, config, None, check_loadable=True)


def _rows(root: str | Path, config: str, split: str | None,
          check_loadable: bool) -> Iterator[tuple[dict[str, Any], list[str]]]:
    import pyarrow.parquet as pq

    if not (Path(root) / config).is_dir():
        raise DatasetError(f"{root} has no config {config!r}; see the configs in its README.md")
    features = features_for(config)
    for path in shard_paths(root, config, split):
        parquet = pq.ParquetFile(path)
        for batch in parquet.iter_batches(batch_size=512):
            for raw in batch.to_pylist():
                problems = _unloadable(raw, features) if check_loadable else []
                yield {k: _decode(raw.get(k), f) for k, f in features.items()}, problems


def _unloadable(raw: dict[str, Any], features: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for name, feature in features.items():
        value = raw.get(name) if isinstance(raw, dict) else None
        if feature.get("_type") == "Json" and isinstance(value, (str, bytes)):
            out += [f"{prefix}{name}: {number}" for number in unsafe_numbers(value)]
        elif feature.get("_type") is None and isinstance(value, dict):
            out += _unloadable(value, feature, f"{prefix}{name}.")
    return out
