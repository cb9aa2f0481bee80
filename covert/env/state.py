"""Environment state: named tables of JSON records keyed by id, plus counters.

A :class:`State` is a copy-on-write view over a shared, immutable :class:`Snapshot`. Forking a state
costs O(1); its content hash costs O(changes) because the snapshot's hash is a sum of per-record
digests computed once and changed records are subtracted and re-added.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from covert.env.jsonsafe import canonical_json

Record = dict[str, Any]
_MODULUS = 1 << 128
_SORT = orjson.OPT_SORT_KEYS


class _Deleted:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<deleted>"


DELETED = _Deleted()


def canonical_bytes(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no whitespace, UTF-8."""
    return orjson.dumps(value, option=_SORT)


def copy_json(value: Any) -> Any:
    """Deep copy of plain JSON data (dicts, lists and scalars); faster than ``copy.deepcopy``.

    Nested data goes through orjson (C, several times faster than a Python walk; floats round-trip
    exactly). NaN and infinities become ``null``, as in every serialized state and in the state hash;
    what orjson cannot carry (huge ints, non-string keys, subclasses) is walked instead.
    """
    if isinstance(value, (dict, list)):
        try:
            return orjson.loads(orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_SUBCLASS))
        except (orjson.JSONEncodeError, TypeError):
            return _walk_copy(value)
    return value


def _walk_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _walk_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk_copy(v) for v in value]
    return value


def _record_digest(table: str, key: str, record: Record) -> int:
    payload = canonical_bytes([table, key, record])
    return int.from_bytes(hashlib.blake2b(payload, digest_size=16).digest(), "big")


# snapshots State.recalled built, by their state's JSON text, the least recently recalled forgotten first: at
# most 256 states (a dataset's rows start from a few hundred worlds, in no order) and 32 MB of their text (a
# state of more than 4 MB of text is built afresh each time)
_recalled: dict[bytes, Snapshot] = {}
_recalled_size = [0]
_RECALLED_STATES = 256
_RECALLED_BYTES = 32 << 20


class Snapshot:
    """An immutable stored state shared by every :class:`State` forked from it."""

    __slots__ = ("_as_dict", "_digests", "_hash", "_indexes", "_sum", "counters", "tables")

    def __init__(self, tables: dict[str, dict[str, Record]], counters: dict[str, int]) -> None:
        # records are kept in id order, so order depends on content alone (and survives canonical JSON)
        self._init({name: dict(sorted(rows.items())) for name, rows in tables.items()}, counters)

    def _init(self, tables: dict[str, dict[str, Record]], counters: dict[str, int]) -> None:
        """Set up over ``tables`` whose records are already in id order."""
        self.tables = tables
        self.counters = counters
        self._digests: dict[tuple[str, str], int] = {}
        self._sum: int | None = None
        self._hash: str | None = None  # State.hash of the snapshot's own content (no changes, its counters)
        self._as_dict: dict[str, Any] | None = None
        self._indexes: dict[tuple[str, str], dict[Any, list[str]]] = {}

    def as_dict(self) -> dict[str, Any]:
        """The snapshot as plain data (built once; shared, read-only)."""
        if self._as_dict is None:
            counters = {k: v for k, v in sorted(self.counters.items()) if v}
            self._as_dict = {"tables": {t: self.tables[t] for t in sorted(self.tables)}, "counters": counters}
        return self._as_dict

    def digest(self, table: str, key: str) -> int:
        """Digest of one stored record, cached."""
        cache_key = (table, key)
        found = self._digests.get(cache_key)
        if found is None:
            found = _record_digest(table, key, self.tables[table][key])
            self._digests[cache_key] = found
        return found

    def digest_sum(self) -> int:
        """Sum of all record digests (computed once)."""
        if self._sum is None:
            total = 0
            for table, rows in self.tables.items():
                for key in rows:
                    total += self.digest(table, key)
            self._sum = total % _MODULUS
        return self._sum

    def index(self, table: str, field: str) -> dict[Any, list[str]]:
        """Ids of stored records by the value of one top-level field (built once, on first use)."""
        cache_key = (table, field)
        found = self._indexes.get(cache_key)
        if found is None:
            found = {}
            for key, record in self.tables.get(table, {}).items():
                value = record.get(field)
                if isinstance(value, (str, int, float, bool)) or value is None:
                    found.setdefault(value, []).append(key)
            self._indexes[cache_key] = found
        return found


class State:
    """A copy-on-write state. Tools read with :meth:`get`/:meth:`find` and write with
    :meth:`edit`/:meth:`insert`/:meth:`delete`/:meth:`next_id`.

    Records returned by :meth:`get` and :meth:`find` are shared and must not be mutated; :meth:`edit`
    returns a private copy that becomes the record's new value.
    """

    __slots__ = ("_changes", "_counters", "_snapshot")

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        self._changes: dict[str, dict[str, Any]] = {}
        self._counters = dict(snapshot.counters)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any], copy: bool = True) -> State:
        """A state from ``{"tables": {name: {id: record}}, "counters": {name: int}}``.

        With ``copy=False`` the records are shared, not copied: the caller hands the data over and
        must not change it afterwards (tools never change stored records; :meth:`edit` copies).
        Floats are put in canonical form (:func:`covert.env.jsonsafe.canonical_float`), so a state
        decoded imprecisely (``0.30000000000000004`` for ``0.3``) is the state that was written.
        """
        if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
            raise ValueError("state must be a dict with a 'tables' mapping of table name -> {id: record}")
        # floats enter in canonical form: a state read back by an imprecise JSON decoder is the same state
        tables = canonical_json(copy_json(data["tables"]) if copy else data["tables"])
        for name, rows in tables.items():
            if not isinstance(rows, dict):
                raise ValueError(f"state table {name!r} must map ids to records")
        counters = {str(k): int(v) for k, v in (data.get("counters") or {}).items()}
        return cls(Snapshot(tables, counters))

    @classmethod
    def recalled(cls, data: dict[str, Any], copy: bool = False) -> State:
        """``from_dict(data, copy)`` that shares the snapshot (its record digests, indexes and
        canonical floats, computed once) of an equal state built recently by this method: rows of one
        world start from equal states, and a dataset is checked or scored row by row. Equal means the same
        JSON text (orjson's, which spells every float and key exactly), so the state is the one
        ``from_dict`` would build. With ``copy=False`` ``data`` is handed over as ``from_dict`` says; with
        ``copy=True`` the state never shares its records with ``data``."""
        try:
            key = orjson.dumps(data)
        except (orjson.JSONEncodeError, TypeError):
            return cls.from_dict(data, copy)  # not JSON: from_dict says what is wrong, or takes it as it is
        if len(key) > _RECALLED_BYTES // 8:
            return cls.from_dict(data, copy)
        snapshot = _recalled.pop(key, None)
        if snapshot is None:
            state = cls.from_dict(data, copy)
            while _recalled and (len(_recalled) >= _RECALLED_STATES or _recalled_size[0] + len(key) > _RECALLED_BYTES):
                oldest = next(iter(_recalled))
                del _recalled[oldest]
                _recalled_size[0] -= len(oldest)
            _recalled[key] = state._snapshot
            _recalled_size[0] += len(key)
            return state
        _recalled[key] = snapshot  # recalled again: now the most recent
        return cls(snapshot)

    @classmethod
    def from_json(cls, payload: bytes | str) -> State:
        """A state from its canonical JSON."""
        return cls.from_dict(orjson.loads(payload))

    @property
    def snapshot(self) -> Snapshot:
        """The immutable stored state this state is a copy-on-write view over: shared by its forks, and by
        the states :meth:`recalled` builds from equal data (one object stands for that data while kept)."""
        return self._snapshot

    def fork(self) -> State:
        """An independent state with the same content; O(changes), the snapshot is shared."""
        other = State.__new__(State)
        other._snapshot = self._snapshot
        other._changes = {t: dict(rows) for t, rows in self._changes.items()}
        other._counters = dict(self._counters)
        return other

    def freeze(self) -> State:
        """A state whose snapshot holds this state's content, so its own forks start with no changes."""
        if not self._changes and self._counters == self._snapshot.counters:
            return State(self._snapshot)
        return State.from_dict(self.to_dict())

    def stored(self) -> State:
        """A state of the stored snapshot alone: this state's content before its changes."""
        return State(self._snapshot)

    def without(self, hidden: set[tuple[str, str]]) -> State:
        """A state of its own (a new snapshot, records shared) with this state's content less the
        ``(table, id)`` records in ``hidden``; unlike a fork with those records deleted, its reads and forks
        cost what a state of the remaining records costs."""
        stored = self._snapshot.tables
        hidden_tables = {table for table, _ in hidden}
        tables = {}
        for table in self.tables():
            if table in hidden_tables or self._changes.get(table) or table not in stored:
                tables[table] = {k: r for k, r in self.records(table) if (table, k) not in hidden}
            else:
                tables[table] = stored[table]  # unchanged and nothing hidden: the stored (read-only) table
        snapshot = Snapshot.__new__(Snapshot)
        snapshot._init(tables, dict(self._counters))  # records() yields in id order: nothing to sort
        return State(snapshot)

    def keeping(self, kept: dict[str, list[str]]) -> State:
        """A state of its own (a new snapshot, records shared) with this state's content less every record
        of a table in ``kept`` whose id ``kept`` does not list: what :meth:`without` gives with the others
        hidden, at the cost of the records kept (ids absent from the state are ignored)."""
        stored = self._snapshot.tables
        tables = {}
        for table in self.tables():
            keys = kept.get(table)
            if keys is not None:
                found = ((k, self.get(table, k)) for k in sorted(set(keys)))
                tables[table] = {k: r for k, r in found if r is not None}
            elif self._changes.get(table) or table not in stored:
                tables[table] = dict(self.records(table))
            else:
                tables[table] = stored[table]  # unchanged and nothing hidden: the stored (read-only) table
        snapshot = Snapshot.__new__(Snapshot)
        snapshot._init(tables, dict(self._counters))  # records in id order: nothing to sort
        return State(snapshot)

    # -- reads ----------------------------------------------------------------------------------
    def get(self, table: str, key: str) -> Record | None:
        """The record ``key`` of ``table``, or ``None``."""
        changed = self._changes.get(table)
        if changed is not None and key in changed:
            value = changed[key]
            return None if value is DELETED else value
        rows = self._snapshot.tables.get(table)
        return None if rows is None else rows.get(key)

    def has(self, table: str, key: str) -> bool:
        """Whether ``table`` holds ``key``."""
        return self.get(table, key) is not None

    def ids(self, table: str) -> list[str]:
        """Ids of ``table`` in id order (so the order depends on content alone)."""
        base = self._snapshot.tables.get(table, {})
        changed = self._changes.get(table)
        if not changed:
            return list(base)
        out = [k for k in base if changed.get(k, base[k]) is not DELETED]
        extra = sorted(k for k, v in changed.items() if k not in base and v is not DELETED)
        return list(heapq.merge(out, extra)) if extra else out

    def records(self, table: str) -> Iterator[tuple[str, Record]]:
        """``(id, record)`` pairs of ``table`` in :meth:`ids` order."""
        if not self._changes.get(table):
            yield from self._snapshot.tables.get(table, {}).items()
            return
        for key in self.ids(table):
            record = self.get(table, key)
            if record is not None:
                yield key, record

    def count(self, table: str) -> int:
        """Number of records in ``table``."""
        return len(self.ids(table))

    def find(self, table: str, **equals: Any) -> list[Record]:
        """Records of ``table`` whose top-level fields equal ``equals``; indexed on the first field."""
        if not equals:
            return [record for _, record in self.records(table)]
        (first, value), *rest = equals.items()
        if value is not None and not isinstance(value, (str, int, float, bool)):
            return [r for _, r in self.records(table) if all(r.get(f) == v for f, v in equals.items())]
        base = self._snapshot.tables.get(table, {})
        changed = self._changes.get(table)
        if not changed:
            return [
                base[key]
                for key in self._snapshot.index(table, first).get(value, ())
                if all(base[key].get(f) == v for f, v in rest)
            ]
        hits: list[tuple[str, Record]] = []
        for key in self._snapshot.index(table, first).get(value, ()):
            if key not in changed and all(base[key].get(f) == v for f, v in rest):
                hits.append((key, base[key]))
        for key, record in changed.items():
            if record is DELETED or record.get(first) != value:
                continue
            if all(record.get(f) == v for f, v in rest):
                hits.append((key, record))
        hits.sort(key=lambda hit: hit[0])
        return [record for _, record in hits]

    def find_one(self, table: str, **equals: Any) -> Record | None:
        """The first record matching ``equals``, or ``None``."""
        found = self.find(table, **equals)
        return found[0] if found else None

    def counter(self, name: str) -> int:
        """The current value of a counter (0 if never used)."""
        return self._counters.get(name, 0)

    # -- writes ---------------------------------------------------------------------------------
    def edit(self, table: str, key: str) -> Record:
        """A private, mutable copy of a record that becomes its new value. Raises KeyError if absent."""
        current = self.get(table, key)
        if current is None:
            raise KeyError(f"{table}/{key}")
        record = copy_json(current)
        self._changes.setdefault(table, {})[key] = record
        return record

    def insert(self, table: str, key: str, record: Record) -> Record:
        """Add a record; raises KeyError if ``key`` exists."""
        if self.get(table, key) is not None:
            raise KeyError(f"{table}/{key} exists")
        self._changes.setdefault(table, {})[key] = record
        return record

    def delete(self, table: str, key: str) -> None:
        """Remove a record; raises KeyError if absent."""
        if self.get(table, key) is None:
            raise KeyError(f"{table}/{key}")
        self._changes.setdefault(table, {})[key] = DELETED

    def next_id(self, name: str) -> int:
        """Increment a counter and return its new value."""
        value = self._counters.get(name, 0) + 1
        self._counters[name] = value
        return value

    # -- identity ------------------------------------------------------------------------------
    def hash(self) -> str:
        """Content hash: equal for equal content whatever the insertion order; O(changes)."""
        snapshot = self._snapshot
        unchanged = not any(self._changes.values()) and self._counters == snapshot.counters
        if unchanged and snapshot._hash is not None:
            return snapshot._hash
        total = snapshot.digest_sum()
        base_tables = snapshot.tables
        for table, changed in self._changes.items():
            base = base_tables.get(table, {})
            for key, record in changed.items():
                if key in base:
                    total -= snapshot.digest(table, key)
                if record is not DELETED:
                    total += _record_digest(table, key, record)
        counters = {k: v for k, v in self._counters.items() if v}
        payload = (total % _MODULUS).to_bytes(16, "big") + canonical_bytes(counters)
        digest = hashlib.blake2b(payload, digest_size=16).hexdigest()
        if unchanged:
            snapshot._hash = digest
        return digest

    def to_dict(self) -> dict[str, Any]:
        """The content as plain data: ``{"tables": {...}, "counters": {...}}`` (tables in name order).

        An unchanged state returns its snapshot's (cached, shared) dict: treat it as read-only.
        """
        if not any(self._changes.values()) and self._counters == self._snapshot.counters:
            return self._snapshot.as_dict()
        return self._build_dict()

    def _build_dict(self) -> dict[str, Any]:
        tables: dict[str, dict[str, Record]] = {}
        for table in sorted(set(self._snapshot.tables) | set(self._changes)):
            tables[table] = dict(self.records(table))
        counters = {k: v for k, v in sorted(self._counters.items()) if v}
        return {"tables": tables, "counters": counters}

    def to_json(self) -> bytes:
        """Canonical JSON bytes of :meth:`to_dict`."""
        return canonical_bytes(self.to_dict())

    def changed_keys(self) -> dict[str, list[str]]:
        """Ids touched since the snapshot, per table."""
        return {t: list(rows) for t, rows in self._changes.items() if rows}

    def diff(self, other: State) -> list[StateChange]:
        """Structured changes that turn this state into ``other``.

        O(changes) when both states share a snapshot; otherwise every record is compared.
        """
        if other._snapshot is self._snapshot:
            candidates = {
                (t, k)
                for state in (self, other)
                for t, rows in state._changes.items()
                for k in rows
            }
        else:
            candidates = {(t, k) for state in (self, other) for t in state.tables() for k in state.ids(t)}
        changes = []
        for table, key in sorted(candidates):
            before, after = self.get(table, key), other.get(table, key)
            if before == after:
                continue
            if before is None:
                changes.append(StateChange("add", table, key, after=after))
            elif after is None:
                changes.append(StateChange("remove", table, key, before=before))
            else:
                fields = sorted(f for f in set(before) | set(after) if before.get(f, DELETED) != after.get(f, DELETED))
                changes.append(
                    StateChange(
                        "change", table, key, fields=tuple(fields),
                        before={f: before.get(f) for f in fields}, after={f: after.get(f) for f in fields},
                    )
                )
        for name in sorted(set(self._counters) | set(other._counters)):
            if self.counter(name) != other.counter(name):
                changes.append(
                    StateChange("counter", "", name, before=self.counter(name), after=other.counter(name))
                )
        return changes

    def same_content(self, other: State) -> bool:
        """Whether :meth:`diff` to ``other`` is empty, without building it (O(changes) when both states
        share a snapshot)."""
        if other._snapshot is not self._snapshot:
            return not self.diff(other)
        for state in (self, other):
            for table, rows in state._changes.items():
                for key in rows:
                    if self.get(table, key) != other.get(table, key):
                        return False
        if self._counters == other._counters:
            return True
        return all(self.counter(n) == other.counter(n) for n in set(self._counters) | set(other._counters))

    def tables(self) -> list[str]:
        """Names of the tables in this state."""
        return sorted(set(self._snapshot.tables) | set(self._changes))


@dataclass(frozen=True)
class StateChange:
    """One difference between two states."""

    op: str  # "add" | "remove" | "change" | "counter"
    table: str
    key: str
    fields: tuple[str, ...] = ()
    before: Any = None
    after: Any = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form for records and rows."""
        out: dict[str, Any] = {"op": self.op, "table": self.table, "id": self.key}
        if self.fields:
            out["fields"] = list(self.fields)
        if self.before is not None:
            out["before"] = self.before
        if self.after is not None:
            out["after"] = self.after
        return out
