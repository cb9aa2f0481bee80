"""The engineer and evolution on MAPF-FrozenLake, with a scripted planner whose failure rate rises with
agents and conflicts: the band within three stages, harder generations that stay solvable, datasets that
validate, load and regenerate byte for byte."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from covert.check import validate_dataset
from covert.evolve.engineer import RuleEngineer
from covert.evolve.procedural import ProceduralTrainee, procedural_episodes
from covert.evolve.procedural_dataset import lineage_of, write_procgen_generations
from covert.evolve.summary import stage_summary
from covert.procgen.envs.mapf_frozenlake import ENV

WEIGHTS = {"agents": 1.5, "conflict_percent": 1.2, "grid_size": 0.4, "hole_percent": 0.4}
EASY = {"grid_size": 3, "agents": 2, "hole_percent": 0, "conflict_percent": 0}
HARD = {"grid_size": 6, "agents": 5, "hole_percent": 20, "conflict_percent": 75}


def _summary(trainee: ProceduralTrainee, config: dict[str, Any], stage: int) -> dict[str, Any]:
    episodes = procedural_episodes(ENV, config, lambda inst, j: trainee.answer(inst, config, j), seed=stage, n=20)
    return stage_summary(ENV.name, "procedural", ENV.version, ENV.knobs, stage, episodes, failure_order=())


def test_failures_come_from_the_simulator_and_rise_with_agents() -> None:
    trainee = ProceduralTrainee(ENV, skill=2.0, weights=WEIGHTS, seed=0)
    easy, hard = _summary(trainee, EASY, 0)["configs"][0], _summary(trainee, HARD, 0)["configs"][0]
    assert easy["pass_rate"] > hard["pass_rate"]
    assert set(hard["failures"]) <= {"goals_not_reached", "not_optimal", "vertex_conflict", "swap_conflict", "hole",
                                     "out_of_bounds"} and hard["failures"]
    assert hard["statistics"]["optimal_makespan"] > easy["statistics"]["optimal_makespan"]
    assert hard["valid_rate"] is not None and hard["optimal_rate"] <= hard["valid_rate"]


@pytest.mark.parametrize("start,skill", [(EASY, 3.0), (HARD, 1.5)], ids=["too-easy", "too-hard"])
def test_engineer_reaches_the_band_within_three_stages(start: dict[str, Any], skill: float) -> None:
    trainee = ProceduralTrainee(ENV, skill=skill, weights=WEIGHTS, seed=1)
    engineer = RuleEngineer(failure_knobs=ENV.failure_knobs)
    config, summary = start, _summary(trainee, start, 0)
    rates = [summary["configs"][0]["pass_rate"]]
    assert not 0.2 <= rates[0] <= 0.8, rates
    for stage in range(1, 4):
        decision = engineer.propose(summary).decisions[0]
        config = decision.config
        summary = _summary(trainee, config, stage)
        rates.append(summary["configs"][0]["pass_rate"])
        if 0.2 <= rates[-1] <= 0.8:
            break
    assert 0.2 <= rates[-1] <= 0.8, rates
    kept = engineer.propose(summary).decisions[0]
    assert kept.action == "keep" and kept.config == config  # in the band: never changed


@pytest.fixture(scope="module")
def lineage() -> Any:
    starts = [EASY, {"grid_size": 4, "agents": 2, "hole_percent": 10, "conflict_percent": 25}]
    return lineage_of(ENV, starts, 4, 2.0, WEIGHTS, seed=0, instances=12, k=2)


def test_generations_get_harder_and_stay_solvable(lineage: Any) -> None:
    rates = lineage.pass_rates()
    assert len(rates) == 4 and all(r is not None for r in rates), rates
    assert all(later < earlier for earlier, later in itertools.pairwise(rates)), rates
    for members in lineage.generations[1:]:
        for member in members:
            assert member.direction in ("horizon", "constraints")
            for index in range(12):  # the reference solver solves every instance a kept configuration makes
                instance = ENV.sample(0, member.config, index)
                assert ENV.score(instance, ENV.reference(instance)).value == 1.0


def test_generation_datasets_validate_load_and_regenerate(lineage: Any, tmp_path: Path) -> None:
    from datasets import load_dataset

    from covert.rewards import score

    manifest = write_procgen_generations(ENV, lineage, tmp_path / "a", seed=0, per_config=6)
    report = validate_dataset(tmp_path / "a")
    assert report.ok, report.failures[:3]
    assert {f"rl-procgen-g{g}" for g in range(4)} <= set(report.rows)
    again = write_procgen_generations(ENV, lineage, tmp_path / "b", seed=0, per_config=6)
    assert again["files"] == manifest["files"]
    rows = load_dataset(str(tmp_path / "a"), "rl-procgen-g2", split="train", cache_dir=str(tmp_path / "cache"))
    assert set(rows["generation"]) == {2}
    for row in rows.select(range(min(5, len(rows)))):
        instance_score = score(row, [{"role": "assistant", "content": _reference(row)}])
        assert instance_score.value == 1.0


def _reference(row: dict[str, Any]) -> str:
    from covert.procgen.contract import Instance

    data = row["reward_model"]["ground_truth"]["procgen"]["data"]
    return ENV.reference(Instance(prompt=row["prompt"][0]["content"], data=data))


def test_cli_rejects_a_bad_start(tmp_path: Path) -> None:
    cli = [sys.executable, "-c", "import sys; from covert.cli import main; sys.exit(main())"]
    bad = subprocess.run([*cli, "evolve-procgen", "mapf_frozenlake", "--out", str(tmp_path / "x"), "--start",
                          '{"grid_size": 99}'], capture_output=True, text=True)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1 and "--start" in bad.stderr
    assert not (tmp_path / "x").exists()
