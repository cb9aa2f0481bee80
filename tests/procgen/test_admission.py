"""Admission (L1 interface, L2 determinism in two processes, L3 self-consistency, L5 scripted-solver band):
every seed passes; broken candidate modules, written as files, are stopped at the stage that catches them."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from covert.procgen.admission import admit, admitted, noisy_solver, pass_rate, perturbations
from covert.procgen.registry import env_names, get_env


@pytest.mark.parametrize("name", env_names())
def test_every_seed_is_admitted(name: str) -> None:
    stages = admit(get_env(name))
    assert admitted(stages), stages
    assert [s for s, _, _ in stages] == ["L1", "L2", "L3", "L5"]


GOOD = '''
from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import int_answer


class Double(ProceduralEnv):
    name = "double"
    version = "1"
    description = "double a number"
    asymmetry = "reason"
    knobs = (Knob("digits", (2, 3, 4)),)

    def sample(self, seed, config, index):
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        x = rng.randint(10 ** (config["digits"] - 1), 10 ** config["digits"] - 1)
        return Instance(f"What is twice {x}?", {"x": x})

    def reference(self, instance):
        return f"Answer: {2 * instance.data['x']}"

    def score(self, instance, response):
        value = int_answer(response)
        return Score(1.0 if value == 2 * instance.data["x"] else 0.0, () if value == 2 * instance.data["x"] else ("wrong",))
'''

BROKEN = {
    "global_random": ("L2", GOOD.replace("rng = instance_rng(self, seed, config, index)",
                                         "import random, os; rng = random.Random(os.getpid())")),
    "wrong_reference": ("L3", GOOD.replace("return f\"Answer: {2 * instance.data['x']}\"",
                                           "return f\"Answer: {2 * instance.data['x'] + 1}\"")),
    "reads_prompt": ("L3", GOOD.replace('value = int_answer(response)',
                                        'value = int_answer(response) if instance.prompt else None')),
    "accepts_anything": ("L3", GOOD.replace('return Score(1.0 if', 'return Score(1.0) if True else Score(1.0 if')),
    "no_score": ("L1", GOOD.replace("def score(self, instance, response):", "def scored(self, instance, response):")),
    "raises": ("L1", GOOD.replace('return Instance(f"What', 'raise RuntimeError("boom"); return Instance(f"What')),
    "float_data": ("L1", GOOD.replace('{"x": x}', '{"x": x, "ratio": float("nan")}')),
    "bad_name": ("L1", GOOD.replace('name = "double"', 'name = "Double Env"')),
    "always_right_solver_band": ("L5", GOOD),
}


def _load(tmp_path: Path, key: str, source: str) -> ModuleType:
    path = tmp_path / f"candidate_{key}.py"
    path.write_text(textwrap.dedent(source) + "\nENV = Double()\n")
    spec = importlib.util.spec_from_file_location(f"candidate_{key}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_good_candidate_file_is_admitted(tmp_path: Path) -> None:
    assert admitted(admit(_load(tmp_path, "good", GOOD).ENV))


@pytest.mark.parametrize("key", sorted(BROKEN))
def test_broken_candidates_stop_at_their_stage(tmp_path: Path, key: str) -> None:
    stage, source = BROKEN[key]
    env = _load(tmp_path, key, source).ENV
    stages = admit(env, band=(0.1, 0.2)) if key == "always_right_solver_band" else admit(env)
    assert not admitted(stages)
    last, ok, reason = stages[-1]
    assert (last, ok) == (stage, False) and reason, stages


def test_perturbations_and_pass_rate() -> None:
    assert perturbations("work\nAnswer: [1, 2, 3]") == ["work\nAnswer: [1, 2, 4]", "work\nAnswer: [0, 2, 3]",
                                                        "work\nAnswer: [1, 2, 10]", "work\nAnswer: [1, 2]"]
    env = get_env("knapsack")
    assert pass_rate(env, noisy_solver(1.0), k=2, m=4) == 1.0
    assert pass_rate(env, lambda e, i, r: "Answer: []", k=1, m=8) == 0.0
