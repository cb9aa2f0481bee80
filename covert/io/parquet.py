"""Streaming, sharded Parquet in Hub layout, written to temporary names and renamed when complete."""

from __future__ import annotations

import array
import hashlib
import os
from collections.abc import Mapping
from functools import cache
from itertools import accumulate
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from covert.io.background import Background
from covert.io.features import arrow_schema, features_for
from covert.io.loader_safe import dumps as _loader_safe_dumps


class _SharedJson:
    """JSON of values many rows share, serialised once, keyed by identity (each entry keeps its object
    alive, so an id is never reused while cached) and bounded by bytes and entries."""

    def __init__(self, budget: int, entries: int = 1024) -> None:
        self.budget, self.entries = budget, entries
        self.kept: dict[int, tuple[Any, bytes]] = {}
        self.size = 0

    def __call__(self, value: Any) -> bytes:
        found = self.kept.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        text = _dumps(value)
        while self.kept and (len(self.kept) >= self.entries or self.size + len(text) > self.budget):
            self.size -= len(self.kept.pop(next(iter(self.kept)))[1])
        if id(value) in self.kept:
            self.size -= len(self.kept.pop(id(value))[1])
        self.kept[id(value)] = (value, text)
        self.size += len(text)
        return text


def _dumps(value: Any) -> bytes:
    # every loader (datasets' ujson included) reads back exactly what was written; raises LoaderUnsafe
    return _loader_safe_dumps(value)


# values rows share by identity, serialised once. An initial state is shared by a world's tasks (a few MB
# hold every builder's current world; holding more keeps old states alive for the collector to walk); a
# tool list by every row of a builder (a build on 100 imported environments offers ~10 MB of them, which
# the environments keep alive anyway)
_SHARED = {"initial_state": _SharedJson(4 << 20), "tools": _SharedJson(32 << 20)}


def _encoder(feature: dict[str, Any], name: str) -> Any:
    """A function that encodes one value of ``feature``: JSON to bytes, structs field by field, plain
    values as they are."""
    if feature.get("_type") == "Json":
        dumps = _SHARED.get(name, _dumps)
        return lambda value: None if value is None else dumps(value)
    if feature.get("_type") is None:
        fields = [(key, _encoder(sub, key)) for key, sub in feature.items()]
        return lambda value: ({key: encode(value.get(key)) for key, encode in fields}
                              if isinstance(value, dict) else value)
    return _same


def _same(value: Any) -> Any:
    return value


@cache
def _row_encoders(config: str) -> tuple[tuple[str, Any], ...]:
    return tuple((name, _encoder(feature, name)) for name, feature in features_for(config).items())


def encode_row(row: dict[str, Any], config: str) -> dict[str, Any]:
    """A row with its JSON-typed values serialised to UTF-8 bytes (done in workers, so the writer only
    copies). Raises :class:`~covert.io.loader_safe.LoaderUnsafe` for a value ``datasets.load_dataset``
    would not read back as written."""
    return {name: encode(row.get(name)) for name, encode in _row_encoders(config)}


ROW_GROUP = 500


class ShardWriter:
    """Writes one config/split as shards of at most ``rows_per_shard`` rows, streaming: rows are
    written a row group at a time, so memory holds one row group whatever the shard size.

    With ``background``, row groups are encoded and compressed on that thread (in order, so the bytes
    are the same) while the caller goes on making rows.
    """

    def __init__(self, root: Path, config: str, split: str, rows_per_shard: int,
                 background: Background | None = None) -> None:
        self.dir = root / config
        self.config = config
        self.split = split
        self.rows_per_shard = rows_per_shard
        self.schema = arrow_schema(config)
        self.buffer: list[dict[str, Any]] = []
        self.parts: list[Path] = []
        self.rows = 0
        self._writer: pq.ParquetWriter | None = None
        self._in_shard = 0
        self._background = background

    def add(self, encoded_row: dict[str, Any]) -> None:
        """Buffer one encoded row; write a row group when the buffer or the shard is full."""
        self.buffer.append(encoded_row)
        self.rows += 1
        self._in_shard += 1
        if len(self.buffer) >= ROW_GROUP or self._in_shard >= self.rows_per_shard:
            self.flush()
        if self._in_shard >= self.rows_per_shard:
            self._close_shard()

    def flush(self) -> None:
        """Write the buffered rows as a row group of the current shard (under a temporary name)."""
        if not self.buffer:
            return
        if self._writer is None:
            self.dir.mkdir(parents=True, exist_ok=True)
            part = self.dir / f".{self.split}-{len(self.parts):05d}.parquet.tmp"
            self._writer = pq.ParquetWriter(part, self.schema, compression="zstd", write_statistics=False,
                                            store_schema=False)
            self.parts.append(part)
        columns = [_column([row[f.name] for row in self.buffer], f.type) for f in self.schema]
        self._run(self._writer.write_table, pa.Table.from_arrays(columns, schema=self.schema),
                  row_group_size=ROW_GROUP)
        self.buffer = []

    def _run(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        if self._background is None:
            fn(*args, **kwargs)
        else:
            self._background.submit(fn, *args, **kwargs)

    def _close_shard(self) -> None:
        if self._writer is not None:
            self._run(self._writer.close)
            self._writer = None
        self._in_shard = 0

    def close(self) -> list[Path]:
        """Flush and rename the shards to ``<split>-NNNNN-of-NNNNN.parquet``; returns their paths."""
        self.flush()
        self._close_shard()
        if self._background is not None:
            self._background.drain()
        total = len(self.parts)
        final = []
        for number, part in enumerate(self.parts):
            target = self.dir / f"{self.split}-{number:05d}-of-{total:05d}.parquet"
            os.replace(part, target)
            final.append(target)
        return final


def _column(values: list[Any], kind: pa.DataType) -> pa.Array:
    """An Arrow array of ``kind`` (JSON extension columns hold the pre-serialised JSON, bytes or str).

    Arrays are assembled from their buffers: ``pa.array`` on a Python list imports pandas (~0.3 s)
    on its first use in a process, a fixed cost every build would pay for nothing.
    """
    if isinstance(kind, pa.BaseExtensionType):
        return pa.ExtensionArray.from_storage(kind, _column(values, kind.storage_type))
    if pa.types.is_struct(kind):
        children = [_column([v[f.name] for v in values], f.type) for f in kind]
        return pa.StructArray.from_arrays(children, fields=list(kind))
    code = _FIXED_WIDTH.get(kind)
    validity, nulls = _validity(values)
    if code is not None:
        data = array.array(code, [0 if v is None else v for v in values])
        return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(data)], null_count=nulls)
    if kind == pa.string():
        encoded = [b"" if v is None else v if isinstance(v, bytes) else v.encode() for v in values]
        offsets = array.array("q", [0, *accumulate(map(len, encoded))])
        if offsets[-1] < 2**31:
            offsets = array.array("i", offsets)
            return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))],
                                         null_count=nulls)
    return pa.array(values, kind)


# Arrow types stored as one C value per row, with their ``array`` type codes
_FIXED_WIDTH = {pa.int32(): "i", pa.int64(): "q", pa.float64(): "d"}


def _validity(values: list[Any]) -> tuple[pa.Buffer | None, int]:
    """The validity bitmap of ``values`` (``None`` when nothing is null) and the null count."""
    nulls = values.count(None)
    if not nulls:
        return None, 0
    bits = bytearray((len(values) + 7) // 8)
    if nulls == len(values):
        return pa.py_buffer(bits), nulls
    for i, value in enumerate(values):
        if value is not None:
            bits[i >> 3] |= 1 << (i & 7)
    return pa.py_buffer(bits), nulls


def sha256_file(path: Path) -> str:
    """The sha256 of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def close_writers(writers: Mapping[Any, ShardWriter], root: Path) -> tuple[dict[str, str], dict[str, int]]:
    """Close every writer of ``writers``: the sha256 of each shard written, by its path relative to
    ``root``, and the rows written per ``config/split``."""
    files: dict[str, str] = {}
    rows: dict[str, int] = {}
    for writer in writers.values():
        for path in writer.close():
            files[str(path.relative_to(root))] = sha256_file(path)
        rows[f"{writer.config}/{writer.split}"] = writer.rows
    return files, rows
