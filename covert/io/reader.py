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
    """The dataset's ``manifest.json``, parsed (its shape is checked by :mod:`covert.io.checked`)."""
    path = Path(root) / "manifest.json"
    if not path.is_file():
        raise DatasetError(f"{root} is not a covert dataset (no manifest.json); build one with `covert build`")
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{path} cannot be read ({exc.strerror or type(exc).__name__})") from None
    return parse_manifest(text, str(path))


def parse_manifest(text: str | bytes, where: str) -> Any:
    """Parse a manifest's text; :class:`DatasetError` naming ``where`` if it is not JSON."""
    fix = "restore manifest.json from a good copy of the dataset (it is what rebuilds and checks it)"
    try:
        return json.loads(text)
    except UnicodeDecodeError:
        raise DatasetError(f"{where} is not UTF-8 text; {fix}") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{where} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                           f"{fix}") from None
    except RecursionError:
        raise DatasetError(f"{where} is nested too deeply to be a manifest; {fix}") from None


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
    """Rows of a config, decoded, shard by shard (streaming). A shard that cannot be read or decoded
    raises :class:`DatasetError` naming it (check the directory first with
    :func:`covert.io.checked.open_dataset`)."""
    for _, row, _ in _rows(root, config, split, check_loadable=False):
        yield row


def iter_shard_rows(root: str | Path, config: str, split: str | None = None,
                    check_loadable: bool = False) -> Iterator[tuple[Path, dict[str, Any], list[str]]]:
    """``(shard path, row, problems)`` for each row of a config (one split or all), like
    :func:`iter_rows`; with ``check_loadable``, ``problems`` is what :func:`iter_checked_rows` reports."""
    yield from _rows(root, config, split, check_loadable)


def iter_checked_rows(root: str | Path, config: str) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """``(row, problems)`` for each row of a config: ``problems`` names each stored number that
    ``datasets.load_dataset`` would read back as another value (``"messages: 0.3"``)."""
    for _, row, problems in _rows(root, config, None, check_loadable=True):
        yield row, problems


def _rows(root: str | Path, config: str, split: str | None,
          check_loadable: bool) -> Iterator[tuple[Path, dict[str, Any], list[str]]]:
    if not (Path(root) / config).is_dir():
        raise DatasetError(f"{root} has no config {config!r}; see the configs in its README.md")
    features = features_for(config)
    for path in shard_paths(root, config, split):
        for number, raw in enumerate(_raw_rows(path)):
            try:
                problems = _unloadable(raw, features) if check_loadable else []
                row = {k: _decode(raw.get(k), f) for k, f in features.items()}
            except (ValueError, TypeError, RecursionError) as exc:  # orjson.JSONDecodeError is a ValueError
                raise DatasetError(f"{path}: row {number} does not decode ({type(exc).__name__}); the shard is "
                                   "damaged: restore it from a good copy, or rebuild the dataset "
                                   f"(`covert regenerate {root} --out NEW`)") from None
            yield path, row, problems


def _raw_rows(path: Path) -> Iterator[dict[str, Any]]:
    """A shard's rows as stored; a shard Arrow cannot read or decompress raises :class:`DatasetError`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    batches = None
    while True:
        try:
            if batches is None:
                batches = pq.ParquetFile(path).iter_batches(batch_size=512)
            rows = next(batches).to_pylist()
        except StopIteration:
            return
        except (pa.ArrowException, OSError, ValueError) as exc:
            detail = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
            raise DatasetError(f"{path} cannot be read ({type(exc).__name__}{': ' + detail if detail else ''}); the "
                               "shard is damaged: restore it from a good copy, or rebuild the dataset with "
                               "`covert regenerate`") from None
        yield from rows


def _unloadable(raw: dict[str, Any], features: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for name, feature in features.items():
        value = raw.get(name) if isinstance(raw, dict) else None
        if feature.get("_type") == "Json" and isinstance(value, (str, bytes)):
            out += [f"{prefix}{name}: {number}" for number in unsafe_numbers(value)]
        elif feature.get("_type") is None and isinstance(value, dict):
            out += _unloadable(value, feature, f"{prefix}{name}.")
    return out
