"""The registry of augmentation kinds and the records they share.

A kind is one module in :mod:`covert.augment.kinds` that defines ``KIND = Kind(...)``: a name, a config
dataclass (built from an intensity level), one function ``apply(pair, rng, config) -> pair`` and the
checks :mod:`covert.augment.verify` runs on the rows it made. Adding a kind is adding one module.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

INTENSITIES = ("low", "medium", "high")


class NotApplicable(Exception):
    """The kind has nothing to change on this row (e.g. no oracle call to fail); the row is skipped."""


@dataclass(frozen=True)
class RowPair:
    """The two views of one task; ``record`` holds the parameters an augmentation chose."""

    sft: dict[str, Any]
    rl: dict[str, Any]
    record: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Kind:
    """One augmentation kind.

    Attributes:
        name: Stable name used on the command line and in each row's ``augmentations``.
        position: Sort key, so kinds run (and rows are written) in a fixed order.
        config: Dataclass with ``for_intensity(level)``; its fields scale the augmentation.
        apply: ``(pair, rng, config) -> pair``; raises :class:`NotApplicable` when there is nothing to do.
        check: Kind-specific proof on a validated context (see :class:`covert.augment.verify.Context`).
        present: ``(record, truth, call_index, output) -> str``: how the kind shows an oracle output to the
            agent (noise, another format). ``None``: outputs are shown as stored.
        check_output: ``(context, call_index, content)``: proves a shown output keeps what the task needs.
        description: One line for the card and ``--help``.
    """

    name: str
    position: int
    config: type
    apply: Callable[[RowPair, random.Random, Any], RowPair]
    check: Callable[[Any], None] | None = None
    present: Callable[[dict[str, Any], dict[str, Any], int, Any], str] | None = None
    check_output: Callable[[Any, int, str], None] | None = None
    description: str = ""


@cache
def _discover() -> dict[str, Kind]:
    from covert.augment import kinds

    found = []
    for module in pkgutil.iter_modules(kinds.__path__):
        kind = getattr(importlib.import_module(f"covert.augment.kinds.{module.name}"), "KIND", None)
        if not isinstance(kind, Kind):
            raise TypeError(f"covert/augment/kinds/{module.name}.py must define KIND = Kind(...)")
        found.append(kind)
    return {k.name: k for k in sorted(found, key=lambda k: (k.position, k.name))}


def kind_names() -> list[str]:
    """Names of every registered kind, in their fixed order."""
    return list(_discover())


def get_kind(name: str) -> Kind:
    """The kind called ``name``; raises ``KeyError`` naming the known ones."""
    found = _discover()
    if name not in found:
        raise KeyError(f"unknown augmentation kind {name!r}; known kinds: {', '.join(found)}")
    return found[name]
