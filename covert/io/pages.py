"""The page sizes of a Parquet shard, read from its page headers before any page is decompressed.

A Parquet value never spans pages, so the largest page bounds the largest cell, and the memory a reader
needs: a 10 MB shard can hold a 206 MB cell (JSON compresses well) that decompressing, decoding and
turning into Python objects take gigabytes to reach. Page headers are Thrift (compact protocol) structs
in front of each page; this module walks a column chunk's headers from the offsets its footer gives,
reading a few hundred bytes per page, and returns the largest uncompressed page. pyarrow writes pages of
about 1 MiB, so a shard of covert's own never has a page much over its largest cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

MAX_HEADER_BYTES = 1 << 20  # a page header (its statistics included) larger than this is refused
_STOP, _TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(13)


class PageError(ValueError):
    """A page header that cannot be read (cut off, too large, not Thrift)."""


class _Reader:
    """Thrift compact-protocol reading over a window of a file, growing the window as needed."""

    def __init__(self, handle: BinaryIO, offset: int) -> None:
        self.handle, self.start, self.data, self.pos = handle, offset, b"", 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            if len(self.data) >= MAX_HEADER_BYTES:
                raise PageError(f"a page header over {MAX_HEADER_BYTES} bytes")
            self.handle.seek(self.start + len(self.data))
            more = self.handle.read(min(4096 + len(self.data), MAX_HEADER_BYTES - len(self.data)))
            if not more:
                raise PageError("a page header cut off by the end of the file")
            self.data += more
        value = self.data[self.pos]
        self.pos += 1
        return value

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 70:
                raise PageError("a varint too long to be Thrift")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def skip_bytes(self, n: int) -> None:
        if n < 0 or self.pos + n > MAX_HEADER_BYTES:
            raise PageError(f"a page header over {MAX_HEADER_BYTES} bytes")
        for _ in range(n):  # page headers are small: their statistics are the only bytes skipped
            self.byte()

    def skip(self, kind: int, depth: int = 0) -> None:
        if depth > 32:
            raise PageError("a page header nested too deeply")
        if kind in (_TRUE, _FALSE):
            return
        if kind == _BYTE:
            self.byte()
        elif kind in (_I16, _I32, _I64):
            self.varint()
        elif kind == _DOUBLE:
            self.skip_bytes(8)
        elif kind == _BINARY:
            self.skip_bytes(self.varint())
        elif kind in (_LIST, _SET):
            head = self.byte()
            size, element = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            for _ in range(size):
                self.byte() if element in (_TRUE, _FALSE) else self.skip(element, depth + 1)
        elif kind == _MAP:
            size = self.varint()
            if size:
                types = self.byte()
                for _ in range(size):
                    self.skip(types >> 4, depth + 1)
                    self.skip(types & 0x0F, depth + 1)
        elif kind == _STRUCT:
            self.struct(depth + 1)
        else:
            raise PageError(f"Thrift type {kind} in a page header")

    def struct(self, depth: int = 0, want: tuple[int, ...] = ()) -> dict[int, int]:
        """Read a struct; the integer values of the fields in ``want``."""
        found: dict[int, int] = {}
        field = 0
        while True:
            head = self.byte()
            kind = head & 0x0F
            if kind == _STOP:
                return found
            delta = head >> 4
            field = field + delta if delta else self.zigzag()
            if field in want and kind in (_I16, _I32, _I64):
                found[field] = self.zigzag()
            else:
                self.skip(kind, depth)


def largest_page(path: str | Path, metadata: Any) -> tuple[int, str]:
    """``(uncompressed bytes, column)`` of the largest page of the shard at ``path`` whose footer is
    ``metadata`` (pyarrow's ``FileMetaData``); raises :class:`PageError` on a header it cannot read."""
    largest, where = 0, ""
    with open(path, "rb") as handle:
        for group in range(metadata.num_row_groups):
            chunks = metadata.row_group(group)
            for index in range(chunks.num_columns):
                chunk = chunks.column(index)
                start = chunk.data_page_offset
                if chunk.has_dictionary_page and chunk.dictionary_page_offset:
                    start = min(start, chunk.dictionary_page_offset)
                offset, end = start, start + chunk.total_compressed_size
                while offset < end:
                    reader = _Reader(handle, offset)
                    sizes = reader.struct(want=(2, 3))
                    uncompressed, compressed = sizes.get(2, -1), sizes.get(3, -1)
                    if uncompressed < 0 or compressed < 0:
                        raise PageError(f"a page of column {chunk.path_in_schema} without its sizes")
                    if uncompressed > largest:
                        largest, where = uncompressed, chunk.path_in_schema
                    offset += reader.pos + compressed
    return largest, where
