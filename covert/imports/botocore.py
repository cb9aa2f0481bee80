"""botocore service models (``data/<service>/<version>/service-2.json[.gz]``) -> :class:`ApiSpec`.

Shapes become JSON Schema (structure -> object, list -> array, map -> object with
``additionalProperties``, timestamp -> date-time string, blob -> base64 string, long -> integer,
double/float -> number); a shape reference is resolved by :class:`~covert.imports.schema.Normalizer`, so
recursive shapes are cut and bounded like any other schema. Parameters are the input shape's members
under the names boto3 callers use, each with ``x-in`` from its ``location`` (uri -> path, querystring ->
query, header(s) -> header, otherwise body). Effect: a read prefix (List, Get, Describe, ...) or an HTTP
GET/HEAD is read, anything else writes. Pagination comes from ``paginators-1.json``; errors are the
operation's declared error shapes. botocore is Apache-2.0 (the package license).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from covert.imports.common import MAX_OPERATIONS, ParameterSet, clean_text, sha256, tool_name
from covert.imports.model import ApiSpec, Operation, SpecRejected
from covert.imports.schema import Normalizer

PACKAGE_LICENSE = "Apache-2.0"
READ_PREFIXES = ("List", "Get", "Describe", "Head", "Search", "Query", "Scan", "Lookup", "BatchGet", "Select",
                 "Check", "Estimate", "Preview", "Simulate", "Download", "Detect", "Retrieve", "View", "Read")
_WHERE = {"uri": "path", "querystring": "query", "header": "header", "headers": "header"}
_BLOCK = re.compile(r"</?(?:p|li|ul|ol|br|div|dl|dt|dd|note|important|h\d|table|tr|td)\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_SCALAR = {"string": {"type": "string"}, "integer": {"type": "integer"}, "long": {"type": "integer"},
           "boolean": {"type": "boolean"}, "float": {"type": "number"}, "double": {"type": "number"},
           "timestamp": {"type": "string", "format": "date-time"}, "blob": {"type": "string", "format": "byte"}}


def doc_text(doc: Any, limit: int = 2000) -> str:
    """botocore's HTML documentation as plain text."""
    if not isinstance(doc, str):
        return ""
    return clean_text(html.unescape(_TAG.sub("", _BLOCK.sub(" ", doc))), limit)


def effect_of(name: str, http_method: str | None) -> str:
    """read or write from the operation name's prefix, then its HTTP method."""
    for prefix in READ_PREFIXES:
        if name.startswith(prefix) and (len(name) == len(prefix) or name[len(prefix)].isupper()):
            return "read"
    return "read" if http_method in ("GET", "HEAD") else "write"


class _Shapes:
    """Shapes as JSON Schema, each member's shape left as a ``$ref`` by name for the Normalizer."""

    def __init__(self, shapes: dict[str, Any]) -> None:
        self.shapes = shapes
        self._done: dict[str, dict[str, Any]] = {}

    def __call__(self, name: str) -> dict[str, Any]:
        if name not in self._done:
            if name not in self.shapes or not isinstance(self.shapes[name], dict):
                raise LookupError(name)
            self._done[name] = self.convert(self.shapes[name])
        return self._done[name]

    @staticmethod
    def ref(member: Any) -> dict[str, Any]:
        if not isinstance(member, dict) or not isinstance(member.get("shape"), str):
            raise SpecRejected("invalid_schema", "a member names no shape")
        out: dict[str, Any] = {"$ref": member["shape"]}
        if member.get("documentation"):
            out["description"] = doc_text(member["documentation"], 1024)
        return out

    def convert(self, shape: dict[str, Any]) -> dict[str, Any]:
        kind = shape.get("type")
        out: dict[str, Any]
        if kind == "structure":
            members = shape.get("members") if isinstance(shape.get("members"), dict) else {}
            out = {"type": "object", "properties": {k: self.ref(v) for k, v in members.items()}}
            required = [r for r in shape.get("required", []) if r in members]
            if required:
                out["required"] = required
        elif kind == "list":
            out = {"type": "array", "items": self.ref(shape.get("member"))}
            if isinstance(shape.get("min"), int):
                out["minItems"] = shape["min"]
            if isinstance(shape.get("max"), int):
                out["maxItems"] = shape["max"]
        elif kind == "map":
            out = {"type": "object", "additionalProperties": self.ref(shape.get("value"))}
        elif kind in _SCALAR:
            out = dict(_SCALAR[kind])
            if kind == "string":
                if isinstance(shape.get("enum"), list) and shape["enum"]:
                    out["enum"] = shape["enum"]
                if isinstance(shape.get("pattern"), str):
                    out["pattern"] = shape["pattern"]
                if isinstance(shape.get("min"), int):
                    out["minLength"] = shape["min"]
                if isinstance(shape.get("max"), int):
                    out["maxLength"] = shape["max"]
            elif kind in ("integer", "long", "float", "double"):
                for src, dst in (("min", "minimum"), ("max", "maximum")):
                    if isinstance(shape.get(src), (int, float)) and not isinstance(shape.get(src), bool):
                        out[dst] = shape[src]
        else:
            raise SpecRejected("invalid_schema", f"unknown shape type {kind!r}")
        if shape.get("documentation"):
            out["description"] = doc_text(shape["documentation"], 1024)
        return out


def import_service(model: dict[str, Any], raw: bytes, service: str, paginators: dict[str, Any] | None = None,
                   provenance: dict[str, str] | None = None) -> ApiSpec:
    """One botocore service model as an ApiSpec; raises :class:`SpecRejected` for the whole model."""
    if not isinstance(model, dict) or not isinstance(model.get("operations"), dict):
        raise SpecRejected("not_botocore", f"{service}: not a botocore service model")
    meta = model.get("metadata") if isinstance(model.get("metadata"), dict) else {}
    shapes = _Shapes(model.get("shapes") if isinstance(model.get("shapes"), dict) else {})
    norm = Normalizer(shapes)
    pages = (paginators or {}).get("pagination", {}) if isinstance(paginators, dict) else {}
    taken: set[str] = set()
    ops: list[Operation] = []
    skipped: list[tuple[str, str]] = []
    for name, op in model["operations"].items():
        if len(ops) >= MAX_OPERATIONS:
            skipped.append((name, "too_many_operations"))
            continue
        if not isinstance(op, dict):
            skipped.append((name, "invalid_operation"))
            continue
        try:
            ops.append(_operation(name, op, shapes, norm, pages.get(name), taken))
        except SpecRejected as exc:
            skipped.append((name, exc.reason))
        except RecursionError:
            skipped.append((name, "schema_too_large"))
    if not ops:
        raise SpecRejected("no_operations", f"{service}: no importable operation")
    version = str(meta.get("apiVersion", ""))
    title = str(meta.get("serviceFullName") or meta.get("serviceId") or service)
    prov = {**(provenance or {}), "sha256": sha256(raw), "protocol": str(meta.get("protocol", "")),
            "license_basis": "package license of botocore"}
    return ApiSpec(source="botocore", api=f"botocore:{service}:{version}", title=title, version=version,
                   description=doc_text(model.get("documentation")), license=PACKAGE_LICENSE, license_url=None,
                   provenance=prov, operations=tuple(ops), skipped=tuple(skipped))


def _operation(name: str, op: dict[str, Any], shapes: _Shapes, norm: Normalizer, pager: Any,
               taken: set[str]) -> Operation:
    norm.budget()
    http = op.get("http") if isinstance(op.get("http"), dict) else {}
    method = str(http.get("method", "POST")).upper()
    params = ParameterSet()
    if isinstance(op.get("input"), dict):
        in_name = op["input"].get("shape")
        shape = shapes.shapes.get(in_name) if isinstance(in_name, str) else None
        if not isinstance(shape, dict):
            raise SpecRejected("dangling_ref", f"{name}: input shape {in_name!r} is not in the model")
        required = set(shape.get("required", ()))
        for member, spec in (shape.get("members") or {}).items():
            where = _WHERE.get(spec.get("location", ""), "body") if isinstance(spec, dict) else "body"
            schema = norm.normalize(shapes.ref(spec))
            params.add(member, schema, where, required=member in required or where == "path")
    response = None
    if isinstance(op.get("output"), dict):
        response = norm.normalize(shapes.ref(op["output"]))
    errors = tuple(e["shape"] for e in op.get("errors", []) if isinstance(e, dict) and isinstance(e.get("shape"), str))
    hints: dict[str, Any] = {}
    if op.get("deprecated") is True:
        hints["deprecated"] = True
    if norm.exhausted:
        hints["schema_truncated"] = True
    schema = params.schema()
    return Operation(op_id=name, name=tool_name(name, taken), description=doc_text(op.get("documentation")),
                     parameters=schema, response=response, effect=effect_of(name, method), http_method=method,
                     path=str(http.get("requestUri", "")) or None, hints=hints,
                     pagination=_pagination(pager, schema), errors=errors)


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, str) else None


def _pagination(pager: Any, params: dict[str, Any]) -> dict[str, str] | None:
    if not isinstance(pager, dict):
        return None
    out = {}
    for src, dst in (("input_token", "token_param"), ("output_token", "next_token_field"),
                     ("limit_key", "limit_param"), ("result_key", "items_field")):
        value = _first(pager.get(src))
        if value:
            out[dst] = value
    if out.get("token_param") not in params["properties"]:
        out.pop("token_param", None)
    return out or None


def import_service_bytes(raw: bytes, service: str, paginators: bytes | None = None,
                         provenance: dict[str, str] | None = None) -> ApiSpec:
    """A service model from its (already decompressed) bytes, with its paginators file when there is one."""
    try:
        model = json.loads(raw)
        pages = json.loads(paginators) if paginators else None
    except ValueError as exc:
        raise SpecRejected("invalid_json", f"{service}: {exc}") from None
    return import_service(model, raw, service, pages, provenance)
