"""Reading a covert dataset directory back: rows with their JSON columns decoded.

A cell (one row's value of one column, e.g. a row's ``initial_state`` JSON) may hold at most
:data:`MAX_CELL_BYTES` (16 MiB) uncompressed; covert never writes more (its largest cells are a few
hundred kilobytes). A shard with a larger one is refused with one line before it is decompressed: a
value never spans Parquet pages, and every page header is read first (:mod:`covert.io.pages`) to check
that no page holds more than :data:`MAX_PAGE_BYTES` (the cell limit plus the 1 MiB pages pyarrow
writes); each batch of rows is then checked cell by cell as Arrow decoded it, before it becomes Python
objects (which cost ten times the cell and more). Reading a hostile 10 MB shard holding one 206 MB cell
took 2.2 GB (``covert validate``) and 1.7 GB (``covert score``); it is now refused in one line with
the memory of a few pages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from covert.io.features import features_for
from covert.io.loader_safe import unsafe_numbers
from covert.io.pages import PageError, largest_page

MAX_CELL_BYTES = 16 * 1024 * 1024
MAX_PAGE_BYTES = MAX_CELL_BYTES + 4 * 1024 * 1024  # pyarrow closes a page past 1 MiB; a value never splits


class DatasetError(ValueError):
    """A dataset directory that cannot be read; the message says what to do."""


def _too_big(path: Path, column: str, size: int, where: str) -> DatasetError:
    return DatasetError(f"{path}: column {column} holds {where} of {size / 2**20:.0f} MiB, over the "
                        f"{MAX_CELL_BYTES >> 20} MiB a cell may hold (covert never writes one); the shard is not "
                        "a covert dataset's: restore it from a good copy, or rebuild the dataset")


def oversized_cell(path: str | Path) -> str:
    """One line naming the column of shard ``path`` with a page (so possibly a cell) over
    :data:`MAX_PAGE_BYTES`, read from its page headers before anything is decompressed; empty when
    there is none, or when the footer cannot be read (the reader then says so)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        metadata = pq.ParquetFile(path).metadata
    except (pa.ArrowException, OSError, ValueError):
        return ""
    try:
        size, column = largest_page(path, metadata)
    except (PageError, OSError) as exc:
        return f"{path}: a page header cannot be read ({exc}); the shard is damaged: restore it from a good copy"
    return str(_too_big(Path(path), column, size, "a page")) if size > MAX_PAGE_BYTES else ""


def _longest(array: Any) -> int:
    """The longest string or binary value anywhere in an Arrow array (inside structs and lists too)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array.type, pa.BaseExtensionType):  # covert's JSON columns: text underneath
        array = array.storage
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_binary(kind) or pa.types.is_large_string(kind) \
            or pa.types.is_large_binary(kind):
        return int(pc.max(pc.binary_length(array)).as_py() or 0) if len(array) else 0
    if pa.types.is_struct(kind):
        return max((_longest(child) for child in array.flatten()), default=0)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _longest(array.flatten())
    return 0


def _check_cells(path: Path, batch: Any) -> None:
    """Refuse a batch (as Arrow decoded it, before any Python object is made) with a cell over the limit."""
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        longest = _longest(column)
        if longest > MAX_CELL_BYTES:
            raise _too_big(path, name, longest, "a cell")


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


class _Recent:
    """Values made from texts, by text, the least recently asked for forgotten first (at most ``cells``
    texts and ``size`` characters of them kept; a text over an eighth of ``size`` is made afresh each time)."""

    def __init__(self, make: Any, cells: int, size: int) -> None:
        self._make, self._cells, self._limit = make, cells, size
        self._kept: dict[str | bytes, Any] = {}
        self._size = 0

    def get(self, text: str | bytes) -> Any:
        """The value of ``text``: made now, or kept from a recent equal text."""
        if len(text) > self._limit // 8:
            return self._make(text)
        found = self._kept.pop(text, self)
        if found is self:
            found = self._make(text)
            while self._kept and (len(self._kept) >= self._cells or self._size + len(text) > self._limit):
                oldest = next(iter(self._kept))
                del self._kept[oldest]
                self._size -= len(oldest)
            self._size += len(text)
        self._kept[text] = found  # now the most recent
        return found


class SharedCells:
    """What reading long cells of the named columns gives, by their text: the decoded JSON and the numbers
    ``datasets.load_dataset`` would misread (:func:`~covert.io.loader_safe.unsafe_numbers`). The named
    columns count at any depth (``initial_state`` is an SFT column and a field of an RL row's
    ``extra_info``). Rows of one dataset repeat such cells (the tools of a builder's rows, the initial
    state of one world's tasks, in both the SFT and the RL view), so each is decoded and checked once.
    Rows read with shared cells hold the very same objects for equal texts: read-only for their consumer."""

    CELLS = 256  # texts kept (of each kind), the least recently read forgotten first
    BYTES = 16 << 20  # of text kept (of each kind); a text over an eighth of it is read afresh each time
    SHORTEST = 2048  # shorter texts are rarely repeated and cheap to read again

    def __init__(self, columns: tuple[str, ...] = ("tools", "initial_state")) -> None:
        self.columns = frozenset(columns)
        self._decoded = _Recent(orjson.loads, self.CELLS, self.BYTES)
        self._unsafe = _Recent(unsafe_numbers, self.CELLS, self.BYTES)

    def loads(self, text: str | bytes) -> Any:
        """``orjson.loads(text)``, shared with an equal text read recently."""
        return self._decoded.get(text) if len(text) >= self.SHORTEST else orjson.loads(text)

    def unsafe_numbers(self, text: str | bytes) -> list[str]:
        """:func:`~covert.io.loader_safe.unsafe_numbers` of ``text`` (a list of one's own)."""
        return list(self._unsafe.get(text)) if len(text) >= self.SHORTEST else unsafe_numbers(text)


def _decode(value: Any, feature: dict[str, Any], shared: SharedCells | None = None, name: str = "") -> Any:
    if feature.get("_type") == "Json":
        if not isinstance(value, (str, bytes)):
            return value
        return shared.loads(value) if shared is not None and name in shared.columns else orjson.loads(value)
    if feature.get("_type") is None and isinstance(value, dict):
        return {k: _decode(value.get(k), f, shared, k) for k, f in feature.items()}
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


def iter_checked_rows(root: str | Path, config: str,
                      shared: SharedCells | None = None) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """``(row, problems)`` for each row of a config: ``problems`` names each stored number that
    ``datasets.load_dataset`` would read back as another value (``"messages: 0.3"``). With ``shared``,
    equal long cells decode to one shared object (:class:`SharedCells`): the rows are then read-only."""
    for _, row, problems in _rows(root, config, None, check_loadable=True, shared=shared):
        yield row, problems


def _rows(root: str | Path, config: str, split: str | None, check_loadable: bool,
          shared: SharedCells | None = None) -> Iterator[tuple[Path, dict[str, Any], list[str]]]:
    if not (Path(root) / config).is_dir():
        raise DatasetError(f"{root} has no config {config!r}; see the configs in its README.md")
    features = features_for(config)
    for path in shard_paths(root, config, split):
        for number, raw in enumerate(_raw_rows(path)):
            try:
                problems = _unloadable(raw, features, shared=shared) if check_loadable else []
                row = {k: _decode(raw.get(k), f, shared, k) for k, f in features.items()}
            except (ValueError, TypeError, RecursionError) as exc:  # orjson.JSONDecodeError is a ValueError
                raise DatasetError(f"{path}: row {number} does not decode ({type(exc).__name__}); the shard is "
                                   "damaged: restore it from a good copy, or rebuild the dataset "
                                   f"(`covert regenerate {root} --out NEW`)") from None
            yield path, row, problems


def _raw_rows(path: Path) -> Iterator[dict[str, Any]]:
    """A shard's rows as stored; a shard Arrow cannot read or decompress raises :class:`DatasetError`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    problem = oversized_cell(path)
    if problem:
        raise DatasetError(problem)
    batches = None
    while True:
        try:
            if batches is None:
                batches = pq.ParquetFile(path).iter_batches(batch_size=512)
            batch = next(batches)
        except StopIteration:
            return
        except (pa.ArrowException, OSError, ValueError) as exc:
            detail = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
            raise DatasetError(f"{path} cannot be read ({type(exc).__name__}{': ' + detail if detail else ''}); the "
                               "shard is damaged: restore it from a good copy, or rebuild the dataset with "
                               "`covert regenerate`") from None
        _check_cells(path, batch)
        yield from batch.to_pylist()


def _unloadable(raw: dict[str, Any], features: dict[str, Any], prefix: str = "",
                shared: SharedCells | None = None) -> list[str]:
    out = []
    for name, feature in features.items():
        value = raw.get(name) if isinstance(raw, dict) else None
        if feature.get("_type") == "Json" and isinstance(value, (str, bytes)):
            found = shared.unsafe_numbers(value) if shared is not None and name in shared.columns else unsafe_numbers(value)
            out += [f"{prefix}{name}: {number}" for number in found]
        elif feature.get("_type") is None and isinstance(value, dict):
            out += _unloadable(value, feature, f"{prefix}{name}.", shared)
    return out
