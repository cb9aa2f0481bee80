"""Loading the JSON Schemas shipped in ``schemas/`` and compiled validators for them."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import fastjsonschema
import jsonschema_rs


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema ``schemas/<name>.schema.json`` with references to sibling files inlined."""
    text = resources.files("schemas").joinpath(f"{name}.schema.json").read_text()
    return _inline(json.loads(text))


def _inline(node: Any) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.endswith(".schema.json"):
            inner = dict(load_schema(ref.removesuffix(".schema.json")))
            inner.pop("$schema", None)
            inner.pop("$id", None)
            defs = inner.pop("$defs", None)
            if defs:
                raise ValueError(f"{ref}: inlined schemas may not define $defs")
            return inner
        return {k: _inline(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v) for v in node]
    return node


@cache
def validator(name: str, trusted_tools: bool = False) -> Any:
    """A compiled validator (jsonschema-rs) for ``schemas/<name>.schema.json``; raises ``SchemaViolation``.

    With ``trusted_tools`` the row's ``tools`` are only checked to be objects: for callers that compare
    them to builder specs already validated against ``tool.schema.json`` (see :func:`builder_specs_valid`).
    """
    schema = load_schema(name)
    if trusted_tools and "tools" in schema.get("properties", {}):
        schema = {**schema, "properties": {**schema["properties"],
                                           "tools": {"type": "array", "items": {"type": "object"}}}}
    return jsonschema_rs.validator_for(schema).validate


@cache
def builder_specs_valid(specs: tuple[str, ...], env_cls: Any) -> bool:
    """Validate an environment's OpenAI tool specs against ``tool.schema.json`` once per process."""
    check = validator("tool")
    for spec in env_cls.openai_tools():
        check(spec)
    return True


SchemaViolation = (fastjsonschema.JsonSchemaException, jsonschema_rs.ValidationError)
"""What a failed validation raises (catch it as ``except SchemaViolation``)."""
