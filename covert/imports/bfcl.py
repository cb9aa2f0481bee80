"""BFCL function docs -> one :class:`ApiSpec` marked ``evaluation_source=True``.

A BFCL file holds one JSON test entry per line, each with a ``function`` list of
``{name, description, parameters}`` docs; BFCL's loose type names (``dict``, ``float``, ``tuple``,
``any``, Java's ``String``/``HashMap``, ...) become JSON Schema types. The functions of the whole file
form one spec (``bfcl:<name>``), first occurrence of each name and schema kept; a name reused with a
different schema gets a numbered tool name. Effect is ``unknown`` (BFCL says nothing about state).
Because BFCL is evaluation data, its specs carry ``evaluation_source=True``, and builds refuse to train
on them unless explicitly allowed.

``bfcl-eval:<category>`` reads the category's file from the ``bfcl-eval`` wheel that
:mod:`covert.rewards.bfcl_data` caches (license from the wheel: Apache-2.0).
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

from covert.imports.common import MAX_OPERATIONS, MAX_SPEC_BYTES, ParameterSet, clean_text, sha256, tool_name
from covert.imports.model import ApiSpec, Operation, SpecRejected
from covert.imports.schema import Normalizer

WHEEL_PREFIX = "bfcl-eval:"
WHEEL_LICENSE = "Apache-2.0"
_TYPES = {"dict": "object", "object": "object", "hashmap": "object", "map": "object",
          "float": "number", "double": "number", "number": "number", "integer": "integer", "int": "integer",
          "long": "integer", "short": "integer", "byte": "integer", "string": "string", "str": "string",
          "char": "string", "character": "string", "boolean": "boolean", "bool": "boolean",
          "array": "array", "list": "array", "arraylist": "array", "tuple": "array", "set": "array",
          "null": "null"}
MAX_LINE_BYTES = 4 * 1024 * 1024


def bfcl_schema(node: Any, depth: int = 0) -> Any:
    """A BFCL parameter schema with its type names mapped to JSON Schema's (``any`` drops the type)."""
    if depth > 32 or not isinstance(node, dict):
        return {} if depth > 32 else node
    out = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            kind = _TYPES.get(value.lower())
            if kind:
                out["type"] = kind
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: bfcl_schema(v, depth + 1) for k, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = bfcl_schema(value, depth + 1)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            out[key] = [bfcl_schema(v, depth + 1) for v in value]
        else:
            out[key] = value
    return out


def _no_refs(ref: str) -> Any:
    raise LookupError(ref)


def functions_to_spec(lines: list[bytes], name: str, license: str | None, provenance: dict[str, str],
                      allow_unlicensed: bool = False) -> ApiSpec:
    """The spec of the function docs in BFCL JSONL ``lines``; bad lines are skipped with a reason."""
    if license is None and not allow_unlicensed:
        raise SpecRejected("no_license", f"{name}: give the file's license with --license (or --allow-unlicensed)")
    taken: set[str] = set()
    seen: dict[tuple[str, str], None] = {}
    ops: list[Operation] = []
    skipped: list[tuple[str, str]] = []
    norm = Normalizer(_no_refs)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            skipped.append((f"line {number}", "invalid_json"))
            continue
        functions = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(functions, list):
            skipped.append((f"line {number}", "no_functions"))
            continue
        for doc in functions:
            if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
                skipped.append((f"line {number}", "invalid_function"))
                continue
            key = (doc["name"], json.dumps(doc.get("parameters"), sort_keys=True))
            if key in seen:
                continue
            seen[key] = None
            if len(ops) >= MAX_OPERATIONS:
                skipped.append((doc["name"], "too_many_operations"))
                continue
            try:
                ops.append(_operation(doc, norm, taken))
            except SpecRejected as exc:
                skipped.append((doc["name"], exc.reason))
    if not ops:
        raise SpecRejected("no_operations", f"{name}: no function docs found")
    return ApiSpec(source="bfcl", api=f"bfcl:{name}", title=f"BFCL {name}", version="", description="",
                   license=license, license_url=None, provenance=provenance, operations=tuple(ops),
                   evaluation_source=True, skipped=tuple(skipped))


def _operation(doc: dict[str, Any], norm: Normalizer, taken: set[str]) -> Operation:
    norm.budget()
    raw = doc.get("parameters") if isinstance(doc.get("parameters"), dict) else {"type": "object"}
    schema = norm.normalize(bfcl_schema(raw))
    params = ParameterSet()
    required = set(schema.get("required", ()))
    for pname, prop in (schema.get("properties") or {}).items():
        params.add(pname, prop, "argument", required=pname in required)
    return Operation(op_id=doc["name"], name=tool_name(doc["name"], taken), description=clean_text(doc.get("description")),
                     parameters=params.schema(), response=None, effect="unknown")


def import_bfcl_file(target: str | os.PathLike[str], name: str | None = None, license: str | None = None,
                     allow_unlicensed: bool = False, cache: Path | None = None) -> ApiSpec:
    """A BFCL JSONL file (or ``bfcl-eval:<category>`` from the cached wheel) as one evaluation-source spec."""
    text = str(target)
    if text.startswith(WHEEL_PREFIX):
        from covert.rewards.bfcl_data import DEFAULT_CACHE, BfclUnavailable, bfcl_wheel

        category = text[len(WHEEL_PREFIX):]
        try:
            wheel = bfcl_wheel(cache or DEFAULT_CACHE)
            with zipfile.ZipFile(wheel) as archive:
                data = archive.read(f"bfcl_eval/data/BFCL_v4_{category}.json")
        except (BfclUnavailable, KeyError) as exc:
            raise SpecRejected("bfcl_unavailable", f"{text}: {exc}") from None
        prov = {"package": "pypi:bfcl-eval", "package_version": wheel.name.split("-")[1],
                "file": f"bfcl_eval/data/BFCL_v4_{category}.json", "sha256": sha256(data)}
        return functions_to_spec(data.splitlines(), name or category, license or WHEEL_LICENSE, prov)
    path = Path(target)
    if path.stat().st_size > MAX_SPEC_BYTES:
        raise SpecRejected("too_large", f"{path.name} is over {MAX_SPEC_BYTES} bytes")
    data = path.read_bytes()
    lines = data.splitlines()
    if any(len(line) > MAX_LINE_BYTES for line in lines):
        raise SpecRejected("too_large", f"{path.name} has a line over {MAX_LINE_BYTES} bytes")
    return functions_to_spec(lines, name or path.stem, license, {"file": path.name, "sha256": sha256(data)},
                             allow_unlicensed)
