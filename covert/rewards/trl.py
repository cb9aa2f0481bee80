"""TRL integration: a GRPO reward function and ``environment_factory`` classes.

Reward::

    from covert.rewards.trl import trl_reward
    GRPOTrainer(..., reward_funcs=trl_reward)

TRL calls it with the completions and every dataset column as lists (``prompt``, ``tools``,
``reward_model``, ``extra_info``, ``environment``, ...); each completion is scored against the row
its columns make up. The calls in a completion are replayed on the row's initial state, so the reward
does not depend on the environment instances TRL kept.

Environments::

    from covert.rewards.trl import environment_factory
    GRPOTrainer(..., environment_factory=environment_factory())

``environment_factory()`` maps each builder name to a class whose public methods are that builder's
tools (with signatures and Google-style docstrings, so ``transformers.utils.get_json_schema`` gives the
tools' schemas back); ``reset(**row)`` loads the row's initial state and its recorded failures. RL rows
carry an ``environment`` column naming the builder, which is how TRL routes each row to its class.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import orjson

from covert.env import builder_names, get_builder
from covert.rewards.composite import Scorer, default_scorer
from covert.rewards.session import CallRecord, Session

_RESERVED = ("reset", "get_reward")


def make_trl_reward(scorer: Scorer | None = None, name: str = "covert_reward") -> Callable[..., list[float]]:
    """A TRL reward function ``f(completions, **columns) -> list[float]`` using ``scorer``."""

    def reward(completions: Sequence[Any], **columns: Any) -> list[float]:
        active = scorer or default_scorer()
        n = len(completions)
        rows = [{} for _ in range(n)]
        for key, values in columns.items():
            if isinstance(values, (list, tuple)) and len(values) == n and key not in ("completions", "environments"):
                for row, value in zip(rows, values):
                    row[key] = value
        return [active.score(row, completion).value for row, completion in zip(rows, completions)]

    reward.__name__ = name
    reward.__qualname__ = name
    return reward


trl_reward = make_trl_reward()
"""The default TRL reward function (default :class:`~covert.rewards.Scorer`)."""


class CovertEnvironment:
    """Base of the generated environment classes; see :func:`environment_class`.

    Attributes:
        builder: The builder whose tools the class exposes (class attribute).
        log: The calls made since the last :meth:`reset`.
    """

    builder = ""

    def __init__(self) -> None:
        self._session: Session | None = None
        self.log: list[CallRecord] = []

    def reset(self, **row: Any) -> str | None:
        """Start an episode on ``row``'s initial state (the row's columns, as TRL passes them)."""
        prepared = default_scorer().prepare({"environment": self.builder, **row})
        if prepared.view.builder != self.builder:
            raise ValueError(f"row {prepared.view.task_id!r} is for {prepared.view.builder!r}, not {self.builder!r}")
        self._session = prepared.session()
        self.log = self._session.log
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self._session is None:
            raise RuntimeError("call reset(**row) before using the tools")
        return orjson.dumps(self._session.call(name, arguments)).decode()


def environment_class(builder: str, tools: Sequence[str] | None = None) -> type[CovertEnvironment]:
    """A TRL environment class for ``builder``: one public method per tool (or per name in ``tools``)."""
    env_cls = get_builder(builder).environment
    specs = env_cls.openai_tools(list(tools) if tools is not None else None)
    namespace: dict[str, Any] = {"builder": builder, "__doc__": f"covert {builder} environment for TRL."}
    for spec in specs:
        name = spec["function"]["name"]
        if name in _RESERVED or name.startswith("_") or not name.isidentifier():
            raise ValueError(f"tool {name!r} of {builder} cannot be a TRL environment method")
        namespace[name] = _tool_method(spec["function"])
    return type(f"{builder.title().replace('_', '')}Environment", (CovertEnvironment,), namespace)


def environment_factory(builders: str | Sequence[str] = "all") -> dict[str, type[CovertEnvironment]]:
    """``{builder: environment class}`` for ``GRPOTrainer(environment_factory=...)``; rows choose
    their class through their ``environment`` column."""
    names = builder_names() if builders == "all" else [builders] if isinstance(builders, str) else list(builders)
    return {name: environment_class(name) for name in names}


def _tool_method(function: Mapping[str, Any]) -> Callable[..., str]:
    name = function["name"]
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())

    def method(self: CovertEnvironment, **arguments: Any) -> str:
        # the signature below is what TRL shows the model; the call itself takes whatever the model
        # sends, and the environment validates it (unknown or missing arguments become an error
        # observation, not an exception)
        return self._call(name, arguments)

    ordered = sorted(properties, key=lambda p: p not in required)  # required first, as Python wants
    signature = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for param in ordered:
        hint = _hint(properties[param])
        annotations[param] = hint
        default = inspect.Parameter.empty if param in required else properties[param].get("default")
        signature.append(inspect.Parameter(param, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                           annotation=hint))
    annotations["return"] = str
    method.__name__ = name
    method.__qualname__ = name
    method.__signature__ = inspect.Signature(signature, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    method.__doc__ = _docstring(function, ordered)
    return method


def _hint(schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type")
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return Literal[tuple(schema["enum"])]
    if kind == "array":
        items = schema.get("items")
        return list[_hint(items)] if isinstance(items, Mapping) and items else list
    return {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}.get(kind, Any)


def _docstring(function: Mapping[str, Any], params: list[str]) -> str:
    properties = (function.get("parameters") or {}).get("properties") or {}
    lines = [_one_line(function.get("description") or function["name"]), ""]
    if params:
        lines.append("Args:")
        for param in params:
            lines.append(f"    {param}: {_one_line(properties[param].get('description') or param)}")
        lines.append("")
    lines += ["Returns:", "    The tool's result as JSON text (an error observation when the call fails)."]
    return "\n".join(lines)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
