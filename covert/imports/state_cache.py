"""Seeded states of admitted environments kept in the environment store, keyed by content.

An imported environment's seeded state takes milliseconds to draw (tens of records, each from the
API's own schemas); a build on hundreds of environments draws thousands. A state is a pure function of
the environment (its spec file, its admitted entry, covert's code) and ``(seed, world, scale)``, so the
first process that draws one keeps it as JSON data in the store and later ones read it back::

    <store>/compiled/states/<name>/<content key>/<seed>-<world>-<scale>.json

The content key digests the spec file's bytes, the admitted entry and covert's code (the key of
:func:`covert.imports.envs.content_key`): anything that could change a state makes a new folder, and the
first state kept under a new key removes the environment's older folders. A state is kept only when its
JSON text reads back as the very same data (no tuple, NaN or oversized integer that JSON would change),
and only for the first :data:`WORLDS_KEPT` worlds of a seed (a store does not grow with a build's size
beyond that). A file that is missing, damaged or not a state is drawn again (and written again).
Nothing read is code: a state is JSON, checked by :meth:`~covert.env.State.from_dict`.

The record a create tool makes is kept the same way (:class:`MadeRecords`): the ``n``-th new record of a
tool is a pure function of the environment, the tool and ``n`` (never of a build's seed), so it is drawn
once and kept beside the states, ``<content key>/made/<tool>/<n>.json``.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import orjson

from covert.atomic import write_atomically
from covert.env import Builder, State, item_rng

STATES = "states"  # the folder of <store>/compiled that keeps seeded states
WORLDS_KEPT = 64  # worlds per environment and seed kept in the store (later ones are drawn every time)
MADE = "made"  # the folder of a content key's folder that keeps the records create tools make
MADE_KEPT = 256  # records kept per create tool, in memory and in the store (n below it)


@dataclass(frozen=True, eq=False)
class StoredStatesBuilder(Builder):
    """A :class:`~covert.env.Builder` whose seeded states are kept in ``states_at`` (see the module)."""

    states_at: Path | None = None

    def state(self, seed: int, index: int, scale: int = 1) -> State:
        """The seeded initial state of item ``index`` of run ``seed``: read back from the store when an
        earlier process kept it, else drawn (and kept when it reads back the same)."""
        path = self._state_path(seed, index, scale)
        if path is None:
            return super().state(seed, index, scale)
        data = _read_state(path)
        if data is None:
            data = self.make_state(item_rng(self.name, seed, index), scale)
            _keep_state(path, data)
        return State.from_dict(data, copy=False)

    def _state_path(self, seed: int, index: int, scale: int) -> Path | None:
        if self.states_at is None or not 0 <= index < WORLDS_KEPT:
            return None
        return self.states_at / f"{seed}-{index}-{scale}.json"


class MadeRecords:
    """The records one create tool makes, by their number ``n``, as JSON bytes: kept in memory for the
    process and, once :func:`with_stored_states` gives them a folder, in the store for later processes."""

    __slots__ = ("blobs", "folder")

    def __init__(self) -> None:
        self.blobs: dict[int, bytes] = {}
        self.folder: Path | None = None

    def get(self, n: int) -> bytes | None:
        """The JSON of record ``n`` when this process or an earlier one kept it (a damaged file: ``None``)."""
        blob = self.blobs.get(n)
        if blob is not None or self.folder is None or not 0 <= n < MADE_KEPT:
            return blob
        try:
            blob = (self.folder / f"{n}.json").read_bytes()
            if not isinstance(orjson.loads(blob), dict):
                return None
        except (OSError, orjson.JSONDecodeError):
            return None
        self.blobs[n] = blob
        return blob

    def keep(self, n: int, blob: bytes) -> None:
        """Keep record ``n``'s JSON (which reads back as the record) in memory and, when there is a
        folder whose content key keeps states already, in the store (a read-only store keeps nothing)."""
        if len(self.blobs) < MADE_KEPT:
            self.blobs[n] = blob
        # only under a key a state was kept under first (the first state kept under a key prunes the old keys)
        if self.folder is not None and 0 <= n < MADE_KEPT and self.folder.parent.parent.is_dir():
            with contextlib.suppress(OSError):
                self.folder.mkdir(parents=True, exist_ok=True)
                write_atomically(self.folder / f"{n}.json", blob)


def with_stored_states(builder: Builder, store: Path, key: str) -> StoredStatesBuilder:
    """``builder`` keeping its seeded states, and the records its create tools make, in ``store`` under
    the content key ``key``."""
    values = {f.name: getattr(builder, f.name) for f in fields(Builder)}
    states_at = store / STATES / builder.name / key
    stored = StoredStatesBuilder(**values, states_at=states_at)
    for extra in ("bound", "spec"):  # what an imported builder carries beside its fields
        if hasattr(builder, extra):
            object.__setattr__(stored, extra, getattr(builder, extra))
    for name, tool in getattr(getattr(builder, "bound", None), "tools", {}).items():
        if isinstance(getattr(tool, "made", None), MadeRecords):
            tool.made.folder = states_at / MADE / name
    return stored


def _read_state(path: Path) -> dict[str, Any] | None:
    """The state data kept at ``path``, or ``None`` when there is none (or it is not a state)."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
        return None
    return data


def _keep_state(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` when its JSON text reads back as the same data; the first state kept
    under a content key removes the environment's folders of other keys. A read-only store keeps nothing."""
    try:
        text = orjson.dumps(data)
    except (orjson.JSONEncodeError, TypeError):
        return
    if orjson.loads(text) != data:
        return
    folder = path.parent
    with contextlib.suppress(OSError):
        if not folder.is_dir():
            for stale in folder.parent.iterdir() if folder.parent.is_dir() else ():
                if stale.is_dir() and stale.name != folder.name:
                    shutil.rmtree(stale, ignore_errors=True)
            folder.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text)
