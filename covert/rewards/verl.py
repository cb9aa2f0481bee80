"""verl integration: a ``compute_score`` reward, a multi-turn tool-config generator and a
``BaseTool``-shaped adapter (duck-typed; verl itself is never imported).

Reward (``custom_reward_function.path=<covert>/rewards/verl.py``, ``name=compute_score``)::

    compute_score(data_source, solution_str, ground_truth, extra_info) -> float

``solution_str`` is the decoded rollout, hermes ``<tool_call>`` blocks and ``<tool_response>``
blocks included; ``ground_truth`` may arrive as a dict or as JSON text.

Tools (``actor_rollout_ref.rollout.multi_turn.tool_config_path``): :func:`verl_tool_config` writes
the YAML, one entry per tool, each served by :class:`CovertTool`. verl creates, executes and releases a
tool instance per call, so the rollout's environment lives in the agent loop's
``agent_data.extra_fields``: every tool call of one rollout runs on the same state. The row's
``extra_info.tools_kwargs`` must tell the tools which state to load: :func:`verl_tools_kwargs` makes
it from a covert RL row.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from covert.env import builder_names, get_builder, is_error
from covert.rewards.composite import Scorer, default_scorer
from covert.rewards.prepared import PreparedRow
from covert.rewards.rowview import BadRow
from covert.rewards.state_match import state_score
from covert.yamltext import dump_yaml

TOOL_CLASS = "covert.rewards.verl.CovertTool"
_SESSION_KEY = "covert_session"


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                  scorer: Scorer | None = None, **kwargs: Any) -> float:
    """verl's reward entry point: the composite reward of ``solution_str`` (never raises)."""
    row = {"data_source": data_source, "reward_model": {"ground_truth": ground_truth}, "extra_info": extra_info}
    if isinstance(extra_info, Mapping):
        row.update({k: extra_info[k] for k in ("environment", "builder", "task_id") if k in extra_info})
    return (scorer or default_scorer()).score(row, solution_str).value


def verl_tool_config(builders: str | Sequence[str], class_name: str = TOOL_CLASS) -> str:
    """The YAML of a verl multi-turn tool config offering the tools of ``builders``.

    A tool name two builders share must have the same spec in both; otherwise write one config per
    builder.
    """
    names = builder_names() if builders == "all" else [builders] if isinstance(builders, str) else list(builders)
    tools: dict[str, dict[str, Any]] = {}
    for builder in names:
        for spec in get_builder(builder).environment.openai_tools():
            schema = _verl_schema(spec)
            name = schema["function"]["name"]
            if name in tools and tools[name]["tool_schema"] != schema:
                raise ValueError(f"tool {name!r} differs between builders; write one config per builder")
            tools.setdefault(name, {"class_name": class_name, "config": {"type": "native"}, "tool_schema": schema})
    return dump_yaml({"tools": list(tools.values())})


def verl_tools_kwargs(row: Mapping[str, Any]) -> dict[str, Any]:
    """``extra_info.tools_kwargs`` for an RL row: every offered tool gets the same ``create_kwargs``
    (task id, environment, initial state and ground truth) so whichever is called first can load it."""
    extra = row.get("extra_info") or {}
    create = {
        "task_id": row.get("task_id") or extra.get("task_id"),
        "environment": row.get("environment") or row.get("builder"),
        "initial_state": extra.get("initial_state", row.get("initial_state")),
        "ground_truth": (row.get("reward_model") or {}).get("ground_truth", row.get("ground_truth")),
    }
    return {tool["function"]["name"]: {"create_kwargs": create} for tool in row.get("tools") or []}


def _verl_schema(spec: Mapping[str, Any]) -> dict[str, Any]:
    function = dict(spec["function"])
    parameters = dict(function.get("parameters") or {"type": "object", "properties": {}})
    parameters.setdefault("required", [])
    function["parameters"] = parameters
    return {"type": "function", "function": function}


@dataclass
class ToolText:
    """What verl reads from a tool response: ``text`` (and no image or video)."""

    text: str | None = None
    image: list[Any] | None = None
    video: list[Any] | None = None


class CovertTool:
    """A verl ``BaseTool``-shaped tool (``create``, ``execute``, ``calc_reward``, ``release``) that runs
    one covert tool on the rollout's environment."""

    def __init__(self, config: Mapping[str, Any] | None, tool_schema: Any) -> None:
        self.config = dict(config or {})
        self.tool_schema = tool_schema
        self.name = _schema_name(tool_schema)
        self._instances: dict[str, dict[str, Any]] = {}

    def get_openai_tool_schema(self) -> Any:
        """The tool's schema, as verl passed it."""
        return self.tool_schema

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolText]:
        """Register an instance; ``create_kwargs`` (see :func:`verl_tools_kwargs`) name its row."""
        instance_id = instance_id or uuid.uuid4().hex
        row = kwargs.get("create_kwargs")
        self._instances[instance_id] = {"row": row if isinstance(row, Mapping) else {}, "holder": None}
        return instance_id, ToolText()

    async def execute(self, instance_id: str, parameters: Any, **kwargs: Any) -> tuple[ToolText, float, dict[str, Any]]:
        """Run the tool on the rollout's environment; returns the JSON result, step reward 0, metrics."""
        holder = self._holder(instance_id, kwargs.get("agent_data"))
        if holder is None:
            output: Any = {"error": {"code": "no_environment",
                                     "message": "The tool has no task loaded (missing tools_kwargs)."}}
        else:
            output = holder["session"].call(self.name, parameters if isinstance(parameters, Mapping) else {})
        return ToolText(text=orjson.dumps(output).decode()), 0.0, {"tool_error": is_error(output)}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """The state reward of the rollout so far (1 when its state is the oracle's final state)."""
        holder = self._holder(instance_id, kwargs.get("agent_data"))
        if holder is None:
            return 0.0
        prepared: PreparedRow = holder["prepared"]
        value, _ = state_score(prepared.initial, holder["session"].state, prepared.expected_hash,
                               prepared.expected_items)
        return value

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        """Forget the instance (the rollout's environment stays with the rollout)."""
        self._instances.pop(instance_id, None)

    def _holder(self, instance_id: str, agent_data: Any) -> dict[str, Any] | None:
        extra = getattr(agent_data, "extra_fields", None)
        if isinstance(extra, dict) and extra.get(_SESSION_KEY) is not None:
            return extra[_SESSION_KEY]
        instance = self._instances.get(instance_id)
        if instance is None:
            return None
        if instance["holder"] is None:
            try:
                prepared = default_scorer().prepare(_as_row(instance["row"]))
            except BadRow:
                return None
            instance["holder"] = {"prepared": prepared, "session": prepared.session()}
        if isinstance(extra, dict):
            extra[_SESSION_KEY] = instance["holder"]
        return instance["holder"]


def _as_row(create: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "task_id": create.get("task_id"),
        "environment": create.get("environment"),
        "extra_info": {"initial_state": create.get("initial_state")},
        "ground_truth": create.get("ground_truth") or {"calls": []},
    }


def _schema_name(schema: Any) -> str:
    if isinstance(schema, Mapping):
        return str((schema.get("function") or {}).get("name", ""))
    function = getattr(schema, "function", None)
    return str(getattr(function, "name", ""))

