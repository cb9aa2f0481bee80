"""Row helpers shared by the kinds: oracle calls and outputs of a base row, and augmented-row metadata."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from covert.augment.registry import INTENSITIES, NotApplicable, RowPair, get_kind
from covert.env import item_rng


def augmented_task_id(base_task_id: str, kinds: list[str], seed: int) -> str:
    """The task id of an augmented row: deterministic from its base row's id, the kinds and the seed."""
    digest = hashlib.sha1(f"{base_task_id}:{'+'.join(kinds)}:{seed}".encode()).hexdigest()[:10]
    return f"{base_task_id}-aug-{digest}"


def flat_calls(truth: dict[str, Any]) -> list[dict[str, Any]]:
    """The oracle calls in execution order (turns flattened)."""
    return [call for group in truth["calls"] for call in group]


def turn_of(truth: dict[str, Any]) -> list[int]:
    """For each flat call index, the index of the assistant turn holding it."""
    return [t for t, group in enumerate(truth["calls"]) for _ in group]


def recorded_outputs(sft: dict[str, Any]) -> list[Any]:
    """The oracle outputs an SFT base row carries in its tool messages, decoded."""
    try:
        return [orjson.loads(m["content"]) for m in sft["messages"] if m["role"] == "tool"]
    except orjson.JSONDecodeError:
        raise NotApplicable("a tool message of the base row is not JSON") from None


def query_of(row: dict[str, Any]) -> str:
    """The first user message of an SFT or RL row."""
    messages = row["messages"] if "messages" in row else row["prompt"]
    return next(m["content"] for m in messages if m["role"] == "user")


def truth_of(row: dict[str, Any]) -> dict[str, Any]:
    """The ground truth of an SFT or RL row."""
    return row["ground_truth"] if "ground_truth" in row else row["reward_model"]["ground_truth"]


def with_query(pair: RowPair, query: str) -> RowPair:
    """Both views with the first user message replaced (copy-on-write: other fields are shared)."""
    messages = list(pair.sft["messages"])
    at = next(i for i, m in enumerate(messages) if m["role"] == "user")
    messages[at] = {"role": "user", "content": query}
    prompt = [m if m["role"] != "user" else {"role": "user", "content": query} for m in pair.rl["prompt"]]
    return RowPair({**pair.sft, "messages": messages}, {**pair.rl, "prompt": prompt}, pair.record)


def with_truth(pair: RowPair, truth: dict[str, Any]) -> RowPair:
    """Both views with a new ground truth."""
    reward = {**pair.rl["reward_model"], "ground_truth": truth}
    return RowPair({**pair.sft, "ground_truth": truth}, {**pair.rl, "reward_model": reward}, pair.record)


def augment_pair(pair: RowPair, kind: str, seed: int = 0, intensity: str = "medium", stack: bool = False) -> RowPair:
    """Apply one kind to a base row pair; returns the augmented pair with its metadata set.

    Deterministic: the kind's generator is ``item_rng("augment", seed, base_task_id, kind)``. Raises
    :class:`NotApplicable` when the kind has nothing to change on this task. With ``stack``, ``pair`` may
    already be augmented (with the same seed): the kind is stacked on top when it comes later in the kinds'
    order than every kind applied so far and, if it changes how outputs are shown, no applied kind does.
    """
    if intensity not in INTENSITIES:
        raise ValueError(f"unknown intensity {intensity!r}; choose one of {', '.join(INTENSITIES)}")
    spec = get_kind(kind)
    base_id = pair.sft.get("base_task_id") or pair.sft["task_id"]
    applied = list(pair.sft.get("augmentations") or [])
    if applied and not stack:
        raise NotApplicable("the row is already augmented; augment base rows")
    if applied:
        kinds = [get_kind(a["kind"]) for a in applied]
        if any(a.get("seed") != seed for a in applied):
            raise NotApplicable("stacked augmentations share one seed")
        if any(k.position >= spec.position for k in kinds):
            raise NotApplicable(f"{kind} does not come after {', '.join(k.name for k in kinds)} in the kinds' order")
        if spec.present is not None and any(k.present is not None for k in kinds):
            raise NotApplicable("one kind at most changes how outputs are shown")
    if pair.rl["task_id"] != pair.sft["task_id"]:
        raise ValueError(f"the SFT and RL rows hold different tasks ({pair.sft['task_id']}, {pair.rl['task_id']})")
    rng = item_rng("augment", seed, base_id, kind)
    out = relabeled(spec.apply(pair, rng, spec.config.for_intensity(intensity)))
    record = {"kind": kind, "seed": seed, "intensity": intensity, **out.record}
    records = [*applied, record]
    task_id = augmented_task_id(base_id, [r["kind"] for r in records], seed)
    meta = {"task_id": task_id, "base_task_id": base_id, "augmentations": records, "pass_rate": None,
            "calibration": None}
    extra = {**out.rl["extra_info"], "task_id": task_id}
    return RowPair({**out.sft, **meta}, {**out.rl, **meta, "extra_info": extra}, record)


def relabeled(pair: RowPair) -> RowPair:
    """The pair with the category its augmented calls bear out (:mod:`covert.audit.categories`): six tools
    on offer make a ``simple`` row ``multiple``; an error report that cuts a sequential row to one call
    makes it ``multiple``. Raises :class:`NotApplicable` where no label fits the calls."""
    from covert.audit.categories import fitting_category
    from covert.audit.rows import row_view

    category = fitting_category(row_view(pair.sft))
    if category is None:
        raise NotApplicable(f"no category fits the augmented calls of a {pair.sft['category']} row")
    if category == pair.sft["category"]:
        return pair
    return RowPair({**pair.sft, "category": category}, {**pair.rl, "category": category}, pair.record)
