"""OpenAPI 3.0/3.1 and Swagger 2.0 documents (JSON or YAML) -> :class:`ApiSpec`.

One operation per path and method. Its parameters (path, query, header, and the JSON request body's
properties, or one ``body`` parameter when the body is not an object) are flattened into one
OpenAI-format object, each property carrying ``x-in``; ``Authorization``/``Accept``/``Content-Type``
headers and cookies are left to the transport. The success response is the first 2xx status (``default``
when none) with a JSON (or first) media type. Effect: GET/HEAD/OPTIONS read, every other verb writes.

A whole spec is rejected (:class:`SpecRejected`) for: ``invalid_json``/``invalid_yaml``, ``not_openapi``,
``too_large`` (over :data:`~covert.imports.common.MAX_SPEC_BYTES`), ``no_license`` (unless allowed),
``no_operations`` (nothing importable). One operation is skipped, with its reason kept in
``ApiSpec.skipped``, for ``no_responses``, ``dangling_ref``, ``cyclic_schema``, ``schema_too_large``,
``invalid_schema``, ``too_many_parameters``, ``too_many_operations``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from covert.imports.common import (
    MAX_OPERATIONS,
    MAX_SPEC_BYTES,
    ImportReport,
    ParameterSet,
    clean_text,
    pagination,
    sha256,
    spdx,
    tool_name,
)
from covert.imports.model import ApiSpec, Operation, SpecRejected
from covert.imports.schema import (
    Normalizer,
    documented_required,
    drop_marked,
    examples_of,
    json_pointer,
    mark_output_only,
)

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_TRANSPORT_HEADERS = frozenset({"authorization", "accept", "content-type", "content-length", "user-agent"})
_SLUG = re.compile(r"[^a-z0-9.]+")


def parse_document(data: bytes, name: str = "") -> dict[str, Any]:
    """The document in ``data``: JSON, or YAML when it is not JSON (needs PyYAML, the ``imports`` extra)."""
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    stripped = text.lstrip()
    if stripped.startswith("{") or name.endswith(".json"):
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise SpecRejected("invalid_json", f"{name or 'document'}: {exc}") from None
        except RecursionError:
            raise SpecRejected("invalid_json", f"{name or 'document'}: nested too deeply to read") from None
    else:
        try:
            import yaml
        except ImportError:
            raise SpecRejected("invalid_yaml", "YAML specs need PyYAML: pip install 'covert[imports]'") from None
        try:
            doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except RecursionError:
            raise SpecRejected("invalid_yaml", f"{name or 'document'}: nested too deeply to read") from None
        except yaml.YAMLError as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise SpecRejected("invalid_yaml", f"{name or 'document'}: {first}") from None
    if not isinstance(doc, dict):
        raise SpecRejected("not_openapi", f"{name or 'document'} is not an object")
    return doc


def _pick_media(content: Any) -> dict[str, Any] | None:
    """The media type object to use: JSON first, then form, then the first one listed."""
    if not isinstance(content, dict) or not content:
        return None
    for kind in sorted(content):
        if "json" in kind.lower() and isinstance(content[kind], dict):
            return content[kind]
    for kind in ("application/x-www-form-urlencoded", "multipart/form-data"):
        if isinstance(content.get(kind), dict):
            return content[kind]
    first = content[next(iter(content))]
    return first if isinstance(first, dict) else None



_FORMAT = re.compile(r"\bFormat:\s*`?((?:[a-z][A-Za-z]*/(?:\{[^{}/\s]+\}|\[[^\[\]/\s]+\]|<[^<>/\s]+>|\*)/?)+)")


def declared_path_format(description: str) -> str | None:
    """The pattern of a resource path a parameter's description declares ("Format:
    projects/[project_name]/locations/[location]"): ``^projects/[^/]+/locations/[^/]+$``; ``None`` when it
    declares none (Google's OpenAPI conversions keep the format in words, not as a pattern)."""
    found = _FORMAT.search(description)
    if not found:
        return None
    parts = found.group(1).rstrip("/").split("/")
    if len(parts) % 2 or len(parts) > 16:
        return None
    return "^" + "/".join(f"{parts[k]}/[^/]+" for k in range(0, len(parts), 2)) + "$"

class _Spec:
    """One document being imported."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.swagger = str(doc.get("swagger", "")).startswith("2")
        self.norm = Normalizer(self.lookup)

    def lookup(self, ref: str) -> Any:
        return json_pointer(self.doc, ref)

    def deref(self, node: Any, limit: int = 20) -> Any:
        """Follow ``$ref`` chains of non-schema objects (parameters, responses, request bodies)."""
        for _ in range(limit):
            if not (isinstance(node, dict) and "$ref" in node):
                return node
            ref = node["$ref"]
            try:
                node = self.lookup(ref) if isinstance(ref, str) else None
            except LookupError:
                raise SpecRejected("dangling_ref", f"$ref {ref} points to nothing in the spec") from None
        raise SpecRejected("cyclic_schema", "a $ref chain does not end")

    def param_schema(self, param: dict[str, Any]) -> dict[str, Any]:
        if "schema" in param:
            schema = self.norm.normalize(param["schema"])
        elif "content" in param:
            media = _pick_media(param["content"])
            schema = self.norm.normalize(media.get("schema", {})) if media else {}
        else:  # Swagger 2.0 keeps the schema keywords on the parameter itself
            keep = {k: v for k, v in param.items() if k not in ("name", "in", "required", "description")}
            schema = self.norm.normalize(keep)
        examples = examples_of(param.get("examples", param.get("example")))
        if examples and "examples" not in schema:
            schema = {**schema, "examples": examples}
        description = clean_text(param.get("description"), 1024)
        if description:
            schema = {**schema, "description": description}
            pattern = declared_path_format(description) if param.get("in") == "path" else None
            if pattern and schema.get("type") == "string" and "pattern" not in schema:
                schema = {**schema, "pattern": pattern}
        return schema

    def operation(self, path: str, method: str, op: dict[str, Any], shared: list[Any], taken: set[str]) -> Operation:
        self.norm.budget()
        responses = op.get("responses")
        if not isinstance(responses, dict) or not responses:
            raise SpecRejected("no_responses", f"{method.upper()} {path} declares no responses")
        params = ParameterSet()
        seen: dict[tuple[str, str], dict[str, Any]] = {}
        for raw in [*shared, *(op.get("parameters") or [])]:
            param = self.deref(raw)
            if isinstance(param, dict) and isinstance(param.get("name"), str) and param.get("in"):
                seen[(param["name"], param["in"])] = param  # operation-level overrides path-level
        order = {"path": 0, "query": 1, "header": 2, "formData": 3, "body": 4}
        body_schema: dict[str, Any] | None = None
        body_required = False
        for (name, where), param in sorted(seen.items(), key=lambda kv: order.get(kv[0][1], 9)):
            if where == "cookie" or (where == "header" and name.lower() in _TRANSPORT_HEADERS):
                continue
            if where == "body":
                body_schema = self.norm.normalize(param.get("schema", {}))
                body_required = bool(param.get("required"))
                continue
            schema = self.param_schema(param)
            params.add(name, schema, "body" if where == "formData" else where,
                       required=bool(param.get("required")) or where == "path")
        body = self.deref(op.get("requestBody")) if op.get("requestBody") is not None else None
        if isinstance(body, dict):
            media = _pick_media(body.get("content"))
            if media is not None and media.get("schema") is not None:
                body_schema = self.norm.normalize(media["schema"])
                body_required = bool(body.get("required"))
        if body_schema is not None:
            body_schema = drop_marked(mark_output_only(body_schema), "readOnly")
            props = body_schema.get("properties")
            if isinstance(props, dict) and props and _is_object(body_schema):
                # a create (POST) sends the body whether or not the spec flags it required, and then its
                # required fields, and those its documentation says are "Required.", go with it
                creates = method.lower() == "post"
                required = set(body_schema.get("required", ())) if body_required or creates else set()
                for name, prop in props.items():
                    params.add(name, prop, "body", required=name in required or (creates and documented_required(prop)))
            elif body_schema:
                params.add("body", body_schema, "body", required=body_required)
        status, response = self.success(responses)
        errors = tuple(sorted(str(code) for code in responses if not str(code).startswith("2") and str(code) != status))
        http = method.upper()
        op_id = op.get("operationId") if isinstance(op.get("operationId"), str) else f"{http} {path}"
        name = tool_name(op_id if op.get("operationId") else f"{method}{path}", taken)
        description = clean_text(op.get("summary")) or clean_text(op.get("description"))
        if op.get("summary") and op.get("description"):
            description = clean_text(f"{op['summary']}. {op['description']}")
        hints: dict[str, Any] = {}
        if isinstance(op.get("tags"), list):
            hints["tags"] = [str(t) for t in op["tags"]][:10]
        if op.get("deprecated") is True:
            hints["deprecated"] = True
        if status:
            hints["success_status"] = status
        if self.norm.exhausted:
            hints["schema_truncated"] = True
        schema = params.schema()
        return Operation(
            op_id=op_id, name=name, description=description, parameters=schema, response=response,
            effect="read" if http in READ_METHODS else "write", http_method=http, path=path, hints=hints,
            pagination=pagination(list(schema["properties"]), response), errors=errors,
        )

    def success(self, responses: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
        codes = sorted(str(c) for c in responses if str(c).startswith("2")) or (
            ["default"] if "default" in responses else [])
        if not codes:
            return None, None
        code = codes[0]
        raw = responses.get(code, responses.get(int(code)) if code.isdigit() else None)
        resp = self.deref(raw)
        if not isinstance(resp, dict):
            return code, None
        if self.swagger:
            schema = resp.get("schema")
        else:
            media = _pick_media(resp.get("content"))
            schema = media.get("schema") if media else None
        if schema is None:
            return code, None
        return code, drop_marked(self.norm.normalize(schema), "writeOnly")


def _is_object(schema: dict[str, Any]) -> bool:
    kind = schema.get("type", "object")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def _api_id(info: dict[str, Any], fallback: str) -> str:
    provider = info.get("x-providerName")
    service = info.get("x-serviceName")
    if isinstance(provider, str) and provider:
        base = f"{provider}:{service}" if isinstance(service, str) and service else provider
    else:
        base = _SLUG.sub("-", str(info.get("title") or fallback).lower()).strip("-") or "api"
    return f"openapi:{base}:{info.get('version', '')}"


def import_document(doc: dict[str, Any], provenance: dict[str, str], allow_unlicensed: bool = False,
                    name: str = "") -> ApiSpec:
    """One parsed OpenAPI/Swagger document as an ApiSpec; raises :class:`SpecRejected` for the whole spec."""
    version = doc.get("openapi") or doc.get("swagger")
    if not isinstance(version, str) or not (version.startswith("3.") or version.startswith("2.")):
        raise SpecRejected("not_openapi", f"{name or 'document'} has no openapi/swagger version field")
    if not isinstance(doc.get("paths"), dict):
        raise SpecRejected("no_operations", f"{name or 'document'} has no paths")
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    lic = info.get("license") if isinstance(info.get("license"), dict) else {}
    license_name = spdx(lic.get("name") or lic.get("identifier"))
    if license_name is None and not allow_unlicensed:
        raise SpecRejected("no_license", f"{name or 'document'} declares no license (use --allow-unlicensed)")
    spec = _Spec(doc)
    taken: set[str] = set()
    ops: list[Operation] = []
    skipped: list[tuple[str, str]] = []
    for path, item in doc["paths"].items():
        try:
            item = spec.deref(item)
        except SpecRejected as exc:
            skipped.append((str(path), exc.reason))
            continue
        if not isinstance(item, dict):
            continue
        shared = item.get("parameters") if isinstance(item.get("parameters"), list) else []
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            op_id = op.get("operationId") if isinstance(op.get("operationId"), str) else f"{method.upper()} {path}"
            if len(ops) >= MAX_OPERATIONS:
                skipped.append((op_id, "too_many_operations"))
                continue
            try:
                ops.append(spec.operation(str(path), method, op, shared, taken))
            except SpecRejected as exc:
                skipped.append((op_id, exc.reason))
            except RecursionError:
                skipped.append((op_id, "schema_too_large"))
    if not ops:
        reasons = sorted({r for _, r in skipped})
        raise SpecRejected("no_operations", f"{name or 'document'}: no importable operation"
                           + (f" ({', '.join(reasons)})" if reasons else ""))
    categories = info.get("x-apisguru-categories")
    provenance = {**provenance, "format": f"{'swagger' if spec.swagger else 'openapi'} {version}"}
    if isinstance(categories, list) and categories:
        provenance["categories"] = ",".join(str(c) for c in categories)
    return ApiSpec(
        source="openapi", api=_api_id(info, name), title=clean_text(info.get("title"), 200) or name,
        version=str(info.get("version", "")), description=clean_text(info.get("description")),
        license=license_name, license_url=lic.get("url") if isinstance(lic.get("url"), str) else None,
        provenance=provenance, operations=tuple(ops), skipped=tuple(skipped),
    )


def import_file(path: str | os.PathLike[str], allow_unlicensed: bool = False,
                provenance: dict[str, str] | None = None, max_bytes: int = MAX_SPEC_BYTES) -> ApiSpec:
    """One OpenAPI file (JSON or YAML) as an ApiSpec; raises :class:`SpecRejected` for the whole spec."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise SpecRejected("too_large", f"{path.name} is {size} bytes, over the {max_bytes}-byte bound")
    data = path.read_bytes()
    base = {"file": str(path), "sha256": sha256(data)}
    doc = parse_document(data, path.name)
    return import_document(doc, {**base, **(provenance or {})}, allow_unlicensed, path.name)


def spec_files(target: str | os.PathLike[str]) -> list[Path]:
    """The spec files named by ``target``: the file itself, or every .json/.yaml/.yml under a folder, sorted."""
    target = Path(target)
    if target.is_file():
        return [target]
    if not target.is_dir():
        raise FileNotFoundError(f"{target} does not exist; give an OpenAPI file or a folder of them")
    return sorted(p for p in target.rglob("*") if p.is_file() and p.suffix.lower() in (".json", ".yaml", ".yml"))


def import_paths(targets: Iterable[str | os.PathLike[str]], allow_unlicensed: bool = False,
                 provenance: dict[str, str] | None = None, root: Path | None = None) -> ImportReport:
    """Import every spec file under ``targets``; a bad spec is counted as rejected, never raised."""
    report = ImportReport()
    for spec in iter_import(targets, allow_unlicensed, provenance, root):
        if isinstance(spec, ApiSpec):
            report.add(spec)
        else:
            report.reject(*spec)
    return report


def iter_import(targets: Iterable[str | os.PathLike[str]], allow_unlicensed: bool = False,
                provenance: dict[str, str] | None = None, root: Path | None = None
                ) -> Iterator[ApiSpec | tuple[str, SpecRejected]]:
    """Each spec under ``targets`` imported, or ``(file, rejection)``; in sorted file order."""
    for target in targets:
        for path in spec_files(target):
            where = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
            extra = dict(provenance or {})
            if root:
                extra["file"] = where
            try:
                yield import_file(path, allow_unlicensed, extra)
            except SpecRejected as exc:
                yield where, exc
            except RecursionError:
                yield where, SpecRejected("schema_too_large", f"{where}: nesting too deep to read")
