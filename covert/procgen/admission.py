"""Admission of a procedural environment, stage by stage, each with a reason when it fails.

- ``L1`` interface: an instance of :class:`~covert.procgen.contract.ProceduralEnv` with a snake_case
  name, a version, knobs with distinct JSON-scalar levels, a known asymmetry; ``sample`` returns an
  :class:`Instance` whose data survives JSON, ``reference`` text, ``score`` a :class:`Score` in [0, 1].
- ``L2`` determinism: two fresh interpreters (different hash seeds) derive the same prompts, data and
  references as this process for a fixed grid of (seed, level, index).
- ``L3`` reference self-consistency: the reference scores 1 (also with the prompt blanked: scoring reads
  only the data); perturbed references and trivial answers score below 1; garbage and megabytes of text
  score below 1 without raising, within a time limit.
- ``L5`` solver-relative difficulty: the environment's own solver ladder
  (:meth:`~covert.procgen.contract.ProceduralEnv.ladder`, measured by :mod:`covert.procgen.ladder`) solves
  a share of fresh instances that lies inside a band, at the easiest level where it is not above the band
  (an environment without a ladder is not admitted). A solver passed in instead (a scripted one in tests)
  is judged by its pass rate over ``k`` samples on ``m`` instances.

Each stage returns ``(stage, ok, reason)``; :func:`admit` stops at the first stage that fails. The
sandbox and the stages for LLM-written candidates (L1 AST pre-filter, L4 self-review, novelty) live
with the candidate pipeline; these functions take an environment object and run it in this process
(L2 in child processes).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score
from covert.procgen.ladder import measure
from covert.procgen.registry import ASYMMETRIES

Stage = tuple[str, bool, str]
Solver = Callable[[ProceduralEnv, Instance, random.Random], str]

GRID = ((0, 0), (0, 1), (1, 2), (2, 3), (9, 4))  # (level, index) pairs every stage samples
_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
_INT = re.compile(r"-?\d+")
TRIVIAL = ("", "Answer:", "Answer: 0", "Answer: 1", "Answer: []", "Answer: [1]", "Answer: [0, 1]", "I don't know.",
           "Answer: true", "\\boxed{0}")
GARBAGE = ("\x00\xff" * 1000, "9" * 5_000_000, "Answer: " + "1, " * 1_000_000, "\\boxed{" * 200_000,
           "<think>" + "x" * 2_000_000)


def _digest(env: ProceduralEnv, seed: int) -> list[str]:
    out = []
    for level, index in GRID:
        instance = env.sample(seed, env.config_at(level), index)
        text = json.dumps([instance.prompt, instance.data, env.reference(instance)], sort_keys=True)
        out.append(hashlib.sha256(text.encode()).hexdigest())
    return out


def check_interface(env: Any) -> Stage:
    """L1: the object and its three functions have the contract's shape."""
    if not isinstance(env, ProceduralEnv):
        return ("L1", False, f"not a ProceduralEnv instance but {type(env).__name__}")
    for attr in ("name", "version", "description", "knobs", "asymmetry"):
        if not hasattr(env, attr):
            return ("L1", False, f"missing attribute {attr}")
    if not isinstance(env.name, str) or not _NAME.fullmatch(env.name):
        return ("L1", False, "name must be snake_case (a-z, 0-9, _)")
    if not isinstance(env.version, str) or not env.version:
        return ("L1", False, "version must be a non-empty string")
    if env.asymmetry not in ASYMMETRIES:
        return ("L1", False, f"asymmetry must be one of {', '.join(ASYMMETRIES)}")
    if not isinstance(env.knobs, tuple) or not env.knobs or not all(isinstance(k, Knob) for k in env.knobs):
        return ("L1", False, "knobs must be a non-empty tuple of Knob")
    for knob in env.knobs:
        scalars = all(isinstance(v, (str, int, bool)) for v in knob.levels)
        if not knob.levels or not scalars or len(set(knob.levels)) != len(knob.levels):
            return ("L1", False, f"knob {knob.name}: levels must be distinct strings or integers")
    for method in ("sample", "reference", "score"):
        if getattr(type(env), method) is getattr(ProceduralEnv, method):
            return ("L1", False, f"{method} is not implemented")
    try:
        instance = env.sample(0, env.default_config(), 0)
        if not isinstance(instance, Instance) or not isinstance(instance.prompt, str) or not instance.prompt:
            return ("L1", False, "sample must return an Instance with a prompt")
        if not isinstance(instance.data, dict) or json.loads(json.dumps(instance.data)) != instance.data:
            return ("L1", False, "instance data must be a JSON object that survives a round trip")
        reference = env.reference(instance)
        if not isinstance(reference, str):
            return ("L1", False, "reference must return text")
        scored = env.score(instance, reference)
    except Exception as exc:  # noqa: BLE001 - a candidate's failure is a reason, not a crash
        return ("L1", False, f"raised {type(exc).__name__}: {str(exc)[:120]}")
    if not isinstance(scored, Score) or not 0.0 <= scored.value <= 1.0:
        return ("L1", False, "score must return a Score with a value in [0, 1]")
    return ("L1", True, "")


def _source_of(env: ProceduralEnv) -> tuple[str, str]:
    module = sys.modules.get(type(env).__module__)
    path = getattr(module, "__file__", None)
    if not path:
        raise ValueError("the environment's module has no file")
    for attr, value in vars(module).items():
        if value is env:
            return path, attr
    raise ValueError("the environment is not a module attribute")


_CHILD = """
import importlib.util, json, sys
from covert.procgen.admission import _digest
spec = importlib.util.spec_from_file_location("covert_candidate_env", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
print(json.dumps(_digest(getattr(module, sys.argv[2]), int(sys.argv[3]))))
"""


def check_determinism(env: ProceduralEnv, seed: int = 1234, timeout_s: float = 60.0) -> Stage:
    """L2: the same instances and references in two fresh interpreters as in this process."""
    try:
        path, attr = _source_of(env)
        here = _digest(env, seed)
    except Exception as exc:  # noqa: BLE001
        return ("L2", False, f"cannot run: {type(exc).__name__}: {str(exc)[:120]}")
    import covert

    root = str(Path(covert.__file__).resolve().parents[1])
    runs = []
    for hash_seed in ("1", "2"):
        environ = {**os.environ, "PYTHONPATH": root, "PYTHONHASHSEED": hash_seed}
        try:
            result = subprocess.run([sys.executable, "-c", _CHILD, path, attr, str(seed)], capture_output=True,
                                    text=True, timeout=timeout_s, env=environ, check=False)
        except subprocess.TimeoutExpired:
            return ("L2", False, f"a run took longer than {timeout_s:.0f} s")
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            return ("L2", False, f"a run failed: {last[:160]}")
        try:
            runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            return ("L2", False, "a run printed no result")
    if runs[0] != runs[1]:
        return ("L2", False, "two processes derived different instances")
    if runs[0] != here:
        return ("L2", False, "another process derived different instances than this one")
    if len(set(here)) < 2:
        return ("L2", False, "every sampled instance is the same")
    return ("L2", True, "")


def perturbations(reference: str) -> list[str]:
    """Wrong variants of a reference: its answer (the text after the last ``Answer:``, else from the last
    ``<answer>`` on) with one number changed, one dropped, or one added (an answer without numbers: its last
    letter dropped or doubled); the reasoning before it stays."""
    head, marker, answer = reference.rpartition("Answer:")
    if not marker:
        cut = reference.rfind("<answer>")
        head, answer = (reference[:cut], reference[cut:]) if cut >= 0 else ("", reference)
    numbers = list(_INT.finditer(answer))
    out = []
    if numbers:
        last, first = numbers[-1], numbers[0]
        out.append(answer[:last.start()] + str(int(last.group()) + 1) + answer[last.end():])
        out.append(answer[:first.start()] + str(int(first.group()) - 1) + answer[first.end():])
        out.append(answer[:last.start()] + str(int(last.group()) + 7) + answer[last.end():])
        if len(numbers) > 1:
            cut = numbers[-2].end()
            out.append(answer[:cut] + answer[last.end():])
    flipped = answer.replace("true", "TMP").replace("false", "true").replace("TMP", "false")
    if flipped != answer:
        out.append(flipped)
    letters = list(re.finditer(r"[A-Za-z]", answer))
    if not numbers and flipped == answer and letters:  # a word answer (moves such as RRDD): one letter fewer, one more
        last = letters[-1]
        out.append(answer[:last.start()] + answer[last.end():])
        out.append(answer[:last.end()] + last.group() + answer[last.end():])
    return [head + marker + " " + variant.strip() if marker else head + variant for variant in out]


def check_self_consistency(env: ProceduralEnv, seeds: int = 8, max_garbage_s: float = 10.0,
                           min_refused: float = 0.8) -> Stage:
    """L3: references score 1, perturbed references and trivial answers below 1, garbage below 1 quickly."""
    refused = tried = 0
    try:
        for seed in range(seeds):
            for level, index in GRID:
                instance = env.sample(seed, env.config_at(level), index)
                reference = env.reference(instance)
                scored = env.score(instance, reference)
                if scored.value != 1.0:
                    return ("L3", False, f"the reference scores {scored.value} ({', '.join(scored.reasons)}) "
                                         f"at level {level}")
                if env.score(Instance("", json.loads(json.dumps(instance.data))), reference).value != 1.0:
                    return ("L3", False, "the score depends on the prompt text, not only on the instance data")
                for text in TRIVIAL:
                    if env.score(instance, text).value >= 1.0:
                        return ("L3", False, f"the trivial answer {text!r} scores 1")
                for text in perturbations(reference):
                    tried += 1
                    refused += env.score(instance, text).value < 1.0
        instance = env.sample(0, env.config_at(2), 0)
        start = time.perf_counter()
        for text in GARBAGE:
            got = env.score(instance, text)
            if not isinstance(got, Score) or got.value >= 1.0:
                return ("L3", False, "garbage scores 1")
        spent = time.perf_counter() - start
    except Exception as exc:  # noqa: BLE001
        return ("L3", False, f"raised {type(exc).__name__}: {str(exc)[:120]}")
    if spent > max_garbage_s:
        return ("L3", False, f"scoring megabytes of garbage took {spent:.1f} s (unbounded work)")
    if not tried:
        return ("L3", False, "the reference has no answer to perturb")
    if refused / tried < min_refused:
        return ("L3", False, f"only {refused} of {tried} perturbed references score below 1")
    return ("L3", True, "")


def noisy_solver(accuracy: float = 0.5) -> Solver:
    """A scripted solver (a test double for the band mechanics): the reference with probability
    ``accuracy``, else a perturbed reference. It measures its own coin, not the environment."""

    def solve(env: ProceduralEnv, instance: Instance, rng: random.Random) -> str:
        reference = env.reference(instance)
        wrong = perturbations(reference)
        return reference if rng.random() < accuracy or not wrong else rng.choice(wrong)

    return solve


def pass_rate(env: ProceduralEnv, solver: Solver, k: int = 4, m: int = 16, level: int = 1, seed: int = 0) -> float:
    """The share of ``k`` solver samples on each of ``m`` instances at ``level`` that score 1."""
    rng = random.Random(seed)
    passed = 0
    for index in range(m):
        instance = env.sample(seed, env.config_at(level), index)
        passed += sum(env.score(instance, solver(env, instance, rng)).value == 1.0 for _ in range(k))
    return passed / (k * m)


def check_difficulty(env: ProceduralEnv, solver: Solver | None = None, band: tuple[float, float] = (0.1, 0.9),
                     k: int = 4, m: int = 16, level: int = 1, max_levels: int = 4) -> Stage:
    """L5: with no ``solver``, the ladder's mean solve rate on ``m`` fresh instances, at the easiest of levels
    ``0..max_levels-1`` where it is at most the band's top, lies inside ``band``; with a ``solver``, its
    pass rate at ``level`` does."""
    try:
        if solver is not None:
            rate = pass_rate(env, solver, k, m, level)
            where = f"pass rate {rate:.2f}"
        else:
            if not env.ladder():
                return ("L5", False, "no solver ladder: define ladder() so that difficulty is measured")
            for level in range(max_levels):
                measured = measure(env, env.config_at(level), instances=m)
                rate = measured.solve_rate
                if rate <= band[1]:
                    break
            rungs = ", ".join(f"{r.name} {r.solve_rate:.2f}" for r in measured.rungs)
            where = f"ladder solve rate {rate:.2f} at level {level} ({rungs})"
    except Exception as exc:  # noqa: BLE001
        return ("L5", False, f"raised {type(exc).__name__}: {str(exc)[:120]}")
    if not band[0] <= rate <= band[1]:
        return ("L5", False, f"{where} outside [{band[0]}, {band[1]}]")
    return ("L5", True, where)


def admit(env: Any, solver: Solver | None = None, band: tuple[float, float] = (0.1, 0.9)) -> list[Stage]:
    """Run L1, L2, L3 and L5 on ``env`` in order, stopping at the first stage that fails."""
    stages: list[Stage] = []
    for check in (check_interface, check_determinism, check_self_consistency,
                  lambda e: check_difficulty(e, solver, band)):
        stage = check(env)
        stages.append(stage)
        if not stage[1]:
            break
    return stages


def admitted(stages: list[Stage]) -> bool:
    """Whether every stage passed and L5 was reached."""
    return bool(stages) and stages[-1][0] == "L5" and all(ok for _, ok, _ in stages)
