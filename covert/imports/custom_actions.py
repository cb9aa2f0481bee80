"""Custom (non-CRUD) actions of an imported API, implemented by LLM-written code that runs in the sandbox.

The binder gives CRUD operations generic implementations; an operation such as ``POST
/orders/{id}/cancel`` or ``PurgeQueue`` needs its own. This module:

- finds what an action acts on (:func:`target_of`): its primary table (from the path's literals, the
  Google resource path or the name's noun), the parameter carrying the record's id, ancestor and scope
  parameters, the verb, and whether it may write;
- writes the prompt (:func:`action_prompt`): the operation (name, description, parameters, response
  schema, error codes) and the tables it touches (record schemas, sample records);
- parses a reply with bounded work (:func:`parse_reply`) into :class:`CustomCode`;
- turns admitted code into a tool of the bound environment (:func:`bind_custom`), whose implementation
  runs the code in a per-process :class:`~covert.sandbox.SandboxPool` (:func:`runtime_pool`): the
  state stays here, the tables go in as JSON, the output and the changes come back as JSON
  (the contract is in :mod:`covert.imports.custom_actions_harness`);
- stores admitted code in the environment store, content-addressed (:func:`save_code`, :func:`load_code`).

Validation and the validate-revise loop are in :mod:`covert.imports.custom_actions_check`.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from covert.env import State, ToolError, ToolSpec
from covert.env.jsonsafe import canonical_json
from covert.imports.model import ApiSpec, Operation
from covert.imports.resources import Resource, Role, words
from covert.language.plurals import plural, singular
from covert.sandbox import Limits, SandboxPool

HARNESS = "covert_custom_action_harness"
ACTIONS = "actions"  # the store folder holding admitted code, one <sha256>.py per implementation
MAX_REPLY_CHARS = 64_000
MAX_CODE_CHARS = 32_000
MAX_SCHEMA_CHARS = 1_500
SAMPLE_RECORDS = 2
RUNTIME_LIMITS = Limits(cpu_s=2, memory_mb=256, wall_s=10)
STATUS_VERBS = frozenset({
    "start", "stop", "enable", "disable", "cancel", "activate", "deactivate", "suspend", "resume", "archive",
    "unarchive", "close", "reopen", "open", "approve", "reject", "pause", "unpause", "lock", "unlock", "publish",
    "unpublish", "complete", "finalize", "void", "trash", "untrash", "restore", "block", "unblock", "confirm",
    "accept", "decline", "revoke", "expire", "submit", "ship", "pay", "mark", "resolve", "deny", "hold", "release",
})
"""Verbs whose success must change a status-like field of the record they act on (when it has one)."""
_STATUS_WORDS = ("status", "state", "enabled", "disabled", "active", "archived", "paused", "locked", "trashed",
                 "cancelled", "canceled", "closed", "suspended", "published", "approved", "completed", "stage")
_FENCE_OPEN = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\r?\n")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Target:
    """What a custom action acts on.

    Attributes:
        op: The operation.
        table: Its primary table.
        id_param: The parameter naming the record it acts on (``None``: an action on the whole table).
        parent_params: Parameters carrying ancestor ids: parameter -> table.
        scope_params: Required path parameters naming a scope (project, region) records live in.
        tables: The tables the code is given: the primary table first, then the ancestors.
        verb: The action's verb in words ("cancel", "purge").
        reads_only: Whether the source says the operation cannot change state.
    """

    op: Operation
    table: str
    id_param: str | None
    parent_params: dict[str, str]
    scope_params: tuple[str, ...]
    tables: tuple[str, ...]
    verb: str
    reads_only: bool

    def status_fields(self, resource: Resource) -> list[str]:
        """Status-like fields of the primary record (empty when the verb does not flip a status)."""
        if self.verb not in STATUS_VERBS:
            return []
        out = []
        for key, schema in resource.schema["properties"].items():
            flat = "".join(words(key))
            if isinstance(schema, dict) and schema.get("type") in ("string", "boolean") \
                    and any(w in flat for w in _STATUS_WORDS):
                out.append(key)
        return out


@dataclass(frozen=True)
class CustomCode:
    """An implementation of one custom action: its module source and the tables it declares it writes."""

    op_name: str
    code: str
    writes: tuple[str, ...]
    sha256: str = field(default="")

    def __post_init__(self) -> None:
        if not self.sha256:
            object.__setattr__(self, "sha256", hashlib.sha256(self.code.encode("utf-8")).hexdigest())


class ReplyError(ValueError):
    """A reply that holds no usable module; ``reason`` is a counted snake_case code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


# -- what an action acts on ---------------------------------------------------------------------------
def _table_of(word: str) -> str:
    """The table name the resource inference gives a resource word (``orders`` -> orders)."""
    scope, _, base = word.rpartition(".")
    parts = words(base)
    if not parts:
        return ""
    key = [*words(scope), *parts[:-1], singular(parts[-1])]
    return "_".join([*key[:-1], plural(key[-1])])


def _noun_tables(parts: list[str], resources: dict[str, Resource]) -> str | None:
    """The table named by the longest tail of ``parts`` (``[query, execution]`` -> query_executions)."""
    for start in range(len(parts)):
        table = _table_of("_".join(parts[start:]))
        if table in resources:
            return table
    return None


def _id_params(roles: list[Role]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for role in roles:
        if role.kind in ("get", "update", "delete") and role.table and role.id_param:
            out.setdefault(role.table, set()).add(role.id_param)
    return out


def _names_record(param: str, resource: Resource, known: set[str]) -> bool:
    if param in known:
        return True
    flat = "".join(words(param))
    joined = "".join(resource.noun.split())
    return words(param) == words(resource.id_field) or flat in (joined + "id", joined + "name", joined + "arn")


def target_of(op: Operation, spec: ApiSpec, resources: dict[str, Resource], roles: list[Role]) -> Target | str:
    """What ``op`` acts on, or the reason it cannot be given an implementation (a counted code)."""
    props = op.parameters.get("properties") or {}
    required = [p for p in op.parameters.get("required") or () if p in props]
    if any((props[p] or {}).get("x-in") == "header" or not _IDENT.match(p) for p in required):
        return "custom_action_unsupported_parameter"
    known = _id_params(roles)
    table = id_param = None
    verb = ""
    parents: dict[str, str] = {}
    if spec.source == "google":
        parts = op.op_id.split(".")
        if len(parts) >= 3:
            table = _table_of(".".join(parts[1:-1]))
            verb = " ".join(words(parts[-1]))
        path_params = [p for p in required if (props[p] or {}).get("x-in") == "path"]
        if table in resources and path_params:
            id_param = path_params[-1]
    elif op.path and op.http_method and spec.source == "openapi":
        segs = [s for s in (op.path or "").strip("/").split("/") if s]
        last_literal = ""
        after: list[str] = []
        for seg in segs:
            if seg.startswith("{") and seg.endswith("}"):
                name = _param(op, seg[1:-1])
                literal_table = _table_of(last_literal) if last_literal else ""
                if name and literal_table in resources:
                    if table is not None and id_param and table != literal_table:
                        parents[id_param] = table
                    table, id_param = literal_table, name
                after = []
            else:
                last_literal = seg.split(".")[0]
                after.append(last_literal)
        if after and _table_of(after[0]) in resources and len(after) > 1:  # /customers/{c}/orders/search
            if table is not None and id_param:
                parents[id_param] = table
            table, id_param, after = _table_of(after[0]), None, after[1:]
        verb = " ".join(w for a in after for w in words(a)) if table else ""
        if table is None or not verb:
            named = words(op.name)
            table = table or _noun_tables(named[1:], resources)
            verb = verb or (named[0] if named else "")
    else:
        named = words(op.name)
        if len(named) >= 2:
            table = _noun_tables(named[1:], resources)
            verb = named[0]
    if table is None or table not in resources:
        return "custom_action_no_table"
    resource = resources[table]
    if id_param is None:
        id_param = next((p for p in required if _names_record(p, resource, known.get(table, set()))), None)
    for param in required:
        if param == id_param or param in parents:
            continue
        other = next((t for t, names in known.items() if param in names and t != table), None)
        if other is not None:
            parents[param] = other
    scopes = tuple(p for p in required if p != id_param and p not in parents
                   and (props[p] or {}).get("x-in") == "path" and (props[p] or {}).get("type", "string") == "string")
    ancestors: list[str] = []
    current = resource.parent
    while current and current in resources and current not in ancestors and current != table:
        ancestors.append(current)
        current = resources[current].parent
    for other in parents.values():
        if other in resources and other not in ancestors and other != table:
            ancestors.append(other)
    read_hint = op.hints.get("read_only_hint", op.hints.get("readOnlyHint"))
    reads_only = op.effect == "read" or read_hint is True
    return Target(op, table, id_param, parents, scopes, (table, *ancestors), verb or "run", reads_only)


def _param(op: Operation, raw: str) -> str | None:
    props = op.parameters.get("properties") or {}
    if raw in props:
        return raw
    return next((n for n, s in props.items() if (s or {}).get("x-in") == "path" and words(n) == words(raw)), None)


# -- the prompt ---------------------------------------------------------------------------------------
def compact_schema(schema: Any, depth: int = 0) -> Any:
    """A schema without documentation, nested at most three deep, at most 30 properties per object."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key in ("type", "enum", "format", "minimum", "maximum", "required"):
        if key in schema:
            out[key] = schema[key]
    if depth < 3 and isinstance(schema.get("properties"), dict):
        out["properties"] = {k: compact_schema(v, depth + 1) for k, v in list(schema["properties"].items())[:30]}
    if depth < 3 and isinstance(schema.get("items"), dict):
        out["items"] = compact_schema(schema["items"], depth + 1)
    return out


def _dump(value: Any, limit: int = MAX_SCHEMA_CHARS) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit] + " ...(cut)"


def action_prompt(target: Target, spec: ApiSpec, resources: dict[str, Resource], style: Any,
                  sample: dict[str, Any]) -> str:
    """The first-pass prompt for one custom action (``sample``: a generated state, ``{"tables": ...}``)."""
    from covert.imports.record_keys import public

    op = target.op
    params = {k: compact_schema(v) for k, v in (op.parameters.get("properties") or {}).items()
              if (v or {}).get("x-in") != "header"}
    lines = [
        f"Implement one operation of the {spec.title} API as a Python module.",
        "",
        f"Operation: {op.name}",
        f"What it does: {' '.join((op.description or '').split())[:500] or target.verb}",
        f"Parameters: {_dump({'properties': params, 'required': op.parameters.get('required') or []})}",
        f"Response schema: {_dump(compact_schema(op.response)) if op.response else 'none (return null)'}",
        f"Error codes: missing record {style.not_found!r}, conflict {style.conflict!r}, bad argument "
        f"{style.invalid!r}.",
        "",
        "Define WRITES, the list of tables it changes ([] if it only reads), and def action(tables, args). "
        "tables maps table names to {record id: record}: edit records in place and return the output. If a "
        "record named in args does not exist, return {\"error\": {\"code\": CODE, \"message\": TEXT}}. "
        "Pure Python; only standard modules such as json, math, re, copy. Answer in one ```python block.",
        "",
        "Tables:",
    ]
    status = target.status_fields(resources[target.table])
    if status and target.id_param:
        lines.insert(-2, f"To {target.verb} a {resources[target.table].noun} is to change its {' or '.join(status)}.")
    tables = sample.get("tables", {})
    for name in target.tables:
        resource = resources[name]
        rows = [public(r) for _, r in sorted(tables.get(name, {}).items())][:SAMPLE_RECORDS]
        lines.append(f"- {name}: {resource.plural}, keyed by the field {resource.id_field!r}; "
                     f"record schema {_dump(compact_schema(resource.schema))}; sample records {_dump(rows)}")
    return "\n".join(lines)


def revision_message(reason: str, detail: str) -> str:
    """What goes back to the LLM after a failed validation."""
    return (f"The module failed validation: {reason}: {' '.join(detail.split())[:600]}\n"
            "Fix it and answer with the whole corrected module in one ```python block.")


# -- parsing a reply (hostile input: bounded work) ----------------------------------------------------
def parse_reply(text: str, op_name: str) -> CustomCode:
    """The module in a reply: the first fenced block (or the whole text when it has no fence); raises
    :class:`ReplyError` (``no_code``, ``too_large``, ``syntax_error``, ``no_action_function``, ``bad_writes``)."""
    text = (text or "")[:MAX_REPLY_CHARS]
    found = _FENCE_OPEN.search(text)
    if found:
        end = text.find("```", found.end())
        code = text[found.end():end if end != -1 else len(text)]
    else:
        code = text
    code = code.strip("\n")
    if "def action" not in code:
        raise ReplyError("no_code", "the reply holds no module defining action(tables, args)")
    if len(code) > MAX_CODE_CHARS:
        raise ReplyError("too_large", f"the module is over {MAX_CODE_CHARS} characters")
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ReplyError("syntax_error", str(exc).splitlines()[0][:200]) from None
    if not any(isinstance(n, ast.FunctionDef) and n.name == "action" and len(n.args.args) == 2 for n in tree.body):
        raise ReplyError("no_action_function", "define action(tables, args) at module level")
    writes: tuple[str, ...] | None = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "WRITES" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise ReplyError("bad_writes", "WRITES must be a literal list of table names") from None
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value) or len(value) > 16:
                raise ReplyError("bad_writes", "WRITES must be a literal list of table names")
            writes = tuple(sorted(set(value)))
    if writes is None:
        raise ReplyError("bad_writes", "declare WRITES = [...] (the tables the operation changes)")
    return CustomCode(op_name, code + "\n", writes)


# -- running the code ---------------------------------------------------------------------------------
def harness_modules() -> dict[str, str]:
    """The trusted module installed in every worker that runs custom actions."""
    return {HARNESS: Path(__file__).with_name("custom_actions_harness.py").read_text(encoding="utf-8")}


def action_sandbox(limits: Limits | None = None, size: int = 1) -> SandboxPool:
    """A sandbox pool set up for custom actions."""
    return SandboxPool(limits=limits or RUNTIME_LIMITS, size=size, trusted_modules=harness_modules())


_POOLS: dict[int, SandboxPool] = {}
_POOL_LOCK = threading.Lock()


def runtime_pool() -> SandboxPool:
    """This process's pool for custom actions run by builds and replays (a forked worker gets its own)."""
    pid = os.getpid()
    with _POOL_LOCK:
        pool = _POOLS.get(pid)
        if pool is None:
            pool = _POOLS[pid] = action_sandbox()
        return pool


def _forget_inherited_pools() -> None:
    """In a forked child: the parent's workers are not ours to use or stop, so the inherited pools forget
    them (their pipes are shared with the parent: a request from the child would cross the parent's)."""
    for pool in _POOLS.values():
        pool._workers = [None] * pool.size  # SandboxPool.close() then stops nothing
    _POOLS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_pools)


def _links(target: Target, args: dict[str, Any], resources: dict[str, Resource], tool: ToolSpec) -> dict[str, Any]:
    """Private record keys an argument pins (parent link, scope), as the generic tools filter them."""
    from covert.imports.record_keys import PARENT_KEY, scope_key

    resource = resources[target.table]
    links: dict[str, Any] = {}
    for param, table in target.parent_params.items():
        if param in args and table == resource.parent:
            links[resource.parent_field or PARENT_KEY] = args[param]
    for param in target.scope_params:
        if param in args:
            links[scope_key(param, tool.parameters["properties"].get(param))] = args[param]
    return links


def payload_of(target: Target, state: State, args: dict[str, Any], resources: dict[str, Resource],
               tool: ToolSpec) -> dict[str, Any]:
    """The JSON a call sends into the sandbox: the tables it may see (records under the named parent and
    scope only, without covert's private links) and the arguments."""
    from covert.imports.record_keys import public

    links = _links(target, args, resources, tool)
    tables: dict[str, Any] = {}
    for name in target.tables:
        rows = {}
        for key, rec in state.records(name):
            if name == target.table and any(rec.get(k) != v for k, v in links.items()):
                continue
            rows[key] = public(rec)
        tables[name] = rows
    return {"tables": tables, "args": args}


def apply_changes(target: Target, code: CustomCode, state: State, changes: dict[str, Any],
                  resources: dict[str, Resource]) -> None:
    """Write the changes a call reported into ``state``, keeping covert's private links of edited records;
    raises RuntimeError for a change the code did not declare."""
    allowed = set(code.writes) & set(target.tables)
    for table, rows in sorted(changes.items()):
        if table not in allowed or not isinstance(rows, dict):
            raise RuntimeError(f"the action changed table {table!r}, which it did not declare")
        for key, new in sorted(rows.items()):
            old = state.get(table, key)
            if new is None:
                if old is not None:
                    state.delete(table, key)
                continue
            if not isinstance(new, dict):
                raise RuntimeError(f"the action stored a non-record in {table}/{key[:40]}")
            private = {k: v for k, v in (old or {}).items() if k.startswith("x-")}
            record = canonical_json({**new, **private})
            if old is None:
                state.insert(table, key, record)
            else:
                edited = state.edit(table, key)
                edited.clear()
                edited.update(record)


def bind_custom(op: Operation, code: CustomCode, spec: ApiSpec, resources: dict[str, Resource],
                roles: list[Role], style: Any) -> Any:
    """The bound tool of an admitted custom action (a :class:`~covert.imports.bound.BoundTool` with
    ``role.kind == "custom"``); raises :class:`~covert.imports.bound.BindError` when it has no target."""
    from covert.imports.bound import BindError, BoundTool

    target = target_of(op, spec, resources, roles)
    if isinstance(target, str):
        raise BindError(target)
    spec_tool = tool_spec(target, code, resources, style)
    role = Role(op, "custom", target.table, target.id_param, dict(target.parent_params), "",
                list(target.scope_params))
    bound = BoundTool(spec_tool, role, lambda state, args: None)

    def run_custom(state: State, args: dict[str, Any]) -> Any:
        payload = payload_of(target, state, args, resources, spec_tool)
        result = runtime_pool().call(code.code, "invoke", payload, harness=HARNESS)
        if not result.ok:
            raise RuntimeError(f"the custom action failed in the sandbox ({result.error_kind}): {result.detail[:160]}")
        value = result.value
        problem = reply_problem(value)
        if problem:
            raise RuntimeError(f"the custom action's answer is malformed: {problem}")
        if "error" in value:
            raise ToolError(value["error"]["code"], value["error"]["message"])
        if value.get("bad_tables"):
            raise RuntimeError("the custom action replaced or removed whole tables")
        apply_changes(target, code, state, value["changes"], resources)
        return value["output"]

    bound.impl = run_custom
    bound.target = target  # type: ignore[attr-defined]
    bound.code = code  # type: ignore[attr-defined]
    return bound


def reply_problem(value: Any) -> str:
    """What is wrong with the harness's answer to ``invoke`` (empty when nothing). The action's code runs
    beside the harness and can patch it or write its own result: nothing is read before this check."""
    if not isinstance(value, dict):
        return "not an object"
    if "error" in value:
        error = value["error"]
        ok = len(value) == 1 and isinstance(error, dict) and isinstance(error.get("code"), str) \
            and isinstance(error.get("message"), str)
        return "" if ok else "an error that is not {code: text, message: text}"
    if set(value) != {"output", "changes", "bad_tables"}:
        return "not {output, changes, bad_tables}"
    changes = value["changes"]
    if not isinstance(changes, dict) or not all(isinstance(rows, dict) for rows in changes.values()):
        return "changes that are not {table: {id: record or null}}"
    if not all(rec is None or isinstance(rec, dict) for rows in changes.values() for rec in rows.values()):
        return "a changed record that is neither an object nor null"
    if not isinstance(value["bad_tables"], list):
        return "bad_tables that is not a list"
    return ""


def tool_spec(target: Target, code: CustomCode, resources: dict[str, Resource], style: Any) -> ToolSpec:
    """The tool spec of a custom action: the operation's parameters with ids tagged by entity."""
    from covert.env.schema import ENTITY_KEY
    from covert.imports.bound import TOOL_NAME, clean_schema, typed_schema

    op = target.op
    resource = resources[target.table]
    props = op.parameters.get("properties") or {}
    exposed: dict[str, Any] = {}
    for param, schema in props.items():
        if not isinstance(schema, dict) or schema.get("x-in") == "header":
            continue
        out = clean_schema(schema, 0)
        out["description"] = " ".join(str(schema.get("description") or "").split())[:300] or \
            f"The {' '.join(words(param))}."
        if param == target.id_param:
            out[ENTITY_KEY] = resource.entity
        elif param in target.parent_params and target.parent_params[param] in resources:
            out[ENTITY_KEY] = resources[target.parent_params[param]].entity
        exposed[param] = out
    name = op.name if TOOL_NAME.match(op.name) else ("op_" + re.sub(r"[^A-Za-z0-9_.-]", "_", op.name))[:64]
    returns = typed_schema(op.response, 0) if isinstance(op.response, dict) else {}
    if isinstance(op.response, dict) and "properties" in returns and resource.id_field in returns["properties"]:
        returns["properties"] = {**returns["properties"], resource.id_field: {
            **returns["properties"][resource.id_field], ENTITY_KEY: resource.entity}}
    errors = tuple(dict.fromkeys([style.not_found, style.conflict, style.invalid]))
    writes = bool(code.writes) and not target.reads_only
    description = " ".join((op.description or "").split())[:600] or f"{target.verb.capitalize()} a {resource.noun}."
    return ToolSpec(name=name, description=description,
                    parameters={"type": "object", "properties": exposed,
                                "required": [p for p in op.parameters.get("required") or [] if p in exposed]},
                    returns=returns, writes=writes, errors=errors,
                    method=f"_tool_{re.sub(r'[^A-Za-z0-9_]', '_', name)}")


def custom_version(version: str, custom: dict[str, CustomCode]) -> str:
    """The environment version with custom actions: the spec's version plus a hash of their code."""
    if not custom:
        return version
    text = "\n".join(f"{name}:{c.sha256}:{','.join(c.writes)}" for name, c in sorted(custom.items()))
    return f"{version}+c{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def sample_state(api: Any, seed: str = "prompt") -> dict[str, Any]:
    """The generated state a prompt shows records from."""
    return api.make_state(random.Random(f"{api.name}:{seed}"))


# -- the store ----------------------------------------------------------------------------------------
def save_code(store: str | Path, code: CustomCode) -> dict[str, Any]:
    """Write admitted code into the store (``actions/<sha256>.py``, atomically); the admitted-list entry."""
    from covert.atomic import write_atomically

    rel = f"{ACTIONS}/{code.sha256}.py"
    write_atomically(Path(store) / rel, code.code)
    return {"code": rel, "sha256": code.sha256, "writes": list(code.writes)}


def load_code(store: str | Path, op_name: str, entry: dict[str, Any]) -> CustomCode:
    """Admitted code read back from the store; ValueError when the file is missing or was changed."""
    path = Path(store) / str(entry.get("code", ""))
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise ValueError(f"{path}: the code of custom action {op_name} is missing; run `covert envs verify "
                         "--llm ...` again") from None
    code = CustomCode(op_name, text, tuple(entry.get("writes") or ()))
    if code.sha256 != entry.get("sha256"):
        raise ValueError(f"{path}: the code of custom action {op_name} changed since it was admitted; run "
                         "`covert envs verify --llm ...` again")
    return code


def add_custom_tools(spec: ApiSpec, customs: list[Role], custom: dict[str, CustomCode],
                     resources: dict[str, Resource], roles: list[Role], style: Any, tools: dict[str, Any],
                     left_out: list[tuple[str, str]], exclude: dict[str, str]) -> None:
    """The binder's hook: bind each admitted custom action as a tool (into ``tools``), or leave it out with
    its reason (into ``left_out``)."""
    from covert.imports.bound import BindError

    for role in customs:
        try:
            bound = bind_custom(role.op, custom[role.op.name], spec, resources, roles, style)
        except BindError as exc:
            left_out.append((role.op.name, exc.reason))
            continue
        if bound.spec.name in exclude:
            left_out.append((role.op.name, exclude[bound.spec.name]))
        elif bound.spec.name in tools:
            left_out.append((role.op.name, "duplicate_tool_name"))
        else:
            tools[bound.spec.name] = bound


def past_tense(verb: str) -> str:
    """A plain English past participle (cancel -> canceled, stop -> stopped, archive -> archived)."""
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if len(verb) <= 4 and len(verb) >= 3 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou" \
            and verb[-3] not in "aeiou":
        return verb + verb[-1] + "ed"
    return verb + "ed"


_SLOT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def custom_intents(api: Any, bound: Any, refs: dict[str, Any]) -> tuple[Any, ...]:
    """How a person asks for a custom action on one record ("please cancel order 1042"); none for reads,
    table-wide actions and actions needing values a person would not say."""
    from covert.env import Intent

    role = bound.role
    target: Target = bound.target
    resource = api.resources[role.table]
    required = bound.spec.parameters["required"]
    none = (Intent(ask=(), answer=()),)
    if not bound.spec.writes or not role.id_param or not all(_SLOT.match(p) for p in required):
        return none
    if any(bound.spec.param_entity(p) not in refs and p not in role.scope_params for p in required):
        return none
    verb, slot = target.verb, role.id_param
    said = f"Done: the {resource.noun} is {past_tense(verb)}." if " " not in verb else \
        f"Done: that went through for the {resource.noun}."
    return (Intent(ask=(f"please {verb} {{{slot}}}", f"can you {verb} {{{slot}}} for me?",
                        f"I'd like to {verb} {{{slot}}}, please"), answer=(said,)),)
