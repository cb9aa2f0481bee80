"""The engineer and evolution on MAPF-FrozenLake: the engineer's mechanics with a scripted planner (a test
double whose failure rate rises with agents and conflicts by construction), and evolution judged by the
solver ladder: kept generations are measurably harder than their parents, a knob step that changes nothing
is never kept, datasets validate, load and regenerate byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from covert.evolve.engineer import RuleEngineer
from covert.evolve.procedural import ProceduralTrainee, evolve_configs, procedural_episodes
from covert.evolve.procedural_dataset import lineage_of, write_procgen_generations
from covert.evolve.summary import stage_summary
from covert.procgen.contract import Knob, config_key
from covert.procgen.envs.mapf_frozenlake import ENV
from covert.validation.dataset import validate_dataset

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
    starts = [{"grid_size": 3, "agents": 2, "hole_percent": 10, "conflict_percent": 25},
              {"grid_size": 4, "agents": 2, "hole_percent": 10, "conflict_percent": 25}]
    return lineage_of(ENV, starts, 3, seed=0, instances=24)


def test_kept_generations_are_harder_for_the_ladder_and_stay_solvable(lineage: Any) -> None:
    members = {f"{config_key(m.config)}@g{m.generation}": m for g in lineage.generations for m in g}
    kept = [m for g in lineage.generations[1:] for m in g]
    assert kept, dict(lineage.rejected)
    for member in kept:
        parent = members[member.parent]
        assert member.direction in ("horizon", "constraints")
        assert member.difficulty.harder_than(parent.difficulty)
        assert member.pass_rate == member.difficulty.solve_rate < parent.pass_rate
        for index in range(12):  # the reference solver solves every instance a kept configuration makes
            instance = ENV.sample(0, member.config, index)
            assert ENV.score(instance, ENV.reference(instance)).value == 1.0
    assert lineage.rejected["not_harder"] > 0  # steps the ladder does not find harder are refused


class _Placebo(type(ENV)):
    """MAPF-FrozenLake with a knob that only reseeds the sampler: its levels draw from one distribution."""

    knobs = (*type(ENV).knobs, Knob("placebo", (0, 1, 2, 3), "changes nothing but the instances' seed"))
    directions = {"constraints": ("placebo",)}


def test_a_knob_step_that_changes_nothing_is_never_kept() -> None:
    """The old 2-agent conflict lineage (25 -> 50 -> 75 asked for the same one crossing pair) drew its levels
    from one distribution: a placebo knob does exactly that, and the ladder keeps none of its steps."""
    env = _Placebo()
    starts = [{"grid_size": 3, "agents": 2, "hole_percent": 10, "conflict_percent": 25, "placebo": 0},
              {"grid_size": 4, "agents": 3, "hole_percent": 20, "conflict_percent": 50, "placebo": 0}]
    placebo = evolve_configs(env, starts, 3, seed=1, instances=32)
    assert placebo.generations[1:] == [[], []], placebo.generations
    assert placebo.rejected == {"not_harder": placebo.tried["constraints"]} and placebo.tried["constraints"] >= 4


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_two_agent_conflict_lineage_is_not_kept(seed: int) -> None:
    """Issue 34's finding: 3x3, 2 agents, conflict_percent 0 -> 25 -> 50 -> 75 was kept as generations 1-3.
    Evolving that configuration along the conflict knob alone, the ladder keeps the step off 0 (the
    independent planner's solve rate falls from about 0.7 to 0.2), at most one more, and never reaches 75:
    with one agent pair its instances are no harder for the ladder than those of 50."""

    class ConflictOnly(type(ENV)):
        directions = {"constraints": ("conflict_percent",)}

    start = {"grid_size": 3, "agents": 2, "hole_percent": 10, "conflict_percent": 0}
    lineage = evolve_configs(ConflictOnly(), [start], 4, seed=seed, instances=32)
    chain = [g[0].config["conflict_percent"] for g in lineage.generations if g]
    assert chain[:2] == [0, 25], chain
    assert 75 not in chain and len(chain) <= 3, chain
    assert lineage.generations[-1] == [] and lineage.rejected["not_harder"] >= 1


def test_generation_datasets_validate_load_and_regenerate(lineage: Any, tmp_path: Path) -> None:
    from datasets import load_dataset

    from covert.rewards import score

    manifest = write_procgen_generations(ENV, lineage, tmp_path / "a", seed=0, per_config=6)
    report = validate_dataset(tmp_path / "a")
    assert report.ok, report.failures[:3]
    assert {f"rl-procgen-g{g}" for g in range(len(lineage.generations)) if lineage.generations[g]} <= set(report.rows)
    card = (tmp_path / "a" / "README.md").read_text()
    assert "| generation | configuration | ladder solve rate |" in card and "independent" in card
    first = manifest["evolution"]["schedule"]["generations"][0]["difficulty"][0]
    assert [r["name"] for r in first["rungs"]] == ["independent", "prioritized", "cbs_20", "cbs_400"]
    again = write_procgen_generations(ENV, lineage, tmp_path / "b", seed=0, per_config=6)
    assert again["files"] == manifest["files"]
    rows = load_dataset(str(tmp_path / "a"), "rl-procgen-g1", split="train", cache_dir=str(tmp_path / "cache"))
    assert set(rows["generation"]) == {1}
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


def test_cli_prints_each_configuration_unless_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from covert.cli import main

    argv = ["evolve-procgen", "knapsack", "--generations", "2", "--per-config", "2", "--instances", "8"]
    assert main([*argv, "--out", str(tmp_path / "loud")]) == 0
    loud = capsys.readouterr().out.splitlines()
    assert main([*argv, "--out", str(tmp_path / "quiet"), "--quiet"]) == 0
    quiet = capsys.readouterr().out.splitlines()
    assert loud[0].startswith("generation 0: ") and "ladder solve rate" in loud[0]
    assert len(quiet) == 1 and quiet[0].startswith("kept ") and loud[-1] == quiet[0].replace("quiet", "loud")


def test_every_procedural_environment_grows_along_the_horizon() -> None:
    """Each registered environment's size knob (parcels, workers, villages, corners...) is a horizon step, so
    evolution tries growing every one of them, not only its constraints."""
    from covert.evolve.procedural import directions_of
    from covert.procgen.registry import env_names, get_env

    missing = [name for name in env_names() if "horizon" not in directions_of(get_env(name))]
    assert missing == [] and len(env_names()) >= 30
