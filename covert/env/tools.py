"""The ``@tool`` decorator, tool specs and the error a tool raises on a failed precondition."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from covert.env.schema import ENTITY_KEY, function_schema, strip_private_keys

_TOOL_ATTR = "__covert_tool__"


class ToolError(Exception):
    """A failed precondition inside a tool. The environment turns it into an error observation.

    Args:
        code: A stable snake_case code, declared in the tool's ``errors`` (e.g. ``"order_not_pending"``).
        message: A short sentence the agent can act on.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


_ENTITIES: dict[tuple[int, str], tuple[Any, str]] = {}  # (id(spec), param) -> (spec, entity); keeps the spec alive


@dataclass(frozen=True)
class ToolSpec:
    """Everything covert knows about one tool: its OpenAI spec plus covert's own metadata."""

    name: str
    description: str
    parameters: dict[str, Any]
    returns: dict[str, Any]
    writes: bool
    errors: tuple[str, ...]
    method: str = field(compare=False)

    def openai(self) -> dict[str, Any]:
        """The tool in OpenAI function format, as rows carry it."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": strip_private_keys(self.parameters),
            },
        }

    def metadata(self) -> dict[str, Any]:
        """covert's metadata for the tool: return schema, read/write, declared error codes."""
        return {"returns": self.returns, "writes": self.writes, "errors": list(self.errors)}

    def param_entity(self, param: str) -> str:
        """The entity a parameter (or each item of a list parameter) carries.

        An ``x-entity`` tag wins; otherwise the name, with ``item_ids`` read as a list of ``item_id``.
        Cached per spec and parameter (specs are not changed once made).
        """
        key = (id(self), param)
        found = _ENTITIES.get(key)
        if found is not None and found[0] is self:
            return found[1]
        entity = self._param_entity(param)
        if len(_ENTITIES) < 65536:
            _ENTITIES[key] = (self, entity)
        return entity

    def _param_entity(self, param: str) -> str:
        schema = self.parameters["properties"][param]
        if schema.get("type") == "array":
            items = schema.get("items", {})
            if ENTITY_KEY in items:
                return items[ENTITY_KEY]
            return schema.get(ENTITY_KEY) or (param[:-1] if param.endswith("_ids") else param)
        return schema.get(ENTITY_KEY, param)


@dataclass(frozen=True)
class ToolMarker:
    """What ``@tool`` stores on a method until the environment class collects it."""

    writes: bool
    errors: tuple[str, ...]
    name: str | None


def tool(
    func: Callable[..., Any] | None = None,
    *,
    writes: bool = False,
    errors: tuple[str, ...] | list[str] = (),
    name: str | None = None,
) -> Any:
    """Mark an environment method as a tool.

    Args:
        func: The method (when used bare as ``@tool``).
        writes: Whether the tool changes state.
        errors: The ``ToolError`` codes the tool may raise; tests cover each one.
        name: The tool's public name, if not the method name.
    """

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        setattr(f, _TOOL_ATTR, ToolMarker(writes=writes, errors=tuple(errors), name=name))
        return f

    return mark(func) if func is not None else mark


def collect_tools(cls: type) -> dict[str, ToolSpec]:
    """Build the specs of every ``@tool`` method of an environment class, in definition order."""
    specs: dict[str, ToolSpec] = {}
    for klass in reversed(cls.__mro__):
        for attr, value in vars(klass).items():
            marker = getattr(value, _TOOL_ATTR, None)
            if marker is None:
                continue
            tool_name = marker.name or attr
            parameters, returns, description = function_schema(value, tool_name)
            specs[tool_name] = ToolSpec(
                name=tool_name,
                description=description,
                parameters=parameters,
                returns=returns,
                writes=marker.writes,
                errors=marker.errors,
                method=attr,
            )
    return specs
