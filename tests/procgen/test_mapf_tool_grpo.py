"""MAPF-FrozenLake tool rows inside TRL's own GRPOTrainer (``environment_factory``), on CPU.

The scripted tiny Qwen3 of ``tests/rewards/test_trl_grpo.py`` emits, in Qwen3's ``<tool_call>`` format, one
assistant message per time step (every agent's ``move``/``wait``), so TRL's tool loop parses the calls and runs
them on the environment class covert made for ``procgen.mapf_frozenlake``; covert's reward scores what TRL
collected: 1 for the optimal plan, less for the same plan one step late.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")

from covert.io.reader import iter_rows  # noqa: E402
from covert.procgen.dataset import PlanItem, ProcgenConfig, build_procgen  # noqa: E402
from covert.procgen.envs.mapf_frozenlake import ENV  # noqa: E402
from covert.procgen.tool_rows import RL_TOOLS_CONFIG, SFT_TOOLS_CONFIG  # noqa: E402
from covert.rewards import score, trl_dataset  # noqa: E402
from tests.rewards.test_trl_grpo import _call_text, _corpus, _train, trl_plan  # noqa: E402


def test_grpo_runs_mapf_tool_rows_and_rewards_the_optimal_plan(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    items = [PlanItem(ENV.name, ENV.check_config({"grid_size": 3, "agents": 2}), i) for i in range(2)]
    build_procgen(ProcgenConfig(envs=[ENV.name], num_tasks=2, seed=4, split_ratios=(1.0, 0.0, 0.0), form="tools"),
                  out, items=items)
    files = [str(p) for p in sorted((out / RL_TOOLS_CONFIG).glob("train-*.parquet"))]
    rows = datasets.load_dataset("parquet", data_files={"train": files}, cache_dir=str(tmp_path / "cache"))["train"]
    train = trl_dataset(rows)
    sft = {row["task_id"]: row for row in iter_rows(out, SFT_TOOLS_CONFIG)}
    plans = {}
    for row in train:
        oracle = trl_plan(sft[row["task_id"]]["messages"])
        agents = len(row["reward_model"]["ground_truth"]["procgen"]["data"]["starts"])
        late = [_call_text([{"name": "wait", "arguments": {"agent": a}} for a in range(agents)]), *oracle]
        plans[row["prompt"][-1]["content"]] = (oracle, late)

    trainer, script, seen, changed = _train(train, plans, tmp_path, _corpus(train, sft))

    assert trainer.state.global_step == 2 and changed
    for row in train:  # TRL showed each prompt the three tools, in name order
        assert [t["function"]["name"] for t in script.shown[row["prompt"][-1]["content"]]] == ["look", "move", "wait"]
    by_task = {row["task_id"]: row for row in train}
    values: dict[bool, list[float]] = {True: [], False: []}
    for task_id, completion, value in seen:
        row = by_task[task_id]
        calls = [c["function"] for m in completion if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        results = [json.loads(m["content"]) for m in completion if m["role"] == "tool"]
        optimal = calls == [c for g in row["reward_model"]["ground_truth"]["calls"] for c in g]
        values[optimal].append(value)
        # TRL's loop ran covert's tools: every call accepted, the clock at the makespan reached
        assert results and all("error" not in r for r in results)
        makespan = row["reward_model"]["ground_truth"]["procgen"]["data"]["optimal_makespan"]
        assert results[-1]["all_at_goal"] and results[-1]["time"] == makespan + (0 if optimal else 1)
        assert score(row, completion).value == value
    assert values[True] and values[True] == [1.0] * len(values[True])
    assert values[False] and max(values[False]) < 1.0

