"""The trusted side of a candidate environment inside the sandbox: JSON in, the candidate's answers out.

This module's source text is installed in every sandbox worker (as ``covert_procgen_harness``, next to
``covert.procgen.contract`` and ``covert.procgen.parse``); :mod:`covert.procgen.candidates` calls its
functions as ``pool.call(candidate_source, "run", payload, harness=HARNESS)``. Each takes the loaded
candidate module and a JSON payload and returns JSON, so the candidate's objects never leave the worker.
It imports only the contract (stdlib); it runs in-process too (tests).
"""

from __future__ import annotations

import math
from typing import Any

from covert.procgen.contract import Budget, BudgetExceeded, Instance, Knob, ProceduralEnv, Rung, Score

MAX_PROMPT_CHARS = 20_000
MAX_REFERENCE_CHARS = 20_000
_SCALARS = (str, int, float, bool)


def _env(module: Any) -> ProceduralEnv:
    env = getattr(module, "ENV", None)
    if not isinstance(env, ProceduralEnv):
        raise TypeError("the module must define ENV = <ProceduralEnv subclass instance>")
    return env


def describe(module: Any, payload: Any) -> dict[str, Any]:
    """The candidate's identity and knobs, with every interface problem found (L1)."""
    env = _env(module)
    problems: list[str] = []
    info: dict[str, Any] = {}
    for attr in ("name", "version", "description", "asymmetry", "license"):
        value = getattr(env, attr, None)
        if not isinstance(value, str) or not value:
            problems.append(f"{attr} must be a non-empty string")
            value = ""
        info[attr] = value
    if info["name"] and not (info["name"].isidentifier() and info["name"].islower()):
        problems.append("name must be a lower-case identifier")
    if info["asymmetry"] and info["asymmetry"] not in ("reason", "verify"):
        problems.append("asymmetry must be 'reason' or 'verify'")
    for method in ("sample", "reference", "score"):
        if getattr(type(env), method, None) is getattr(ProceduralEnv, method):
            problems.append(f"{method} is not implemented")
    knobs = getattr(env, "knobs", None)
    described: list[dict[str, Any]] = []
    if not isinstance(knobs, tuple) or not knobs:
        problems.append("knobs must be a non-empty tuple of Knob")
    else:
        for knob in knobs:
            if not isinstance(knob, Knob) or not isinstance(knob.levels, tuple) or not knob.levels:
                problems.append("every knob must be a Knob with a non-empty tuple of levels")
                continue
            if not all(isinstance(v, _SCALARS) for v in knob.levels) or len(set(knob.levels)) != len(knob.levels):
                problems.append(f"knob {knob.name!r}: levels must be distinct JSON scalars")
            described.append({"name": knob.name, "levels": list(knob.levels)})
    info["knobs"] = described
    info["problems"] = problems
    return info


def run(module: Any, payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Sample instances ``payload["indices"]`` of ``payload["seed"]`` under ``payload["config"]`` with their
    references: ``[{"prompt", "data", "reference"}]``."""
    env = _env(module)
    out = []
    for index in payload["indices"]:
        instance = env.sample(int(payload["seed"]), dict(payload["config"]), int(index))
        if not isinstance(instance, Instance) or not isinstance(instance.prompt, str) \
                or not isinstance(instance.data, dict):
            raise TypeError("sample must return Instance(prompt: str, data: dict)")
        if not instance.prompt.strip() or len(instance.prompt) > MAX_PROMPT_CHARS:
            raise ValueError(f"the prompt must be non-empty and at most {MAX_PROMPT_CHARS} characters")
        reference = env.reference(instance)
        if not isinstance(reference, str) or len(reference) > MAX_REFERENCE_CHARS:
            raise TypeError(f"reference must return a string of at most {MAX_REFERENCE_CHARS} characters")
        out.append({"prompt": instance.prompt, "data": instance.data, "reference": reference})
    return out


def score(module: Any, payload: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Score ``payload["responses"][i]`` (a list of texts) on ``payload["instances"][i]``; an exception or
    an invalid score is reported per response, never raised."""
    env = _env(module)
    results = []
    for item, responses in zip(payload["instances"], payload["responses"], strict=True):
        instance = Instance(item["prompt"], item["data"])
        row = []
        for response in responses:
            try:
                scored = env.score(instance, response)
            except Exception as exc:  # noqa: BLE001 - a scorer that raises is a finding, reported
                row.append({"raised": f"{type(exc).__name__}: {exc}"[:200]})
                continue
            value = getattr(scored, "value", None)
            if not isinstance(scored, Score) or not isinstance(value, (int, float)) or isinstance(value, bool) \
                    or not math.isfinite(value) or not 0 <= value <= 1:
                row.append({"invalid": f"score returned {type(scored).__name__} with value {value!r}"[:200]})
                continue
            row.append({"value": float(value), "reasons": [str(r)[:60] for r in tuple(scored.reasons)[:8]]})
        results.append(row)
    return results


def ladder(module: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The candidate's solver ladder on instances ``payload["indices"]`` of ``payload["seed"]`` under
    ``payload["config"]``: ``{"rungs": [name], "instances": [{"prompt", "data"}], "responses": [[text]]}``,
    one response per rung (``""`` where the rung gave up, ran out of budget or raised)."""
    env = _env(module)
    rungs = env.ladder()
    if not isinstance(rungs, tuple) or not all(isinstance(r, Rung) for r in rungs):
        raise TypeError("ladder() must return a tuple of Rung")
    names = [str(r.name)[:60] for r in rungs[:8]]
    instances, responses = [], []
    for index in payload["indices"]:
        instance = env.sample(int(payload["seed"]), dict(payload["config"]), int(index))
        if not isinstance(instance, Instance) or not isinstance(instance.data, dict):
            raise TypeError("sample must return Instance(prompt: str, data: dict)")
        view = env.solver_view(instance)
        row = []
        for rung in rungs[:8]:
            try:
                text = rung.solve(view, Budget(int(rung.budget)))
            except BudgetExceeded:
                text = None
            except Exception:  # noqa: BLE001 - a rung that fails has given up on this instance
                text = None
            row.append(text[:MAX_REFERENCE_CHARS] if isinstance(text, str) else "")
        instances.append({"prompt": instance.prompt, "data": instance.data})
        responses.append(row)
    return {"rungs": names, "instances": instances, "responses": responses}
