"""A row prepared for scoring: expected calls compiled, initial state loaded (its record digests are
computed once and shared by every rollout), failures, expected final state, facts and rubric."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from covert.env import Environment, State, UnknownBuilderError, from_row
from covert.language.spoken import fact_forms
from covert.rewards.compare import StringNorm
from covert.rewards.judge import Rubric, rubric_text
from covert.rewards.matching import CallMatcher, expect_call
from covert.rewards.rowview import BadRow, RowView
from covert.rewards.session import Failure, Session, call_key, failures_of
from covert.rewards.state_match import Item, change_items, state_items


@dataclass(frozen=True)
class PreparedRow:
    """Everything scoring needs from one row, computed once."""

    view: RowView
    env_cls: type[Environment]
    initial: State
    behaviour: str
    calls: list[list[dict[str, Any]]]  # the oracle calls a completion should make, by turn
    expected: list[list[CallMatcher]]
    failures: tuple[Failure, ...]
    expected_hash: str
    expected_items: frozenset[Item]
    initial_hash: str
    changes_state: bool
    facts: tuple[str, ...]
    offered: frozenset[str]
    rubric: Rubric
    fact_forms: tuple[tuple[str, ...], ...] = ()  # per fact, every text that states it (raw or spoken)

    def session(self) -> Session:
        """A fresh rollout session on the row's initial state, with the row's failures."""
        return Session.start(self.env_cls, self.initial, self.failures)


MAX_ORACLE_CALLS = 256  # covert writes at most a few dozen; a row past this is not covert's
MAX_FACTS = 256
MAX_TOOLS = 1024


def _check_bounds(truth: Mapping[str, Any], flat: list[Mapping[str, Any]], view: RowView) -> None:
    """Refuse a row whose sizes would make scoring do unbounded work (a :class:`BadRow`; failure counts
    and attempts are checked where failures are read, :func:`~covert.rewards.session.failures_of`)."""
    if len(flat) > MAX_ORACLE_CALLS:
        raise BadRow(f"the ground truth has {len(flat)} calls; at most {MAX_ORACLE_CALLS} are scored")
    facts = truth.get("answer_facts")
    if isinstance(facts, list) and len(facts) > MAX_FACTS:
        raise BadRow(f"the ground truth has {len(facts)} answer facts; at most {MAX_FACTS} are scored")
    if view.tools is not None and len(view.tools) > MAX_TOOLS:
        raise BadRow(f"the row offers {len(view.tools)} tools; at most {MAX_TOOLS} are scored")


def prepare(view: RowView, norm: StringNorm) -> PreparedRow:
    """Prepare a row; raises :class:`BadRow` if it cannot be scored."""
    try:
        env = from_row({"environment": view.builder, "initial_state": view.initial_state})
    except UnknownBuilderError as exc:
        raise BadRow(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - any unreadable state is a bad row
        raise BadRow(f"the initial state cannot be loaded: {type(exc).__name__}") from None
    env_cls, initial = type(env), env.state
    truth = view.truth
    groups = [[c for c in g if isinstance(c, Mapping)] for g in truth["calls"] if isinstance(g, list)]
    flat = [c for g in groups for c in g]
    if any(not isinstance(c.get("name"), str) or not isinstance(c.get("arguments", {}), Mapping) for c in flat):
        raise BadRow("ground-truth calls are {name, arguments} objects")
    _check_bounds(truth, flat, view)
    failures = failures_of(truth, flat)
    behaviour = str(truth.get("behaviour") or "tool_use")
    facts = [f for f in truth.get("answer_facts") or [] if isinstance(f, Mapping) and isinstance(f.get("value"), str)]
    permanent = [f.index for f in failures if not f.transient]
    if behaviour == "report_error" and permanent:
        cut = min(permanent)
        groups = _truncate(groups, cut + 1)
        facts = [f for f in facts if _fact_call(f, truth) < cut]
        final = _replay(env_cls, initial, groups, failures)
        expected_hash, expected_items = final.hash(), state_items(initial, final)
    elif isinstance(truth.get("final_state_hash"), str) and isinstance(truth.get("state_diff"), list):
        expected_hash, expected_items = truth["final_state_hash"], change_items(truth["state_diff"])
    else:
        final = _replay(env_cls, initial, groups, failures)
        expected_hash, expected_items = final.hash(), state_items(initial, final)
    specs = dict(zip(env_cls.tool_specs, env_cls.openai_tools(), strict=True))  # built once per class; read-only
    offered_tools = view.tools if view.tools is not None else list(specs.values())
    offered = {}
    for tool in offered_tools:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            offered[function["name"]] = tool
    expected = [[expect_call(c, offered.get(c["name"]) or specs.get(c["name"]), norm) for c in g] for g in groups]
    return PreparedRow(
        view=view,
        env_cls=env_cls,
        initial=initial,
        behaviour=behaviour,
        calls=groups,
        expected=expected,
        failures=tuple(failures),
        expected_hash=expected_hash,
        expected_items=expected_items,
        initial_hash=initial.hash(),
        changes_state=expected_hash != initial.hash(),
        facts=tuple(f["value"] for f in facts),
        offered=frozenset(offered),
        rubric=_rubric(behaviour, truth, failures, env_cls),
        fact_forms=tuple(fact_forms(dict(f)) for f in facts),
    )


def _truncate(groups: list[list[dict[str, Any]]], keep: int) -> list[list[dict[str, Any]]]:
    out = []
    for group in groups:
        if keep <= 0:
            break
        out.append(group[:keep])
        keep -= len(group)
    return out


def _fact_call(fact: Mapping[str, Any], truth: Mapping[str, Any]) -> int:
    """The oracle call a fact comes from (reasoning facts: the call their step reads)."""
    if isinstance(fact.get("call"), int):
        return fact["call"]
    steps = truth.get("reasoning") or []
    index = fact.get("reasoning")
    if isinstance(index, int) and 0 <= index < len(steps) and isinstance(steps[index].get("call"), int):
        return steps[index]["call"]
    return -1


def _replay(env_cls: type[Environment], initial: State, groups: Sequence[Sequence[Mapping[str, Any]]],
            failures: Sequence[Failure]) -> State:
    """The state the oracle leaves, retrying transient failures as the right behaviour does."""
    session = Session.start(env_cls, initial, failures)
    transient = {f.key for f in failures if f.transient}
    for group in groups:
        for call in group:
            arguments = call.get("arguments") or {}
            session.call(call["name"], arguments)
            while session.log[-1].injected and call_key(call["name"], arguments) in transient:
                session.call(call["name"], arguments)
    return session.state


def _rubric(behaviour: str, truth: Mapping[str, Any], failures: Sequence[Failure],
            env_cls: type[Environment]) -> Rubric:
    context: dict[str, Any] = {"write_tools": sorted(n for n, s in env_cls.tool_specs.items() if s.writes)}
    missing = truth.get("clarify")
    param = None
    if isinstance(missing, Mapping):
        param = missing.get("param") if isinstance(missing.get("param"), str) else None
        context.update({k: missing[k] for k in ("param", "value", "terms") if k in missing})
    if failures:
        failure = failures[0]
        context["call"] = {"name": failure.name, "arguments": failure.arguments}
        context["error_code"] = failure.observation["error"].get("code")
    text = truth.get("rubric") if isinstance(truth.get("rubric"), str) else rubric_text(behaviour, param)
    return Rubric(behaviour, text, context)
