"""The task record every view (SFT row, RL row) is made from (a rejected candidate raises
:class:`covert.errors.Rejected`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CATEGORIES = (
    "simple", "multiple", "parallel", "parallel_multiple", "sequential", "state_changing", "irrelevance",
)


@dataclass
class Call:
    """One oracle call with its recorded output."""

    name: str
    arguments: dict[str, Any]
    output: Any


@dataclass
class Task:
    """A replayable task: ``(tools, initial_state, query, oracle) -> (outputs, final_state, answer)``."""

    task_id: str
    builder: str
    builder_version: str
    category: str
    method: str
    seed: int
    index: int
    tools: list[str]
    initial_state: dict[str, Any]
    query: str
    calls: list[Call]
    groups: list[list[int]]
    answer: str
    facts: list[dict[str, Any]]
    selections: list[dict[str, Any]]
    reasoning: list[dict[str, Any]]
    final_state_hash: str
    state_diff: list[dict[str, Any]]
    behaviour: str = "tool_use"
    difficulty: str = "easy"
    system_prompt: str = ""
    augmentations: list[dict[str, Any]] = field(default_factory=list)
    dialogue: dict[str, Any] = field(default_factory=dict)
    user_inputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def signature(self) -> str:
        """The oracle tool sequence, turn by turn (``a|b+c``); irrelevance tasks key on their query."""
        if not self.calls:
            return f"irrelevance:{self.query}"
        return "|".join("+".join(sorted(self.calls[i].name for i in group)) for group in self.groups)

    def ground_truth(self) -> dict[str, Any]:
        """What rewards and validation need: oracle calls by turn, facts, selections, final state."""
        return {
            "behaviour": self.behaviour,
            "calls": [[{"name": self.calls[i].name, "arguments": self.calls[i].arguments} for i in g] for g in self.groups],
            "answer_facts": self.facts,
            "selections": self.selections,
            "reasoning": self.reasoning,
            "final_state_hash": self.final_state_hash,
            "state_diff": self.state_diff,
        }

