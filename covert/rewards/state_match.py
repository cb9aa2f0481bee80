"""State matching: the final state a completion's calls leave, against the oracle's.

The reward is 1 when the final-state hash equals the oracle's. Otherwise it is the Jaccard
similarity of the changed items, each item being one ``(table, id, field, value)`` a run changed
(added records count field by field, a removed record counts once, counters count by their final
value); a state whose hash differs never earns full credit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from covert.env import State, canonical_bytes

Item = tuple[str, str, str, bytes]
NEAR_MISS = 0.99


def change_items(changes: Iterable[Mapping[str, Any]]) -> frozenset[Item]:
    """The items of a state diff (``StateChange.to_dict()`` form, as rows store ``state_diff``)."""
    items: set[Item] = set()
    for change in changes:
        op = change.get("op")
        table, key = str(change.get("table", "")), str(change.get("id", ""))
        if op == "change":
            after = change.get("after") or {}
            for name in change.get("fields") or after:
                items.add((table, key, name, canonical_bytes(after.get(name))))
        elif op == "add":
            for name, value in (change.get("after") or {}).items():
                items.add((table, key, name, canonical_bytes(value)))
        elif op == "remove":
            items.add((table, key, "", b"removed"))
        elif op == "counter":
            items.add(("", key, "", canonical_bytes(change.get("after"))))
    return frozenset(items)


def state_items(initial: State, final: State) -> frozenset[Item]:
    """The items that turn ``initial`` into ``final`` (O(changes) when they share a snapshot)."""
    return change_items(change.to_dict() for change in initial.diff(final))


def state_score(initial: State, final: State, expected_hash: str, expected: frozenset[Item]) -> tuple[float, str]:
    """The state reward of ``final`` and, below 1, a reason."""
    if final.hash() == expected_hash:
        return 1.0, ""
    got = state_items(initial, final)
    union = got | expected
    jaccard = len(got & expected) / len(union) if union else 0.0
    missing = len(expected - got)
    extra = len(got - expected)
    return min(jaccard, NEAR_MISS), f"state:mismatch: {missing} expected changes missing, {extra} unexpected"
