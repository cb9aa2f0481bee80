"""MAPF-FrozenLake's tool form as dataset rows: written by ``covert procgen --form tools`` in covert's tool-row
shape, validated and replayed by ``covert validate``, loaded with ``datasets.load_dataset``, and scored 1 for
their own oracle (and below 1 for a wrong plan) by ``covert.rewards.score``, the TRL reward and environment
classes, and verl's ``compute_score`` and ``CovertTool``."""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from covert.env import UnknownBuilderError, builder_names, get_builder
from covert.errors import Invalid
from covert.io.reader import iter_rows
from covert.procgen.dataset import PlanItem, ProcgenConfig, ProcgenError, build_procgen
from covert.procgen.envs.mapf_frozenlake import ENV
from covert.procgen.mapf_tools import MapfToolsEnv
from covert.procgen.tool_rows import RL_TOOLS_CONFIG, SFT_TOOLS_CONFIG
from covert.procgen.tool_validate import validate_tool_row
from covert.rewards import (
    compute_score,
    environment_factory,
    oracle_completion,
    score,
    trl_dataset,
    trl_reward,
)
from covert.rewards.verl import CovertTool, verl_tool_config, verl_tools_kwargs
from covert.schemas import validator
from covert.validation.dataset import validate_dataset
from tests.rewards.test_composite import hermes

BUILDER = "procgen.mapf_frozenlake"
CONFIGS = [{"grid_size": 3, "agents": 2}, {"grid_size": 4, "agents": 2, "hole_percent": 30},
           {"grid_size": 5, "agents": 3, "hole_percent": 20}, {"grid_size": 6, "agents": 4, "hole_percent": 10}]


def _items() -> list[PlanItem]:
    return [PlanItem(ENV.name, ENV.check_config(c), i) for c in CONFIGS for i in range(4)]


def _write(out: Path, workers: int = 1) -> dict[str, Any]:
    config = ProcgenConfig(envs=[ENV.name], num_tasks=16, seed=3, split_ratios=(1.0, 0.0, 0.0), form="tools")
    return build_procgen(config, out, items=_items(), workers=workers)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mapftools") / "ds"
    _write(out)
    return out


@pytest.fixture(scope="module")
def pairs(data: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    sft = {row["task_id"]: row for row in iter_rows(data, SFT_TOOLS_CONFIG)}
    return [(rl, sft[rl["task_id"]]) for rl in iter_rows(data, RL_TOOLS_CONFIG)]


def _turns(groups: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Assistant turns making ``groups`` of calls (no tool results: scoring replays the calls)."""
    return [{"role": "assistant", "content": "", "tool_calls": [
        {"id": f"c{i}_{j}", "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
        for j, c in enumerate(group)]} for i, group in enumerate(groups)] + [{"role": "assistant", "content": "Done."}]


def _late_start(rl: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The oracle plan one step late: every agent waits first (valid, not optimal)."""
    agents = len(rl["reward_model"]["ground_truth"]["procgen"]["data"]["starts"])
    return [[{"name": "wait", "arguments": {"agent": a}} for a in range(agents)],
            *rl["reward_model"]["ground_truth"]["calls"]]


def _into_hole(rl: dict[str, Any]) -> list[list[dict[str, Any]]] | None:
    """The oracle plan whose first step sends an agent onto a hole next to its start, or ``None``."""
    data = rl["reward_model"]["ground_truth"]["procgen"]["data"]
    holes = {tuple(h) for h in data["holes"]}
    moves = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1)}
    groups = json.loads(json.dumps(rl["reward_model"]["ground_truth"]["calls"]))
    for agent, (r, c) in enumerate(data["starts"]):
        for direction, (dr, dc) in moves.items():
            if (r + dr, c + dc) in holes:
                groups[0][agent] = {"name": "move", "arguments": {"agent": agent, "direction": direction}}
                return groups
    return None


# -- rows, schema, validation, determinism ------------------------------------------------------------------


def test_rows_are_tool_rows_that_validate_and_replay(data: Path, pairs: list[tuple[dict, dict]]) -> None:
    assert len(pairs) == 16
    for rl, sft in pairs:
        validator("rl_row")(rl)
        validator("sft_row")(sft)
        assert rl["environment"] == rl["builder"] == sft["builder"] == BUILDER
        assert rl["data_source"] == f"covert/{BUILDER}" and rl["ability"] == "tool_use"
        assert [t["function"]["name"] for t in rl["tools"]] == ["look", "move", "wait"] == \
            [t["function"]["name"] for t in sft["tools"]]
        truth = rl["reward_model"]["ground_truth"]
        data_ = truth["procgen"]["data"]
        # the map travels in the row: the initial state is the instance's own
        lake = rl["extra_info"]["initial_state"]["tables"]["lake"]["map"]
        assert lake["size"] == data_["size"] and lake["holes"] == data_["holes"]
        assert rl["extra_info"]["initial_state"] == sft["initial_state"]
        assert rl["prompt"] == sft["messages"][:2] and rl["prompt"][0]["role"] == "system"
        assert "frozen lake map" in rl["prompt"][1]["content"]
        # one assistant turn per time step: every agent's action, as parallel calls
        assert len(truth["calls"]) == data_["optimal_makespan"]
        assert all(len(g) == len(data_["starts"]) for g in truth["calls"])
        assert rl["num_calls"] == sum(len(g) for g in truth["calls"])
        assert sft["messages"][-1]["role"] == "assistant"
    report = validate_dataset(data)
    assert report.ok, report.failures[:3]
    assert dict(report.rows) == {SFT_TOOLS_CONFIG: 16, RL_TOOLS_CONFIG: 16}
    card = (data / "README.md").read_text()
    assert "license: apache-2.0" in card and "rl-procgen-tools" in card and BUILDER in card


def test_validation_catches_tampered_rows(pairs: list[tuple[dict, dict]]) -> None:
    rl, sft = next((rl, sft) for rl, sft in pairs if rl["reward_model"]["ground_truth"]["procgen"]["data"]["holes"])
    validate_tool_row(rl, RL_TOOLS_CONFIG)
    validate_tool_row(sft, SFT_TOOLS_CONFIG)

    def broken(row: dict[str, Any], config: str, edit: Any) -> str:
        row = json.loads(json.dumps(row))
        edit(row)
        with pytest.raises(Invalid) as caught:
            validate_tool_row(row, config)
        return caught.value.reason

    def hole_moved(row: dict[str, Any]) -> None:
        row["extra_info"]["initial_state"]["tables"]["lake"]["map"]["holes"] = []

    def faster(row: dict[str, Any]) -> None:
        row["reward_model"]["ground_truth"]["procgen"]["data"]["optimal_makespan"] -= 1

    def wrong_call(row: dict[str, Any]) -> None:
        row["ground_truth"]["calls"][0][0] = {"name": "wait", "arguments": {"agent": 0}}

    def other_tool(row: dict[str, Any]) -> None:
        row["tools"][1]["function"]["description"] = "Move."

    assert broken(rl, RL_TOOLS_CONFIG, hole_moved) == "extra_info_mismatch"
    assert broken(rl, RL_TOOLS_CONFIG, faster) == "instance_mismatch"
    assert broken(sft, SFT_TOOLS_CONFIG, wrong_call) in ("calls_mismatch", "ground_truth_mismatch")
    assert broken(sft, SFT_TOOLS_CONFIG, other_tool) == "tool_spec_mismatch"
    assert broken(rl, RL_TOOLS_CONFIG, lambda r: r.update(builder="retail")) == "unknown_tool_form"
    assert broken(rl, RL_TOOLS_CONFIG, lambda r: r.update(num_calls="7")) == "schema_violation"


def test_same_inputs_same_bytes(data: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    _write(again, workers=2)  # the form reaches the worker processes

    def digests(root: Path) -> dict[str, str]:
        return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(root.rglob("*")) if p.is_file()}

    assert digests(again) == digests(data)


def test_cli_writes_the_tool_form_and_refuses_environments_without_one(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    run = [sys.executable, "-c", "import sys; from covert.cli import main; sys.exit(main(sys.argv[1:]))"]
    done = subprocess.run([*run, "procgen", "--envs", "mapf_frozenlake", "--form", "tools", "--num-tasks", "3",
                           "--config", '{"grid_size": 4, "agents": 2}', "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "manifest.json", RL_TOOLS_CONFIG, SFT_TOOLS_CONFIG]
    checked = subprocess.run([*run, "validate", str(out)], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    refused = subprocess.run([*run, "procgen", "--envs", "knapsack", "--form", "tools", "--num-tasks", "2", "--out",
                              str(tmp_path / "no")], capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "has no tool form" in refused.stderr and len(refused.stderr.splitlines()) == 1
    with pytest.raises(ProcgenError):
        ProcgenConfig(envs=["mapf_frozenlake"], num_tasks=1, form="speech").validate()


def test_benchmark_grid_in_tool_form(tmp_path: Path) -> None:
    from covert.procgen.mapf_benchmark import noisy_policy, reference_policy, report, write_benchmark

    out = tmp_path / "bench"
    manifest = write_benchmark(out, seed=1, per_cell=2, grid={3: (3, 5), 4: (6,)}, form="tools")
    assert manifest["rows"][f"{RL_TOOLS_CONFIG}/test"] == manifest["rows"][f"{SFT_TOOLS_CONFIG}/test"] == 6
    assert manifest["config"]["form"] == "tools"
    rows = list(iter_rows(out, RL_TOOLS_CONFIG))
    assert sorted(len(r["reward_model"]["ground_truth"]["procgen"]["data"]["starts"]) for r in rows) == [3, 3, 3, 3, 4, 4]
    assert validate_dataset(out).ok
    # the paper-shaped report reads the tool form: a policy's plan is played as move/wait calls
    assert [(line.agents, line.valid, line.optimal) for line in report(rows, reference_policy)] == [
        ("3", 100.0, 100.0), ("4", 100.0, 100.0), ("all", 100.0, 100.0)]
    assert report(rows, noisy_policy(0.0, seed=1))[-1].optimal < 100.0
    sft = {row["task_id"]: row for row in iter_rows(out, SFT_TOOLS_CONFIG)}
    completions = {tid: oracle_completion(row) for tid, row in sft.items()}
    completions[rows[0]["task_id"]] = "Agent 0: UP"  # text, no tool calls: neither valid nor optimal
    assert report(rows, completions)[-1].optimal == pytest.approx(500 / 6)


def test_the_builder_resolves_by_name_but_is_not_listed() -> None:
    builder = get_builder(BUILDER)
    assert builder.environment is MapfToolsEnv and BUILDER not in builder_names()
    assert builder.version == f"{ENV.version}.1"
    state = builder.state(0, 0)  # a seeded instance of the default configuration
    assert state.count("agents") >= 2 and state.counter("time") == 0
    with pytest.raises(UnknownBuilderError, match=r"procgen\.mapf_frozenlake"):
        get_builder("procgen.knapsack")


# -- rewards on loaded rows --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def loaded(data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, dict[str, Any]]]:
    datasets = pytest.importorskip("datasets")
    cache = str(tmp_path_factory.mktemp("cache"))
    files = {"train": sorted(str(p) for p in (data / RL_TOOLS_CONFIG).glob("train-*.parquet"))}
    rl = datasets.load_dataset("parquet", data_files=files, cache_dir=cache)["train"]
    sft_files = {"train": sorted(str(p) for p in (data / SFT_TOOLS_CONFIG).glob("train-*.parquet"))}
    sft = datasets.load_dataset("parquet", data_files=sft_files, cache_dir=cache)["train"]
    return rl, {row["task_id"]: row for row in sft}


def test_loaded_rows_score_one_with_their_oracle_and_less_for_wrong_plans(loaded: Any) -> None:
    rl_rows, sft = loaded
    holes = 0
    for rl in rl_rows:
        oracle = oracle_completion(sft[rl["task_id"]])
        assert score(rl, oracle).value == 1.0
        assert score(sft[rl["task_id"]], oracle).value == 1.0
        truth = rl["reward_model"]["ground_truth"]
        text = hermes(oracle)
        assert compute_score(rl["data_source"], text, truth, rl["extra_info"]) == 1.0
        assert compute_score(rl["data_source"], text, json.dumps(truth), json.dumps(rl["extra_info"])) == 1.0
        late = score(rl, _turns(_late_start(rl)))
        assert late.value < 1.0 and "procgen:not_optimal" in late.reasons
        assert compute_score(rl["data_source"], hermes(_turns(_late_start(rl))), truth, rl["extra_info"]) < 1.0
        hole = _into_hole(rl)
        if hole is not None:
            holes += 1
            got = score(rl, _turns(hole))
            assert got.value < 1.0 and "procgen:refused_hole" in got.reasons
        assert score(rl, "I moved every agent to its goal.").value == 0.0
    assert holes >= 2
    columns = {key: [row[key] for row in rl_rows] for key in rl_rows.column_names}
    completions = [oracle_completion(sft[tid]) for tid in columns["task_id"]]
    completions[1] = _turns(_late_start(rl_rows[1]))
    rewards = trl_reward(completions, **columns)
    assert rewards[0] == 1.0 and rewards[1] < 1.0 and rewards[2:] == [1.0] * (len(rewards) - 2)


# -- trainers' tool paths ------------------------------------------------------------------------------------


def test_trl_environment_classes_run_the_oracle_and_refuse_a_hole(loaded: Any) -> None:
    get_json_schema = pytest.importorskip("transformers.utils").get_json_schema  # what TRL builds schemas with
    rl_rows, _ = loaded
    train = trl_dataset(rl_rows)
    assert set(train["environment"]) == {BUILDER}
    factory = environment_factory(train)
    assert list(factory) == [BUILDER]
    cls = factory[BUILDER]
    # what TRL lists: the class's public functions, in name order, with the rows' schemas
    methods = [n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_") and n != "reset"]
    assert methods == ["look", "move", "wait"]
    specs = {t["function"]["name"]: t["function"] for t in MapfToolsEnv.openai_tools()}
    for name in methods:
        schema = get_json_schema(getattr(cls, name))["function"]
        assert schema["parameters"]["properties"] == specs[name]["parameters"]["properties"]
        assert schema.get("description") == specs[name]["description"]
    for row in train:
        env = cls()
        env.reset(**row)
        for group in row["reward_model"]["ground_truth"]["calls"]:
            for call in group:
                assert "error" not in json.loads(getattr(env, call["name"])(**call["arguments"]))
        assert env._session.state.hash() == row["reward_model"]["ground_truth"]["final_state_hash"]
        assert json.loads(env.look())["time"] == row["reward_model"]["ground_truth"]["procgen"]["data"][
            "optimal_makespan"]
        hole = _into_hole(row)
        if hole is not None:
            env.reset(**row)
            bad = next(c for c, o in zip(hole[0], row["reward_model"]["ground_truth"]["calls"][0]) if c != o)
            assert json.loads(env.move(**bad["arguments"]))["error"]["code"] == "hole"


def test_verl_tools_run_the_oracle_and_reward_it(loaded: Any) -> None:
    yaml = pytest.importorskip("yaml")
    rl_rows, _ = loaded
    config = yaml.safe_load(verl_tool_config([BUILDER]))
    tools = {t["tool_schema"]["function"]["name"]: CovertTool(t["config"], t["tool_schema"]) for t in config["tools"]}
    assert sorted(tools) == ["look", "move", "wait"]
    assert all(t["config"]["builders"] == [BUILDER] for t in config["tools"])

    class AgentData:  # the attributes of verl's AgentData the tool uses
        def __init__(self, row: dict[str, Any]) -> None:
            self.tools_kwargs = verl_tools_kwargs(row)
            self.extra_fields: dict[str, Any] = {}

    async def rollout(row: dict[str, Any], groups: list[list[dict[str, Any]]]) -> tuple[float, list[Any]]:
        agent = AgentData(row)
        errors = []
        reward = 0.0
        for group in groups:
            for call in group:
                tool = tools[call["name"]]
                instance, _ = await tool.create(create_kwargs={})
                response, _, metrics = await tool.execute(instance, call["arguments"], agent_data=agent)
                if metrics["tool_error"]:
                    errors.append(json.loads(response.text)["error"]["code"])
                reward = await tool.calc_reward(instance, agent_data=agent)
                await tool.release(instance)
        return reward, errors

    holes = 0
    for row in rl_rows:
        truth = row["reward_model"]["ground_truth"]
        assert asyncio.run(rollout(row, truth["calls"])) == (1.0, [])
        late, errors = asyncio.run(rollout(row, _late_start(row)))
        assert late < 1.0 and errors == []
        hole = _into_hole(row)
        if hole is not None:
            holes += 1
            value, errors = asyncio.run(rollout(row, hole))
            assert value < 1.0 and errors[0] == "hole"
    assert holes >= 2
