"""Admission (L1 interface, L2 determinism in two processes, L3 self-consistency, L5 the solver ladder's band):
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
    assert stages[-1][2].startswith("ladder solve rate"), stages[-1]


GOOD = '''
from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
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

    def ladder(self):
        def copy(instance, budget):
            return f"Answer: {instance.data['x']}"

        def by_digits(instance, budget):
            for _ in str(instance.data["x"]):
                budget.spend()
            return f"Answer: {2 * instance.data['x']}"

        return (Rung("copy", 1, "passes", copy), Rung("digits_3", 3, "digits", by_digits))
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
    "no_ladder": ("L5", GOOD.replace("    def ladder(self):", "    def steps(self):")),
}


def _load(tmp_path: Path, key: str, source: str) -> ModuleType:
    path = tmp_path / f"candidate_{key}.py"
    path.write_text(textwrap.dedent(source) + "\nENV = Double()\n")
    spec = importlib.util.spec_from_file_location(f"candidate_{key}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_good_candidate_file_is_admitted_on_its_ladder(tmp_path: Path) -> None:
    stages = admit(_load(tmp_path, "good", GOOD).ENV)
    assert admitted(stages), stages
    # level 0 (two digits): copying is never right, three digits of work always are: 1/2 of the ladder
    assert stages[-1] == ("L5", True, "ladder solve rate 0.50 at level 0 (copy 0.00, digits_3 1.00)")


def test_l5_measures_the_environment_not_a_coin(tmp_path: Path) -> None:
    """The ladder's rate moves with the level (the budget runs out on four digits); a scripted solver
    that returns the reference half the time gives about one half at every level."""
    from covert.procgen.admission import check_difficulty

    env = _load(tmp_path, "levels", GOOD).ENV
    # above a band's top at two and three digits, the calibration moves on to four digits: 0.00, too hard
    assert check_difficulty(env, band=(0.1, 0.4)) == (
        "L5", False, "ladder solve rate 0.00 at level 2 (copy 0.00, digits_3 0.00) outside [0.1, 0.4]")
    coin = [pass_rate(env, noisy_solver(0.5), k=4, m=16, level=level) for level in range(3)]
    assert all(0.3 <= rate <= 0.7 for rate in coin), coin


@pytest.mark.parametrize("key", sorted(BROKEN))
def test_broken_candidates_stop_at_their_stage(tmp_path: Path, key: str) -> None:
    stage, source = BROKEN[key]
    env = _load(tmp_path, key, source).ENV
    stages = admit(env, band=(0.6, 0.9)) if key == "always_right_solver_band" else admit(env)
    assert not admitted(stages)
    last, ok, reason = stages[-1]
    assert (last, ok) == (stage, False) and reason, stages


def test_perturbations_and_pass_rate() -> None:
    assert perturbations("work\nAnswer: [1, 2, 3]") == ["work\nAnswer: [1, 2, 4]", "work\nAnswer: [0, 2, 3]",
                                                        "work\nAnswer: [1, 2, 10]", "work\nAnswer: [1, 2]"]
    env = get_env("knapsack")
    assert pass_rate(env, noisy_solver(1.0), k=2, m=4) == 1.0
    assert pass_rate(env, lambda e, i, r: "Answer: []", k=1, m=8) == 0.0


def test_perturbations_of_an_answer_without_numbers_are_refused() -> None:
    env = get_env("min_path_sum")
    instance = env.sample(0, env.config_at(1), 0)
    variants = perturbations(env.reference(instance))
    assert len(variants) == 2 and all(v.rsplit("Answer:", 1)[0] for v in variants)
    assert all(env.score(instance, v).value == 0.0 for v in variants)
