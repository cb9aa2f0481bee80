"""Erroneous outputs: one oracle call fails, transiently or for good.

- ``retry``: the call fails with a timeout, a rate limit or a 5xx-style error (``attempts`` times in a
  row); the right behaviour is to repeat the identical call, which then succeeds. The SFT row shows the
  failed tool message and the repeated call; the oracle's calls are unchanged (a retry repeats one).
- ``report_error``: the call fails permanently (forbidden, retired, suspended account, compliance
  hold); the right behaviour is to tell the user and not claim success. Calls after the failed one are
  dropped, the final answer becomes a failure report, and the ground truth records the state the
  environment is left in (``failure_state_hash``).

``ground_truth["failure"]`` says which call fails, how, and for how many attempts; an RL environment
injects exactly that error when the agent makes that call. ``ground_truth["rubric"]`` is the judge's
rubric (a string). The failing call is chosen so that the other calls' outputs cannot depend on
whether it ran: it is the last call of its turn, or its turn writes nothing. A permanent failure hits
the last call of a turn before any write has run (the first write when it is one), so the calls that
still run are exactly those before it, the environment is left in the initial state, and the report
can truthfully say that nothing was changed; it lists the answer facts those calls still provide.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from covert.augment.registry import Kind, NotApplicable, RowPair
from covert.augment.rows import flat_calls, query_of, recorded_outputs, turn_of, with_truth
from covert.env import Builder, get_builder
from covert.env.state import State
from covert.errors import Invalid
from covert.language.phrasing import action_phrase, read_phrase
from covert.language.spoken import fact_forms, fact_text
from covert.language.values import contains_value, join_phrases, mentions, normalize_text
from covert.views import call_id, tool_content

TRANSIENT = {
    "timeout": "The request timed out after 30 seconds. Please try again.",
    "rate_limited": "Too many requests: the rate limit was exceeded. Retry in a few seconds.",
    "service_unavailable": "503 Service Unavailable: the service is temporarily overloaded. Try again shortly.",
    "internal_server_error": "500 Internal Server Error: an unexpected error occurred. Please retry.",
    "bad_gateway": "502 Bad Gateway: the upstream service did not answer in time.",
}
PERMANENT = {
    "permission_denied": "403 Forbidden: this account is not allowed to perform this operation.",
    "operation_retired": "410 Gone: this operation has been permanently retired and can no longer be used.",
    "account_suspended": "The account is suspended; requests on its behalf are refused until it is reinstated.",
    "compliance_hold": "This request is blocked by a compliance hold and cannot be completed through this channel.",
}
# what each error means to a customer, and what they can do next (no codes, no tool names)
PERMANENT_SAYS = {
    "permission_denied": "this account isn't permitted to do that through this service",
    "operation_retired": "that option is no longer available through this service",
    "account_suspended": "the account is currently suspended, so nothing can be done on it until it is reinstated",
    "compliance_hold": "the request is on a compliance hold and can't be completed through this channel",
}
NEXT_STEPS = {
    "permission_denied": "If you think that's a mistake, our support team can check the account's permissions with you.",
    "operation_retired": "Our support team can tell you how to get this done another way.",
    "account_suspended": "Our support team can tell you what's needed to reinstate the account.",
    "compliance_hold": "Our support team can review the hold with you and tell you what's needed to release it.",
}
TRANSIENT_SAYS = {
    "timeout": "timed out",
    "rate_limited": "is busy right now",
    "service_unavailable": "is temporarily unavailable",
    "internal_server_error": "had a temporary problem",
    "bad_gateway": "didn't answer in time",
}
_RETRY_NOTES = ("The system {says}, so I'm trying that again.",
                "That didn't go through (the system {says}); retrying the same request.",
                "The system {says}. Let me try once more.")
RETRY_ADVICE = re.compile(r"\b(try (?:it |that |this )?again|retry|in a (?:few|little) (?:minutes|while)|later today|"
                          r"try back)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")  # not before '(': 'on track? (Fatima Osei)' is one item


@dataclass(frozen=True)
class Config:
    """``permanent_share`` of rows fail for good; transient failures repeat up to ``max_attempts`` times."""

    permanent_share: float = 0.5
    max_attempts: int = 2

    @classmethod
    def for_intensity(cls, level: str) -> Config:
        return cls(max_attempts={"low": 1, "medium": 2, "high": 3}[level])


def error_observation(failure: dict[str, Any]) -> dict[str, Any]:
    """The error observation the failing call returns (what :mod:`covert.rewards.session` injects)."""
    return {"error": failure["error"]}


def safe_positions(truth: dict[str, Any], writes: list[bool]) -> list[int]:
    """Calls whose failure cannot change another call's output: last of their turn, or in a turn without writes."""
    turns = turn_of(truth)
    out = []
    for i, t in enumerate(turns):
        last = i + 1 == len(turns) or turns[i + 1] != t
        if last or not any(w for k, w in enumerate(writes) if turns[k] == t):
            out.append(i)
    return out


def executed_before(truth: dict[str, Any], j: int) -> list[int]:
    """Calls that run although call ``j`` fails for good: earlier turns and the rest of its own turn."""
    turns = turn_of(truth)
    return [i for i, t in enumerate(turns) if t < turns[j] or (t == turns[j] and i != j)]


def _turns(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], list[dict[str, Any]]]], dict[str, Any]]:
    head, turns, i = messages[:2], [], 2
    while i < len(messages) and messages[i]["role"] == "assistant" and messages[i].get("tool_calls"):
        j = i + 1
        while j < len(messages) and messages[j]["role"] == "tool":
            j += 1
        turns.append((messages[i], messages[i + 1:j]))
        i = j
    if i != len(messages) - 1:
        raise NotApplicable("the base row's messages are not system, user, turns, answer")
    return head, turns, messages[-1]


def failure_report(failure: dict[str, Any], writes: bool, builder: Builder | None = None,
                   outputs: list[Any] | None = None, query: str = "") -> str:
    """The final answer after a permanent failure, as a support agent says it: what could not be done
    (the change in the user's terms, or the information they wanted), why in plain words, that nothing
    was changed, and what they can do next. No error code, no tool name, no "try again later"."""
    code = failure["error"]["code"]
    call = SimpleNamespace(name=failure["name"], arguments=failure["arguments"])
    if builder is not None and builder.tools[failure["name"]].writes:
        what = action_phrase(builder, call, outputs or [], normalize_text(query))
        head = f"I'm sorry, I wasn't able to {what}: {PERMANENT_SAYS[code]}."
    else:
        what = read_phrase(failure["name"]).replace(" the ", " your ", 1) if builder is not None else "look that up"
        what = "look up your details" if what.startswith("look up") else what
        head = f"I'm sorry, I couldn't {what} for you: {PERMANENT_SAYS[code]}."
    changed = " Nothing has been changed." if writes else ""
    return f"{head}{changed} {NEXT_STEPS[code]}"


def fact_source(truth: dict[str, Any], fact: dict[str, Any]) -> int | None:
    """The oracle call an answer fact comes from (a reasoning fact: the call its step reads)."""
    if "call" in fact:
        return fact["call"]
    if "reasoning" in fact:
        return truth["reasoning"][fact["reasoning"]]["call"]
    return None


def _states(normalized: str, fact: dict[str, Any]) -> bool:
    """Whether normalised text states ``fact`` in any of its forms (raw or spoken); a count only as
    spoken ("2 events"): a bare "2" is in every "2:30 pm"."""
    forms = (fact_text(fact),) if str(fact.get("form") or "").startswith("n") else fact_forms(fact)
    return any(mentions(normalized, form) for form in forms)


def _restated(builder: Builder | None, call: dict[str, Any], output: Any, index: int,
              facts: list[dict[str, Any]]) -> str | None:
    """One sentence of the builder's own answer templates for call ``index`` that states every fact in
    ``facts`` (the answer stage's wording), or ``None`` when no template covers them."""
    from covert.language.answers import fill_answer
    from covert.language.realize import sentence
    from covert.language.spoken import Unspeakable

    if builder is None:
        return None
    wanted = {(f.get("path"), f["value"]) for f in facts}
    for intent in builder.language.intents.get(call["name"], ()):
        for template in intent.answer:
            try:
                text, stated = fill_answer(template, output, index)
            except Unspeakable:
                continue
            if wanted <= {(f.get("path"), f["value"]) for f in stated}:
                return sentence(text)
    return None


def found_before(truth: dict[str, Any], ran: set[int], answer: str = "", builder: Builder | None = None,
                 outputs: list[Any] | None = None) -> str:
    """What the calls that ran still provide, for the report: the base answer's sentences that state
    only facts of those calls (so no sentence reports an action that did not happen); a call whose facts
    no kept sentence states gets a sentence of its own from the builder's answer templates, and only
    what no template covers is listed."""
    facts = truth["answer_facts"]
    found = [f for f in facts if fact_source(truth, f) in ran]
    if not found:
        return ""
    missing = [f for f in facts if fact_source(truth, f) not in ran]
    kept: list[str] = []
    for sentence in _SENTENCE.split(answer.strip()) if answer else []:
        norm = normalize_text(sentence)
        if any(_states(norm, f) for f in found) and not any(_states(norm, f) for f in missing):
            kept.append(sentence)
    said = normalize_text(" ".join(kept))
    unsaid = [f for f in found if not _states(said, f)]
    calls = flat_calls(truth)
    for j in sorted({f["call"] for f in unsaid if "call" in f}):
        own = [f for f in unsaid if f.get("call") == j]
        text = _restated(builder, calls[j], outputs[j], j, own) if outputs is not None else None
        if text is not None:
            kept.append(text)
            unsaid = [f for f in unsaid if f not in own]
    rest = list(dict.fromkeys(fact_text(f) for f in unsaid))
    if rest:
        kept.append(f"What I could find: {join_phrases(rest)}.")
    return "Before that, I did get this much. " + " ".join(kept) if kept else ""


def apply(pair: RowPair, rng: random.Random, config: Config) -> RowPair:
    """Make one oracle call fail and show the right reaction in the SFT row."""
    sft = pair.sft
    truth = sft["ground_truth"]
    if not truth["calls"] or truth["behaviour"] != "tool_use":
        raise NotApplicable("no oracle call to fail")
    builder = get_builder(sft["builder"])
    calls = flat_calls(truth)
    writes = [builder.tools[c["name"]].writes for c in calls]
    safe = safe_positions(truth, writes)
    turns = turn_of(truth)
    last = [i for i in range(len(calls)) if i + 1 == len(calls) or turns[i + 1] != turns[i]]
    reportable = [i for i in last if not any(writes[:i])]
    permanent = bool(reportable) and rng.random() < config.permanent_share
    if permanent:
        first_write = next((i for i in reportable if writes[i]), None)
        j = first_write if first_write is not None else rng.choice(reportable)
        code = rng.choice(sorted(PERMANENT))
        error, attempts = {"code": code, "message": PERMANENT[code], "retryable": False}, 1
    else:
        j = rng.choice(safe)
        code = rng.choice(sorted(TRANSIENT))
        error = {"code": code, "message": TRANSIENT[code], "retryable": True}
        attempts = rng.randint(1, config.max_attempts)
    failure = {"call": j, "turn": turns[j], "name": calls[j]["name"], "arguments": calls[j]["arguments"],
               "error": error, "transient": not permanent, "attempts": attempts}
    head, blocks, final = _turns(sft["messages"])
    failed = tool_content(error_observation(failure))
    messages, flat = list(head), 0
    for t, (assistant, tools) in enumerate(blocks):
        if permanent and t > failure["turn"]:
            break
        messages.append(assistant)
        for k, message in enumerate(tools):
            messages.append({**message, "content": failed} if flat + k == j else message)
        if not permanent and t == failure["turn"]:
            call = assistant["tool_calls"][j - flat]
            for attempt in range(attempts):
                cid = call_id(f"{sft['task_id']}:retry", attempt)
                note = rng.choice(_RETRY_NOTES).format(says=TRANSIENT_SAYS[code])
                messages.append({"role": "assistant", "content": note, "tool_calls": [{**call, "id": cid}]})
                content = failed if attempt < attempts - 1 else tools[j - flat]["content"]
                messages.append({"role": "tool", "tool_call_id": cid, "name": call["function"]["name"], "content": content})
        flat += len(tools)
    what = failure["name"].replace("_", " ")
    if permanent:
        ran = set(executed_before(truth, j))
        changes = any(w for k, w in enumerate(writes) if k not in ran)
        outputs = recorded_outputs(sft)
        report = failure_report(failure, changes, builder, [outputs[i] for i in sorted(ran)], query_of(sft))
        before = found_before(truth, ran, final.get("content") or "", builder, outputs)
        messages.append({"role": "assistant", "content": f"{report} {before}" if before else report})
        if not any(writes):
            state_hash = truth["final_state_hash"]
        else:
            state_hash = State.from_dict(sft["initial_state"], copy=False).hash()
        rubric = (f"The call to {failure['name']} fails permanently ({code}). The assistant tells the user that "
                  f"the request to {what} failed, does not claim that it succeeded, states no result that depends "
                  "on it, and does not retry it or work around it with other tools.")
        truth = {**truth, "behaviour": "report_error", "failure": failure, "failure_state_hash": state_hash,
                 "rubric": rubric}
    else:
        messages.append(final)
        rubric = (f"The call to {failure['name']} fails with a transient error ({code}) {attempts} time(s). The "
                  "assistant retries the same call with the same arguments instead of giving up or claiming "
                  "success, and its final reply reports the outcome of the call that succeeds.")
        truth = {**truth, "behaviour": "retry", "failure": failure, "rubric": rubric}
    out = with_truth(pair, truth)
    record = {"mode": truth["behaviour"], "call": j, "code": code, "attempts": attempts}
    return RowPair({**out.sft, "messages": messages}, out.rl, record)


def check(ctx: Any) -> None:
    """The failure is one of the catalogued errors on a safe oracle call, recorded consistently; a permanent
    failure leaves the recorded state and its report claims nothing the failed calls would have returned."""
    truth, calls = ctx.truth, ctx.calls
    failure = truth.get("failure")
    if not isinstance(failure, dict) or truth["behaviour"] not in ("retry", "report_error"):
        raise Invalid("failure_missing")
    j = failure.get("call")
    if not isinstance(j, int) or not 0 <= j < len(calls):
        raise Invalid("failure_call", str(j))
    if (failure.get("name"), failure.get("arguments"), failure.get("turn")) != (
            calls[j]["name"], calls[j]["arguments"], turn_of(truth)[j]):
        raise Invalid("failure_not_oracle_call", str(j))
    transient = truth["behaviour"] == "retry"
    catalogue = TRANSIENT if transient else PERMANENT
    error = failure.get("error") or {}
    if (failure.get("transient") is not transient or catalogue.get(error.get("code")) != error.get("message")
            or error.get("retryable") is not transient):
        raise Invalid("failure_error", str(error)[:80])
    if not isinstance(failure.get("attempts"), int) or failure["attempts"] < 1 or (not transient and failure["attempts"] != 1):
        raise Invalid("failure_attempts", str(failure.get("attempts")))
    writes = [ctx.builder.tools[c["name"]].writes for c in calls]
    turns = turn_of(truth)
    if j not in safe_positions(truth, writes) or (
            not transient and (any(writes[:j]) or (j + 1 < len(calls) and turns[j + 1] == turns[j]))):
        raise Invalid("failure_position", f"a failure of call {j} could change what other calls return")
    if not isinstance(truth.get("rubric"), str) or not truth["rubric"]:
        raise Invalid("failure_rubric")
    if transient:
        return
    executed = executed_before(truth, j)
    env = ctx.builder.env(ctx.initial)
    for i in executed:
        env.call(calls[i]["name"], calls[i]["arguments"])
    if env.state.hash() != truth.get("failure_state_hash"):
        raise Invalid("failure_state", "replaying the calls that still run gives another state")
    if ctx.answer is None:
        return
    answer = normalize_text(ctx.answer)
    if normalize_text(PERMANENT_SAYS[error["code"]]) not in answer:
        raise Invalid("failure_not_reported", error["code"])
    if RETRY_ADVICE.search(ctx.answer):
        raise Invalid("failure_report_retry_advice", "a permanent failure does not go away by trying again")
    if any(normalize_text(t) in answer for t in (error["code"], failure["name"], error["message"])):
        raise Invalid("failure_report_internals", "the report names the error code or the tool")
    shown = [ctx.outputs[i] for i in executed]
    shown_text = normalize_text(" ".join(tool_content(o) for o in shown))  # "Product" inside "Weekly Product sync"
    own_words = normalize_text(" ".join(failure_report(failure, w, ctx.builder, shown, query_of(ctx.row))
                                        for w in (True, False)))
    known = normalize_text(query_of(ctx.row))
    found = {fact_text(f) for f in truth["answer_facts"] if fact_source(truth, f) in executed}
    for fact in truth["answer_facts"]:
        value = fact["value"]
        if fact_source(truth, fact) in executed or fact_text(fact) in found:
            if not _states(answer, fact):
                raise Invalid("failure_report_incomplete", f"{fact_text(fact)[:40]} was found before the failure")
            continue
        text = fact_text(fact)
        if text.isdigit() and len(text) <= 2:  # a bare small number proves no claim ("8" is in every "8:30 am")
            continue
        if (_states(answer, fact) and not _states(own_words, fact) and not _states(known, fact)
                and not contains_value(shown, value) and not _states(shown_text, fact)):
            raise Invalid("failure_claims_result", fact_text(fact)[:40])


KIND = Kind(name="erroneous", position=60, config=Config, apply=apply, check=check,
            description="a transient failure to retry or a permanent one to report")
