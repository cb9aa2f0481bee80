"""The one checked way into a dataset directory: every command that reads one opens it here first.

:func:`open_dataset` checks, in this order, and stops at the first file that fails:

1. ``manifest.json`` parses and has the shape covert writes (``files``: shard path -> sha256,
   ``rows``: ``config/split`` -> count);
2. the shards on disk are the manifest's: none missing (nor a whole config folder), none extra;
3. each shard's sha256 is the manifest's;
4. each shard has a readable Parquet footer with its config's columns, and the shards of each
   ``config/split`` hold the rows the manifest counts;
5. ``README.md`` is there and its ``configs:`` header is what ``datasets.load_dataset`` needs
   (:func:`covert.io.card.check_card`), with an entry for every config.

A failure is a :class:`~covert.io.reader.DatasetError` whose message is one line: the file, what is
wrong with it and what to do. Rows are then read with :mod:`covert.io.reader`, which turns a page that
cannot be decoded (damage a footer does not show) into the same kind of one-line error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from covert.io.reader import DatasetError, load_manifest

__all__ = ["CheckedDataset", "Problem", "card_problems", "check_manifest", "dataset_problems", "open_dataset",
           "shard_problems"]

_SHARD = re.compile(r"(?P<config>[A-Za-z0-9][\w.-]*)/(?P<split>[A-Za-z0-9][\w-]*?)-\d{5}-of-\d{5}\.parquet")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_ROWS_KEY = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w-]*")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a dataset: the file (relative to the dataset), what, and what to do."""

    path: str
    what: str
    fix: str

    def line(self, root: Path) -> str:
        """The one-line message, with the file's path as given (``root/path``)."""
        where = str(root / self.path) if self.path else str(root)
        return f"{where}{self.what}; {self.fix}"


@dataclass(frozen=True)
class CheckedDataset:
    """A dataset directory that passed :func:`open_dataset`: its root, manifest and configs."""

    root: Path
    manifest: dict[str, Any]

    @property
    def configs(self) -> tuple[str, ...]:
        """The configs the manifest counts rows for, sorted."""
        return configs_in(self.manifest)

    def shards(self, config: str) -> list[str]:
        """The manifest's shards of ``config`` (relative paths, sorted)."""
        return sorted(rel for rel in self.manifest["files"] if rel.split("/", 1)[0] == config)


def configs_in(manifest: dict[str, Any]) -> tuple[str, ...]:
    """The configs of a (shape-checked) manifest: those it counts rows for or lists shards of."""
    named = {key.split("/", 1)[0] for key in manifest.get("rows", {})}
    named |= {rel.split("/", 1)[0] for rel in manifest.get("files", {})}
    return tuple(sorted(named))


def _rebuild(root: Path) -> str:
    return f"restore it from a good copy, or rebuild the dataset (`covert regenerate {root} --out NEW`)"


def check_manifest(manifest: Any, where: str = "manifest.json") -> None:
    """Raise :class:`DatasetError` unless ``manifest`` has the shape covert writes (``where`` names it)."""
    fix = "restore manifest.json from a good copy of the dataset (it is what rebuilds and checks it)"
    if not isinstance(manifest, dict):
        raise DatasetError(f"{where} holds a JSON {type(manifest).__name__}, not an object; {fix}")
    files, rows = manifest.get("files"), manifest.get("rows")
    if not isinstance(files, dict) or not files:
        raise DatasetError(f"{where}: `files` must be an object of shard path -> sha256 (found "
                           f"{_kind(files)}); {fix}")
    for rel, digest in files.items():
        if not _SHARD.fullmatch(rel) or ".." in rel:
            raise DatasetError(f"{where}: `files` names {rel[:80]!r}, not a shard CONFIG/SPLIT-NNNNN-of-NNNNN.parquet; "
                               f"{fix}")
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise DatasetError(f"{where}: the sha256 of {rel} is not 64 hex digits; {fix}")
    if not isinstance(rows, dict):
        raise DatasetError(f"{where}: `rows` must be an object of config/split -> row count (found {_kind(rows)}); "
                           f"{fix}")
    for key, count in rows.items():
        if not _ROWS_KEY.fullmatch(key) or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise DatasetError(f"{where}: `rows` entry {key[:80]!r}: {str(count)[:20]} is not a config/split row count; "
                               f"{fix}")
    for rel in files:
        match = _SHARD.fullmatch(rel)
        if f"{match['config']}/{match['split']}" not in rows:
            raise DatasetError(f"{where}: {rel} belongs to no `rows` entry; {fix}")
    for name in ("config", "builders", "summary"):
        if name in manifest and not isinstance(manifest[name], dict):
            raise DatasetError(f"{where}: `{name}` must be an object (found {_kind(manifest[name])}); {fix}")


def _kind(value: Any) -> str:
    return "nothing" if value is None else f"a {type(value).__name__}" if value != {} else "an empty object"


def read_checked_manifest(root: Path) -> dict[str, Any]:
    """``root/manifest.json``, parsed and shape-checked (:class:`DatasetError` otherwise)."""
    manifest = load_manifest(root)
    check_manifest(manifest, str(root / "manifest.json"))
    return manifest


def shard_problems(root: Path, manifest: dict[str, Any]) -> list[Problem]:
    """What differs between the shards on disk and the manifest: missing and extra shards, sha256,
    unreadable footers, columns and row counts (in that order)."""
    from covert.io.features import features_for
    from covert.io.parquet import sha256_file

    files: dict[str, str] = manifest["files"]
    problems: list[Problem] = []
    configs = configs_in(manifest)
    for config in configs:
        listed = [rel for rel in files if rel.split("/", 1)[0] == config]
        if listed and not (root / config).is_dir():
            problems.append(Problem(config, f" is missing (manifest.json lists {len(listed)} shards in it)",
                                    _rebuild(root).replace("restore it", "restore the folder")))
    gone = {p.path for p in problems}
    for rel in sorted(files):
        if rel.split("/", 1)[0] not in gone and not (root / rel).is_file():
            problems.append(Problem(rel, " is missing (manifest.json lists it)", _rebuild(root)))
    for rel in _present(root):
        if rel not in files:
            problems.append(Problem(rel, " is not in manifest.json (datasets.load_dataset would read its rows too)",
                                    "remove it, or rebuild the dataset with `covert regenerate`"))
    whole = [rel for rel in sorted(files) if (root / rel).is_file()]
    intact = []
    for rel in whole:
        if sha256_file(root / rel) != files[rel]:
            problems.append(Problem(rel, " does not match its manifest hash (the sha256 in manifest.json: changed "
                                         "or damaged after it was written)", _rebuild(root)))
        else:
            intact.append(rel)
    counted: dict[str, int] = {}
    spoiled = {p.path.split("/", 1)[0] for p in problems}
    for rel in intact:
        config = rel.split("/", 1)[0]
        footer = _footer(root / rel)
        if isinstance(footer, str):
            problems.append(Problem(rel, f" is not a readable Parquet file ({footer})", _rebuild(root)))
            spoiled.add(config)
            continue
        names, rows = footer
        wanted = set(features_for(config))
        if set(names) != wanted:
            odd = sorted(set(names) ^ wanted)
            problems.append(Problem(rel, f" does not have the columns of a {config} config ({', '.join(odd[:4])})",
                                    _rebuild(root)))
            spoiled.add(config)
            continue
        key = _SHARD.fullmatch(rel)
        split_key = f"{key['config']}/{key['split']}"
        counted[split_key] = counted.get(split_key, 0) + rows
    for key, count in sorted(manifest["rows"].items()):
        config, split = key.split("/", 1)
        if config not in spoiled and counted.get(key, 0) != count:
            problems.append(Problem(config, f": its {split} shards hold {counted.get(key, 0)} rows, manifest.json "
                                    f"counts {count}", _rebuild(root)))
    return problems


def _present(root: Path) -> list[str]:
    """Parquet files in the dataset's (non-hidden) config folders, relative, sorted."""
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        out += [f"{folder.name}/{p.name}" for p in sorted(folder.glob("*.parquet"))]
    return out


def _footer(path: Path) -> tuple[list[str], int] | str:
    """A shard's column names and row count from its footer, or why the footer cannot be read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
        return list(parquet.schema_arrow.names), parquet.metadata.num_rows
    except (pa.ArrowException, OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
        return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def card_problems(root: Path, manifest: dict[str, Any]) -> list[Problem]:
    """What keeps ``datasets.load_dataset(root, CONFIG)`` from reading the configs through the card."""
    from covert.io.card import check_card

    fix = (f"`datasets.load_dataset({str(root)!r}, CONFIG)` reads the configs from it: restore it from a good copy, "
           f"or rebuild the dataset (`covert regenerate {root} --out NEW`)")
    path = root / "README.md"
    if not path.is_file():
        return [Problem("README.md", " is missing", fix)]
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [Problem("README.md", f" cannot be read ({type(exc).__name__})", fix)]
    found = check_card(text, root)
    if found:
        return [Problem("README.md", f": {found[0][:200]}", fix)]
    listed = _card_configs(text)
    return [Problem("README.md", f" has no `configs:` entry for config {config}", fix)
            for config in configs_in(manifest) if any(manifest["rows"].get(f"{config}/{s}") for s in _splits(manifest, config))
            and config not in listed]


def _splits(manifest: dict[str, Any], config: str) -> list[str]:
    return [key.split("/", 1)[1] for key in manifest["rows"] if key.split("/", 1)[0] == config]


def _card_configs(text: str) -> set[str]:
    from huggingface_hub import DatasetCard

    configs = DatasetCard(text).data.to_dict().get("configs") or []
    return {entry.get("config_name") for entry in configs if isinstance(entry, dict)}


def dataset_problems(root: str | Path, card: bool = True) -> tuple[dict[str, Any], list[Problem]]:
    """The manifest and every problem of a dataset directory (a bad manifest raises: nothing can be
    compared without it). For callers that report all problems instead of stopping at the first."""
    from covert.io.staging import restore

    root = Path(root)
    restore(root)
    if not root.is_dir():
        if root.exists():
            raise DatasetError(f"{root} is a file, not a dataset directory; give the folder `covert build` wrote")
        raise DatasetError(f"{root} is not a covert dataset (no manifest.json: it does not exist); give a dataset "
                           "directory written by `covert build`")
    manifest = read_checked_manifest(root)
    problems = shard_problems(root, manifest)
    if card:
        problems += card_problems(root, manifest)
    return manifest, problems


def open_dataset(root: str | Path, card: bool = True) -> CheckedDataset:
    """Check a dataset directory (see the module docstring) and return it; raises
    :class:`DatasetError` with one line naming the first file that fails and what to do.

    ``card=False`` skips the README check, for callers that read shards only and never hand the folder
    to ``datasets`` (none of the commands does)."""
    root = Path(root)
    manifest, problems = dataset_problems(root, card)
    if problems:
        others = len(problems) - 1
        more = f" ({others} more {'problem' if others == 1 else 'problems'})" if others else ""
        raise DatasetError(problems[0].line(root) + more)
    return CheckedDataset(root, manifest)
