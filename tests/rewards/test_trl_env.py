"""TRL routing, environments and the ask-the-user tool, without TRL: each row's environment class
offers exactly its tools, ask_user reaches covert's template user, and the reward reads the questions
as user turns. (tests/rewards/test_trl_grpo.py runs the same inside TRL's GRPOTrainer.)"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import datasets
import pytest

from covert.env import get_builder
from covert.io.reader import iter_rows
from covert.rewards import environment_factory, score, trl_dataset, trl_reward
from covert.rewards.trl import USER_TOOL, environment_name, user_turns
from covert.rewards.trl_env import MAX_QUESTIONS, environment_class

CONFIGS = ("rl", "rl-multiturn", "rl-augmented")


def _methods(cls: type) -> list[str]:
    """What TRL lists as an environment's tools: the class's public functions but reset/get_reward."""
    return [n for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
            if not n.startswith("_") and n not in ("reset", "get_reward")]


def _trl_rollout(env: Any, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A recorded conversation replayed the way TRL runs it: each tool call on the environment's
    methods, each assistant question followed by a user reply as an ask_user call; messages as TRL
    collects them (no call ids)."""
    start = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
    rest = messages[start:]
    out = []
    for i, message in enumerate(rest):
        if message["role"] != "assistant":
            continue
        if message.get("tool_calls"):
            calls = [{"type": "function", "function": dict(c["function"])} for c in message["tool_calls"]]
        elif i + 1 < len(rest) and rest[i + 1]["role"] == "user":
            calls = [{"type": "function", "function": {"name": USER_TOOL, "arguments": {"question": message["content"]}}}]
        else:
            out.append({"role": "assistant", "content": message["content"]})
            continue
        out.append({"role": "assistant", "content": "", "tool_calls": calls})
        for call in calls:
            function = call["function"]
            out.append({"role": "tool", "name": function["name"],
                        "content": getattr(env, function["name"])(**function["arguments"])})
    return out


def _columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {key: [row[key] for row in rows] for key in rows[0]}


def test_every_row_routes_to_a_class_offering_exactly_its_tools(conversations: Path) -> None:
    for config in CONFIGS:
        rows = trl_dataset(list(iter_rows(conversations, config)))
        factory = environment_factory(rows)
        for row in rows:
            cls = factory[row["environment"]]
            want = sorted(t["function"]["name"] for t in row["tools"])
            asks = bool((row["extra_info"] or {}).get("user_scenario"))
            assert _methods(cls) == sorted([*want, USER_TOOL] if asks else want)
            assert cls.builder == row["builder"] and cls.asks_user == asks
        names = {row["environment"] for row in rows}
        assert set(factory) == names
        if config == "rl":
            # a row that offers one tool routes to a one-tool class; a full tool set to the builder's own
            assert any(len(_methods(factory[n])) == 1 for n in names)
            assert {"retail", "airline"} <= names
        if config == "rl-multiturn":
            assert all("/" in n for n in names)  # every conversation row offers ask_user
        if config == "rl-augmented":
            extra = [r for r in rows if any(t["function"]["name"] not in get_builder(r["builder"]).tools
                                            for t in r["tools"])]
            assert extra and all("/" in r["environment"] for r in extra)
        # routing is deterministic and idempotent
        assert [environment_name(r) for r in trl_dataset(rows)] == [r["environment"] for r in rows]


def test_a_dataset_routes_like_its_rows_and_unrouted_rows_are_refused(conversations: Path) -> None:
    for config in ("rl", "rl-multiturn"):
        ds = datasets.load_dataset(str(conversations), config, split="train")
        routed = trl_dataset(ds)
        assert set(routed.column_names) == set(ds.column_names)
        assert routed["environment"] == [environment_name(r) for r in iter_rows(conversations, config, split="train")]
        assert routed["task_id"] == ds["task_id"]
        assert set(environment_factory(routed)) == set(routed["environment"])
        with pytest.raises(ValueError, match="trl_dataset"):
            environment_factory(ds)  # environment still names the builder: TRL would show other tools


def test_a_distractor_is_shown_and_answers_unknown_tool(conversations: Path) -> None:
    rows = trl_dataset(list(iter_rows(conversations, "rl-augmented")))
    row = next(r for r in rows if any(a["kind"] == "distractors" for a in r["augmentations"]))
    env = environment_factory([row])[row["environment"]]()
    env.reset(**{k: v for k, v in row.items() if k != "environment"})
    distractor = next(t["function"] for t in row["tools"] if t["function"]["name"] not in get_builder(row["builder"]).tools)
    assert json.loads(getattr(env, distractor["name"])())["error"]["code"] == "unknown_tool"
    assert env.log[-1].name == distractor["name"]


def _loaded(root: Path, config: str, cache: Path) -> list[dict]:
    """Every row of a config as users load it (``datasets.load_dataset``, a fresh cache)."""
    loaded = datasets.load_dataset(str(root), config, cache_dir=str(cache))
    return [row for split in sorted(loaded) for row in loaded[split]]


def test_every_conversation_is_solved_through_ask_user(conversations: Path, tmp_path: Path) -> None:
    sft = {r["task_id"]: r for r in _loaded(conversations, "sft-multiturn", tmp_path)}
    rows = trl_dataset(_loaded(conversations, "rl-multiturn", tmp_path))
    assert {"hotels", "smart_home"} <= {r["builder"] for r in rows}
    factory = environment_factory(rows)
    completions, asked = [], 0
    for row in rows:
        env = factory[row["environment"]]()
        env.reset(**{k: v for k, v in row.items() if k != "environment"})
        completion = _trl_rollout(env, sft[row["task_id"]]["messages"])
        users = [m["content"] for m in sft[row["task_id"]]["messages"] if m["role"] == "user"][1:]
        assert [a for _, a in env.questions] == users  # the template user answers as it did when recorded
        asked += bool(users)
        completions.append(completion)
    rewards = trl_reward(completions, **_columns(rows))
    assert rewards == [1.0] * len(rows)
    # rows whose user holds a value the opening lacks; read as plain calls, the questions cost reward
    needs = [i for i, r in enumerate(rows) if r["extra_info"]["user_scenario"]["known"]]
    assert needs and asked >= len(needs)
    for i in needs:
        plain = {**rows[i], "environment": rows[i]["builder"]}
        assert score(plain, completions[i]).value < 1.0
        assert score(plain, user_turns(completions[i])).value == 1.0
    # a rollout that guesses instead of asking loses reward
    i = needs[0]
    guess = [m for m in completions[i] if not (m["role"] == "tool" and m["name"] == USER_TOOL)]
    guess = [m for m in guess if not (m["role"] == "assistant" and any(
        c["function"]["name"] == USER_TOOL for c in m.get("tool_calls") or []))]
    first = next(m for m in guess if m.get("tool_calls"))
    key = next(k for k, v in first["tool_calls"][0]["function"]["arguments"].items() if isinstance(v, str))
    first["tool_calls"][0]["function"]["arguments"] = {**first["tool_calls"][0]["function"]["arguments"], key: "ZZ123"}
    assert trl_reward([guess], **_columns([rows[i]]))[0] < 1.0


def test_user_turns_reads_questions_and_leaves_the_rest() -> None:
    ask = {"type": "function", "function": {"name": USER_TOOL, "arguments": {"question": "Your email?"}}}
    other = {"type": "function", "function": {"name": "get_order", "arguments": {"order_id": "#W1"}}}
    completion = [
        {"role": "assistant", "content": "Sure.", "tool_calls": [other, ask]},
        {"role": "tool", "name": "get_order", "content": "{}"},
        {"role": "tool", "name": USER_TOOL, "content": "It is a@b.c."},
        {"role": "assistant", "content": "", "tool_calls": [ask]},
        {"role": "tool", "name": USER_TOOL, "content": "I said a@b.c."},
        {"role": "assistant", "content": "Done."},
    ]
    assert user_turns(completion) == [
        {"role": "assistant", "content": "Sure.", "tool_calls": [other]},
        {"role": "tool", "name": "get_order", "content": "{}"},
        {"role": "assistant", "content": "Your email?"},
        {"role": "user", "content": "It is a@b.c."},
        {"role": "assistant", "content": "Your email?"},
        {"role": "user", "content": "I said a@b.c."},
        {"role": "assistant", "content": "Done."},
    ]
    # a malformed question stays a call (which no row offers); text and other messages pass through
    bad = [{"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": USER_TOOL, "arguments": {"q": 1}}}]},
        {"role": "tool", "name": USER_TOOL, "content": "{'error': 'unexpected keyword'}"}]
    assert user_turns(bad) == bad
    assert user_turns("<tool_call>{}</tool_call>") == "<tool_call>{}</tool_call>"
    truncated = [{"role": "assistant", "content": "", "tool_calls": [ask]}]
    assert user_turns(truncated) == truncated


def test_ask_user_is_bounded(conversations: Path) -> None:
    rows = trl_dataset(list(iter_rows(conversations, "rl-multiturn")))
    row = next(r for r in rows if r["extra_info"]["user_scenario"]["known"])
    env = environment_factory([row])[row["environment"]]()
    with pytest.raises(RuntimeError):
        env.ask_user(question="Hello?")
    env.reset(**row)
    assert json.loads(env.ask_user(question="  "))["error"]["code"] == "invalid_arguments"
    assert json.loads(env.ask_user(question=None))["error"]["code"] == "invalid_arguments"
    known = row["extra_info"]["user_scenario"]["known"][0]
    answer = env.ask_user(question=f"What is your {known['label']}" + " please" * 10_000)  # long, and no "?"
    assert known["text"].lower().rstrip(".") in answer.lower() and len(env.questions[0][0]) > 60_000
    assert "don't know" in env.ask_user(question="What is your favourite colour?")
    for _ in range(MAX_QUESTIONS):
        last = env.ask_user(question="Anything else?")
    assert json.loads(last)["error"]["code"] == "too_many_questions"
    env.reset(**row)
    assert env.questions == [] and "error" not in env.ask_user(question="Anything else?")
    # a class without a user scenario offers no ask_user, and a tool named like a reserved method is refused
    plain = environment_class(row["builder"])
    assert USER_TOOL not in _methods(plain)
    with pytest.raises(ValueError, match="cannot be a TRL environment method"):
        environment_class("retail", [{"type": "function", "function": {"name": "reset", "parameters": {}}}])
    with pytest.raises(ValueError, match="twice"):
        environment_class("retail", [{"type": "function", "function": {"name": USER_TOOL, "parameters": {}}}],
                          ask_user=True)
