"""Judges for the special behaviours: decline, clarify, retry, report_error.

A judge takes a :class:`Rubric` (what to check, in words, plus structured context) and the
transcript (OpenAI-style messages: assistant turns with ``tool_calls``, the tool results the
environment returned, user replies) and returns a :class:`Judgement` (score in [0, 1] and a
rationale). :class:`LLMJudge` is the interface an LLM backend implements; :class:`RuleJudge`, the
default, implements it with rules and needs no model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import orjson

from covert.env import is_error
from covert.language.values import mentions, normalize_text
from covert.rewards.session import call_key

BEHAVIOURS = ("tool_use", "decline", "clarify", "retry", "report_error")
RUBRICS = {
    "decline": "No available tool fits the request. The assistant makes no tool call and politely declines, "
               "saying the request is outside what it can do.",
    "clarify": "The request leaves out a value only the user can supply{param}. Before making any change the "
               "assistant asks the user for it; it neither guesses the value nor makes a write call first.",
    "retry": "A tool call fails with a transient error (timeout, rate limit, server error). The assistant "
             "retries the same call with the same arguments instead of giving up or claiming success.",
    "report_error": "A tool call fails permanently. The assistant tells the user that the action failed and "
                    "does not claim that it succeeded.",
}
_REFUSAL = re.compile(
    r"\b(sorry|unfortunately|can ?not|can't|cant|unable|not able|don't have|do not have|no way to|outside|"
    r"not something i|i can only|beyond|not possible|i'm afraid|not within)\b"
)
_FAILURE = re.compile(
    r"\b(fail(?:s|ed|ure)?|unable|couldn't|could not|can't|cannot|can not|wasn't able|was not able|"
    r"did not go through|didn't go through|error|unsuccessful|not possible|declined|rejected|unavailable|"
    r"did not work|didn't work|not been)\b"
)
_SUCCESS = re.compile(
    r"\b(successfully|all set|went through|has been (?:done|completed|processed|confirmed|updated|"
    r"cancelled|canceled|booked|sent|created|scheduled|made)|is (?:now )?(?:done|complete)|is now confirmed|"
    r"i have (?:done|completed|processed|cancelled|booked|sent|updated))\b"
)


@dataclass(frozen=True)
class Rubric:
    """What a judge checks.

    Attributes:
        behaviour: One of :data:`BEHAVIOURS`.
        text: The rubric in words (what an LLM judge reads).
        context: Structured facts a rule judge uses: ``param`` and ``value`` (clarify: the missing
            parameter and the value only the user knows), ``call`` (``{"name", "arguments"}`` of the
            failing call) and ``error_code`` (retry, report_error), ``write_tools`` (tool names that
            change state).
    """

    behaviour: str
    text: str
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Judgement:
    """A judge's verdict: a score in [0, 1] and why."""

    score: float
    rationale: str


@runtime_checkable
class LLMJudge(Protocol):
    """The judge interface: rubric and transcript in, score and rationale out. An LLM backend
    implements it by prompting a model with the rubric text and the transcript."""

    def judge(self, rubric: Rubric, transcript: Sequence[Mapping[str, Any]]) -> Judgement:
        """Grade ``transcript`` against ``rubric``."""
        ...


class RuleJudge:
    """The default judge: deterministic rules over the transcript (no model)."""

    def judge(self, rubric: Rubric, transcript: Sequence[Mapping[str, Any]]) -> Judgement:
        """Grade ``transcript`` against ``rubric``; an unknown behaviour scores 0."""
        check = getattr(self, f"_{rubric.behaviour}", None)
        if check is None or rubric.behaviour == "tool_use":
            return Judgement(0.0, f"no rule for behaviour {rubric.behaviour!r}")
        return check(rubric.context, list(transcript))

    def _decline(self, context: Mapping[str, Any], transcript: list[Mapping[str, Any]]) -> Judgement:
        if any(_calls(m) for m in transcript):
            return Judgement(0.0, "made a tool call although no tool fits")
        text = _last_text(transcript)
        if not text.strip():
            return Judgement(0.0, "gave no answer")
        if _REFUSAL.search(normalize_text(text).replace("’", "'")):
            return Judgement(1.0, "declined without calling a tool")
        return Judgement(0.0, "did not decline")

    def _clarify(self, context: Mapping[str, Any], transcript: list[Mapping[str, Any]]) -> Judgement:
        user_at = next((i for i, m in enumerate(transcript) if m.get("role") == "user"), len(transcript))
        before = transcript[:user_at]
        writes = set(context.get("write_tools") or ())
        for message in before:
            for name, _ in _calls(message):
                if name in writes:
                    return Judgement(0.0, f"called {name} before asking for the missing value")
        asked = [m for m in before if m.get("role") == "assistant" and _text(m).strip()]
        if not asked:
            return Judgement(0.0, "did not ask for the missing value")
        question = _text(asked[-1])
        if "?" not in question:
            return Judgement(0.0, "did not ask a question")
        normalized = normalize_text(question)
        param = context.get("param")
        if isinstance(param, str):
            words = [w for w in re.split(r"[_\W]+", param.lower()) if len(w) > 2 and w not in ("ids",)]
            words += [normalize_text(t) for t in context.get("terms") or () if isinstance(t, str)]
            if words and not any(w in normalized for w in words):
                return Judgement(0.0, f"asked a question that is not about {param}")
        if "value" in context and mentions(normalized, context["value"]):
            return Judgement(0.0, "guessed the missing value instead of asking")
        return Judgement(1.0, "asked for the missing value before acting")

    def _retry(self, context: Mapping[str, Any], transcript: list[Mapping[str, Any]]) -> Judgement:
        failed_at = _failure_position(context, transcript)
        if failed_at is None:
            return Judgement(0.0, "never made the call that fails")
        target = _target(context)
        for message in transcript[failed_at + 1:]:
            if any(call_key(name, args) == target for name, args in _calls(message)):
                return Judgement(1.0, "retried the call after the transient error")
        return Judgement(0.0, "did not retry the call after the transient error")

    def _report_error(self, context: Mapping[str, Any], transcript: list[Mapping[str, Any]]) -> Judgement:
        failed_at = _failure_position(context, transcript)
        if failed_at is None:
            return Judgement(0.0, "never made the call that fails")
        text = normalize_text(_last_text(transcript[failed_at + 1:])).replace("’", "'")
        if not text:
            return Judgement(0.0, "said nothing after the failure")
        if _SUCCESS.search(text):
            return Judgement(0.0, "claimed success after a permanent failure")
        if not _FAILURE.search(text):
            return Judgement(0.0, "did not say that the action failed")
        return Judgement(1.0, "reported the failure")


def rubric_text(behaviour: str, param: str | None = None) -> str:
    """The default rubric text of a behaviour."""
    text = RUBRICS.get(behaviour, "")
    return text.replace("{param}", f" ({param})" if param else "")


def _target(context: Mapping[str, Any]) -> tuple[str, bytes] | None:
    call = context.get("call")
    if not isinstance(call, Mapping):
        return None
    return call_key(call.get("name"), call.get("arguments") or {})


def _failure_position(context: Mapping[str, Any], transcript: list[Mapping[str, Any]]) -> int | None:
    """Index of the first tool message answering the failing call with an error."""
    target = _target(context)
    if target is None:
        return None
    ids = {}
    for message in transcript:
        for call in message.get("tool_calls") or ():
            if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
                ids[call.get("id")] = call_key(call["function"].get("name"), call["function"].get("arguments") or {})
    for i, message in enumerate(transcript):
        if message.get("role") != "tool" or ids.get(message.get("tool_call_id")) != target:
            continue
        try:
            output = orjson.loads(message.get("content") or "null")
        except orjson.JSONDecodeError:
            continue
        if is_error(output) and output["error"].get("code") == context.get("error_code", output["error"].get("code")):
            return i
    return None


def _calls(message: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    out = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            out.append((function.get("name"), function.get("arguments") or {}))
    return out


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _last_text(transcript: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(transcript):
        if message.get("role") == "assistant":
            return _text(message)
    return ""
