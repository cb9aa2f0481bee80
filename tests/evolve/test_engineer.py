"""The rule-based engineer: keeps in-band configurations, moves the others toward the band on evidence,
and, with a scripted tool trainee of known skill, reaches the band within three stages."""

from __future__ import annotations

from typing import Any

import pytest

from covert.evolve.engineer import RuleEngineer, checked_config, clamp
from covert.evolve.summary import Episode, stage_summary
from covert.evolve.tools import FAILURE_KNOBS, TOOL_KNOBS, ToolTrainee, config_rows, tool_episodes
from covert.procgen.contract import Knob


def _summary(entries: list[tuple[dict[str, Any], float, dict[str, int]]], knobs=TOOL_KNOBS) -> dict[str, Any]:
    episodes = []
    for config, rate, failures in entries:
        passes = round(rate * 20)
        fails = [f for f, n in failures.items() for _ in range(n)] or ["missing_call"]
        episodes += [Episode(config, True) for _ in range(passes)]
        episodes += [Episode(config, False, (fails[i % len(fails)],)) for i in range(20 - passes)]
    return stage_summary("tools", "tool", "1", knobs, 0, episodes)


EASY = {"calls": 1, "distractors": "none", "noise": "none", "ambiguity": False}
HARD = {"calls": 4, "distractors": "high", "noise": "high", "ambiguity": True}


def test_in_band_configurations_are_kept_exactly() -> None:
    mid = {"calls": 2, "distractors": "low", "noise": "none", "ambiguity": False}
    proposal = RuleEngineer(failure_knobs=FAILURE_KNOBS).propose(_summary([(mid, 0.5, {"wrong_tool": 5})]))
    (decision,) = proposal.decisions
    assert decision.action == "keep" and decision.config == mid and decision.changed == ()


def test_too_hard_lowers_the_knob_behind_the_dominant_failure() -> None:
    config = {"calls": 2, "distractors": "high", "noise": "low", "ambiguity": False}
    proposal = RuleEngineer(failure_knobs=FAILURE_KNOBS).propose(_summary([(config, 0.1, {"wrong_tool": 15, "wrong_argument": 2})]))
    (decision,) = proposal.decisions
    assert decision.action == "lower" and decision.changed[0] == "distractors"
    assert TOOL_KNOBS[1].level_of(decision.config["distractors"]) < TOOL_KNOBS[1].level_of("high")
    assert "wrong_tool" in decision.reason and len(decision.changed) <= 2


def test_too_easy_raises_and_hardest_stays() -> None:
    engineer = RuleEngineer(failure_knobs=FAILURE_KNOBS)
    up = engineer.propose(_summary([(EASY, 1.0, {})])).decisions[0]
    assert up.action == "raise" and up.config != EASY
    top = engineer.propose(_summary([(HARD, 0.95, {})])).decisions[0]
    assert top.action == "keep" and top.config == HARD and "hardest" in top.reason


def test_clamp_and_repair() -> None:
    knob = Knob("grid", (3, 4, 5, 6))
    assert clamp(knob, 5) == 5 and clamp(knob, 9) == 6 and clamp(knob, 4.4) == 4 and clamp(knob, "x") is None
    assert clamp(Knob("noise", ("none", "low")), "LOW") == "low"
    config, notes = checked_config((knob,), {"grid": 42, "bogus": 1}, {"grid": 3})
    assert config == {"grid": 6} and any("bogus" in n for n in notes) and any("clamped" in n for n in notes)
    config, notes = checked_config((knob,), "not an object", {"grid": 4})
    assert config == {"grid": 4} and notes


def test_band_must_be_ordered() -> None:
    with pytest.raises(ValueError):
        RuleEngineer(band=(0.8, 0.2))


def _stage(trainee: ToolTrainee, pairs: list[Any], config: dict[str, Any], stage: int) -> dict[str, Any]:
    rows = config_rows(pairs, config, seed=stage, limit=30)
    assert rows.pairs, f"no rows for {config}: {dict(rows.left_out)}"
    return stage_summary("tools", "tool", "1", TOOL_KNOBS, stage, tool_episodes(trainee, rows, k=2))


@pytest.mark.parametrize("start,skill", [(EASY, 3.0), (HARD, 2.5)], ids=["too-easy", "too-hard"])
def test_engineer_reaches_the_band_within_three_stages(base_pairs: list[Any], start: dict[str, Any], skill: float) -> None:
    trainee = ToolTrainee(skill=skill, seed=3)
    engineer = RuleEngineer(failure_knobs=FAILURE_KNOBS)
    config, rates = start, []
    summary = _stage(trainee, base_pairs, config, 0)
    rates.append(summary["configs"][0]["pass_rate"])
    assert not 0.2 <= rates[0] <= 0.8, f"the start is not outside the band: {rates[0]}"
    for stage in range(1, 4):
        decision = engineer.propose(summary).decisions[0]
        if 0.2 <= rates[-1] <= 0.8:
            assert decision.action == "keep" and decision.config == config
        config = decision.config
        summary = _stage(trainee, base_pairs, config, stage)
        rates.append(summary["configs"][0]["pass_rate"])
        if 0.2 <= rates[-1] <= 0.8:
            break
    assert 0.2 <= rates[-1] <= 0.8, f"pass rates by stage: {rates}"
