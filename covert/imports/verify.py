"""Verification of an imported environment before admission.

Each invariant is checked on generated states (two seeds):

- reads do not change state;
- create adds exactly one record, and get-after-create returns it;
- update persists (read back through get, or from the state when the API has no get);
- delete then get gives not-found (and the record is gone);
- outputs validate against the API's response schemas (JSON Schema, with jsonschema-rs);
- every tool is reachable in the tool graph (ids a person cannot know come from a reachable read);
- the environment can make tasks: a tool a person can call alone, and a write or a read with an
  answer (read-only APIs are admitted: their tasks are lookups, lists, filters and counts).

A tool that breaks an invariant is left out with the reason and the environment checked again
without it (:func:`admit`); an environment with nothing left is rejected with its reasons.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import jsonschema_rs

from covert.env import Builder, State, is_error
from covert.env.patterns import bounded_validator
from covert.imports.bind import BoundApi, link_key
from covert.imports.bound import BindError, BoundTool
from covert.imports.envs import make_builder, reachable
from covert.imports.model import ApiSpec
from covert.imports.statefactory import Unsatisfiable, value_for
from covert.schemas import SchemaViolation, builder_specs_valid

SEEDS = (0, 1)


@dataclass
class Verdict:
    """The outcome of verifying one API.

    Attributes:
        api: The spec's id.
        source: Its source kind.
        name: The environment name (when it bound).
        admitted: Whether it is admitted.
        reasons: Why it was rejected (empty when admitted).
        tool_failures: Per tool left out by verification, the invariant it broke.
        tools: Admitted tools.
        builder: The admitted builder.
    """

    api: str
    source: str
    name: str = ""
    admitted: bool = False
    reasons: list[str] = field(default_factory=list)
    tool_failures: dict[str, str] = field(default_factory=dict)
    tools: int = 0
    builder: Builder | None = None


def check_builder(builder: Builder) -> dict[str, str]:
    """Per tool, the first invariant it breaks (empty when every tool holds); ``"*"`` for the environment."""
    api: BoundApi = builder.bound  # type: ignore[attr-defined]
    failures: dict[str, str] = {}
    try:
        builder_specs_valid(tuple(builder.tools), builder.environment)
    except SchemaViolation:
        return {"*": "invalid_tool_spec"}
    for name in builder.tools:
        try:
            builder.environment._validator(name).full()  # fastjsonschema's, which every refused call needs
        except Exception:
            failures[name] = "invalid_tool_spec"
    for name in set(builder.tools) - reachable(api, builder.language.references):
        failures.setdefault(name, "unreachable_tool")
    for seed in SEEDS:
        try:
            state = builder.state(seed, 0)
        except (Unsatisfiable, ValueError, TypeError) as exc:
            return {"*": "unsatisfiable_schema" if isinstance(exc, Unsatisfiable) else "state_factory_failed"}
        for name, bound in api.tools.items():
            if name in failures or bound.role.kind == "custom":  # custom actions: custom_actions_check
                continue
            try:
                problem = _check_tool(builder, api, bound, state, random.Random(f"{name}:{seed}"))
            except Unsatisfiable:
                problem = "unsatisfiable_schema"
            if problem:
                failures[name] = problem
    return failures


def _check_tool(builder: Builder, api: BoundApi, bound: BoundTool, state: State, rng: random.Random) -> str:
    role = bound.role
    resource = api.resources[role.table]
    env = builder.env(state)
    before = env.state.hash()
    rows = list(env.state.records(resource.table))
    if not rows and role.kind != "create":
        return ""
    # a record the call can reach: one in the other records the call names besides its parent, if any is
    linked = [(k, r) for k, r in rows if all(link_key(t) in r for t, _ in bound.links.values())]
    if bound.links and rows and not linked:
        return ""  # no record sits in the other records the call names (no job of this farm is in a queue)
    if role.kind == "list":  # a list a required filter narrows is tried on a record that has the field it filters
        required = bound.spec.parameters["required"]
        filtered = [t for p, t in bound.fields.items() if p in required]
        linked = [(k, r) for k, r in linked if all(t in r for t in filtered)] or linked
    key, rec = linked[rng.randrange(len(linked))] if linked else ("", {})
    args = _parent_args(api, bound, rec, env.state)
    if role.kind in ("get", "update", "delete"):
        args[role.id_param] = rec[resource.id_field]
    if role.kind == "list":  # a required filter takes the value of the record it should find
        for param, target in bound.fields.items():
            if param in bound.spec.parameters["required"] and target in rec:
                args[param] = rec[target]
    getter = _getter(api, resource.table, rec if rec else None)
    if role.kind in ("list", "get"):
        out = env.call(bound.spec.name, args)
        if is_error(out):
            return "read_failed"
        if env.state.hash() != before:
            return "read_changed_state"
        if role.kind == "get":
            missing = env.call(bound.spec.name, {**args, role.id_param: _absent_id(rec[resource.id_field])})
            if not is_error(missing) or missing["error"]["code"] != api.style.not_found:
                return "missing_record_not_not_found"
        return _schema_problem(bound, out)
    if role.kind == "create":
        for param, target in bound.fields.items():
            if param in bound.spec.parameters["required"]:
                args[param] = _value(bound, param, target, rng)
        if role.id_param and role.id_param in bound.spec.parameters["required"]:
            args[role.id_param] = _value(bound, role.id_param, resource.id_field, rng)
        count = env.state.count(resource.table)
        out = env.call(bound.spec.name, args)
        if is_error(out):
            return "create_failed"
        if env.state.count(resource.table) != count + 1:
            return "create_not_one_record"
        added = [k for k in env.state.ids(resource.table) if k not in dict(rows)]
        if len(added) != 1:
            return "create_not_one_record"
        made = env.state.get(resource.table, added[0])
        getter = _getter(api, resource.table, made)
        if getter is not None:
            got = _get(env, api, getter, made)
            if is_error(got) or not _same(got, made, getter):
                return "get_after_create_missing"
        return _schema_problem(bound, out)
    if role.kind == "update":
        changes = {}
        for param, target in bound.fields.items():
            value = _value(bound, param, target, rng)
            args[param] = value
            changes[target] = value
            break
        out = env.call(bound.spec.name, args)
        if is_error(out):
            return "update_failed"
        after = env.state.get(resource.table, key)
        if after is None or any(after.get(f) != v for f, v in changes.items()):
            return "update_not_persisted"
        if getter is not None:
            got = _get(env, api, getter, after)
            if is_error(got) or not _same(got, after, getter):
                return "update_not_persisted"
        return _schema_problem(bound, out)
    out = env.call(bound.spec.name, args)
    if is_error(out):
        return "delete_failed"
    if env.state.get(resource.table, key) is not None:
        return "delete_kept_record"
    if getter is not None:
        got = _get(env, api, getter, rec)
        if not is_error(got) or got["error"]["code"] != api.style.not_found:
            return "delete_then_get_found"
    return _schema_problem(bound, out)


def _getter(api: BoundApi, table: str, rec: dict[str, Any] | None = None) -> BoundTool | None:
    """The first get tool of ``table``; for ``rec``, the first whose other links ``rec`` has (a security
    entry made for an analysis category is read back through the analysis category, not an asset server)."""
    getters = [b for b in api.tools.values() if b.role.kind == "get" and b.role.table == table]
    if rec is not None:
        return next((b for b in getters if all(link_key(t) in rec for t, _ in b.links.values())), None)
    return getters[0] if getters else None


def _get(env: Any, api: BoundApi, getter: BoundTool, rec: dict[str, Any]) -> Any:
    resource = api.resources[getter.role.table]
    args = _parent_args(api, getter, rec, env.state)
    args[getter.role.id_param] = rec[resource.id_field]
    return env.call(getter.spec.name, args)


def _same(output: Any, rec: dict[str, Any] | None, getter: BoundTool) -> bool:
    from covert.imports.record_keys import public
    from covert.imports.resources import record_of

    if rec is None:
        return False
    found = record_of(getter.role.op.response)
    body = output.get(found[0]) if found and found[0] and isinstance(output, dict) else output
    return body == public(rec)


def _parent_args(api: BoundApi, bound: BoundTool, rec: dict[str, Any], state: State) -> dict[str, Any]:
    """Ancestor ids for a call on ``rec`` (its own parent link, else any record of the parent table)."""
    from covert.imports.record_keys import PARENT_KEY

    resource = api.resources[bound.role.table]
    args: dict[str, Any] = {}
    for param, table in bound.role.parent_params.items():
        if param not in bound.spec.parameters["properties"] or table not in api.resources:
            continue
        if table == resource.parent and rec:
            args[param] = rec.get(resource.parent_field or PARENT_KEY)
        elif param in bound.links and rec:
            args[param] = rec.get(link_key(table))
        else:
            ids = state.ids(table)
            if ids:
                parent = state.get(table, ids[0])
                args[param] = parent[api.resources[table].id_field]
        if args.get(param) is None:
            args.pop(param, None)
    from covert.imports.record_keys import SCOPES, scope_key

    scopes = state.get(SCOPES, "scope") or {}
    for param in bound.role.scope_params:
        key = scope_key(param, bound.spec.parameters["properties"][param])
        if key in scopes:
            args[param] = scopes[key]
    return args


def _value(bound: BoundTool, param: str, target: str, rng: random.Random) -> Any:
    return value_for(bound.spec.parameters["properties"][param], target, rng)


def _absent_id(value: Any) -> Any:
    return 987654321 if isinstance(value, int) else f"{value}-absent"


def _schema_problem(bound: BoundTool, output: Any) -> str:
    schema = bound.role.op.response
    if not isinstance(schema, dict) or not schema:
        return ""
    try:
        valid = _validator(bound).is_valid(output)
    except (ValueError, RecursionError, jsonschema_rs.ValidationError):
        return "invalid_response_schema"
    return "" if valid else "output_schema_mismatch"


def _validator(bound: BoundTool) -> Any:
    """The (cached) JSON Schema validator of a tool's response schema (jsonschema-rs)."""
    found = getattr(bound, "_response_validator", None)
    if found is None:
        found = bounded_validator(bound.role.op.response)
        bound._response_validator = found  # type: ignore[attr-defined]
    return found


def feasibility(builder: Builder) -> list[str]:
    """What keeps an environment from making tasks: no tool a person can call alone, or no request
    to make. A read-only API is admitted when a read can be a task's goal with an answer (a lookup,
    a list, a filter or a count: an intent with requests and answers); without one it is rejected
    with ``no_read_task``."""
    from covert.synth.blueprint import user_suppliable

    reasons = []
    if not any(not s.writes and user_suppliable(builder, t) for t, s in builder.tools.items()):
        reasons.append("no_entry_tool")
    if not any(s.writes for s in builder.tools.values()):
        intents = builder.language.intents
        if not any(i.ask and i.answer for t, s in builder.tools.items() if not s.writes for i in intents.get(t, ())):
            reasons.append("no_read_task")
    return reasons


def admit(spec: ApiSpec, allow_unlicensed: bool = False, rounds: int = 3,
          custom: dict[str, Any] | None = None) -> Verdict:
    """Bind, verify and (when everything holds) admit one API; a spec the binder trips on is rejected
    with ``binder_error_<Exception>``, never raised, so one spec cannot stop a run."""
    try:
        return _admit(spec, allow_unlicensed, rounds, custom)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # an unforeseen shape of spec: counted, reported, not admitted
        return Verdict(spec.api, spec.source, reasons=[f"binder_error_{type(exc).__name__}"])


def _admit(spec: ApiSpec, allow_unlicensed: bool, rounds: int, custom: dict[str, Any] | None = None) -> Verdict:
    verdict = Verdict(spec.api, spec.source)
    if not spec.license and not allow_unlicensed:
        verdict.reasons.append("no_license")
        return verdict
    exclude: dict[str, str] = {}
    for _ in range(rounds):
        try:
            builder = make_builder(spec, exclude, custom)
        except BindError as exc:
            verdict.reasons.append(exc.reason)
            return verdict
        verdict.name = builder.name
        failures = check_builder(builder)
        if "*" in failures:
            verdict.reasons.append(failures["*"])
            return verdict
        if not failures:
            reasons = feasibility(builder)
            if reasons:
                verdict.reasons.extend(reasons)
                return verdict
            bound: BoundApi = builder.bound  # type: ignore[attr-defined]
            for tool, reason in _excluded(bound).items():
                verdict.tool_failures.setdefault(tool, reason.removeprefix("failed_"))
            verdict.admitted = True
            verdict.tools = len(builder.tools)
            verdict.builder = builder
            return verdict
        verdict.tool_failures.update(failures)
        exclude.update({n: f"failed_{r}" for n, r in failures.items()})
    verdict.reasons.append("verification_did_not_settle")
    return verdict


def _excluded(api: BoundApi) -> dict[str, str]:
    return {name: reason for name, reason in api.left_out
            if reason.startswith("failed_") or reason == "unreachable_tool"}


def exclusions(verdict: Verdict) -> dict[str, str]:
    """The ``exclude`` map that rebuilds an admitted verdict's builder (tool -> reason)."""
    if verdict.builder is None:
        return {}
    return _excluded(verdict.builder.bound)  # type: ignore[attr-defined]


def summarize(verdicts: list[Verdict], left_out: Counter[str] | None = None) -> dict[str, Any]:
    """Admitted/rejected counts by source and reason, tools admitted, and operations left out by reason."""
    by_source: dict[str, dict[str, int]] = {}
    reasons: Counter[str] = Counter()
    ops: Counter[str] = Counter(left_out or {})
    for v in verdicts:
        row = by_source.setdefault(v.source, {"admitted": 0, "rejected": 0, "tools": 0})
        if v.admitted:
            row["admitted"] += 1
            row["tools"] += v.tools
            for reason in (v.builder.bound.left_out if v.builder else ()):  # type: ignore[attr-defined]
                ops[reason[1]] += 1
        else:
            row["rejected"] += 1
            for reason in v.reasons:
                reasons[f"{v.source}:{reason}"] += 1
    admitted = sum(r["admitted"] for r in by_source.values())
    return {
        "environments": len(verdicts), "admitted": admitted, "rejected": len(verdicts) - admitted,
        "admission_rate": round(admitted / len(verdicts), 4) if verdicts else 0.0,
        "tools_admitted": sum(r["tools"] for r in by_source.values()),
        "by_source": dict(sorted(by_source.items())), "rejections": dict(sorted(reasons.items())),
        "operations_left_out": dict(sorted(ops.items())),
    }
