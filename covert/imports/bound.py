"""What binding makes of an operation: a bound tool, the error of an API that cannot be bound, and the schema
clean-ups a tool's arguments and outputs go through. Shared by the binder (:mod:`covert.imports.bind`) and
the custom actions it binds (:mod:`covert.imports.custom_actions`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from covert.env import State, ToolSpec
from covert.imports.resources import Role, words

TYPED_DEPTH = 6  # how deep a tool's output schema is kept (deeper levels: any value)
TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}
INTEGER_TEXT_FORMATS = frozenset({"int64", "uint64", "int32", "uint32"})
INTEGER_TEXT = "^-?[0-9]+$"
# formats fastjsonschema checks; others are documentation only and are dropped from argument schemas
CHECKED_FORMATS = {"date-time", "date", "email", "hostname", "ipv4", "ipv6", "uri", "uuid", "time", "regex"}


class BindError(ValueError):
    """An API that cannot be bound at all; ``reason`` is a counted snake_case code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass
class BoundTool:
    """One tool of a bound API: its spec, its role and the generic implementation."""

    spec: ToolSpec
    role: Role
    impl: Callable[[State, dict[str, Any]], Any]
    fields: dict[str, str] = field(default_factory=dict)  # parameter -> record field it sets or filters
    limit_param: str | None = None
    token_param: str | None = None
    # parameter -> (table, the record's own field saying it or "") of a record it belongs to besides its parent
    links: dict[str, tuple[str, str]] = field(default_factory=dict)
    made: Any = None  # a create tool's MadeRecords (covert.imports.state_cache), set by its implementation

    def __getstate__(self) -> dict[str, Any]:
        """What a pickled copy holds (another process, never a file): the implementation, a closure over
        the binding, is made again by :func:`bind`."""
        return {**self.__dict__, "impl": None}


def clean_schema(schema: Any, depth: int, name: str = "") -> dict[str, Any]:
    """An argument schema fit for OpenAI specs and fastjsonschema: known types only, bounded depth,
    no documentation-only formats, no defaults the validator would have to apply. A quantity Google sends
    as text (``"format": "int64"``) keeps its digits as a pattern; an id of that format (``name``) does not
    (covert's ids are in the API's id style)."""
    if not isinstance(schema, dict):
        return {"type": "string"}
    out: dict[str, Any] = {}
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k in TYPES]
        kind = kinds if kinds else "string"
    elif kind not in TYPES:
        kind = "object" if "properties" in schema else ("array" if "items" in schema else "string")
    out["type"] = kind
    for key in ("enum", "minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems"):
        if key in schema:
            out[key] = schema[key]
    if schema.get("format") in CHECKED_FORMATS:
        out["format"] = schema["format"]
    elif schema.get("format") in INTEGER_TEXT_FORMATS and kind == "string" and "pattern" not in out \
            and not _names_a_record(name):
        out["pattern"] = INTEGER_TEXT  # Google's int64 travels as text, but it is a number all the same
    if isinstance(schema.get("description"), str) and depth > 0:
        out["description"] = " ".join(schema["description"].split())[:200]
    if kind == "array":
        out["items"] = clean_schema(schema.get("items", {}), depth + 1) if depth < 4 else {}
    if kind == "object" and isinstance(schema.get("properties"), dict) and depth < 4:
        out["properties"] = {k: clean_schema(v, depth + 1, k) for k, v in schema["properties"].items()}
        req = [r for r in schema.get("required") or [] if r in out["properties"]]
        if req:
            out["required"] = req
    return out


def _names_a_record(name: str) -> bool:
    said = words(name)
    return not said or bool({"id", "ids", "identifier", "name", "names", "key", "number"} & set(said[-1:]))


def typed_schema(schema: Any, depth: int) -> dict[str, Any]:
    """A copy of an output schema where every object and array says its type (the tool graph walks types)."""
    if not isinstance(schema, dict):
        return {}
    out = dict(schema)
    if "type" not in out:
        if "properties" in out:
            out["type"] = "object"
        elif "items" in out:
            out["type"] = "array"
    if isinstance(out.get("type"), list):
        out["type"] = next((k for k in out["type"] if k != "null"), "string")
    if depth < TYPED_DEPTH:
        if isinstance(out.get("properties"), dict):
            out["properties"] = {k: typed_schema(v, depth + 1) for k, v in out["properties"].items()}
        if isinstance(out.get("items"), dict):
            out["items"] = typed_schema(out["items"], depth + 1)
    else:
        out.pop("properties", None)
        out.pop("items", None)
    return out
