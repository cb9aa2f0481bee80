"""What the harness's answers must look like before admission reads them.

A candidate's code runs in the same process as the trusted harness (:mod:`covert.procgen.harness`) and
can patch it, or write its own result frame: what comes back from the sandbox is the candidate's word,
not the harness's. So admission reads nothing it has not checked here: the shape of each answer to the
request it answers (as many instances as asked, as many scores as responses), every type, every score
a finite number in [0, 1]. An answer that is not right is a rejection (``exec:malformed_reply``) with
what was wrong, never an exception in the batch. The verdict itself is computed from these checked
values in this process, out of the candidate's reach.
"""

from __future__ import annotations

import math
from typing import Any

_SCALARS = (str, int, float, bool)


def describe_problem(value: Any) -> str:
    """What is wrong with an answer to ``describe`` (empty when nothing)."""
    if not isinstance(value, dict):
        return "describe did not answer with an object"
    for attr in ("name", "version", "description", "asymmetry", "license"):
        if not isinstance(value.get(attr), str):
            return f"describe's {attr} is not text"
    problems = value.get("problems")
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        return "describe's problems are not a list of text"
    knobs = value.get("knobs")
    if not isinstance(knobs, list) or (not knobs and not problems):
        return "describe's knobs are not a non-empty list"
    for knob in knobs:
        if not isinstance(knob, dict) or not isinstance(knob.get("name"), str) \
                or not isinstance(knob.get("levels"), list) or not knob["levels"] \
                or not all(isinstance(v, _SCALARS) for v in knob["levels"]):
            return "a knob is not {name, levels: a non-empty list of scalars}"
    return ""


def run_problem(value: Any, payload: dict[str, Any]) -> str:
    """What is wrong with an answer to ``run`` on ``payload`` (empty when nothing)."""
    if not isinstance(value, list) or len(value) != len(payload["indices"]):
        return f"run did not answer with {len(payload['indices'])} instances"
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("prompt"), str) \
                or not isinstance(item.get("data"), dict) or not isinstance(item.get("reference"), str):
            return "an instance is not {prompt: text, data: object, reference: text}"
    return ""


def score_problem(value: Any, payload: dict[str, Any]) -> str:
    """What is wrong with an answer to ``score`` on ``payload`` (empty when nothing); an entry is
    ``{"value": number in [0, 1], "reasons": [text]}``, ``{"raised": text}`` or ``{"invalid": text}``."""
    shape = [len(responses) for responses in payload["responses"]]
    if not isinstance(value, list) or [len(row) if isinstance(row, list) else -1 for row in value] != shape:
        return f"score did not answer with {sum(shape)} scores in {len(shape)} rows"
    for row in value:
        for entry in row:
            if not isinstance(entry, dict):
                return "a score is not an object"
            if "raised" in entry or "invalid" in entry:
                if not isinstance(entry.get("raised", entry.get("invalid")), str):
                    return "a score's failure is not text"
                continue
            number = entry.get("value")
            if type(number) not in (int, float) or not math.isfinite(number) or not 0 <= number <= 1:
                return f"a score's value is not a number in [0, 1]: {str(number)[:40]}"
            reasons = entry.get("reasons")
            if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
                return "a score's reasons are not a list of text"
    return ""


def ladder_problem(value: Any, payload: dict[str, Any]) -> str:
    """What is wrong with an answer to ``ladder`` on ``payload`` (empty when nothing):
    ``{"rungs": [text], "instances": [{prompt, data}], "responses": [[text] per rung] per instance}``."""
    if not isinstance(value, dict):
        return "ladder did not answer with an object"
    rungs, instances, responses = value.get("rungs"), value.get("instances"), value.get("responses")
    if not isinstance(rungs, list) or not all(isinstance(r, str) for r in rungs):
        return "ladder's rungs are not a list of text"  # none at all: admission says no_ladder
    wanted = len(payload["indices"])
    if not isinstance(instances, list) or len(instances) != wanted:
        return f"ladder did not answer with {wanted} instances"
    for item in instances:
        if not isinstance(item, dict) or not isinstance(item.get("prompt"), str) or not isinstance(item.get("data"), dict):
            return "a ladder instance is not {prompt: text, data: object}"
    if not isinstance(responses, list) or len(responses) != wanted or not all(
            isinstance(row, list) and len(row) == len(rungs) and all(isinstance(t, str) for t in row)
            for row in responses):
        return f"ladder did not answer with {len(rungs)} responses of text per instance"
    return ""


def reply_problem(entry: str, payload: Any, value: Any) -> str:
    """What is wrong with the harness's answer ``value`` to ``entry(payload)`` (empty when nothing)."""
    if entry == "describe":
        return describe_problem(value)
    if entry == "run":
        return run_problem(value, payload)
    if entry == "score":
        return score_problem(value, payload)
    if entry == "ladder":
        return ladder_problem(value, payload)
    return f"no check for the harness entry {entry!r}"
