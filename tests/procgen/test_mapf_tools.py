"""The tool-call form of MAPF-FrozenLake: tools refuse illegal and conflicting actions, the oracle calls reach
the optimal final state, covert.rewards.score scores rows by final-state matching, and it agrees with the
text scorer on valid plans."""

from __future__ import annotations

import json
import random

from covert.env import State
from covert.procgen.envs.mapf_frozenlake import ENV
from covert.procgen.mapf_grid import MapfMap
from covert.procgen.mapf_moves import parse_plan
from covert.procgen.mapf_tools import (
    MAX_CALLS,
    TOOL_FORM,
    MapfToolsEnv,
    expected_state,
    initial_state,
    oracle_calls,
)
from covert.procgen.tool_rows import make_tool_rows
from covert.rewards import score


def _messages(calls: list[dict], as_text: bool = False) -> list[dict]:
    tool_calls = [{"id": f"c{i}", "type": "function",
                   "function": {"name": c["name"], "arguments": json.dumps(c["arguments"]) if as_text else c["arguments"]}}
                  for i, c in enumerate(calls)]
    return [{"role": "assistant", "content": "", "tool_calls": tool_calls},
            {"role": "assistant", "content": "All agents are on their goals."}]


def _plan(instance) -> list[list[str]]:
    return [list(m) for m in parse_plan(ENV.reference(instance), len(instance.data["starts"])).moves]


def _row(seed: int, config: dict, index: int) -> tuple[dict, object]:
    """The RL tool row of an instance, and the instance."""
    _, rl, instance = make_tool_rows(ENV, TOOL_FORM, seed, ENV.check_config(config), index, "train", 0)
    return rl, instance


def test_oracle_calls_reach_the_expected_state_and_score_one() -> None:
    for index in range(6):
        row, instance = _row(2, {"grid_size": 6, "agents": 2 + index % 4, "hole_percent": 20}, index)
        env = MapfToolsEnv(row["extra_info"]["initial_state"])
        calls = [c for group in row["reward_model"]["ground_truth"]["calls"] for c in group]
        assert calls == oracle_calls(_plan(instance))
        for call in calls:
            result = env.call(call["name"], call["arguments"])
            assert "error" not in result, result
        assert env.state.hash() == row["reward_model"]["ground_truth"]["final_state_hash"]
        assert env.call("look")["time"] == instance.data["optimal_makespan"]
        row = json.loads(json.dumps(row))  # as a loader hands it back
        assert score(row, _messages(calls)).value == 1.0
        assert score(row, _messages(calls, as_text=True)).value == 1.0


def test_tools_refuse_illegal_and_conflicting_actions() -> None:
    # a 3x3 lake, hole in the centre; agent 0 at (0, 0) -> (0, 2), agent 1 at (0, 1) -> (2, 1)
    grid = MapfMap(3, ((1, 1),), ((0, 0), (0, 1)), ((0, 2), (2, 1)))
    data = {**grid.to_data(), "optimal_makespan": 4}
    env = MapfToolsEnv(initial_state(data))
    assert env.call("move", {"agent": 0, "direction": "UP"})["error"]["code"] == "off_map"
    assert env.call("move", {"agent": 1, "direction": "DOWN"})["error"]["code"] == "hole"
    assert env.call("wait", {"agent": 7})["error"]["code"] == "unknown_agent"
    assert env.call("move", {"agent": 0, "direction": "NORTH"})["error"]["code"] == "invalid_arguments"
    assert env.call("move", {"agent": 0, "direction": "RIGHT"})["step_ran"] is False
    assert env.call("wait", {"agent": 0})["error"]["code"] == "already_queued"
    assert env.call("move", {"agent": 1, "direction": "LEFT"})["error"]["code"] == "conflict"  # a swap
    assert env.call("wait", {"agent": 1})["error"]["code"] == "conflict"  # agent 0 moves onto its cell
    done = env.call("move", {"agent": 1, "direction": "RIGHT"})  # following agent 0's lead is fine
    assert done["step_ran"] and done["time"] == 1
    view = env.call("look")
    assert [(a["row"], a["col"]) for a in view["agents"]] == [(0, 1), (0, 2)]
    assert view["rows"] == ["FFF", "FHF", "FFF"]


def test_tool_form_agrees_with_the_text_scorer_on_valid_plans() -> None:
    rng = random.Random(5)
    checked = 0
    for index in range(30):
        row, instance = _row(9, {"grid_size": 5, "agents": 3, "hole_percent": 10}, index)
        plan = _plan(instance)
        for _ in range(4):
            variant = [list(m) for m in plan]
            agent = rng.randrange(len(variant))
            variant[agent].insert(rng.randint(0, len(variant[agent])), rng.choice(["WAIT", "UP", "DOWN", "LEFT", "RIGHT"]))
            text = ENV.score(instance, "\n".join(f"Agent {i}: {', '.join(m)}" for i, m in enumerate(variant)))
            tools = score(row, _messages(oracle_calls(variant)))
            if text.details["valid"]:
                checked += 1
                assert tools.value > 0.5
                assert (tools.value == 1.0) == text.details["optimal"]
            if text.details["holes"] or text.details["out_of_bounds"]:
                assert any(r.startswith("procgen:refused_") for r in tools.reasons)
    assert checked > 10


def test_garbage_completions_score_zero_and_work_is_bounded() -> None:
    row, _ = _row(1, {"grid_size": 4, "agents": 2}, 0)
    flood = [{"name": "wait", "arguments": {"agent": 0}}] * (MAX_CALLS + 50)
    for completion in (None, "", "I moved them.", 42, [{"role": "tool", "content": "x"}], _messages(flood),
                       _messages([{"name": "rm", "arguments": {"path": "/"}}]),
                       [{"role": "assistant", "tool_calls": "nope"}]):
        got = score(row, completion)
        assert got.value < 1.0 and got.reasons, completion if not isinstance(completion, list) else len(completion)
    assert "procgen:too_many_calls" in score(row, _messages(flood)).reasons


def test_expected_state_is_the_goal_configuration() -> None:
    instance = ENV.sample(4, {"grid_size": 7, "agents": 4, "hole_percent": 30}, 0)
    state = expected_state(instance.data)
    assert isinstance(state, State)
    goals = [tuple(g) for g in instance.data["goals"]]
    assert [(a["row"], a["col"]) for _, a in state.records("agents")] == goals
    assert state.counter("time") == instance.data["optimal_makespan"]
