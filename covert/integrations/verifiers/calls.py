"""What both verifiers adapters share: a row's tool definitions, messages in the form covert scores,
and one tool call run on a rollout's session (its output as the JSON text a tool message carries)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from covert.env import error_observation
from covert.procgen.rows import procgen_truth
from covert.rewards import default_scorer
from covert.rewards.session import Session

MAX_CALLS_PER_TURN = 64
"""Calls of one assistant message that are run; the rest get a ``too_many_calls`` error observation."""


def tool_def(spec: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-format tool spec as ``{name, description, parameters}``."""
    function = spec.get("function") if isinstance(spec.get("function"), Mapping) else spec
    return {"name": function["name"], "description": function.get("description") or "",
            "parameters": function.get("parameters") or {"type": "object", "properties": {}}}


def plain_message(message: Any) -> dict[str, Any]:
    """A verifiers message (a pydantic model, calls as ``{id, name, arguments}``) as the OpenAI-style
    dict covert's parser reads."""
    data = message.model_dump(exclude_none=True) if hasattr(message, "model_dump") else dict(message)
    calls = data.get("tool_calls")
    if calls:
        data["tool_calls"] = [{"id": c.get("id"), "type": "function",
                               "function": {"name": c.get("name"), "arguments": c.get("arguments")}} for c in calls]
    return data


def row_session(row: Mapping[str, Any]) -> tuple[Session | None, list[dict[str, Any]]]:
    """A fresh session of the row's initial state (with the failures the row records, as the reward
    replays them) and the row's tool definitions; ``(None, [])`` for a procedural text row, which
    offers no tools. Raises :class:`~covert.rewards.BadRow` for a row covert cannot read."""
    if procgen_truth(row) is not None and not row.get("tools"):
        return None, []
    prepared = default_scorer().prepare(row)
    specs = row.get("tools") or [spec.openai() for spec in prepared.env_cls.tool_specs.values()]
    return prepared.session(), [tool_def(spec) for spec in specs]


def run_call(session: Session | None, name: str, arguments: Any) -> str:
    """Run one call on ``session``; its output (or an ``invalid_arguments`` error observation, or an
    ``unknown_tool`` one where there is no session) as JSON text. ``arguments`` may be the JSON text a
    model wrote."""
    if session is None:
        return orjson.dumps(error_observation("unknown_tool", f"this task has no tool {name!r}")).decode()
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            arguments = None
    if not isinstance(arguments, dict):
        output: Any = error_observation("invalid_arguments", f"the arguments of {name} are not a JSON object")
    else:
        output = session.call(name, arguments)
    return orjson.dumps(output).decode()


def too_many_calls() -> str:
    """The observation a call past :data:`MAX_CALLS_PER_TURN` gets, as JSON text."""
    return orjson.dumps(error_observation("too_many_calls", f"at most {MAX_CALLS_PER_TURN} calls of a message are run")).decode()
