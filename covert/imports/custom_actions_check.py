"""Validation of LLM-written custom actions in the sandbox, and the validate-revise loop (EnvFactory-style).

An implementation (:class:`~covert.imports.custom_actions.CustomCode`) is run in a two-worker sandbox
pool on generated states (two seeds, up to three records each) and must:

- run within the limits (``timeout``, ``memory``, ``crash``, ``forbidden``, ``exception``,
  ``output_too_large`` otherwise; the AST pre-filter's refusals are ``forbidden``);
- be deterministic: the same result from a second worker process (``nondeterministic``);
- return output that validates against the response schema (``output_schema_mismatch``);
- change only the tables it declares, and nothing when the operation only reads (``unknown_table``,
  ``read_declares_writes``, ``undeclared_write``, ``read_changed_state``, ``bad_tables``, ``bad_change``,
  ``record_key_mismatch``);
- report a missing record with the API's not-found code and change nothing (``missing_record_not_not_found``),
  and use only the API's error codes (``error_not_in_api_style``);
- succeed on some record (``never_succeeds``); and when its verb flips a status (start, stop, enable,
  cancel ...) and the record has a status-like field, change one on some record (``status_not_changed``;
  closing a ticket that is already closed may change nothing).

:func:`write_actions` asks the LLM for every custom action of an API (one batch per round, so a batching
backend serves them together), validates each reply and sends failures back with the error text, up to
``revisions`` times, recording first-pass and final outcomes.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import jsonschema_rs

from covert.env import State
from covert.env.patterns import bounded_validator
from covert.imports.custom_actions import (
    HARNESS,
    CustomCode,
    ReplyError,
    Target,
    action_prompt,
    apply_changes,
    parse_reply,
    payload_of,
    reply_problem,
    revision_message,
    sample_state,
    target_of,
    tool_spec,
)
from covert.imports.model import ApiSpec
from covert.sandbox import SandboxPool

SEEDS = (0, 1)
RECORDS_PER_STATE = 3
DEFAULT_REVISIONS = 2
MAX_ASSISTANT_CHARS = 8_000


@dataclass
class ActionRecord:
    """The loop's record of one custom action.

    Attributes:
        api: The API id.
        tool: The operation's name.
        attempted: Whether the LLM was asked (False: no target; ``reasons`` says why).
        first_pass: Whether the first reply passed validation.
        admitted: Whether some reply passed (within the revisions).
        attempts: Replies validated.
        reasons: ``"reason: detail"`` of every failed attempt, in order.
    """

    api: str
    tool: str
    attempted: bool = False
    first_pass: bool = False
    admitted: bool = False
    attempts: int = 0
    reasons: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        """The reason code of the last failure ("" when admitted)."""
        return "" if self.admitted or not self.reasons else self.reasons[-1].split(":", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {**asdict(self), "reason": self.reason}


@dataclass
class ActionOutcome:
    """The admitted implementations of one API and the records of every custom action."""

    admitted: dict[str, CustomCode] = field(default_factory=dict)
    records: list[ActionRecord] = field(default_factory=list)


class _Failed(Exception):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = " ".join(str(detail).split())[:500]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _args(target: Target, api: Any, rec: dict[str, Any], state: State, rng: random.Random,
          tool: Any) -> dict[str, Any]:
    from covert.imports.record_keys import PARENT_KEY, SCOPES, scope_key
    from covert.imports.statefactory import value_for

    resource = api.resources[target.table]
    props = tool.parameters["properties"]
    args: dict[str, Any] = {}
    if target.id_param:
        args[target.id_param] = rec[resource.id_field]
    for param, table in target.parent_params.items():
        if param not in props:
            continue
        if table == resource.parent and rec.get(resource.parent_field or PARENT_KEY) is not None:
            args[param] = rec[resource.parent_field or PARENT_KEY]
        elif state.ids(table):
            parent = state.get(table, state.ids(table)[0])
            args[param] = parent[api.resources[table].id_field]
    scopes = state.get(SCOPES, "scope") or {}
    for param in target.scope_params:
        key = scope_key(param, props.get(param))
        if key in scopes:
            args[param] = scopes[key]
    for param in tool.parameters["required"]:
        if param not in args:
            args[param] = value_for(props[param], param, rng)
    return args


def _absent(value: Any) -> Any:
    return 987654321 if isinstance(value, int) else f"{value}-absent"


class Validator:
    """Validates implementations of one API's custom actions in ``sandbox`` (a pool of at least two workers)."""

    def __init__(self, api: Any, sandbox: SandboxPool) -> None:
        if sandbox.size < 2:
            raise ValueError("custom-action validation needs a sandbox pool of two workers (determinism)")
        self.api = api
        self.sandbox = sandbox
        self.states = [State.from_dict(api.make_state(random.Random(f"custom:{seed}"))) for seed in SEEDS]

    def _run(self, code: CustomCode, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            first = self.sandbox.call(code.code, "invoke", payload, harness=HARNESS, worker=0)
        except ValueError as exc:  # the tables are over the sandbox's input limit
            raise _Failed("payload_too_large", str(exc)) from None
        if not first.ok:
            raise _Failed(first.error_kind or "crash", first.detail)
        problem = reply_problem(first.value)
        if problem:
            raise _Failed("malformed_reply", f"the sandbox's answer is malformed: {problem}")
        second = self.sandbox.call(code.code, "invoke", payload, harness=HARNESS, worker=1)
        if not second.ok or _canonical(second.value) != _canonical(first.value):
            raise _Failed("nondeterministic", "a second run on the same tables and arguments gave a different "
                          f"result ({second.error_kind or 'different output or changes'})")
        return first.value

    def check(self, target: Target, code: CustomCode) -> tuple[str, str] | None:
        """``(reason, detail)`` of the first check the implementation fails, or ``None`` when it passes."""
        try:
            self._check(target, code)
        except _Failed as failed:
            return failed.reason, failed.detail
        except Exception as exc:  # noqa: BLE001 - one hostile implementation never costs the others theirs
            return "malformed_reply", f"{type(exc).__name__}: {exc}"[:300]
        return None

    def _check(self, target: Target, code: CustomCode) -> None:
        from covert.imports.statefactory import Unsatisfiable

        api = self.api
        resource = api.resources[target.table]
        style = api.style
        tool = tool_spec(target, code, api.resources, style)
        unknown = sorted(set(code.writes) - set(target.tables))
        if unknown:
            raise _Failed("unknown_table", f"WRITES names {unknown}; the tables are {list(target.tables)}")
        if target.reads_only and code.writes:
            raise _Failed("read_declares_writes", "this operation only reads: WRITES must be []")
        allowed_errors = set(tool.errors) | set(target.op.errors)
        status = target.status_fields(resource)
        validator = _response_validator(target.op.response)
        successes = flipped = 0
        last_error = "every call returned an error"
        for n, state in enumerate(self.states):
            rng = random.Random(f"{target.op.name}:{n}")
            rows = list(state.records(target.table))[:RECORDS_PER_STATE]
            if not rows:
                continue
            try:
                calls = [(key, rec, _args(target, api, rec, state, rng, tool)) for key, rec in rows]
            except Unsatisfiable:
                raise _Failed("unsatisfiable_schema", "no argument values could be generated") from None
            for key, rec, args in calls:
                value = self._run(code, payload_of(target, state, args, api.resources, tool))
                if "error" in value:
                    if value["error"]["code"] not in allowed_errors:
                        raise _Failed("error_not_in_api_style", f"error code {value['error']['code']!r} is not one "
                                      f"of this API's codes {sorted(allowed_errors)}")
                    last_error = f"{value['error']['code']}: {value['error']['message']}"
                    continue
                flipped += self._check_success(target, code, state, key, rec, value, validator, status)
                successes += 1
            if target.id_param:
                key, rec, args = calls[0]
                missing = {**args, target.id_param: _absent(rec[resource.id_field])}
                value = self._run(code, payload_of(target, state, missing, api.resources, tool))
                if "error" not in value or value["error"]["code"] != style.not_found:
                    got = f"error {value['error']['code']!r}" if "error" in value else "a result"
                    raise _Failed("missing_record_not_not_found", f"for a {resource.noun} that does not exist it "
                                  f"returned {got}; return {{\"error\": {{\"code\": {style.not_found!r}, ...}}}}")
        if successes == 0:
            raise _Failed("never_succeeds", last_error)
        if status and target.id_param and not flipped:
            raise _Failed("status_not_changed", f"after '{target.verb}' none of the {resource.noun}'s fields "
                          f"{status} changed on any of {successes} records")

    def _check_success(self, target: Target, code: CustomCode, state: State, key: str, rec: dict[str, Any],
                       value: dict[str, Any], validator: Any, status: list[str]) -> bool:
        """Check one successful call; whether it changed a status-like field of the record."""
        if value.get("bad_tables"):
            raise _Failed("bad_tables", f"it replaced or removed whole tables {value['bad_tables']}")
        changes = value["changes"]
        if target.reads_only and changes:
            raise _Failed("read_changed_state", f"this operation only reads but it changed {sorted(changes)}")
        undeclared = sorted(set(changes) - set(code.writes))
        if undeclared:
            raise _Failed("undeclared_write", f"it changed {undeclared}, which WRITES does not declare")
        for table, rows in changes.items():
            id_field = self.api.resources[table].id_field
            for row_key, new in rows.items():
                if isinstance(new, dict) and id_field in new and str(new[id_field]) != row_key:
                    raise _Failed("record_key_mismatch", f"{table}/{row_key[:40]} holds a record whose "
                                  f"{id_field} is {str(new[id_field])[:40]}")
        try:
            apply_changes(target, code, state.fork(), changes, self.api.resources)
        except (RuntimeError, KeyError, TypeError, ValueError) as exc:
            raise _Failed("bad_change", str(exc)) from None
        if validator is not None:
            errors = list(validator.iter_errors(value["output"]))[:1]
            if errors:
                raise _Failed("output_schema_mismatch", f"the output does not match the response schema: "
                              f"{str(errors[0])[:300]}")
        new = changes.get(target.table, {}).get(key)
        return isinstance(new, dict) and any(new.get(f) != rec.get(f) for f in status)


def _response_validator(schema: Any) -> Any:
    if not isinstance(schema, dict) or not schema:
        return None
    try:
        return bounded_validator(schema)
    except (ValueError, jsonschema_rs.ValidationError):
        return None


def custom_roles(spec: ApiSpec) -> list[Any]:
    """The operations the binder reads as custom actions (not CRUD operations missing what CRUD needs)."""
    from covert.imports.resources import infer

    _resources, roles = infer(spec)
    gaps = ("no_record_schema", "no_id_field", "no_id_parameter")
    return [r for r in roles if r.kind == "custom" and r.reason not in gaps]


def write_actions(spec: ApiSpec, backend: Any, sandbox: SandboxPool, *, revisions: int = DEFAULT_REVISIONS,
                  max_tokens: int = 1024) -> ActionOutcome:
    """Ask ``backend`` for an implementation of every custom action of ``spec``, validate it, and revise up to
    ``revisions`` times; the admitted implementations and one record per custom action."""
    from covert.imports.bind import bind
    from covert.imports.bound import BindError
    from covert.imports.resources import infer
    from covert.llm.base import ChatRequest, SamplingParams

    if revisions < 0:
        raise ValueError("--revisions must be 0 or more")
    outcome = ActionOutcome()
    customs = custom_roles(spec)
    if not customs:
        return outcome
    try:
        api = bind(spec)
        _resources, roles = infer(spec)
        validator = Validator(api, sandbox)
        sample = sample_state(api)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # BindError, or a spec the binder or state factory trips on
        from covert.imports.statefactory import Unsatisfiable

        reason = exc.reason if isinstance(exc, BindError) else "unsatisfiable_schema" \
            if isinstance(exc, Unsatisfiable) else f"binder_error_{type(exc).__name__}"
        outcome.records = [ActionRecord(spec.api, r.op.name, reasons=[f"api_not_bound: {reason}"]) for r in customs]
        return outcome
    sampling = SamplingParams(temperature=0.0, max_tokens=max_tokens, seed=0)
    pending: list[tuple[ActionRecord, Target, list[dict[str, Any]]]] = []
    for role in customs:
        record = ActionRecord(spec.api, role.op.name)
        outcome.records.append(record)
        try:
            target = target_of(role.op, spec, api.resources, roles)
            prompt = target if isinstance(target, str) else action_prompt(target, spec, api.resources, api.style,
                                                                          sample)
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:
            target = f"binder_error_{type(exc).__name__}"
        if isinstance(target, str):
            record.reasons.append(target)
            continue
        record.attempted = True
        pending.append((record, target, [{"role": "user", "content": prompt}]))
    # one batch per round (first passes, then each round of revisions): a batching backend (vLLM) serves
    # them together; the result is the same as asking one by one
    for attempt in range(revisions + 1):
        if not pending:
            break
        completions = backend.generate([ChatRequest(list(m), sampling=sampling) for _r, _t, m in pending])
        still: list[tuple[ActionRecord, Target, list[dict[str, Any]]]] = []
        for (record, target, messages), completion in zip(pending, completions, strict=True):
            record.attempts += 1
            text = completion.text or ""
            try:
                code = _validated(target, record.tool, completion, text, validator)
            except _Failed as failed:
                record.reasons.append(f"{failed.reason}: {failed.detail}")
                messages += [{"role": "assistant", "content": text[:MAX_ASSISTANT_CHARS]},
                             {"role": "user", "content": revision_message(failed.reason, failed.detail)}]
                still.append((record, target, messages))
                continue
            record.admitted = True
            record.first_pass = attempt == 0
            outcome.admitted[record.tool] = code
        pending = still
    return outcome


def _validated(target: Target, op_name: str, completion: Any, text: str, validator: Validator) -> CustomCode:
    """The implementation in one reply once it passes validation; raises _Failed with the reason."""
    if not completion.ok and not text:
        raise _Failed(f"llm_{completion.reason}", completion.error or "")
    try:
        code = parse_reply(text, op_name)
    except ReplyError as exc:
        raise _Failed(exc.reason, exc.detail) from None
    try:
        problem = validator.check(target, code)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # an unforeseen shape of spec or state: counted, never raised
        problem = (f"check_error_{type(exc).__name__}", str(exc))
    if problem is not None:
        raise _Failed(*problem)
    return code


def summarize_actions(records: list[ActionRecord], in_environments: int, revisions: int) -> dict[str, Any]:
    """First-pass and final pass rates, reasons, and how many admitted actions became tools of admitted
    environments."""
    attempted = [r for r in records if r.attempted]
    first = sum(r.first_pass for r in attempted)
    final = sum(r.admitted for r in attempted)
    reasons = Counter(r.reason for r in records if not r.admitted)
    first_reasons = Counter(r.reasons[0].split(":", 1)[0] for r in attempted if r.reasons and not r.first_pass)
    return {
        "custom_actions": len(records), "attempted": len(attempted), "revisions": revisions,
        "first_pass": first, "final_pass": final,
        "first_pass_rate": round(first / len(attempted), 4) if attempted else 0.0,
        "final_pass_rate": round(final / len(attempted), 4) if attempted else 0.0,
        "tools_in_admitted_environments": in_environments,
        "rejections": dict(sorted(reasons.items())), "first_pass_failures": dict(sorted(first_reasons.items())),
        "actions": [r.to_dict() for r in records],
    }
