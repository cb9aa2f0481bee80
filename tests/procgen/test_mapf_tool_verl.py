"""MAPF-FrozenLake tool rows inside verl itself: verl's Hydra config with the README's overrides, its
``RLHFDataset`` through ``data.custom_cls`` (covert's ``CovertRLHFDataset``) on the ``rl-procgen-tools`` parquet,
``initialize_tools_from_config`` on ``verl_tool_config(["procgen.mapf_frozenlake"])``, ``ToolAgentLoop`` driven by
the scripted server of ``tests/rewards/test_verl.py`` (it emits the oracle's calls as hermes text; verl parses
and runs them on covert's tools), and the reward manager ``load_reward_manager`` makes from
``compute_score``: 1 for the optimal plan, less for a plan that walks an agent into a hole."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

verl = pytest.importorskip("verl")
pytest.importorskip("verl.experimental.agent_loop.tool_agent_loop")

from hydra import compose, initialize_config_dir  # noqa: E402
from verl.tools.tool_registry import initialize_tools_from_config  # noqa: E402
from verl.trainer.ppo.reward import load_reward_manager  # noqa: E402
from verl.utils.dataset.rl_dataset import get_dataset_class  # noqa: E402

from covert.io.reader import iter_rows  # noqa: E402
from covert.procgen.dataset import PlanItem, ProcgenConfig, build_procgen  # noqa: E402
from covert.procgen.envs.mapf_frozenlake import ENV  # noqa: E402
from covert.procgen.tool_rows import RL_TOOLS_CONFIG, SFT_TOOLS_CONFIG  # noqa: E402
from covert.rewards import verl_tool_config  # noqa: E402
from tests.rewards.test_verl import assistant_turns, reward_batch, rollout  # noqa: E402
from tests.tiny_tokenizer import tiny_tool_tokenizer  # noqa: E402

BUILDER = "procgen.mapf_frozenlake"


def _hole_turns(row: dict[str, Any], turns: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The oracle's turns with the first step sending an agent onto a hole next to its start, or ``None``."""
    data = row["reward_model"]["ground_truth"]["procgen"]["data"]
    holes = {tuple(h) for h in data["holes"]}
    for agent, (r, c) in enumerate(data["starts"]):
        for direction, (dr, dc) in {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1)}.items():
            if (r + dr, c + dc) in holes:
                out = json.loads(json.dumps(turns))
                out[0]["tool_calls"][agent]["function"]["arguments"] = {"agent": agent, "direction": direction}
                return out
    return None


def test_tool_agent_loop_runs_mapf_tool_rows_and_the_reward_manager_scores_them(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    items = [PlanItem(ENV.name, ENV.check_config({"grid_size": 4, "agents": 2, "hole_percent": 30}), i)
             for i in range(6)]
    build_procgen(ProcgenConfig(envs=[ENV.name], num_tasks=6, seed=2, split_ratios=(1.0, 0.0, 0.0), form="tools"),
                  out, items=items)
    tools_yaml = tmp_path / "covert_tools.yaml"
    tools_yaml.write_text(verl_tool_config([BUILDER]))
    train = str(out / RL_TOOLS_CONFIG / "train-00000-of-00001.parquet")
    overrides = [f"data.train_files={train}", f"data.val_files={train}",
                 "data.custom_cls.path=pkg://covert.rewards.verl_dataset", "data.custom_cls.name=CovertRLHFDataset",
                 "reward.custom_reward_function.path=pkg://covert.rewards.verl",
                 "reward.custom_reward_function.name=compute_score",
                 "actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent",
                 "actor_rollout_ref.rollout.multi_turn.enable=true", "actor_rollout_ref.rollout.multi_turn.format=hermes",
                 f"actor_rollout_ref.rollout.multi_turn.tool_config_path={tools_yaml}",
                 "actor_rollout_ref.rollout.multi_turn.max_parallel_calls=8",
                 "actor_rollout_ref.rollout.multi_turn.max_tool_response_length=8192",
                 "actor_rollout_ref.rollout.prompt_length=16384", "actor_rollout_ref.rollout.response_length=32768",
                 "data.max_prompt_length=16384"]
    with initialize_config_dir(config_dir=str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        config = compose(config_name="ppo_trainer", overrides=overrides)
    tokenizer = tiny_tool_tokenizer()
    dataset = get_dataset_class(config.data)(data_files=config.data.train_files, tokenizer=tokenizer,
                                             config=config.data)
    tools = initialize_tools_from_config(str(tools_yaml))
    assert sorted(t.name for t in tools) == ["look", "move", "wait"]
    sft = {row["task_id"]: row for row in iter_rows(out, SFT_TOOLS_CONFIG)}
    rows = [dataset[i] for i in range(len(dataset))]
    assert len(rows) == 6 and all(r["tools_kwargs"]["covert"]["create_kwargs"]["environment"] == BUILDER for r in rows)
    holed = [(r, _hole_turns(r, assistant_turns(sft[r["task_id"]]))) for r in rows]
    holed = [(r, h) for r, h in holed if h is not None][:2]
    assert holed

    async def run_all() -> list[tuple[float, float, Any, Any]]:
        manager = load_reward_manager(config, tokenizer)
        results = []
        for row, hole in holed:
            output, server = await rollout(config, tokenizer, dataset, tools, row, assistant_turns(sft[row["task_id"]]))
            good = (await manager.run_single(reward_batch(output, row)))["reward_score"]
            bad_output, bad_server = await rollout(config, tokenizer, dataset, tools, row, hole)
            bad = (await manager.run_single(reward_batch(bad_output, row)))["reward_score"]
            # the policy's prompt offered the row's three tools, with their full schemas
            assert server.prompts[0] == tokenizer.apply_chat_template(row["prompt"], tools=row["tools"],
                                                                      add_generation_prompt=True, tokenize=False)
            results.append((good, bad, output, "".join(bad_server.prompts)))
        return results

    for (row, _), (good, bad, output, bad_prompts) in zip(holed, asyncio.run(run_all())):
        truth = row["reward_model"]["ground_truth"]
        # every oracle call ran on covert's tools inside verl, to the optimal final state
        assert output.extra_fields["covert_calls"] == row["num_calls"]
        assert output.extra_fields["covert_state_hash"] == truth["final_state_hash"]
        assert good == 1.0
        assert bad < 1.0 and '"code":"hole"' in bad_prompts
