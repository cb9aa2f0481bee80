"""Multi-turn conversations from a task: the user states the goal, the assistant asks for what it
needs, calls tools, confirms before writes where the domain asks for it, and answers.

The user turns are produced by driving the :class:`TemplateUser` with the scripted assistant turns, so
the SFT conversation is exactly what that simulator says. The oracle calls and final state are the
task's own, whatever the dialogue.
"""

from __future__ import annotations

import random
from typing import Any

from covert.conversation.scenario import UserScenario, scenario_of
from covert.conversation.simulator import TemplateUser
from covert.env import Builder, item_rng
from covert.values import finish_sentence, join_phrases, render
from covert.views import call_id, tool_content

ASK_TEMPLATES = ("What {label} should I use?", "Happy to help. Could you tell me the {label}?",
                 "Sure. To look that up, what {label} should I use?")
WHICH_TEMPLATES = ("Which {label} do you mean?", "Could you tell me which {label} this is about?")
CONFIRM_TEMPLATES = ("Just to confirm before I make the change: {action}. Shall I go ahead?",
                     "I'm about to do the following: {action}. Do you want me to proceed?")
GREETINGS = ("", "Hi,", "Hello,", "Hi there,")


class ConversationError(ValueError):
    """A task whose conversation cannot be scripted (the reason is a short code)."""


def opening_of(task: Any, rng: random.Random) -> str:
    """The user's first message: the goal without the details the assistant will ask for."""
    asks = task.dialogue.get("asks") or [task.query]
    text = " ".join(finish_sentence(a) for a in asks)
    greeting = rng.choice(GREETINGS)
    return f"{greeting} {text[0].lower() + text[1:]}" if greeting.endswith(",") and not text.startswith("I") else \
        (f"{greeting} {text}" if greeting else text)


def describe_actions(builder: Builder, calls: list[Any]) -> str:
    """A plain description of write calls, for the confirmation turn: per tool its first sentence,
    then the arguments of each call."""
    by_tool: dict[str, list[str]] = {}
    for call in calls:
        details = ", ".join(f"{k.replace('_', ' ')} {render(v)}" for k, v in call.arguments.items())
        by_tool.setdefault(call.name, []).append(details)
    parts = []
    for name, details in by_tool.items():
        summary = builder.tools[name].description.split(". ")[0].rstrip(".")
        parts.append(f"{summary[0].lower() + summary[1:]} ({'; '.join(details)})")
    return join_phrases(parts)


def plan_text(builder: Builder, task: Any, group: list[int], first: bool) -> str:
    """A short plan for the reasoning content of a tool-call turn."""
    steps = [builder.tools[task.calls[i].name].description.rstrip(".") for i in group]
    if first:
        remaining = len(task.calls) - len(group)
        tail = f" Then {remaining} more step(s) before I can answer." if remaining else ""
        return "The user wants: " + _trim(task.dialogue.get("asks", [task.query])) + ". First: " + "; ".join(steps) + "." + tail
    return "Next: " + "; ".join(steps) + "."


def conversation(task: Any, builder: Builder, thinking: bool = True,
                 first_plan: str | None = None) -> tuple[list[dict[str, Any]], UserScenario]:
    """The multi-turn messages of a task and the user scenario behind them. ``first_plan`` (an LLM's
    plan, when one is configured) replaces the template plan of the first tool-call turn."""
    rng = item_rng("dialogue", task.task_id)
    opening = opening_of(task, rng)
    scenario = scenario_of(task, builder, opening)
    user = TemplateUser(scenario)
    messages: list[dict[str, Any]] = [{"role": "system", "content": task.system_prompt},
                                      {"role": "user", "content": user.opening()}]
    pending = list(enumerate(scenario.known))
    for turn, group in enumerate(task.groups):
        for index, item in [p for p in pending if p[1].call in group]:
            pending.remove((index, item))
            if index in user.revealed:
                continue
            template = WHICH_TEMPLATES if _is_selection(task, item.call) and " and " not in item.label else ASK_TEMPLATES
            question = {"role": "assistant", "content": rng.choice(template).format(label=item.label)}
            answer = user.reply(question)
            if answer.stop is not None or item.label not in answer.revealed:
                raise ConversationError("user_did_not_answer")
            messages += [question, {"role": "user", "content": answer.content}]
        if builder.confirm_writes and any(builder.tools[task.calls[i].name].writes for i in group):
            action = describe_actions(builder, [task.calls[i] for i in group
                                                if builder.tools[task.calls[i].name].writes])
            question = {"role": "assistant", "content": rng.choice(CONFIRM_TEMPLATES).format(action=action)}
            answer = user.reply(question)
            messages += [question, {"role": "user", "content": answer.content}]
        call_turn: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": [
            {"id": call_id(task.task_id, i), "type": "function",
             "function": {"name": task.calls[i].name, "arguments": task.calls[i].arguments}} for i in group]}
        if thinking:
            call_turn["reasoning_content"] = first_plan if (turn == 0 and first_plan) else \
                plan_text(builder, task, group, turn == 0)
        messages.append(call_turn)
        for i in group:
            messages.append({"role": "tool", "tool_call_id": call_id(task.task_id, i), "name": task.calls[i].name,
                             "content": tool_content(task.calls[i].output)})
    final: dict[str, Any] = {"role": "assistant", "content": task.answer}
    if thinking:
        final["reasoning_content"] = "I have everything I need; I'll report the outcome." if task.calls else \
            "Nothing here fits the tools I have, so I'll explain what I can help with."
    messages.append(final)
    return messages, scenario


def _is_selection(task: Any, call: int) -> bool:
    return any(p.get("selection") and p["call"] == call for p in task.dialogue.get("contexts", []))




def _trim(asks: list[str]) -> str:
    text = " ".join(asks).strip().rstrip(".?!")
    return text[:200]
