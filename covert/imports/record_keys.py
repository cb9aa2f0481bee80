"""Where an imported environment's records keep covert's private links (parent, scope), and how tools leave
them out: shared by the binder (:mod:`covert.imports.bind`), custom actions and the checks."""

from __future__ import annotations

import hashlib
from typing import Any

from covert.imports.resources import words

PARENT_KEY = "x-parent"  # where a record keeps its parent's id when its schema has no foreign-key field
SCOPE_PREFIX = "x-scope-"  # where a record keeps the scope (project, region, account) it lives in
LINK_PREFIX = "x-link-"  # where a record keeps another record it belongs to besides its parent (a job's queue)
SCOPES = "_scopes"  # the table holding the one scope value per scope parameter of a state


def fold_key(key: str) -> str:
    """A field's name without case or separators: ``vaultName``, ``VaultName`` and ``vault_name`` are one
    field to a reader (twins in one record, a call's parameter and the record field it fills)."""
    return key.lower().replace("_", "").replace("-", "")


PROJECT_KEYS = frozenset(("projectid", "project"))  # fold_key of a field naming the project a record is in


def path_project(path: Any) -> str | None:
    """The project a Google resource path is under (``projects/events-eu-174/workerPools/pool-1`` ->
    ``events-eu-174``), or ``None`` when ``path`` is no such path or names its project by number
    (``projects/320233962530``: Cloud Resource Manager's project, whose ``projectId`` is another of its names)."""
    if not isinstance(path, str) or not path.startswith("projects/"):
        return None
    project = path.split("/")[1]
    return None if not project or project.isdigit() else project


def public(rec: dict[str, Any]) -> dict[str, Any]:
    """A record as tools return it (without covert's private parent, scope and other links)."""
    if "x-" in "\0".join(rec):  # one scan in C; a key that only holds "x-" inside gets an equal copy
        return {k: v for k, v in rec.items() if k != PARENT_KEY and not k.startswith((SCOPE_PREFIX, LINK_PREFIX))}
    return rec


def scope_key(param: str, schema: dict[str, Any] | None = None) -> str:
    """The record key of a scope parameter (``projectsId`` -> ``x-scope-projectsid``); a parameter with a
    pattern (Google's ``parent``: ``^projects/[^/]+$``) is keyed by its pattern too."""
    pattern = (schema or {}).get("pattern")
    tail = "-" + hashlib.sha256(pattern.encode()).hexdigest()[:8] if isinstance(pattern, str) else ""
    return SCOPE_PREFIX + "".join(words(param)) + tail
