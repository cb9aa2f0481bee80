"""Multi-turn views of a task: the ``sft-multiturn`` row and the ``rl-multiturn`` row."""

from __future__ import annotations

from typing import Any

from covert.conversation.dialogue import conversation
from covert.env import get_builder
from covert.views import rl_row, sft_row


def multiturn_rows(task: Any, split: str, index: int, thinking: bool = True,
                   first_plan: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The multi-turn SFT row (a whole conversation) and the RL row that carries the user scenario for
    online rollouts (its prompt is the opening message only)."""
    builder = get_builder(task.builder)
    messages, scenario = conversation(task, builder, thinking, first_plan)
    sft = sft_row(task)
    sft["messages"] = messages
    rl = rl_row(task, split, index)
    rl["prompt"] = messages[:2]
    rl["extra_info"] = {**rl["extra_info"], "user_scenario": scenario.to_dict()}
    return sft, rl
