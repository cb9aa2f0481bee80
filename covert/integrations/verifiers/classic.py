"""covert rows as an environment of verifiers 0.3's classic API (``MultiTurnEnv``, ``Rubric``); see
:mod:`covert.integrations.verifiers`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson
import verifiers as vf
from datasets import Dataset

from covert.integrations.verifiers.calls import (
    MAX_CALLS_PER_TURN,
    plain_message,
    row_session,
    run_call,
    too_many_calls,
    tool_def,
)
from covert.rewards import score
from covert.rewards.trl_env import user_scenario_of
from covert.user.scenario import UserScenario
from covert.user.simulator import STOP_SIGNALS, TemplateUser

MAX_TURNS = 30
"""Model turns per rollout."""


def verifiers_dataset(rows: Iterable[Mapping[str, Any]]) -> Dataset:
    """covert RL rows as a verifiers dataset: ``prompt``, ``info`` (JSON: the row's tool definitions
    and the row) and ``answer`` (empty: the rubric reads the row)."""
    out = []
    for row in rows:
        row = dict(row)
        info = {"tool_defs": [tool_def(t) for t in row.get("tools") or []], "covert_row": row}
        out.append({"prompt": [dict(m) for m in row["prompt"]], "info": orjson.dumps(info).decode(), "answer": ""})
    return Dataset.from_list(out)


def _row(state: Any) -> dict[str, Any]:
    info = state.get("info")
    if isinstance(info, str):
        info = orjson.loads(info)
    row = info.get("covert_row") if isinstance(info, Mapping) else None
    if not isinstance(row, Mapping):
        raise ValueError("the example has no info['covert_row']: build the dataset with verifiers_dataset(rows)")
    return dict(row)


def scored_completion(completion: Any, state: Any) -> list[dict[str, Any]]:
    """The rollout's messages as covert scores them (the user's closing words left out)."""
    messages = [plain_message(m) for m in completion or []]
    if state.get("covert_stop") in STOP_SIGNALS and messages and messages[-1].get("role") == "user":
        messages = messages[:-1]
    return messages


def covert_reward(completion: Any, state: Any, **_: Any) -> float:
    """covert's reward of a rollout (``covert.rewards.score`` against the example's row)."""
    return score(_row(state), scored_completion(completion, state)).value


class CovertMultiTurnEnv(vf.MultiTurnEnv):
    """A verifiers multi-turn environment on covert rows: tool calls run on the rollout's own covert
    session; text goes to the template user (rows with a user scenario) or ends the rollout."""

    async def setup_state(self, state: Any) -> Any:
        row = _row(state)
        state["covert_session"] = row_session(row)[0]
        scenario = user_scenario_of(row)
        state["covert_user"] = TemplateUser(UserScenario.from_dict(scenario)) if scenario else None
        state["covert_stop"] = None
        return state

    @vf.stop
    async def answered(self, state: Any) -> bool:
        """A message without tool calls ends the rollout when there is no user to read it."""
        if not state["trajectory"] or state.get("covert_user") is not None:
            return False
        last = state["trajectory"][-1]["completion"][-1]
        return last.role == "assistant" and not getattr(last, "tool_calls", None)

    async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
        last = messages[-1]
        calls = getattr(last, "tool_calls", None) or []
        if calls:
            return [vf.ToolMessage(tool_call_id=call.id,
                                   content=run_call(state["covert_session"], call.name, call.arguments)
                                   if k < MAX_CALLS_PER_TURN else too_many_calls())
                    for k, call in enumerate(calls)]
        user: TemplateUser | None = state.get("covert_user")
        if user is None:  # the stop condition ends the rollout first; kept for direct callers
            state["final_env_response"] = []
            return []
        reply = user.reply(plain_message(last))
        said = [vf.UserMessage(content=reply.content)]
        if reply.stop is not None:
            state["covert_stop"] = reply.stop
            state["final_env_response"] = said
        return said


def load_environment(dataset: str = "data/covert-tools", config: str = "rl", split: str = "train",
                     eval_split: str | None = "validation", num_examples: int = -1, max_turns: int = MAX_TURNS,
                     cache_dir: str | None = None, **kwargs: Any) -> CovertMultiTurnEnv:
    """A verifiers environment on a covert dataset (a directory covert wrote, or a Hub repo id):
    ``config`` (``rl`` or ``rl-multiturn``), ``split`` for training and ``eval_split`` for evaluation
    (the training split when the dataset has no such split); ``num_examples`` rows of each (all: -1)."""
    import datasets

    splits = datasets.load_dataset(dataset, config, cache_dir=cache_dir)
    if split not in splits:
        raise ValueError(f"{dataset} {config} has no split {split!r}; it has {sorted(splits)}")

    def rows(name: str) -> Any:
        ds = splits[name]
        return ds.select(range(min(num_examples, len(ds)))) if num_examples >= 0 else ds

    train = verifiers_dataset(rows(split))
    evaluation = verifiers_dataset(rows(eval_split)) if eval_split in splits else train
    rubric = vf.Rubric(funcs=[covert_reward], weights=[1.0])
    return CovertMultiTurnEnv(dataset=train, eval_dataset=evaluation, rubric=rubric, max_turns=max_turns, **kwargs)
