"""TRL and verl integration, and the RL utilities."""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import pickle
from typing import Any

import pytest

from covert.env import builder_names, get_builder
from covert.rewards import environment_advantages, oracle_completion, score, user_error_mask
from covert.rewards.trl import environment_class, environment_factory, make_trl_reward, trl_reward
from covert.rewards.verl import (
    CovertTool,
    compute_score,
    verl_tool_config,
    verl_tool_names,
    verl_tools_kwargs,
)

from .test_composite import hermes


def _writing_row(pairs) -> tuple[dict[str, Any], dict[str, Any]]:
    return next((rl, sft) for rl, sft in pairs
                if rl["reward_model"]["ground_truth"]["state_diff"] and rl["num_calls"] >= 2)


def test_trl_reward_scores_completions_against_their_columns(pairs) -> None:
    several_calls = next(pair for pair in pairs[1:] if pair[0]["num_calls"] >= 2)
    chosen = [pairs[0], several_calls, *pairs[2:6]]
    completions = [oracle_completion(sft) for _, sft in chosen]
    completions[1] = completions[1][:1]  # stops after its first tool call: calls and the answer missing
    columns = {key: [rl[key] for rl, _ in chosen] for key in chosen[0][0]}
    columns["trainer_state"] = object()
    columns["completion_ids"] = [[1, 2]] * len(chosen)
    rewards = trl_reward(completions, **columns)
    assert rewards == [score(rl, c).value for (rl, _), c in zip(chosen, completions)]
    assert rewards[0] == 1.0 and rewards[1] < 1.0
    assert make_trl_reward(name="my_reward").__name__ == "my_reward"


def test_environment_classes_expose_the_tools_with_their_schemas() -> None:
    get_json_schema = pytest.importorskip("transformers.utils").get_json_schema  # what TRL builds schemas with

    factory = environment_factory()
    assert set(factory) >= {"retail", "banking"}
    for name, cls in factory.items():
        env = cls()
        methods = {n: m for n, m in inspect.getmembers(env, predicate=inspect.ismethod)
                   if not n.startswith("_") and n not in ("reset", "get_reward")}
        specs = {s["function"]["name"]: s["function"] for s in get_builder(name).environment.openai_tools()}
        assert set(methods) == set(specs)
        for tool, method in methods.items():
            schema = get_json_schema(method)["function"]
            want = specs[tool]["parameters"]
            got = schema["parameters"]
            assert set(got["properties"]) == set(want["properties"])
            assert set(got.get("required", [])) == set(want.get("required", []))
            for param, spec in want["properties"].items():
                assert got["properties"][param]["type"] == spec["type"]
                assert got["properties"][param].get("enum") == spec.get("enum")
    subset = environment_class("retail", tools=["find_user_id_by_email"])
    assert [n for n, _ in inspect.getmembers(subset(), predicate=inspect.ismethod) if not n.startswith("_")] == [
        "find_user_id_by_email", "reset"]


def test_environment_reset_loads_the_row_and_tools_change_its_state(pairs) -> None:
    rl, _ = _writing_row(pairs)
    env = environment_factory([rl["environment"]])[rl["environment"]]()
    with pytest.raises(RuntimeError):
        getattr(env, rl["reward_model"]["ground_truth"]["calls"][0][0]["name"])()
    assert env.reset(**{k: v for k, v in rl.items() if k != "environment"}) is None
    completion = []
    for group in rl["reward_model"]["ground_truth"]["calls"]:
        completion.append({"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}} for c in group]})
        for call in group:
            output = getattr(env, call["name"])(**call["arguments"])
            assert isinstance(json.loads(output), dict | list)
            completion.append({"role": "tool", "name": call["name"], "content": output})
    assert env._session.state.hash() == rl["reward_model"]["ground_truth"]["final_state_hash"]
    assert len(env.log) == rl["num_calls"]
    # a bad call is an error observation, not an exception
    assert "error" in json.loads(getattr(env, rl["reward_model"]["ground_truth"]["calls"][0][0]["name"])(bogus=1))
    # reset starts over
    env.reset(**rl)
    assert env._session.state.hash() != rl["reward_model"]["ground_truth"]["final_state_hash"] and env.log == []
    other = next(b for b in ("retail", "banking", "airline") if b != rl["environment"])
    with pytest.raises(ValueError):
        environment_class(other)().reset(**rl)


def test_verl_compute_score_reads_hermes_text_and_json_truth(pairs) -> None:
    for rl, sft in pairs[:40]:
        text = hermes(oracle_completion(sft))
        truth = rl["reward_model"]["ground_truth"]
        assert compute_score(rl["data_source"], text, json.dumps(truth), rl["extra_info"]) == 1.0
        assert compute_score(rl["data_source"], text, truth, json.dumps(rl["extra_info"])) == 1.0
    assert compute_score("covert/retail", "<tool_call>{oops", "{}", None) == 0.0
    assert compute_score("covert/nowhere", "", {"calls": []}, {"initial_state": {"tables": {}}}) == 0.0


def test_verl_tool_config_is_valid_yaml_of_the_tools() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load(verl_tool_config("retail"))
    names = [t["tool_schema"]["function"]["name"] for t in config["tools"]]
    assert names == [s["function"]["name"] for s in get_builder("retail").environment.openai_tools()]
    for tool in config["tools"]:
        assert tool["class_name"] == "covert.rewards.verl.CovertTool"
        assert tool["config"] == {"type": "native", "builders": ["retail"], "tool": tool["tool_schema"]["function"]["name"]}
        assert isinstance(tool["tool_schema"]["function"]["parameters"]["required"], list)
    both = yaml.safe_load(verl_tool_config(["retail", "banking"]))
    assert len(both["tools"]) == len(config["tools"]) + len(get_builder("banking").tools)
    # every builder in one config: a name two builders define differently is offered once per builder
    every = yaml.safe_load(verl_tool_config("all"))
    shown = [t["tool_schema"]["function"]["name"] for t in every["tools"]]
    assert len(shown) == len(set(shown)) == sum(len(get_builder(b).tools) for b in builder_names())
    assert "book_room" not in shown and {"hotels__book_room", "calendar__book_room"} <= set(shown)
    names = verl_tool_names(every["tools"])
    assert names[("hotels", "book_room")] == "hotels__book_room" and names[("retail", "cancel_pending_order")] == (
        "cancel_pending_order")


def test_verl_tools_share_one_environment_per_rollout(pairs) -> None:
    yaml = pytest.importorskip("yaml")
    rl, _ = _writing_row(pairs)
    config = yaml.safe_load(verl_tool_config(rl["builder"]))
    tools = {t["tool_schema"]["function"]["name"]: CovertTool(t["config"], t["tool_schema"]) for t in config["tools"]}
    kwargs = verl_tools_kwargs(rl)
    assert set(kwargs) == {"covert"}  # one entry every tool reads, not a copy of the state per tool
    assert kwargs["covert"]["create_kwargs"]["initial_state"] is rl["extra_info"]["initial_state"]

    class AgentData:  # the attributes of verl's AgentData the tool uses
        def __init__(self) -> None:
            self.tools_kwargs = kwargs
            self.extra_fields: dict[str, Any] = {}

    async def rollout() -> tuple[list[float], dict[str, Any]]:
        agent = AgentData()
        rewards = []
        for group in rl["reward_model"]["ground_truth"]["calls"]:
            for call in group:
                tool = tools[call["name"]]
                instance, _ = await tool.create(create_kwargs={})  # verl: tools_kwargs.get(name, {})
                response, step_reward, metrics = await tool.execute(instance, call["arguments"], agent_data=agent)
                assert step_reward == 0.0 and metrics == {"tool_error": False}
                assert json.loads(response.text)
                rewards.append(await tool.calc_reward(instance, agent_data=agent))
                await tool.release(instance)
        return rewards, agent.extra_fields

    rewards, extra = asyncio.run(rollout())
    assert rewards[-1] == 1.0 and rewards[0] < 1.0
    # only plain values are left where verl sends them between workers
    assert pickle.loads(pickle.dumps(extra)) == {"covert_calls": rl["num_calls"],
                                                 "covert_state_hash": rl["reward_model"]["ground_truth"]["final_state_hash"]}

    async def without_row() -> str:
        tool = next(iter(tools.values()))
        instance, _ = await tool.create()
        response, _, _ = await tool.execute(instance, {})
        return response.text

    assert json.loads(asyncio.run(without_row()))["error"]["code"] == "no_environment"


def test_environment_level_advantages() -> None:
    rewards = [1.0, 0.0, 1.0, 0.0, 0.5, 0.5]
    envs = ["a", "a", "a", "a", "b", "b"]
    out = environment_advantages(rewards, envs)
    assert out[:4] == pytest.approx([1.0, -1.0, 1.0, -1.0], abs=1e-5)
    assert out[4:] == pytest.approx([0.0, 0.0])
    # masked rollouts get 0 and do not move the statistics
    masked = environment_advantages([1.0, 0.0, 100.0], ["a", "a", "a"], mask=user_error_mask([False, False, True]))
    assert masked[2] == 0.0 and masked[:2] == pytest.approx([1.0, -1.0], abs=1e-5)
    # group-centred, environment-scaled
    grouped = environment_advantages([1.0, 0.0, 0.0, 0.0], ["a"] * 4, groups=["p", "p", "q", "q"])
    std = math.sqrt(3 / 16)
    assert grouped == pytest.approx([0.5 / std, -0.5 / std, 0.0, 0.0], rel=1e-4)
    assert environment_advantages([2.0, 4.0], ["a", "a"], scale=False) == [-1.0, 1.0]
    assert user_error_mask([True, False]) == [False, True]
    with pytest.raises(ValueError):
        environment_advantages([1.0], ["a", "b"])
