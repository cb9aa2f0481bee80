"""The uniform test of every procedural environment (reasoning-gym's template): determinism across processes,
the reference in every answer form, garbage, the solver ladder, knobs that change the instances, no
degenerate instances. A new environment gets all of it by being registered."""

from __future__ import annotations

import pytest

from covert.procgen.registry import env_names, get_env
from tests.procgen.envcheck import (
    check_determinism,
    check_garbage,
    check_knobs_change_instances,
    check_ladder,
    check_no_degenerate_instances,
    check_reference_and_forms,
)

NAMES = env_names()
TEXT_ANSWERS = [n for n in NAMES if n != "mapf_frozenlake"]  # its plan answer has its own forms test


@pytest.mark.parametrize("name", NAMES)
def test_determinism_across_processes(name: str) -> None:
    check_determinism(name, count=2 if name == "mapf_frozenlake" else 4)


@pytest.mark.parametrize("name", TEXT_ANSWERS)
def test_reference_scores_one_in_every_form(name: str) -> None:
    check_reference_and_forms(name)


@pytest.mark.parametrize("name", NAMES)
def test_garbage(name: str) -> None:
    check_garbage(name)


@pytest.mark.parametrize("name", NAMES)
def test_ladder(name: str) -> None:
    check_ladder(name)


@pytest.mark.parametrize("name", NAMES)
def test_every_knob_changes_the_instances(name: str) -> None:
    check_knobs_change_instances(name)


@pytest.mark.parametrize("name", NAMES)
def test_no_degenerate_instances(name: str) -> None:
    check_no_degenerate_instances(name)


def test_both_kinds_of_asymmetry_and_enough_environments() -> None:
    kinds = [get_env(n).asymmetry for n in NAMES]
    assert len(NAMES) >= 30, NAMES
    assert kinds.count("reason") >= 10 and kinds.count("verify") >= 10, kinds
