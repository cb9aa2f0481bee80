"""Online rollouts: agent <-> environment <-> simulated user until a stop signal or a turn limit.

A policy is any callable ``(messages, tools) -> assistant message`` (an OpenAI-style dict with
``content`` and optional ``tool_calls``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import orjson

from covert.conversation.user_errors import detect_user_errors
from covert.env import Environment, from_row
from covert.user.scenario import UserScenario
from covert.user.simulator import STOP_SIGNALS, TemplateUser, UserSimulator

Policy = Callable[[list[dict[str, Any]], list[dict[str, Any]]], dict[str, Any]]
MAX_TURNS = 30
STOP_TURN_LIMIT = "turn_limit"
STOP_NO_USER = "no_user"
STOP_POLICY_ERROR = "policy_error"


@dataclass
class Rollout:
    """One finished rollout.

    Attributes:
        messages: The whole trajectory, prompt first.
        final_state_hash: Hash of the environment state at the end.
        reward: The composite reward (``covert.rewards.Score``).
        stop: Why it ended (``done``, ``transfer``, ``out_of_scope``, ``no_user``, ``turn_limit``...).
        steps: Environment steps (tool calls) plus user steps.
        user_errors: Flags from the user-error detector; ``masked`` is True when there are any.
    """

    messages: list[dict[str, Any]]
    final_state_hash: str
    reward: Any
    stop: str
    steps: int
    user_errors: list[str] = field(default_factory=list)

    @property
    def masked(self) -> bool:
        """Whether the simulated user spoiled this rollout (drop it from the advantage)."""
        return bool(self.user_errors)


def user_for(row: dict[str, Any]) -> UserSimulator | None:
    """The template user of a row that carries a user scenario (or, for an ambiguous-query row, the
    user who holds the missing value), else ``None``."""
    scenario = (row.get("extra_info") or {}).get("user_scenario")
    if scenario:
        return TemplateUser(UserScenario.from_dict(scenario))
    if ((row.get("reward_model") or {}).get("ground_truth") or {}).get("clarify"):
        from covert.augment import clarify_user

        return clarify_user(row)
    return None


def _present(row: dict[str, Any]) -> Any:
    """How tool outputs are shown: as the row's augmentation presents them (noise, formats), else JSON."""
    if row.get("augmentations"):
        from covert.augment import output_presenter

        return output_presenter(row)
    return None


def _execute(env: Environment, call: dict[str, Any], present: Any = None) -> tuple[str, str]:
    function = call.get("function") or {}
    name = function.get("name", "")
    arguments = function.get("arguments")
    output = env.call(name, arguments)
    if present is not None:
        return name, present(name, arguments, output)
    return name, orjson.dumps(output).decode()


def run(policy: Policy, row: dict[str, Any], user: UserSimulator | str | None = "auto",
        max_turns: int = MAX_TURNS, reward: bool = True) -> Rollout:
    """Roll ``policy`` out on one RL row; ``user="auto"`` uses the row's scenario (template user).
    ``reward=False`` skips scoring (``Rollout.reward`` is then ``None``)."""
    from covert.rewards.composite import score

    if user == "auto":
        user = user_for(row)
    env = from_row(row)
    present = _present(row)
    prompt = [dict(m) for m in row["prompt"]]
    messages = list(prompt)
    tools = row["tools"]
    steps = 0
    stop = STOP_TURN_LIMIT
    for _ in range(max_turns):
        try:
            assistant = policy(messages, tools)
        except Exception as exc:  # a crashing policy ends its own rollout, not the batch
            messages.append({"role": "assistant", "content": f"[policy error: {type(exc).__name__}]"})
            stop = STOP_POLICY_ERROR
            break
        messages.append(assistant)
        calls = assistant.get("tool_calls") or []
        if calls:
            for call in calls:
                name, content = _execute(env, call, present)
                messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "name": name, "content": content})
                steps += 1
            continue
        if user is None:
            stop = STOP_NO_USER
            break
        turn = user.reply(assistant)
        messages.append({"role": "user", "content": turn.content})
        steps += 1
        if turn.stop is not None:
            stop = turn.stop
            break
    completion = messages[len(prompt):]
    scenario = getattr(user, "scenario", None)
    errors = detect_user_errors(completion, scenario) if scenario is not None else []
    # the user's closing words ("thanks, that's all") are not part of what the agent is scored on
    scored = completion[:-1] if stop in STOP_SIGNALS and completion and completion[-1]["role"] == "user" else completion
    return Rollout(messages, env.state.hash(), score(row, scored) if reward else None, stop, steps, errors)


def run_many(policy_for: Callable[[dict[str, Any]], Policy], rows: Iterable[dict[str, Any]],
             concurrency: int = 8, max_turns: int = MAX_TURNS) -> list[Rollout]:
    """Roll out many rows concurrently (threads: LLM policies wait on I/O); results keep row order.

    ``policy_for(row)`` makes the policy of one rollout (so stateful policies are not shared).
    """
    rows = list(rows)
    if concurrency <= 1:
        return [run(policy_for(r), r, max_turns=max_turns) for r in rows]
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(lambda r: run(policy_for(r), r, max_turns=max_turns), rows))
