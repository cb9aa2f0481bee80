"""Google Discovery documents (as google-api-python-client ships them) -> :class:`ApiSpec`.

One operation per method, resources walked depth-first in document order. Parameters: the method's
path and query parameters (``repeated`` ones become arrays; the API-wide ``alt``/``fields``/``key``/...
parameters stay with the transport), then the request schema's properties as body parameters (its
read-only fields, and those documented as "Output only.", dropped; on a POST or PUT, those documented as
"Required." are required), or one ``body`` parameter when the request is not an object. The response
is the ``response`` schema, every ``$ref`` (a bare schema name) resolved. Effect: ``httpMethod`` GET is
read, every other method writes. ``hints["standard_method"]`` names Google's standard method
(list/get/create/update/delete) when the method's name is one of them or a known alias (insert, patch).

Discovery documents declare no license of their own; the package that ships them is Apache-2.0,
recorded as ``license`` with ``provenance["license_basis"]`` saying so.
"""

from __future__ import annotations

import json
from typing import Any

from covert.imports.common import (
    MAX_OPERATIONS,
    ParameterSet,
    clean_text,
    pagination,
    sha256,
    tool_name,
)
from covert.imports.model import ApiSpec, Operation, SpecRejected
from covert.imports.schema import Normalizer, as_number, documented_required, drop_marked, mark_output_only

PACKAGE_LICENSE = "Apache-2.0"
STANDARD = {"list": "list", "get": "get", "create": "create", "insert": "create", "update": "update",
            "patch": "update", "delete": "delete"}
_PARAM_KEYS = ("type", "format", "enum", "description", "default", "minimum", "maximum", "pattern")
MAX_RESOURCE_DEPTH = 12


def _param_schema(param: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {k: param[k] for k in _PARAM_KEYS if k in param}
    if schema.get("type") == "any":
        del schema["type"]
    if "minimum" in schema:
        schema["minimum"] = as_number(schema["minimum"])
    if "maximum" in schema:
        schema["maximum"] = as_number(schema["maximum"])
    if "description" in schema:
        schema["description"] = clean_text(schema["description"], 1024)
    if param.get("repeated") is True:
        schema = {"type": "array", "items": schema}
    return {k: v for k, v in schema.items() if v is not None}


def _methods(node: dict[str, Any], depth: int = 0) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    if depth > MAX_RESOURCE_DEPTH:
        return out
    for key, method in (node.get("methods") or {}).items():
        if isinstance(method, dict):
            out.append((key, method))
    for resource in (node.get("resources") or {}).values():
        if isinstance(resource, dict):
            out.extend(_methods(resource, depth + 1))
    return out


def import_discovery(doc: dict[str, Any], raw: bytes, provenance: dict[str, str]) -> ApiSpec:
    """One Discovery document as an ApiSpec; raises :class:`SpecRejected` for the whole document."""
    if not isinstance(doc, dict) or doc.get("kind") != "discovery#restDescription":
        raise SpecRejected("not_discovery", "not a Discovery REST description")
    schemas = doc.get("schemas") if isinstance(doc.get("schemas"), dict) else {}

    def resolve(ref: str) -> Any:
        return schemas[ref]

    norm = Normalizer(resolve)
    taken: set[str] = set()
    ops: list[Operation] = []
    skipped: list[tuple[str, str]] = []
    for key, method in _methods(doc):
        op_id = method.get("id") if isinstance(method.get("id"), str) else key
        if len(ops) >= MAX_OPERATIONS:
            skipped.append((op_id, "too_many_operations"))
            continue
        try:
            ops.append(_operation(key, op_id, method, norm, taken))
        except SpecRejected as exc:
            skipped.append((op_id, exc.reason))
        except RecursionError:
            skipped.append((op_id, "schema_too_large"))
    if not ops:
        raise SpecRejected("no_operations", f"{doc.get('id', 'document')}: no importable method")
    name, version = str(doc.get("name", "")), str(doc.get("version", ""))
    prov = {**provenance, "sha256": sha256(raw), "revision": str(doc.get("revision", "")),
            "license_basis": "package license of google-api-python-client (the document declares none)"}
    if doc.get("documentationLink"):
        prov["documentation"] = str(doc["documentationLink"])
    return ApiSpec(source="google", api=f"google:{name}:{version}", title=clean_text(doc.get("title"), 200) or name,
                   version=version, description=clean_text(doc.get("description")), license=PACKAGE_LICENSE,
                   license_url=None, provenance=prov, operations=tuple(ops), skipped=tuple(skipped))


def _operation(key: str, op_id: str, method: dict[str, Any], norm: Normalizer, taken: set[str]) -> Operation:
    norm.budget()
    params = ParameterSet()
    raw_params = method.get("parameters") if isinstance(method.get("parameters"), dict) else {}
    order = [p for p in method.get("parameterOrder") or [] if p in raw_params]
    order += [p for p in raw_params if p not in order]
    for pname in order:
        param = raw_params[pname]
        if not isinstance(param, dict):
            continue
        where = "path" if param.get("location") == "path" else "query"
        params.add(pname, norm.normalize(_param_schema(param)), where, required=bool(param.get("required")))
    request = method.get("request")
    if isinstance(request, dict) and request:
        body = drop_marked(mark_output_only(norm.normalize(request)), "readOnly")
        props = body.get("properties")
        if isinstance(props, dict) and props:
            # a create or update carries the fields its documentation says are "Required."
            writes = str(method.get("httpMethod", "GET")).upper() in ("POST", "PUT")
            for pname, prop in props.items():
                params.add(pname, prop, "body", required=writes and documented_required(prop))
        elif body:
            params.add("body", body, "body")
    response = method.get("response")
    resolved = norm.normalize(response) if isinstance(response, dict) and response else None
    http = str(method.get("httpMethod", "GET")).upper()
    hints: dict[str, Any] = {}
    if key in STANDARD:
        hints["standard_method"] = STANDARD[key]
    if method.get("deprecated") is True:
        hints["deprecated"] = True
    if method.get("supportsMediaUpload"):
        hints["media_upload"] = True
    if norm.exhausted:
        hints["schema_truncated"] = True
    schema = params.schema()
    return Operation(
        op_id=op_id, name=tool_name(op_id.replace(".", "_"), taken), description=clean_text(method.get("description")),
        parameters=schema, response=resolved, effect="read" if http == "GET" else "write", http_method=http,
        path=str(method.get("flatPath") or method.get("path") or "") or None, hints=hints,
        pagination=pagination(list(schema["properties"]), resolved),
    )


def import_discovery_bytes(raw: bytes, provenance: dict[str, str], where: str = "") -> ApiSpec:
    """A Discovery document from its bytes; invalid JSON is ``invalid_json``."""
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise SpecRejected("invalid_json", f"{where or 'document'}: {exc}") from None
    try:
        return import_discovery(doc, raw, provenance)
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:  # SpecRejected is a ValueError
        if isinstance(exc, SpecRejected):
            raise
        # a field of the wrong type where the Discovery format has an object, a list or text
        raise SpecRejected("malformed_document", f"{where or 'document'}: {type(exc).__name__}: {exc}"[:300]) from None
