"""What scoring reads from a row, whatever form the row arrives in: an RL row, an SFT row, the columns
TRL passes, or verl's ``(data_source, ground_truth, extra_info)`` (JSON strings are decoded)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson


class BadRow(ValueError):
    """A row scoring cannot use; the message says what is missing."""


class BadRowWarning(UserWarning):
    """Warned when a row cannot be scored and scores 0 for that reason (not for its completion): a
    trainer would otherwise learn from a reward that says nothing about the model."""


@dataclass(frozen=True)
class RowView:
    """The parts of a row that scoring needs."""

    task_id: str
    builder: str
    category: str
    truth: Mapping[str, Any]
    initial_state: Any  # a dict, a State, or canonical JSON text
    tools: list[Mapping[str, Any]] | None
    prompt: list[Mapping[str, Any]]
    style: str
    components: Any

    @classmethod
    def of(cls, row: Any) -> RowView:
        """Read a row; raises :class:`BadRow`."""
        if not isinstance(row, Mapping):
            raise BadRow(f"a row is a mapping, not {type(row).__name__}")
        reward_model = _json(row.get("reward_model"), "reward_model")
        if isinstance(reward_model, Mapping) and "ground_truth" in reward_model:
            truth = _json(reward_model["ground_truth"], "ground_truth")
        else:
            truth = _json(row.get("ground_truth"), "ground_truth")
            reward_model = reward_model if isinstance(reward_model, Mapping) else {}
        if not isinstance(truth, Mapping) or not isinstance(truth.get("calls"), list):
            raise BadRow("the row has no ground truth with calls (reward_model.ground_truth or ground_truth)")
        extra = _json(row.get("extra_info"), "extra_info")
        extra = extra if isinstance(extra, Mapping) else {}
        builder = builder_of(row, extra)
        if builder is None:
            raise BadRow("the row names no environment (environment, builder or data_source covert/<name>)")
        state = extra.get("initial_state")
        if state is None:
            state = row.get("initial_state")
        if state is None:
            raise BadRow("the row has no initial state (extra_info.initial_state or initial_state)")
        tools = _json(row.get("tools"), "tools")
        messages = row.get("prompt")
        if messages is None and isinstance(row.get("messages"), list):
            messages = _leading_prompt(row["messages"])
        return cls(
            task_id=str(row.get("task_id") or extra.get("task_id") or ""),
            builder=builder,
            category=str(row.get("category") or ""),
            truth=truth,
            initial_state=state,
            tools=tools if isinstance(tools, list) else None,
            prompt=messages if isinstance(messages, list) else [],
            style=str(reward_model.get("style") or "rule"),
            components=reward_model.get("components"),
        )


def builder_of(row: Mapping[str, Any], extra_info: Any = None) -> str | None:
    """The builder a row belongs to, whatever covert did to the row: its ``builder`` column, else its
    ``environment`` (a TRL routing name ``<builder>/<digest>`` from ``covert.rewards.trl_dataset`` names
    its builder before the slash; builder names never hold one), else the same keys of ``extra_info``,
    else ``data_source`` ``covert/<builder>``; ``None`` when the row names none."""
    extra = extra_info if isinstance(extra_info, Mapping) else {}
    for name in (row.get("builder"), row.get("environment"), extra.get("builder"), extra.get("environment")):
        if isinstance(name, str) and name:
            return name.partition("/")[0] or None
    source = row.get("data_source")
    if isinstance(source, str) and source.startswith("covert/") and len(source) > len("covert/"):
        return source.split("/", 1)[1].partition("/")[0] or None
    return None


def _leading_prompt(messages: list[Any]) -> list[Any]:
    """The messages before the first assistant message."""
    out = []
    for message in messages:
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            break
        out.append(message)
    return out


def _json(value: Any, name: str) -> Any:
    if isinstance(value, (str, bytes)):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            raise BadRow(f"{name} is not valid JSON") from None
    return value
