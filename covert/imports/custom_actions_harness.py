"""The trusted side of an LLM-written custom action inside the sandbox: JSON tables in, output and changes out.

This module's source text is installed in every sandbox worker that runs custom actions (as
``covert_custom_action_harness``); :mod:`covert.imports.custom_actions` calls
``pool.call(code, "invoke", payload, harness=HARNESS)``. It imports only the standard library, so it
also runs in-process.

The contract of an implementation (what the prompt asks for): a module defining ``action(tables, args)``
that reads and edits ``tables`` in place (``{table: {record id: record}}``, only the tables it was given)
and returns the operation's output, or an error observation ``{"error": {"code": ..., "message": ...}}``
(then every edit is discarded). The harness works on a copy and reports the edits as ``changes``
(``{table: {record id: new record or None when deleted}}``), so the caller's state never enters the sandbox.
"""

from __future__ import annotations

import json
from typing import Any


def _plain(value: Any) -> Any:
    """A JSON round trip: the value as the caller will see it (int keys become strings); raises on
    what JSON cannot carry (sets, NaN, objects)."""
    return json.loads(json.dumps(value, allow_nan=False))


def _is_error(value: Any) -> bool:
    return (isinstance(value, dict) and len(value) == 1 and isinstance(value.get("error"), dict)
            and isinstance(value["error"].get("code"), str))


def invoke(module: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """Run ``module.action`` on a copy of ``payload["tables"]`` with ``payload["args"]``;
    ``{"error": {...}}`` or ``{"output": value, "changes": {...}, "bad_tables": [...]}``."""
    action = getattr(module, "action", None)
    if not callable(action):
        raise TypeError("the module must define a function action(tables, args)")
    tables = payload["tables"]
    work = _plain(tables)
    out = _plain(action(work, dict(payload["args"])))
    if _is_error(out):
        error = out["error"]
        return {"error": {"code": error["code"][:80], "message": str(error.get("message", ""))[:300]}}
    after = _plain(work)
    bad = sorted(str(t) for t, rows in after.items() if not isinstance(rows, dict))
    bad += sorted(t for t in tables if t not in after)
    changes: dict[str, dict[str, Any]] = {}
    for table in sorted(after):
        rows = after[table]
        if not isinstance(rows, dict):
            continue
        before = tables.get(table, {})
        for key in sorted(set(before) | set(rows)):
            if before.get(key) != rows.get(key):
                changes.setdefault(table, {})[key] = rows.get(key)
    return {"output": out, "changes": changes, "bad_tables": bad}
