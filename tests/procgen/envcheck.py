"""Checks every procedural environment's test runs (``tests/procgen/test_env_template.py`` runs them on every
registered environment): determinism in another process, the reference scoring 1 in every answer form
models write, garbage scored below 1 without raising, a solver ladder whose rungs see no hidden data and
whose rates fall across the curriculum, and knobs that each change the instances measurably."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from itertools import pairwise
from typing import Any

from covert.procgen.contract import Instance, ProceduralEnv
from covert.procgen.registry import get_env
from tests.fresh_python import REPO

LEVELS = (0, 1, 2, 4, 9)


def identity(env: ProceduralEnv, seed: int, level: int, index: int) -> list[Any]:
    """What must be the same in every process: prompt, data and reference of one instance."""
    instance = env.sample(seed, env.config_at(level), index)
    return [instance.prompt, instance.data, env.reference(instance)]


def check_determinism(name: str, count: int = 4) -> None:
    """The same instances in a fresh interpreter with another hash seed, at several levels."""
    env = get_env(name)
    here = [identity(env, 7, level, i) for level in LEVELS for i in range(count)]
    script = ("import json\nfrom covert.procgen.registry import get_env\n"
              "from tests.procgen.envcheck import identity, LEVELS\n"
              f"env = get_env({name!r})\n"
              f"print(json.dumps([identity(env, 7, level, i) for level in LEVELS for i in range({count})]))\n")
    environ = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(REPO),
               "PYTHONHASHSEED": "12345"}
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=environ, capture_output=True, text=True,
                            timeout=120, check=True)
    there = json.loads(result.stdout.strip().splitlines()[-1])
    assert there == json.loads(json.dumps(here))
    assert len({json.dumps(x[1], sort_keys=True) for x in here}) > 1, "every instance is the same"


def answer_of(reference: str) -> str:
    """The text after the reference's last ``Answer:`` line."""
    return reference.rsplit("Answer:", 1)[1].strip()


def forms(answer: str) -> list[str]:
    """The same answer as models write it (JSON ``{"answer": ...}`` included)."""
    try:
        value = json.loads(answer)
    except ValueError:
        value = answer
    wrapped = json.dumps({"answer": value})
    out = [f"Answer: {answer}", f"\\boxed{{{answer}}}", f"The final answer is: {answer}",
           f"<think>Answer: nonsense 0</think>\nSo the result:\nAnswer: {answer}",
           f"Working...\n\n```json\n{answer}\n```", f"Let me think.\nThus we get\n{answer}",
           wrapped, f"Here is my answer:\n```json\n{json.dumps({'answer': value}, indent=2)}\n```",
           f"Answer: 0\nOn second thought:\n{wrapped}"]
    if answer.startswith("[") and answer.endswith("]") and "[" not in answer[1:]:
        bare = answer[1:-1]
        out += [f"Answer: {bare}", f"Answer: {bare.replace(',', '')}", f"\\boxed{{{bare}}}"]
    return out


def check_reference_and_forms(name: str, per_level: int = 6) -> None:
    """The reference scores 1 at every level, in every form, also with the prompt blanked (scoring
    reads only the instance's data); its data survives a JSON round trip."""
    env = get_env(name)
    for level in LEVELS:
        for index in range(per_level):
            instance = env.sample(3, env.config_at(level), index)
            assert json.loads(json.dumps(instance.data)) == instance.data
            reference = env.reference(instance)
            got = env.score(instance, reference)
            assert got.value == 1.0 and not got.reasons, (level, index, got)
            blank = Instance("", json.loads(json.dumps(instance.data)))
            for text in forms(answer_of(reference)):
                scored = env.score(blank, text)
                assert scored.value == 1.0, (text[:200], scored)


GARBAGE = ["", " ", "garbage", "Answer:", "Answer: ", "\\boxed{", "\\boxed{}", "Answer: [", "[[[[[[", "{}", "[]",
           "null", "Answer: null", "\x00\xff\ufffd", "Answer: -1", "Answer: 99999999999999999999999999",
           "Answer: " + "1" * 5000, "Answer: " + "[" * 5000 + "]" * 5000, "</think>", "Answer: true",
           "Answer: {\"a\": [1, 2]}", "Answer: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0"]


def huge_texts() -> list[str]:
    """Megabytes of text of the shapes that cost a parser most."""
    return ["9" * 10_000_000, "Answer: " + "1, " * 3_000_000, "\\boxed{" * 1_000_000, "Answer:" * 1_000_000,
            "a\n" * 5_000_000, "<think>" + "x" * 5_000_000]


def check_garbage(name: str, extra: list[str] | None = None) -> None:
    """Garbage, empty and megabyte responses score below 1, never raise, and reasons are codes."""
    env = get_env(name)
    instance = env.sample(11, env.config_at(2), 0)
    for text in [*GARBAGE, *(extra or []), *huge_texts()]:
        got = env.score(instance, text)
        assert 0.0 <= got.value < 1.0, (text[:80], got)
        assert got.reasons and all(isinstance(r, str) and r.isidentifier() for r in got.reasons), got
    for thing in (None, 5, b"Answer: 1", ["Answer: 1"]):
        assert env.score(instance, thing).value == 0.0  # type: ignore[arg-type]


def base_for(env: ProceduralEnv, knob: str) -> dict[str, Any]:
    """The configuration of every knob at level 1 (else the next level up, else level 0) at which every level
    of ``knob`` is a valid configuration: one step in from the easiest corner, where tiny instances leave
    a knob no room."""
    levels = max(len(k.levels) for k in env.knobs)
    for level in [*range(1, levels), 0]:
        base = env.config_at(level)
        try:
            for value in env.knob(knob).levels:
                env.check_config({**base, knob: value})
        except ValueError:
            continue
        return base
    raise AssertionError(f"{env.name}: no configuration takes every level of {knob}")


def statistics_of(env: ProceduralEnv, config: dict[str, Any], count: int, seed: int = 21) -> dict[str, list[float]]:
    """Each statistic of ``count`` instances of ``config``."""
    out: dict[str, list[float]] = {}
    for index in range(count):
        for name, value in env.statistics(env.sample(seed, config, index)).items():
            out.setdefault(name, []).append(float(value))
    return out


def separation(a: list[float], b: list[float]) -> float:
    """How far apart two samples' means are, in standard errors of the difference (inf when both are constant
    and differ)."""
    import statistics

    diff = abs(statistics.fmean(a) - statistics.fmean(b))
    error = (statistics.pvariance(a) / len(a) + statistics.pvariance(b) / len(b)) ** 0.5
    return diff / error if error else (float("inf") if diff else 0.0)


def check_knobs_change_instances(name: str, count: int = 40, threshold: float = 3.0) -> None:
    """Each step of each knob (the others at the easiest level that takes all of that knob's levels) moves
    some instance statistic by at least ``threshold`` standard errors."""
    env = get_env(name)
    assert env.statistics(env.sample(0, env.default_config(), 0)), f"{name} reports no instance statistics"
    for knob in env.knobs:
        base = base_for(env, knob.name)
        samples = [statistics_of(env, {**base, knob.name: value}, count) for value in knob.levels]
        for low, (before, after) in enumerate(pairwise(samples)):
            moved = {stat: separation(before[stat], after[stat]) for stat in before}
            assert max(moved.values()) >= threshold, (
                f"{name}: {knob.name} {knob.levels[low]} -> {knob.levels[low + 1]} changes no statistic "
                f"measurably: {moved}")


def check_ladder(name: str, instances: int = 8) -> None:
    """A ladder of at least two budgeted rungs, run on the solver's view (the hidden fields gone), judged
    by the environment's scorer; the ladder solves the easiest configuration more often than the hardest,
    and its strongest rung solves most of the easiest instances."""
    from covert.procgen.ladder import measure

    env = get_env(name)
    rungs = env.ladder()
    assert len(rungs) >= 2 and len({r.name for r in rungs}) == len(rungs), rungs
    assert all(r.budget >= 1 and r.unit for r in rungs)
    instance = env.sample(0, env.default_config(), 0)
    view = env.solver_view(instance)
    assert set(env.hidden_fields) <= set(instance.data) and not set(env.hidden_fields) & set(view.data)
    top = max(len(k.levels) for k in env.knobs) - 1
    easy = measure(env, env.default_config(), seed=2, instances=instances)
    hard = measure(env, env.config_at(top), seed=2, instances=instances)
    assert easy.rungs[-1].solve_rate >= 0.75, easy
    assert easy.solve_rate > hard.solve_rate, (easy.solve_rate, hard.solve_rate)
    assert all(0 <= r.solve_rate <= 1 and r.optimal_rate <= r.solve_rate for r in easy.rungs + hard.rungs)


def check_no_degenerate_instances(name: str, count: int = 12) -> None:
    """At every level: no trivial answer scores 1, and prompts repeat rarely (the easiest levels of small
    puzzles have few distinct instances; at most a quarter may repeat)."""
    from covert.procgen.admission import TRIVIAL

    env = get_env(name)
    for level in LEVELS:
        config = env.config_at(level)
        prompts = set()
        for index in range(count):
            instance = env.sample(4, config, index)
            prompts.add(instance.prompt)
            for text in TRIVIAL:
                assert env.score(instance, text).value < 1.0, (level, index, text)
        assert len(prompts) >= count * 3 // 4, f"{name}: {count - len(prompts)} repeated prompts at level {level}"
