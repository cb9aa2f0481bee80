"""JSON Schema work shared by the importers: resolve ``$ref``, merge allOf, bound the size of what comes out.

Every importer hands :class:`Normalizer` its source's own schemas and a ``resolve`` function for its
reference syntax (a JSON pointer for OpenAPI, a schema name for Google Discovery). What comes out is
plain JSON Schema with no ``$ref`` left:

- ``allOf`` is merged into one schema (properties and ``required`` united, first value wins on a clash);
  ``oneOf``/``anyOf`` are kept, each variant resolved.
- OpenAPI 3.0's ``nullable: true`` becomes a type list with ``"null"``; ``readOnly``/``writeOnly`` are
  kept so request and response sides can drop what does not travel their way (:func:`drop_marked`).
- A recursive schema (a ``$ref`` that reaches itself through ``properties``/``items``) is cut where it
  re-enters: that node becomes ``{"type": ..., "x-recursive": "<ref>"}``. A ``$ref`` cycle that passes
  through no property or item (``A -> B -> A`` by reference or allOf alone) has no finite meaning and
  raises :class:`SpecRejected` ``cyclic_schema``.
- Nesting deeper than ``max_depth``, and every node past an operation's budget of ``max_nodes``,
  becomes ``{"type": ..., "x-truncated": true}``; a ``$ref`` that points nowhere raises
  ``dangling_ref``; a schema that is not an object raises ``invalid_schema``.
- The spec's own example values (OpenAPI's ``example`` and ``examples``, JSON Schema's ``examples``) are
  kept as ``examples``: at most :data:`MAX_EXAMPLES` scalars, strings of at most
  :data:`MAX_EXAMPLE_LENGTH` characters (state factories draw realistic values from them).
- Other keywords outside :data:`KEEP` (xml, vendor ``x-`` keys, ...) are dropped; a ``pattern``
  Python cannot compile (ECMA-only syntax) is kept as ``x-pattern``; OpenAPI 3.0's boolean
  ``exclusiveMinimum``/``exclusiveMaximum`` become the numeric form.

Descriptions are kept to :data:`MAX_DESCRIPTION` characters at the top two levels and to
:data:`MAX_NESTED_DESCRIPTION` below. A resolved reference is cached (per depth when it was truncated
below) when its result does not depend on the references above it, so a spec with thousands of
operations sharing schemas is resolved in time linear in what is written.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable
from typing import Any

from covert.env.patterns import checkable
from covert.imports.model import SpecRejected

KEEP = frozenset({
    "type", "properties", "required", "items", "enum", "format", "description", "title", "default",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern",
    "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "additionalProperties",
    "anyOf", "oneOf", "const", "multipleOf", "readOnly", "writeOnly", "deprecated",
})
_SCALAR_KEYS = KEEP - {"properties", "items", "additionalProperties", "anyOf", "oneOf", "required"}
_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
MAX_DESCRIPTION = 1024
MAX_DEPTH = 5
MAX_NODES = 1_000
MAX_NESTED_DESCRIPTION = 300
MAX_PATTERN = 500
MAX_EXAMPLES = 5
MAX_EXAMPLE_LENGTH = 200

Resolver = Callable[[str], Any]


_NUMERIC = frozenset({"minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems",
                      "minProperties", "maxProperties"})


def as_number(value: Any) -> Any:
    """A bound as a number (Discovery writes some as strings, "0"); None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return None
    return None


@functools.lru_cache(maxsize=4096)
def usable_pattern(pattern: Any) -> bool:
    """Whether ``pattern`` is a regular expression of at most :data:`MAX_PATTERN` characters that Python
    and a bounded-time engine both compile (:func:`covert.env.patterns.checkable`).

    Others (ECMA-only syntax such as ``\\p{L}``, Python-only syntax, or very long ones) are kept as
    ``x-pattern`` instead, so a validator downstream never fails on them and never runs them.
    """
    if not isinstance(pattern, str) or len(pattern) > MAX_PATTERN:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return checkable(pattern)


_DOUBLED_CLASS = re.compile(r"(?<!\\)\\\\([dDsSwW])")


def undoubled(pattern: Any) -> Any:
    """A pattern whose class escapes were escaped twice (``.*\\\\S.*``, as some botocore shapes write it:
    a literal backslash before an ``S`` that no name holds) with them escaped once (``.*\\S.*``)."""
    return _DOUBLED_CLASS.sub(r"\\\1", pattern) if isinstance(pattern, str) and "\\\\" in pattern else pattern


def _cost(schema: dict[str, Any]) -> int:
    """What a schema costs against the budget: about one unit per 100 bytes it serialises to."""
    return _own_cost(schema) + sum(_cost(v) for v in _children(schema))


def _own_cost(schema: dict[str, Any]) -> int:
    """The cost of a node's own keywords (its children not counted)."""
    own = len(schema.get("description", "")) + 16 * len(schema) + sum(len(k) for k in schema.get("properties", ()))
    enum = schema.get("enum")
    if isinstance(enum, list):
        own += sum(len(str(e)) + 3 for e in enum)
    return 1 + own // 100


def _children(schema: dict[str, Any]) -> list[dict[str, Any]]:
    out = list(schema.get("properties", {}).values())
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            out.append(schema[key])
    for key in ("anyOf", "oneOf"):
        out.extend(schema.get(key, ()))
    return out


def _type_of(schema: Any) -> Any:
    if isinstance(schema, dict):
        kind = schema.get("type")
        if isinstance(kind, str) and kind in _TYPES:
            return kind
        if "properties" in schema:
            return "object"
    return "object"


def merge_all_of(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One schema from allOf ``parts`` (already resolved): properties and required united, first wins."""
    out: dict[str, Any] = {}
    props: dict[str, Any] = {}
    required: list[str] = []
    for part in parts:
        for key, value in part.items():
            if key == "properties":
                for name, sub in value.items():
                    props.setdefault(name, sub)
            elif key == "required":
                required.extend(r for r in value if r not in required)
            else:
                out.setdefault(key, value)
    if props:
        out["properties"] = props
        out.setdefault("type", "object")
    if required:
        out["required"] = required
    return out


class Normalizer:
    """Resolves and normalises the schemas of one spec (see the module docstring).

    Args:
        resolve: Maps a reference string to the schema it names; raises ``KeyError``/``LookupError``
            when it names nothing.
        max_depth: Nesting kept before a node is truncated.
        max_nodes: What one :meth:`budget` may produce, in units of about 100 bytes (:func:`_cost`);
            past it, nodes are truncated like nesting past ``max_depth``, so the parameters (resolved
            first) keep their detail and a huge response schema loses its depths.
    """

    def __init__(self, resolve: Resolver, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> None:
        self._resolve = resolve
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self._cache: dict[str | tuple[str, int], tuple[dict[str, Any], int]] = {}
        self._left = max_nodes
        self._budget_cuts = 0
        self._cuts_at_budget = 0

    def budget(self) -> None:
        """Start a fresh node budget (call once per operation)."""
        self._left = self.max_nodes
        self._cuts_at_budget = self._budget_cuts

    @property
    def exhausted(self) -> bool:
        """Whether nodes were truncated for want of budget since :meth:`budget` was last called."""
        return self._budget_cuts != self._cuts_at_budget

    def _spend(self, count: int) -> None:
        self._left -= count

    def normalize(self, schema: Any) -> dict[str, Any]:
        """``schema`` with every reference resolved, allOf merged and sizes bounded."""
        out, _, _ = self._norm(schema, (), 0)
        return out

    def _norm(self, node: Any, stack: tuple[tuple[str, bool], ...], depth: int
              ) -> tuple[dict[str, Any], frozenset[str], bool]:
        """(schema, refs cut below it, whether depth truncation happened below it)."""
        if node is True or node == {}:
            self._spend(1)
            return {}, frozenset(), False
        if node is False:
            self._spend(1)
            return {"not": {}}, frozenset(), False
        if not isinstance(node, dict):
            raise SpecRejected("invalid_schema", f"a schema is a {type(node).__name__}, not an object")
        if "$ref" in node:
            return self._ref(node, stack, depth)
        if depth > self.max_depth or self._left <= 0:
            if self._left <= 0:
                self._budget_cuts += 1
            return {"type": _type_of(node), "x-truncated": True}, frozenset(), True
        cuts: set[str] = set()
        truncated = False

        def sub(child: Any, step: bool) -> dict[str, Any]:
            nonlocal truncated
            result, cut, trunc = self._norm(child, (*stack, ("", step)), depth + (1 if step else 0))
            cuts.update(cut)
            truncated = truncated or trunc
            return result

        if isinstance(node.get("allOf"), list) and node["allOf"]:
            parts = [sub(p, False) for p in node["allOf"]]
            rest = {k: v for k, v in node.items() if k != "allOf"}
            if rest:
                parts.insert(0, sub(rest, False))
            return merge_all_of(parts), frozenset(cuts), truncated
        self._spend(1)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _SCALAR_KEYS:
                if key == "description":
                    if isinstance(value, str) and value.strip():
                        out[key] = " ".join(value.split())[:MAX_DESCRIPTION if depth < 2 else MAX_NESTED_DESCRIPTION]
                elif key == "type":
                    kinds = [value] if isinstance(value, str) else value if isinstance(value, list) else []
                    kinds = [k for k in kinds if k in _TYPES]
                    if kinds:
                        out[key] = kinds[0] if len(kinds) == 1 else kinds
                elif key == "enum":
                    if isinstance(value, list) and value:
                        out[key] = value
                elif key in _NUMERIC:
                    number = as_number(value)
                    if number is not None:
                        out[key] = number
                elif key == "pattern":
                    value = undoubled(value)
                    if usable_pattern(value):
                        out[key] = value
                    elif isinstance(value, str):
                        out["x-pattern"] = value[:MAX_PATTERN]
                elif key == "required":
                    pass
                else:
                    out[key] = value
            elif key in ("example", "examples"):
                kept = examples_of(value)
                if kept:
                    out["examples"] = list(dict.fromkeys([*out.get("examples", ()), *kept]))[:MAX_EXAMPLES]
            elif key == "properties" and isinstance(value, dict):
                out["properties"] = {str(name): sub(prop, True) for name, prop in value.items()}
            elif key == "items":
                if isinstance(value, list):  # tuple form: keep the first item schema
                    value = value[0] if value else {}
                out["items"] = sub(value, True)
            elif key == "additionalProperties":
                out[key] = sub(value, True) if isinstance(value, dict) else bool(value)
            elif key in ("anyOf", "oneOf") and isinstance(value, list) and value:
                out[key] = [sub(v, False) for v in value]
        required = node.get("required")
        if isinstance(required, list):
            names = [r for r in required if isinstance(r, str)]
            if "properties" in out:
                names = [r for r in names if r in out["properties"]]
            if names:
                out["required"] = names
        for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            # OpenAPI 3.0 / draft 4 write a flag beside minimum/maximum (popped whatever its value)
            if isinstance(out.get(bound), bool) and out.pop(bound) and limit in out:
                out[bound] = out.pop(limit)
        if node.get("nullable") is True and "type" in out:
            kinds = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = kinds if "null" in kinds else [*kinds, "null"]
        if "properties" in out and "type" not in out:
            out["type"] = "object"
        self._spend(_own_cost(out) - 1)
        return out, frozenset(cuts), truncated

    def _ref(self, node: dict[str, Any], stack: tuple[tuple[str, bool], ...], depth: int
             ) -> tuple[dict[str, Any], frozenset[str], bool]:
        ref = node["$ref"]
        if not isinstance(ref, str):
            raise SpecRejected("invalid_schema", "a $ref is not a string")
        for index in range(len(stack) - 1, -1, -1):
            if stack[index][0] == ref:
                if not any(step for _, step in stack[index + 1:]):
                    raise SpecRejected("cyclic_schema", f"{ref} refers to itself through no property or item")
                try:
                    target = self._resolve(ref)
                except LookupError:
                    target = {}
                self._spend(1)
                return {"type": _type_of(target), "x-recursive": ref}, frozenset({ref}), False
        cached = self._cache.get(ref)
        truncated_hit = False
        if cached is None:
            cached = self._cache.get((ref, depth))
            truncated_hit = cached is not None
        if cached is not None and cached[1] <= self._left:
            self._spend(cached[1])
            return cached[0], frozenset(), truncated_hit
        try:
            target = self._resolve(ref)
        except LookupError:
            raise SpecRejected("dangling_ref", f"$ref {ref} points to nothing in the spec") from None
        mark = self._budget_cuts
        result, cuts, truncated = self._norm(target, (*stack, (ref, False)), depth)
        cuts = cuts - {ref}
        if not cuts and self._budget_cuts == mark:
            self._cache[(ref, depth) if truncated else ref] = (result, _cost(result))
        description = node.get("description")
        if isinstance(description, str) and description.strip() and "description" not in result:
            result = {**result, "description": description.strip()[:MAX_DESCRIPTION]}
        return result, frozenset(cuts), truncated


def examples_of(value: Any) -> list[Any]:
    """The scalar example values of an ``example``/``examples`` keyword (a value, a list of values, or
    OpenAPI's map of named examples with ``value``), bounded."""
    if isinstance(value, dict):  # OpenAPI 3's {"name": {"value": ...}} on media types and parameters
        value = [v.get("value") for v in value.values() if isinstance(v, dict)] if all(
            isinstance(v, dict) for v in value.values()) else []
    values = value if isinstance(value, list) else [value]
    out = []
    for item in values[:MAX_EXAMPLES * 2]:
        if (isinstance(item, str) and 0 < len(item) <= MAX_EXAMPLE_LENGTH and item.strip() == item) or (isinstance(item, (int, float)) and not isinstance(item, bool)):
            out.append(item)
    return out[:MAX_EXAMPLES]


_DOCUMENTED_REQUIRED = re.compile(r"^\s*\[?required\b[\].:]", re.IGNORECASE)
_DOCUMENTED_OUTPUT_ONLY = re.compile(r"(?:^|\.\s+|\()\[?output[ -]only\b", re.IGNORECASE)


def documented_required(schema: Any) -> bool:
    """Whether a property's description opens with "Required." (how Google's documents mark the body
    fields a request must carry; their schemas list none)."""
    return isinstance(schema, dict) and bool(_DOCUMENTED_REQUIRED.match(str(schema.get("description") or "")))


def documented_output_only(schema: Any) -> bool:
    """Whether a property's description says it is "Output only." (set by the server, never sent)."""
    return isinstance(schema, dict) and bool(_DOCUMENTED_OUTPUT_ONLY.search(str(schema.get("description") or "")[:400]))


def mark_output_only(schema: dict[str, Any]) -> dict[str, Any]:
    """Mark as readOnly the top-level fields documented as "Output only." (request bodies drop them)."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return schema
    marked = {k: ({**v, "readOnly": True} if documented_output_only(v) else v) for k, v in props.items()}
    return {**schema, "properties": marked}


def drop_marked(schema: dict[str, Any], marker: str) -> dict[str, Any]:
    """``schema`` without the properties marked ``marker`` (``readOnly`` for requests, ``writeOnly`` for responses)."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return schema
    kept = {k: v for k, v in props.items() if not (isinstance(v, dict) and v.get(marker) is True)}
    if len(kept) == len(props):
        return schema
    out = {**schema, "properties": kept}
    if "required" in out:
        out["required"] = [r for r in out["required"] if r in kept]
        if not out["required"]:
            del out["required"]
    return out


def json_pointer(document: Any, ref: str) -> Any:
    """The node ``ref`` (``#/a/b~1c``) names in ``document``; raises ``LookupError`` when none."""
    if not ref.startswith("#"):
        raise LookupError(ref)
    node = document
    for raw in ref[1:].split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if "%" in part:
            from urllib.parse import unquote

            part = unquote(part)
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise LookupError(ref)
    return node
