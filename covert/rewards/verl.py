"""verl integration: the ``compute_score`` reward, the multi-turn tool config and the tool that runs
covert's environments inside verl's ``ToolAgentLoop`` (duck-typed: this module never imports verl).

Reward (``reward.custom_reward_function.path=pkg://covert.rewards.verl``, or this file's path;
``name=compute_score``)::

    compute_score(data_source, solution_str, ground_truth, extra_info) -> float

``solution_str`` is the decoded rollout, hermes ``<tool_call>`` blocks and ``<tool_response>``
blocks included; ``ground_truth`` may arrive as a dict or as JSON text.

Tools (``actor_rollout_ref.rollout.multi_turn.tool_config_path``): :func:`verl_tool_config` writes
the YAML, one entry per tool, each served by :class:`CovertTool`. A name two builders define
differently is offered as ``<builder>__<name>`` (verl takes one tool config per run);
:func:`compute_score` reads such a name back as the row's own tool.

What a rollout's tools need reaches them through ``tools_kwargs``: verl hands every tool call the
whole ``tools_kwargs`` of the row (``agent_data.tools_kwargs``), so one shared entry,
``{"covert": {"create_kwargs": {task_id, environment, initial_state, ground_truth}}}``
(:func:`verl_tools_kwargs`), serves every tool. ``covert.rewards.verl_dataset.CovertRLHFDataset``
adds it to each row as verl loads it, pointing at the row's own ``initial_state`` (no copy), and
selects the row's tools (``extra_info.tool_selection``).

This file is also loaded by path, without being registered as a module (verl's
``load_extern_object``): it defines no dataclass, whose creation would look the module up.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from covert.env import UnknownBuilderError, builder_names, get_builder, is_error
from covert.io.yamltext import dump_yaml
from covert.rewards.composite import Scorer, default_scorer
from covert.rewards.prepared import PreparedRow
from covert.rewards.rowview import BadRow, builder_of
from covert.rewards.state_match import state_score

TOOL_CLASS = "covert.rewards.verl.CovertTool"
TOOLS_KWARGS_KEY = "covert"
NAMESPACE_SEPARATOR = "__"
_ROLLOUT_ATTR = "_covert_rollout"  # the rollout's environment, kept on verl's AgentData (never sent anywhere)


# -- reward -----------------------------------------------------------------------------------------


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                  scorer: Scorer | None = None, **kwargs: Any) -> float:
    """verl's reward entry point: the composite reward of ``solution_str`` (never raises).

    A call to ``<builder>__<tool>`` (the name a mixed-builder tool config gives a tool that two
    builders define differently) counts as a call to the row's ``<tool>``; when ``extra_info`` holds
    verl's ``tool_selection``, those are the tools the rollout was offered. Whatever the arguments hold
    (an ``extra_info`` whose methods raise included), a failure scores 0.0.
    """
    try:
        return _compute_score(data_source, solution_str, ground_truth, extra_info, scorer)
    except Exception:  # noqa: BLE001 - a reward function must never stop a training run
        return 0.0


def _compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any,
                   scorer: Scorer | None) -> float:
    row: dict[str, Any] = {"data_source": data_source, "reward_model": {"ground_truth": ground_truth},
                           "extra_info": extra_info}
    if isinstance(extra_info, Mapping):
        row.update({k: extra_info[k] for k in ("environment", "builder", "task_id") if k in extra_info})
    builder = _builder_of(row)
    if builder is not None and isinstance(solution_str, str):
        solution_str = _own_names(solution_str, builder)
        selection = extra_info.get("tool_selection") if isinstance(extra_info, Mapping) else None
        offered = _offered_tools(builder, selection)
        if offered is not None:
            row["tools"] = offered
    return (scorer or default_scorer()).score(row, solution_str).value


def _builder_of(row: Mapping[str, Any]) -> str | None:
    name = builder_of(row)
    return name if name in builder_names() else None


def _own_names(text: str, builder: str) -> str:
    """``text`` with ``<builder>__<tool>`` written as ``<tool>`` for the builder's own tools."""
    prefix = builder + NAMESPACE_SEPARATOR
    if prefix not in text:
        return text
    tools = get_builder(builder).environment.tool_specs
    pattern = re.compile(rf"\b{re.escape(prefix)}(\w+)\b")
    return pattern.sub(lambda m: m.group(1) if m.group(1) in tools else m.group(0), text)


def _offered_tools(builder: str, selection: Any) -> list[dict[str, Any]] | None:
    """The specs of the tools verl offered (``tool_selection``), if every name is one of the builder's."""
    if not isinstance(selection, Sequence) or isinstance(selection, str) or not selection:
        return None
    environment = get_builder(builder).environment
    names = [own_name(name, builder) for name in selection]
    if not all(isinstance(n, str) and n in environment.tool_specs for n in names):
        return None
    return environment.openai_tools(list(dict.fromkeys(names)))


# -- tool config and rows -----------------------------------------------------------------------------


def own_name(name: Any, builder: str) -> Any:
    """The builder's own name of a tool offered as ``name`` (``hotels__book_room`` -> ``book_room``)."""
    prefix = builder + NAMESPACE_SEPARATOR
    return name[len(prefix):] if isinstance(name, str) and name.startswith(prefix) else name


def _builders(builders: str | Sequence[str]) -> list[str]:
    if builders == "all":
        return list(builder_names())
    return [builders] if isinstance(builders, str) else list(builders)


def verl_tool_entries(builders: str | Sequence[str], class_name: str = TOOL_CLASS) -> list[dict[str, Any]]:
    """The ``tools`` entries of a verl tool config offering the tools of ``builders``.

    A tool name that several builders define alike is one entry serving all of them; a name they
    define differently gets one entry per builder, named ``<builder>__<name>``. Each entry's
    ``config`` names the builders it serves and the tool's own name.
    """
    names = _builders(builders)
    specs: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for builder in names:
        for spec in get_builder(builder).environment.openai_tools():
            specs.setdefault(spec["function"]["name"], []).append((builder, _verl_schema(spec)))
    entries = []
    for tool, variants in specs.items():
        alike = all(schema == variants[0][1] for _, schema in variants)
        groups = [([b for b, _ in variants], variants[0][1], tool)] if alike else [
            ([b], schema, f"{b}{NAMESPACE_SEPARATOR}{tool}") for b, schema in variants]
        for served, schema, name in groups:
            schema = {**schema, "function": {**schema["function"], "name": name}}
            entries.append({"class_name": class_name,
                            "config": {"type": "native", "builders": served, "tool": tool},
                            "tool_schema": schema})
    return entries


def verl_tool_config(builders: str | Sequence[str], class_name: str = TOOL_CLASS) -> str:
    """The YAML of a verl multi-turn tool config offering the tools of ``builders`` (``"all"``, a
    name or a list); see :func:`verl_tool_entries` for names two builders define differently."""
    return dump_yaml({"tools": verl_tool_entries(builders, class_name)})


def verl_tool_names(entries: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """``(builder, tool) -> the name the model sees``, from the ``tools`` entries of a tool config."""
    names: dict[tuple[str, str], str] = {}
    for entry in entries:
        config = entry.get("config") or {}
        schema = entry.get("tool_schema") or {}
        shown = (schema.get("function") or {}).get("name")
        tool = config.get("tool") or shown
        for builder in config.get("builders") or []:
            if isinstance(tool, str) and isinstance(shown, str):
                names[(builder, tool)] = shown
    return names


def verl_tool_selection(row: Mapping[str, Any], names: Mapping[tuple[str, str], str] | None = None) -> list[str]:
    """The names under which verl offers the row's tools (``extra_info.tool_selection``); ``names``
    maps ``(builder, tool)`` to the config's name (:func:`verl_tool_names`; default: the tool's name)."""
    builder = builder_of(row)
    out = []
    for tool in row.get("tools") or []:
        name = (tool.get("function") or {}).get("name") if isinstance(tool, Mapping) else None
        if isinstance(name, str):
            out.append((names or {}).get((builder, name), name))
    return out


def verl_tools_kwargs(row: Mapping[str, Any]) -> dict[str, Any]:
    """``tools_kwargs`` for an RL row: one entry, ``{"covert": {"create_kwargs": ...}}``, that every
    :class:`CovertTool` reads (verl passes each call the row's whole ``tools_kwargs``). It refers to the
    row's own ``initial_state`` and ground truth; nothing is copied."""
    extra = row.get("extra_info") or {}
    create = {
        "task_id": row.get("task_id") or extra.get("task_id"),
        "environment": builder_of(row),
        "initial_state": extra.get("initial_state", row.get("initial_state")),
        "ground_truth": (row.get("reward_model") or {}).get("ground_truth", row.get("ground_truth")),
    }
    return {TOOLS_KWARGS_KEY: {"create_kwargs": create}}


def verl_multi_turn_limits(rows: Iterable[Mapping[str, Any]], scorer: Scorer | None = None) -> dict[str, int]:
    """The ``actor_rollout_ref.rollout.multi_turn`` limits under which verl runs every oracle rollout
    of ``rows`` whole: ``max_parallel_calls`` (the largest group of parallel oracle calls; verl runs only
    that many of a turn's calls) and ``max_tool_response_length`` (the longest oracle tool response,
    in characters; verl cuts longer ones). Replays each row's oracle calls."""
    scorer = scorer or default_scorer()
    parallel, longest = 1, 1
    for row in rows:
        try:
            prepared = scorer.prepare(row)
        except BadRow:
            continue
        session = prepared.session()
        for group in prepared.calls:
            parallel = max(parallel, len(group))
            for call in group:
                output = session.call(call["name"], call.get("arguments") or {})
                longest = max(longest, len(orjson.dumps(output).decode()))
    return {"max_parallel_calls": parallel, "max_tool_response_length": longest}


def _verl_schema(spec: Mapping[str, Any]) -> dict[str, Any]:
    function = dict(spec["function"])
    parameters = dict(function.get("parameters") or {"type": "object", "properties": {}})
    parameters.setdefault("required", [])
    function["parameters"] = parameters
    return {"type": "function", "function": function}


# -- the tool ------------------------------------------------------------------------------------------


class ToolText:
    """What verl reads from a tool response: ``text`` (and no image or video)."""

    __slots__ = ("image", "text", "video")

    def __init__(self, text: str | None = None) -> None:
        self.text = text
        self.image: list[Any] | None = None
        self.video: list[Any] | None = None


class FullSchema:
    """A tool schema as verl reads it: attributes from verl's parsed schema, and ``model_dump`` giving
    the tool's whole OpenAI spec (verl's schema model keeps only ``type``, ``description`` and
    ``enum`` of a parameter, so the prompt would lose ``items`` and ``default``)."""

    def __init__(self, parsed: Any, spec: Mapping[str, Any]) -> None:
        self._parsed = parsed
        self._spec = orjson.loads(orjson.dumps(spec))

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The full spec (a fresh copy)."""
        return orjson.loads(orjson.dumps(self._spec))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._parsed, name)


class CovertTool:
    """A verl ``BaseTool``-shaped tool (``create``, ``execute``, ``calc_reward``, ``release``) that runs
    one covert tool on the rollout's environment.

    verl creates, executes and releases an instance per call, so the rollout's environment is kept on
    verl's ``AgentData`` (one per rollout, never serialised); ``agent_data.extra_fields``, which verl
    sends between workers, only gets plain values: ``covert_calls`` (calls run) and
    ``covert_state_hash`` (the environment's state hash after the last call).
    """

    def __init__(self, config: Mapping[str, Any] | None, tool_schema: Any) -> None:
        if tool_schema is None:
            raise ValueError("a CovertTool needs its tool_schema: write the config with "
                             "covert.rewards.verl_tool_config")
        self.config = dict(config or {})
        self.name = _schema_name(tool_schema)
        self.tool = str(self.config.get("tool") or self.name)
        self.builders = [str(b) for b in self.config.get("builders") or []]
        spec = _builder_spec(self.builders, self.tool, self.name)
        self.tool_schema = FullSchema(tool_schema, spec) if spec is not None and not isinstance(
            tool_schema, Mapping) else tool_schema
        self._instances: dict[str, Mapping[str, Any]] = {}

    def get_openai_tool_schema(self) -> Any:
        """The tool's schema."""
        return self.tool_schema

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolText]:
        """Register an instance; per-tool ``create_kwargs`` (an older layout) may name its row."""
        instance_id = instance_id or uuid.uuid4().hex
        create = kwargs.get("create_kwargs")
        self._instances[instance_id] = create if isinstance(create, Mapping) else {}
        return instance_id, ToolText()

    async def execute(self, instance_id: str, parameters: Any, **kwargs: Any) -> tuple[ToolText, float, dict[str, Any]]:
        """Run the tool on the rollout's environment; returns the JSON result, step reward 0, metrics."""
        agent_data = kwargs.get("agent_data")
        holder = self._holder(instance_id, agent_data)
        if holder is None:
            output: Any = {"error": {"code": "no_environment",
                                     "message": "The tool has no task loaded (missing tools_kwargs)."}}
        elif self.builders and holder["builder"] not in self.builders:
            output = {"error": {"code": "unknown_tool",
                                "message": f"{self.name} is not a tool of this task."}}
        else:
            session = holder["session"]
            output = session.call(self.tool, parameters if isinstance(parameters, Mapping) else {})
            extra = getattr(agent_data, "extra_fields", None)
            if isinstance(extra, dict):
                extra["covert_calls"] = len(session.log)
                extra["covert_state_hash"] = session.state.hash()
        return ToolText(orjson.dumps(output).decode()), 0.0, {"tool_error": is_error(output)}

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
        holder = getattr(agent_data, _ROLLOUT_ATTR, None)
        if holder is not None:
            return holder
        create = _shared_create_kwargs(agent_data) or self._instances.get(instance_id)
        if not create:
            return None
        try:
            prepared = default_scorer().prepare(_as_row(create))
        except BadRow:
            return None
        holder = {"prepared": prepared, "session": prepared.session(), "builder": prepared.view.builder}
        if agent_data is not None:
            with contextlib.suppress(AttributeError):  # an AgentData that takes no attribute: one call per session
                setattr(agent_data, _ROLLOUT_ATTR, holder)
        return holder


def _shared_create_kwargs(agent_data: Any) -> Mapping[str, Any] | None:
    kwargs = getattr(agent_data, "tools_kwargs", None)
    entry = kwargs.get(TOOLS_KWARGS_KEY) if isinstance(kwargs, Mapping) else None
    create = entry.get("create_kwargs") if isinstance(entry, Mapping) else None
    return create if isinstance(create, Mapping) and create else None


def _as_row(create: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "task_id": create.get("task_id"),
        "environment": create.get("environment"),
        "extra_info": {"initial_state": create.get("initial_state")},
        "ground_truth": create.get("ground_truth") or {"calls": []},
    }


def _builder_spec(builders: Sequence[str], tool: str, shown: str) -> dict[str, Any] | None:
    """The tool's full spec from its first builder, under the name the model sees."""
    for builder in builders:
        try:  # a hand-written builder, or one get_builder resolves by name (procgen.<env>, api.<id>)
            environment = get_builder(builder).environment
        except UnknownBuilderError:
            continue
        if tool in environment.tool_specs:
            schema = _verl_schema(environment.openai_tools([tool])[0])
            return {**schema, "function": {**schema["function"], "name": shown}}
    return None


def _schema_name(schema: Any) -> str:
    if isinstance(schema, Mapping):
        return str((schema.get("function") or {}).get("name", ""))
    function = getattr(schema, "function", None)
    return str(getattr(function, "name", ""))
