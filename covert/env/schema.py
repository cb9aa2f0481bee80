"""JSON Schema from Python type hints and Google-style docstrings.

Supported hints: ``str``, ``int``, ``float``, ``bool``, ``Literal[...]``, ``enum.Enum`` subclasses,
``list[X]``, ``dict`` / ``dict[str, X]``, ``Optional[X]``, and nested ``TypedDict`` or dataclass types.
``Annotated[X, Entity("order_id")]`` tags a value with the entity it carries (used by the tool graph).
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

_PRIMITIVES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_PRESENCE = tuple(p for p in (getattr(typing, "NotRequired", None), getattr(typing, "Required", None)) if p)
ENTITY_KEY = "x-entity"


@dataclass(frozen=True)
class Entity:
    """Annotation naming the entity a value carries, when it differs from the field name.

    ``Annotated[str, Entity("order_id")]`` on a field called ``id`` lets the tool graph connect it to
    every parameter called ``order_id``.
    """

    name: str


class SchemaError(TypeError):
    """A type hint or docstring cannot be turned into a tool schema."""


@dataclass(frozen=True)
class Docstring:
    """The parts of a Google-style docstring that schemas need."""

    summary: str
    args: dict[str, str]
    returns: str
    attributes: dict[str, str]


_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Return|Raises|Attributes|Yields|Examples?|Notes?):\s*$")
_ITEM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> Docstring:
    """Split a Google-style docstring into summary, ``Args:``, ``Returns:`` and ``Attributes:``."""
    text = inspect.cleandoc(doc or "")
    summary_lines: list[str] = []
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        match = _SECTION.match(line.strip())
        if match and not line.startswith(" "):
            name = match.group(1)
            name = {"Arguments": "Args", "Parameters": "Args", "Return": "Returns"}.get(name, name)
            current = sections.setdefault(name, [])
            continue
        if current is None:
            summary_lines.append(line)
        else:
            current.append(line)
    return Docstring(
        summary=" ".join(part.strip() for part in summary_lines if part.strip()),
        args=_parse_items(sections.get("Args", [])),
        returns=" ".join(part.strip() for part in sections.get("Returns", []) if part.strip()),
        attributes=_parse_items(sections.get("Attributes", [])),
    )


def _parse_items(lines: list[str]) -> dict[str, str]:
    items: dict[str, str] = {}
    name: str | None = None
    indent = None
    for raw in lines:
        if not raw.strip():
            continue
        stripped = raw.strip()
        this_indent = len(raw) - len(raw.lstrip())
        match = _ITEM.match(stripped)
        if match and (indent is None or this_indent <= indent):
            indent = this_indent
            name = match.group(1).lstrip("*")
            items[name] = match.group(2).strip()
        elif name is not None:
            items[name] = (items[name] + " " + stripped).strip()
    return items


def type_schema(hint: Any, owner: str = "") -> dict[str, Any]:
    """Return the JSON Schema of one type hint; ``owner`` names the place for error messages."""
    origin = get_origin(hint)
    if origin is not None and origin in _PRESENCE:  # NotRequired/Required: the TypedDict records presence
        return type_schema(get_args(hint)[0], owner)
    if origin is typing.Annotated:
        base, *extra = get_args(hint)
        schema = type_schema(base, owner)
        for item in extra:
            if isinstance(item, Entity):
                schema[ENTITY_KEY] = item.name
        return schema
    if hint in _PRIMITIVES:
        return {"type": _PRIMITIVES[hint]}
    if origin is Literal:
        values = list(get_args(hint))
        kinds = {type(v) for v in values}
        if len(kinds) != 1 or next(iter(kinds)) not in _PRIMITIVES:
            raise SchemaError(f"{owner}: Literal values must share one primitive type, got {values!r}")
        return {"type": _PRIMITIVES[next(iter(kinds))], "enum": values}
    if inspect.isclass(hint) and issubclass(hint, enum.Enum):
        values = [member.value for member in hint]
        return {"type": _PRIMITIVES[type(values[0])], "enum": values}
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(hint) if a is not type(None)]
        if len(members) != 1:
            raise SchemaError(f"{owner}: only Optional[X] unions are supported, got {hint!r}")
        return type_schema(members[0], owner)
    if origin is list or hint is list:
        args = get_args(hint)
        if not args:
            raise SchemaError(f"{owner}: list needs an item type, e.g. list[str]")
        return {"type": "array", "items": type_schema(args[0], owner)}
    if origin is dict or hint is dict:
        args = get_args(hint)
        schema: dict[str, Any] = {"type": "object"}
        if args:
            schema["additionalProperties"] = type_schema(args[1], owner)
        return schema
    if typing.is_typeddict(hint) or dataclasses.is_dataclass(hint):
        return record_schema(hint)
    if hint is Any:
        return {}
    raise SchemaError(f"{owner}: unsupported type hint {hint!r}; use str, int, float, bool, Literal, list, dict, TypedDict or a dataclass")


def record_schema(cls: type) -> dict[str, Any]:
    """Schema of a TypedDict or dataclass; field descriptions come from its ``Attributes:`` docstring."""
    hints = get_type_hints(cls, include_extras=True)
    doc = parse_docstring(cls.__doc__)
    attributes = doc.attributes
    if dataclasses.is_dataclass(cls):
        required = [
            f.name for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
    else:
        required = sorted(getattr(cls, "__required_keys__", hints.keys()), key=list(hints).index)
    properties: dict[str, Any] = {}
    for name, hint in hints.items():
        field_schema = type_schema(hint, f"{cls.__name__}.{name}")
        if name in attributes:
            field_schema["description"] = attributes[name]
        properties[name] = field_schema
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if doc.summary:
        schema["description"] = doc.summary
    return schema


def function_schema(func: Any, name: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Return ``(parameters, returns, description)`` for a tool method.

    Every parameter must be typed and described in the docstring's ``Args:`` section.
    """
    signature = inspect.signature(func)
    hints = get_type_hints(func, include_extras=True)
    doc = parse_docstring(func.__doc__)
    if not doc.summary:
        raise SchemaError(f"tool {name!r} needs a docstring summary")
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in signature.parameters.values():
        if param.name == "self":
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise SchemaError(f"tool {name!r}: *args/**kwargs are not allowed")
        if param.name not in hints:
            raise SchemaError(f"tool {name!r}: parameter {param.name!r} needs a type hint")
        if param.name not in doc.args:
            raise SchemaError(f"tool {name!r}: parameter {param.name!r} needs a description under 'Args:'")
        schema = type_schema(hints[param.name], f"{name}.{param.name}")
        schema["description"] = doc.args[param.name]
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
        elif param.default is not None:
            schema["default"] = param.default
        properties[param.name] = schema
    parameters = {"type": "object", "properties": properties, "required": required}
    returns = type_schema(hints["return"], f"{name}.return") if "return" in hints else {}
    if doc.returns:
        returns = {**returns, "description": doc.returns}
    return parameters, returns, doc.summary


def strip_private_keys(schema: Any) -> Any:
    """Copy of a schema without covert's ``x-`` annotations (for OpenAI specs and validators)."""
    if isinstance(schema, dict):
        return {k: strip_private_keys(v) for k, v in schema.items() if not k.startswith("x-")}
    if isinstance(schema, list):
        return [strip_private_keys(v) for v in schema]
    return schema


def closed(schema: dict[str, Any]) -> dict[str, Any]:
    """Copy of a schema in which every object rejects unknown keys (used for argument validation)."""
    out = dict(schema)
    if out.get("type") == "object" and "properties" in out:
        out["properties"] = {k: closed(v) for k, v in out["properties"].items()}
        out.setdefault("additionalProperties", False)
    if out.get("type") == "array" and isinstance(out.get("items"), dict):
        out["items"] = closed(out["items"])
    return out
