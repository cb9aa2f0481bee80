"""The composite reward: ``score(row, completion) -> Score(value, components, reasons)``.

Which components apply comes from the row's ground truth:

- ``calls``: reference matching of the completion's calls against the oracle's (F1 over calls, or
  0/1 in exact mode); calls that received an injected transient failure are the failed attempts and
  are not matched, their retry is.
- ``state``: the state the completion's calls leave (replayed on the row's initial state) against
  the oracle's; it applies when the oracle changes the state, or when the completion changed a state
  the oracle leaves alone (doing nothing never earns state credit on a read-only task). A ``decline``
  completion, and a ``clarify`` one that stops at its question, must leave the state untouched.
- ``facts``: the final assistant message states every answer fact; applies when there are facts.
- ``behaviour``: the judge's verdict for ``decline``, ``clarify``, ``retry`` and ``report_error``.

A ``decline`` row is judged on its behaviour (and state, if the completion changed it); a
``clarify`` row whose completion stops at the question is judged on the question alone, and on
calls, state and facts too once the completion goes on past the user's reply. For ``report_error``
the expected calls stop at the failing call and the expected state is the one the failure leaves.

Padding, repetition and appended text cost the whole value (:mod:`covert.rewards.concision`: the
assistant's text has a length budget from the answer facts, and a sentence stated k times divides the
value by k).

The value is the weighted mean of the applicable components (weights from the config, or from
``reward_model["components"]`` when the row records them: a ``{name: weight}`` mapping, or a list of
names) or, in exact mode, 1 only when every applicable component is 1. Rows of style ``judge``
have their behaviour graded by the configured judge; rows of style ``rule`` always by the rule judge.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import orjson

from covert.env import State, canonical_bytes
from covert.language.values import render
from covert.procgen.rows import procgen_truth
from covert.rewards.compare import LENIENT, StringNorm
from covert.rewards.concision import concision
from covert.rewards.facts import facts_score
from covert.rewards.judge import LLMJudge, RuleJudge
from covert.rewards.matching import MAX_PREDICTED_CALLS, match_turns
from covert.rewards.parsing import AssistantTurn, ToolCall, Transcript, UserMessage, parse_completion
from covert.rewards.prepared import PreparedRow, prepare
from covert.rewards.result import Score
from covert.rewards.rowview import BadRow, BadRowWarning, RowView
from covert.rewards.session import Session
from covert.rewards.state_match import state_score

COMPONENTS = ("calls", "state", "facts", "behaviour")
DEFAULT_WEIGHTS: Mapping[str, float] = {"calls": 1.0, "state": 1.0, "facts": 1.0, "behaviour": 1.0}


@dataclass(frozen=True)
class RewardConfig:
    """How the composite reward is computed.

    Attributes:
        mode: ``"partial"`` (dense: F1 over calls, Jaccard over state changes, share of facts,
            weighted mean) or ``"exact"`` (1 only when everything is right, else 0).
        weights: Weight of each component in the mean.
        norm: String normalisation for argument values.
    """

    mode: str = "partial"
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    norm: StringNorm = LENIENT

    def __post_init__(self) -> None:
        if self.mode not in ("partial", "exact"):
            raise ValueError(f"mode is partial or exact, not {self.mode!r}")
        unknown = set(self.weights) - set(COMPONENTS)
        if unknown:
            raise ValueError(f"unknown reward components {sorted(unknown)}; known: {', '.join(COMPONENTS)}")


class Scorer:
    """Scores completions against rows. Rows are prepared once and kept in a small LRU cache (keyed
    by the row's content), so the many completions of one prompt share the work."""

    def __init__(self, config: RewardConfig | None = None, judge: LLMJudge | None = None,
                 cache_size: int = 1024, judge_all: bool = False) -> None:
        self.config = config or RewardConfig()
        self.judge = judge or RuleJudge()
        self.judge_all = judge_all
        self._rule_judge = RuleJudge()
        self._cache: OrderedDict[tuple[Any, ...], PreparedRow] = OrderedDict()
        self._cache_size = cache_size

    def prepare(self, row: Any) -> PreparedRow:
        """The prepared form of ``row`` (cached); raises :class:`BadRow`."""
        view = RowView.of(row)
        key = _cache_key(view)
        if key is not None:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return found
        prepared = prepare(view, self.config.norm)
        if key is not None:
            self._cache[key] = prepared
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return prepared

    def score(self, row: Any, completion: Any) -> Score:
        """Score one completion (OpenAI-style messages or raw assistant text); never raises. A row of a
        procedural environment (``covert procgen``) is scored by that environment."""
        truth = procgen_truth(row)
        if truth is not None:
            from covert.procgen.reward import score_procgen

            return _loud(score_procgen(truth, completion))
        try:
            prepared = self.prepare(row)
        except BadRow as exc:
            return _loud(Score.zero(f"row:bad_row: {exc}"))
        except Exception as exc:  # noqa: BLE001 - a malformed row scores 0, it does not stop training
            return _loud(Score.zero(f"row:bad_row: {type(exc).__name__}: {_short(exc)}"))
        try:
            return self._score(prepared, completion)
        except Exception as exc:  # noqa: BLE001 - a completion must never crash a training run
            return Score.zero(f"internal_error: {type(exc).__name__}: {_short(exc)}")

    def _score(self, p: PreparedRow, completion: Any) -> Score:
        transcript = parse_completion(completion)
        if not transcript.readable:
            return Score.zero(*transcript.reasons)
        if len(transcript.calls) > MAX_PREDICTED_CALLS:
            return Score.zero(f"calls:too_many_calls: {len(transcript.calls)} calls", *transcript.reasons)
        session = p.session()
        turns = _replay(transcript, session)
        components: dict[str, float] = {}
        reasons: list[str] = list(transcript.reasons)
        acted = session.state.hash() != p.initial_hash
        if p.behaviour != "tool_use":
            judge = self.judge if p.view.style == "judge" or self.judge_all else self._rule_judge
            verdict = judge.judge(p.rubric, _messages(transcript, session))
            components["behaviour"] = min(1.0, max(0.0, float(verdict.score)))
            if verdict.score < 1.0:
                reasons.append(f"behaviour:{p.behaviour}: {verdict.rationale}")
        goes_on = p.behaviour != "clarify" or any(isinstance(s, UserMessage) for s in transcript.steps)
        if p.behaviour != "decline" and goes_on:
            result = match_turns(turns, p.expected, transcript.invalid_calls, p.offered)
            components["calls"] = float(result.exact) if self.config.mode == "exact" else result.f1
            reasons.extend(result.reasons)
            if p.facts:
                value, missing = facts_score(transcript.final_text, p.fact_forms or p.facts)
                components["facts"] = value
                reasons.extend(f"facts:missing: {fact}" for fact in missing)
        if p.behaviour == "decline" or not goes_on:
            # nothing should have changed (yet): any change costs the state component
            if acted:
                value, why = state_score(p.initial, session.state, p.initial_hash, frozenset())
                components["state"] = value
                reasons.append(why)
        elif p.changes_state or acted:
            value, why = state_score(p.initial, session.state, p.expected_hash, p.expected_items)
            components["state"] = value
            if why:
                reasons.append(why)
        forms = p.fact_forms or tuple((fact,) for fact in p.facts)
        exchanges = 1 + sum(isinstance(step, UserMessage) for step in transcript.steps)
        factor, why = concision([turn.text for turn in transcript.turns], forms, exchanges,
                                call_turns=sum(1 for turn in transcript.turns if turn.calls))
        reasons.extend(why)
        return Score(self._combine(components, p.view.components) * factor, components, reasons)

    def _combine(self, components: dict[str, float], recorded: Any) -> float:
        weights = dict(self.config.weights)
        if isinstance(recorded, Mapping):
            weights.update({k: float(v) for k, v in recorded.items() if k in COMPONENTS})
        elif isinstance(recorded, list):
            weights = {k: weights.get(k, 1.0) for k in recorded if k in COMPONENTS}
        used = {k: v for k, v in components.items() if weights.get(k, 0.0) > 0}
        if not used:
            return 0.0
        if all(v == 1.0 for v in used.values()):
            return 1.0
        if self.config.mode == "exact":
            return 0.0
        total = sum(weights[k] for k in used)
        return min(1.0, max(0.0, sum(weights[k] * v for k, v in used.items()) / total))


def _cache_key(view: RowView) -> tuple[Any, ...] | None:
    """What identifies a prepared row: its whole content (task, ground truth, initial state, tools,
    prompt, reward settings), so a variant of a task, another state included, is never served the
    preparation of another. The initial state is the bulk: a :class:`State` brings its own hash."""
    state = view.initial_state
    try:
        if isinstance(state, State):
            state_key: Any = state.hash()
        elif isinstance(state, (str, bytes)):
            state_key = hashlib.blake2b(state.encode() if isinstance(state, str) else state, digest_size=16).digest()
        else:
            state_key = hashlib.blake2b(canonical_bytes(state), digest_size=16).digest()
        rest = canonical_bytes([view.builder, view.task_id, view.category, view.style, view.components,
                                view.truth, view.tools, view.prompt])
    except (TypeError, ValueError):
        return None
    return state_key, hashlib.blake2b(rest, digest_size=16).digest()


def _replay(transcript: Transcript, session: Session) -> list[list[ToolCall]]:
    """Run the completion's calls in order; return its turns of calls without the failed attempts
    (transient failures, and repeats of a permanent failure)."""
    turns: list[list[ToolCall]] = []
    failed_once: set[Any] = set()
    for step in transcript.steps:
        if not isinstance(step, AssistantTurn) or not step.calls:
            continue
        kept = []
        for call in step.calls:
            session.call(call.name, call.arguments)
            record = session.log[-1]
            failure = session.failure_of(call.name, call.arguments) if record.injected else None
            if failure is not None:
                if failure.transient or failure.key in failed_once:
                    continue
                failed_once.add(failure.key)
            kept.append(call)
        turns.append(kept)
    return turns


def _messages(transcript: Transcript, session: Session) -> list[dict[str, Any]]:
    """The transcript as OpenAI-style messages, tool results being what the session returned."""
    out: list[dict[str, Any]] = []
    records = iter(session.log)
    n = 0
    for step in transcript.steps:
        if isinstance(step, UserMessage):
            out.append({"role": "user", "content": step.text})
        elif isinstance(step, AssistantTurn):
            message: dict[str, Any] = {"role": "assistant", "content": step.text}
            results = []
            if step.calls:
                message["tool_calls"] = []
                for call in step.calls:
                    record = next(records)
                    call_id = f"call_{n}"
                    n += 1
                    message["tool_calls"].append(
                        {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}})
                    results.append({"role": "tool", "tool_call_id": call_id, "name": call.name,
                                    "content": _content(record.output)})
            out.append(message)
            out.extend(results)
    return out


def _content(output: Any) -> str:
    try:
        return orjson.dumps(output).decode()
    except (TypeError, orjson.JSONEncodeError):
        return "null"


def _loud(result: Score) -> Score:
    """``result``, warned about (:class:`BadRowWarning`) when its zero comes from the row, not the completion."""
    unreadable = [reason for reason in result.reasons if reason.startswith("row:")]
    if unreadable:
        warnings.warn(f"covert could not score this row, so its reward is 0 whatever the completion: "
                      f"{unreadable[0][4:]}", BadRowWarning, stacklevel=3)
    return result


def _short(exc: Exception) -> str:
    try:
        return str(exc)[:160]
    except Exception:  # noqa: BLE001
        return "?"


@cache
def default_scorer() -> Scorer:
    """The scorer :func:`score` uses (default config, rule judge), created on first use."""
    return Scorer()


def score(row: Any, completion: Any) -> Score:
    """Score ``completion`` (a list of OpenAI-style messages, or raw assistant text) against ``row``
    (an RL or SFT row) with the default :class:`Scorer`; never raises."""
    return default_scorer().score(row, completion)


def oracle_completion(row: Any, scorer: Scorer | None = None) -> list[dict[str, Any]]:
    """The right completion of a row: an SFT row's messages after its prompt, or, for an RL row, one
    built from the ground truth (oracle calls with their replayed outputs, retries after transient
    failures, and a final answer stating every fact; a procedural text row's reference answer). Raises
    :class:`BadRow` (or ``ValueError``) for a row it cannot read."""
    if isinstance(row, Mapping) and isinstance(row.get("messages"), list):
        messages = row["messages"]
        start = 0
        while start < len(messages) and messages[start].get("role") in ("system", "user"):
            start += 1
        return list(messages[start:])
    truth = procgen_truth(row)
    if truth is not None and truth.get("form") != "tools":
        from covert.procgen.reward import reference_completion

        return reference_completion(truth)
    p = (scorer or default_scorer()).prepare(row)
    session = p.session()
    out: list[dict[str, Any]] = []
    context = p.rubric.context
    if p.behaviour == "clarify":
        words = str(context.get("param", "detail")).replace("_", " ")
        out.append({"role": "assistant", "content": f"Could you tell me the {words}?"})
        out.append({"role": "user", "content": render(context.get("value", ""))})
    n = 0
    for group in p.calls:
        pending = list(group)
        while pending:
            turn = {"role": "assistant", "content": "", "tool_calls": []}
            results, again = [], []
            for call in pending:
                call_id = f"call_{n}"
                n += 1
                arguments = call.get("arguments") or {}
                turn["tool_calls"].append({"id": call_id, "type": "function",
                                           "function": {"name": call["name"], "arguments": arguments}})
                output = session.call(call["name"], arguments)
                results.append({"role": "tool", "tool_call_id": call_id, "name": call["name"], "content": _content(output)})
                failure = session.failure_of(call["name"], arguments)
                if session.log[-1].injected and failure is not None and failure.transient:
                    again.append(call)
            out.append(turn)
            out.extend(results)
            pending = again
    if p.behaviour == "decline":
        final = "I'm sorry, but I can't help with that here."
    elif p.behaviour == "report_error":
        failure = next((f for f in p.failures if not f.transient), None)
        message = failure.observation["error"].get("message", "") if failure else ""
        final = f"I'm sorry, but that could not be done: {message}".strip()
        if p.facts:
            final += " Here is what I found before the error: " + "; ".join(p.facts) + "."
    elif p.facts:
        final = "Here is what I found: " + "; ".join(p.facts) + "."
    else:
        final = "Done."
    out.append({"role": "assistant", "content": final})
    return out
