"""Checks every procedural environment's test runs: determinism in another process, the reference
scoring 1 in every answer form models write, and garbage scored below 1 without raising."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    """The same answer as models write it."""
    out = [f"Answer: {answer}", f"\\boxed{{{answer}}}", f"The final answer is: {answer}",
           f"<think>Answer: nonsense 0</think>\nSo the result:\nAnswer: {answer}",
           f"Working...\n\n```json\n{answer}\n```", f"Let me think.\nThus we get\n{answer}"]
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
