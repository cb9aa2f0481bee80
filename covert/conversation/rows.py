"""Multi-turn views of a task: the ``sft-multiturn`` row and the ``rl-multiturn`` row."""

from __future__ import annotations

from typing import Any

from covert.conversation.dialogue import ConversationError, conversation
from covert.env import get_builder
from covert.views import rl_row, sft_row


def multiturn_rows(task: Any, split: str, index: int, thinking: bool = True,
                   first_plan: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The multi-turn SFT row (a whole conversation) and the RL row that carries the user scenario for
    online rollouts (its prompt is the opening message only)."""
    builder = get_builder(task.builder)
    messages, scenario = conversation(task, builder, thinking, first_plan)
    if task.calls and not scenario.known:
        # a conversation exists because the user holds something back that the agent must ask for; a task
        # whose user has nothing to hand over would be one request and a "yes" (the build draws another)
        raise ConversationError("nothing_held_back")
    sft = sft_row(task)
    sft["messages"] = messages
    rl = rl_row(task, split, index)
    rl["prompt"] = messages[:2]
    rl["extra_info"] = {**rl["extra_info"], "user_scenario": scenario.to_dict()}
    return sft, rl
