"""Helpers shared by the augmentation tests."""

from __future__ import annotations

from typing import Any

import orjson

from covert.augment.registry import NotApplicable, RowPair
from covert.augment.rows import augment_pair


def augmented(pairs: list[RowPair], kind: str, seed: int = 0, intensity: str = "medium") -> list[tuple[RowPair, RowPair]]:
    """(base, augmented) for every base pair the kind applies to."""
    out = []
    for pair in pairs:
        try:
            out.append((pair, augment_pair(pair, kind, seed, intensity)))
        except NotApplicable:
            continue
    return out


def canonical(pair: RowPair) -> bytes:
    """Both rows of a pair as bytes (for determinism checks)."""
    return orjson.dumps([pair.sft, pair.rl], option=orjson.OPT_SORT_KEYS)


def tool_contents(row: dict[str, Any]) -> list[str]:
    """The tool messages of an SFT row."""
    return [m["content"] for m in row["messages"] if m["role"] == "tool"]
