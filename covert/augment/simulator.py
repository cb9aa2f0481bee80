"""The simulated user of an ambiguous-query row, behind covert's user-simulator interface.

The row's ``ground_truth["clarify"]`` records the one value the query leaves out and how the user says
it. :func:`clarify_scenario` turns that into a :class:`covert.user.scenario.UserScenario` (the
goal is the query; the only known item is the missing value), so the template user
(:class:`covert.user.simulator.TemplateUser`) answers a question about it with exactly that
value and nothing else, and an LLM simulator can later stand behind the same interface.
"""

from __future__ import annotations

from typing import Any

from covert.user.scenario import KnownItem, UserScenario
from covert.user.simulator import TemplateUser, UserSimulator

__all__ = ["UserSimulator", "clarify_scenario", "clarify_user", "template_answer"]


def clarify_scenario(truth: dict[str, Any], query: str) -> UserScenario:
    """The user scenario of a clarifying row: the query as goal, the missing value as the one known item."""
    clarify = truth["clarify"]
    item = KnownItem(label=clarify["label"], value=clarify["value"], text=clarify["text"], call=clarify["call"])
    instructions = (f"Your request: {query} You know, and give only when asked: {clarify['label']}: "
                    f"{clarify['text']}. You know nothing else beyond your request.")
    return UserScenario(persona="a customer", goal=query, known=[item], instructions=instructions)


def clarify_user(row: dict[str, Any]) -> TemplateUser:
    """The template user of an augmented clarifying row (SFT or RL)."""
    messages = row["messages"] if "messages" in row else row["prompt"]
    truth = row["ground_truth"] if "ground_truth" in row else row["reward_model"]["ground_truth"]
    query = next(m["content"] for m in messages if m["role"] == "user")
    return TemplateUser(clarify_scenario(truth, query))


def template_answer(truth: dict[str, Any], query: str, question: str) -> str:
    """What the template user answers to the assistant's clarifying question."""
    return TemplateUser(clarify_scenario(truth, query)).reply({"role": "assistant", "content": question}).content
