"""How an RL environment shows tool outputs for rows whose augmentation changes them (noisy outputs,
multi-format outputs): the same presentation the SFT row shows, reproduced from the row alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from covert.augment.registry import get_kind
from covert.augment.rows import flat_calls, truth_of
from covert.env.state import canonical_bytes
from covert.views import tool_content

Presenter = Callable[[str, Any, Any], str]


def output_presenter(row: dict[str, Any]) -> Presenter:
    """A function ``(name, arguments, output) -> tool message content`` for one rollout of ``row``.

    A call equal to an oracle call (name and arguments; each oracle call matched once, in order) is shown
    as the row's augmentation shows that oracle call; any other call, and every call of a row without an
    output-changing augmentation, is shown as compact JSON like the plain environment does.
    """
    augmentations = row.get("augmentations") or []
    kinds = [get_kind(a["kind"]) for a in augmentations if isinstance(a, dict) and "kind" in a]
    shown = [(k, a) for k, a in zip(kinds, augmentations, strict=True) if k.present is not None]
    if not shown:
        return lambda name, arguments, output: tool_content(output)
    kind, record = shown[0]
    truth = truth_of(row)
    pending = [(i, c["name"], canonical_bytes(c["arguments"])) for i, c in enumerate(flat_calls(truth))]

    def present(name: str, arguments: Any, output: Any) -> str:
        key = canonical_bytes(arguments) if isinstance(arguments, dict) else None
        for position, (index, oracle_name, oracle_key) in enumerate(pending):
            if oracle_name == name and oracle_key == key:
                del pending[position]
                return kind.present(record, truth, index, output)
        return tool_content(output)

    return present
