"""Scoring a completion against a procedural row: what ``covert.rewards.score`` does for procgen rows.

The row's ground truth holds the instance's identity and hidden data, so nothing is re-sampled; the
installed environment of that name and version scores the completion's final answer text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from covert.procgen.contract import Instance
from covert.procgen.registry import UnknownEnvironmentError, get_env
from covert.rewards.concision import BASE_CHARS, concision, most_repeated
from covert.rewards.result import Score

MAX_MESSAGES = 256


def completion_text(completion: Any) -> str:
    """The text of a completion's final assistant message (raw text is taken as it is)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        completion = [completion]
    if not isinstance(completion, (list, tuple)):
        return ""
    for message in reversed(list(completion[-MAX_MESSAGES:])):
        if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(part.get("text", "") for part in content[:MAX_MESSAGES]
                               if isinstance(part, Mapping) and isinstance(part.get("text"), str))
            return ""
    return ""


def score_procgen(truth: Mapping[str, Any], completion: Any) -> Score:
    """The reward of ``completion`` for the instance ``truth`` (a row's ``ground_truth["procgen"]``);
    never raises: a row it cannot use scores 0 with a ``row:`` reason."""
    name, version, data = truth.get("env"), truth.get("version"), truth.get("data")
    if not isinstance(name, str) or not isinstance(data, Mapping):
        return Score.zero("row:bad_row: the procgen ground truth needs env and data")
    try:
        env = get_env(name)
    except UnknownEnvironmentError:
        return Score.zero(f"row:unknown_environment: {name[:80]}")
    if version != env.version:
        return Score.zero(f"row:version_mismatch: {name} {str(version)[:20]} (row) vs {env.version} (installed)")
    try:
        if truth.get("form") == "tools" and callable(getattr(env, "score_tools", None)):
            # a tool-call form of the environment (MAPF-FrozenLake's): the calls are scored, not the text
            result = env.score_tools(Instance("", dict(data)), completion)  # type: ignore[attr-defined]
            factor, padded = 1.0, []
        else:
            text = completion_text(completion)
            result = env.score(Instance("", dict(data)), text)
            factor, padded = _concision(env, data, text) if result.value > 0 else (1.0, [])
    except Exception as exc:  # noqa: BLE001 - a completion must never crash a training run
        return Score.zero(f"internal_error: {type(exc).__name__}")
    value = min(1.0, max(0.0, float(result.value)))
    return Score(value * factor, {"procgen": value}, [f"procgen:{reason}" for reason in result.reasons] + padded)


def _concision(env: Any, data: Mapping[str, Any], text: str) -> tuple[float, list[str]]:
    """Padding and repetition cost the reward as they do a tool task's (:mod:`covert.rewards.concision`),
    the reference standing in for the answer facts (computed only for a text past the base budget or
    with a repeated sentence)."""
    if len(text) <= BASE_CHARS and most_repeated([text]) == 1:
        return 1.0, []
    reference = env.reference(Instance("", dict(data)))
    return concision([text], [(reference,)], repeats=most_repeated([reference]))


def reference_completion(truth: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The right completion of a procedural text row (its ``ground_truth["procgen"]``): one assistant
    message holding the environment's reference answer. Raises ``ValueError`` for a row it cannot use."""
    name, version, data = truth.get("env"), truth.get("version"), truth.get("data")
    if not isinstance(name, str) or not isinstance(data, Mapping):
        raise ValueError("the procgen ground truth needs env and data")
    env = get_env(name)
    if version != env.version:
        raise ValueError(f"the row is for {name} {version}, the installed environment is {env.version}")
    return [{"role": "assistant", "content": env.reference(Instance("", dict(data)))}]
