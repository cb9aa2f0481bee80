"""Multi-turn conversations from a task: the user states the goal, the assistant asks for what it
needs, calls tools, confirms before writes where the domain asks for it, and answers.

The user turns are produced by driving the :class:`TemplateUser` with the scripted assistant turns, so
the SFT conversation is exactly what that simulator says. The oracle calls and final state are the
task's own, whatever the dialogue. When the task's query hands everything over at once, one value is
held back from the opening (:mod:`covert.conversation.holdback`) so the agent has something to ask for.
"""

from __future__ import annotations

import random
import re
from functools import cache
from types import SimpleNamespace
from typing import Any

from covert.conversation.holdback import hold_back
from covert.env import Builder, item_rng
from covert.language.dialogue_templates import (
    ASK_BACK,
    ASK_BACK_ANSWERS,
    ASK_TEMPLATES,
    CONFIRM_TEMPLATES,
    WHICH_TEMPLATES,
)
from covert.language.phrasing import action_phrase, final_plan, plan_text
from covert.language.values import finish_sentence, join_phrases, mentions, normalize_text
from covert.user.scenario import KnownItem, UserScenario, scenario_of
from covert.user.simulator import TemplateUser
from covert.views import call_id, tool_content

_REVEALS = {"ask": ASK_TEMPLATES, "which": WHICH_TEMPLATES}
ASK_BACK_RATE = 0.2  # the share of confirmations a user answers with a question first


class ConversationError(ValueError):
    """A task whose conversation cannot be scripted (the reason is a short code)."""


MAX_QUESTIONS = 2  # details the assistant asks for, one question each; the rest the user says up front


def asked_contexts(task: Any, builder: Builder, rng: random.Random) -> list[dict[str, Any]]:
    """The context sentences the user holds back for the assistant to ask about: at most
    :data:`MAX_QUESTIONS`, who the user is first, then which record they mean (an assistant that asks five
    questions in a row is no one to learn from)."""
    parts = list(task.dialogue.get("contexts") or [])
    if len(parts) <= MAX_QUESTIONS:
        return parts
    from covert.env.policy import identity_of

    identity = identity_of(builder)
    own = set(identity.self_params) if identity is not None else set()
    ranked = sorted(parts, key=lambda p: (0 if own & set(p["params"]) else 1 if p.get("selection") else 2,
                                          rng.random()))
    return ranked[:MAX_QUESTIONS]


def opening_of(task: Any, rng: random.Random, kept: list[str] = (), register: str = "customer",
               nouns: tuple[str, ...] = ()) -> str:
    """The user's first message: the goal (and the ``kept`` context sentences) without the details the
    assistant will ask for; greeted as often as users of ``register`` greet. A request that refers back
    ("that contact", one of ``nouns``) to a record nothing before it in the message names, as its
    description is held back for the assistant to ask about, names it afresh ("a contact")."""
    from covert.language.realize import fewer_pleases, keeps_capital, pleasantries, refer_back

    asks = [a for a in task.dialogue.get("asks") or [task.query] if a.strip()]
    # a record said in an earlier request is referred back to ("... and ship that order to ...")
    parts = [fewer_pleases(p, rng) for p in refer_back([*kept, *asks], task.dialogue.get("repeats") or {}, rng)]
    text = _named_afresh(" ".join(finish_sentence(a) for a in parts if a), nouns)
    if not text:  # everything was held back: a greeting alone is no request to answer
        raise ConversationError("empty_opening")

    greeting, _ = pleasantries(rng, register)  # as often as queries
    if getattr(task, "category", "") == "irrelevance" or not task.dialogue.get("asks"):
        greeting = ""  # the whole query (an off-topic request) has its own greeting already
    return f"{greeting} {text[0].lower() + text[1:]}" if greeting.endswith(",") and not keeps_capital(text) else \
        (f"{greeting} {text}" if greeting else text)


def describe_actions(builder: Builder, task: Any, group: list[int], said: str) -> str:
    """The write calls of one turn as the changes they make, in the user's terms (for the confirmation).
    Calls of one tool that differ only in the entity they act on are said once, naming every entity."""
    outputs = [c.output for c in task.calls[:group[0]]]
    by_tool: dict[str, list[Any]] = {}
    for i in group:
        if builder.tools[task.calls[i].name].writes:
            by_tool.setdefault(task.calls[i].name, []).append(task.calls[i])
    phrases = []
    for name, calls in by_tool.items():
        for call in _merged(builder, name, calls):
            phrases.append(action_phrase(builder, call, outputs, said))
    return join_phrases(list(dict.fromkeys(phrases)))


def _merged(builder: Builder, name: str, calls: list[Any]) -> list[Any]:
    """One call standing for ``calls`` when they differ in one entity argument only, else ``calls``."""
    if len(calls) < 2 or any(set(c.arguments) != set(calls[0].arguments) for c in calls):
        return calls
    differ = [k for k in calls[0].arguments if any(c.arguments[k] != calls[0].arguments[k] for c in calls)]
    spec = builder.tools[name]
    if len(differ) != 1 or spec.param_entity(differ[0]) not in builder.language.references or any(
            isinstance(c.arguments[differ[0]], list) for c in calls):
        return calls
    return [SimpleNamespace(name=name, arguments={**calls[0].arguments, differ[0]: [c.arguments[differ[0]] for c in calls]})]


def conversation(task: Any, builder: Builder, thinking: bool = True,
                 first_plan: str | None = None) -> tuple[list[dict[str, Any]], UserScenario]:
    """The multi-turn messages of a task and the user scenario behind them. ``first_plan`` (an LLM's
    plan, when one is configured) replaces the template plan of the first tool-call turn."""
    rng = item_rng("dialogue", task.task_id)
    asked = asked_contexts(task, builder, rng)
    from covert.language.realize import register_of

    opening = opening_of(task, rng, [p["text"] for p in task.dialogue.get("contexts") or [] if p not in asked],
                         register_of(builder), _record_nouns(builder))
    held = None
    if task.calls and not task.dialogue.get("contexts"):
        held = hold_back(task, builder, opening, rng)
        if held is not None:
            opening = held.opening
    extra = [KnownItem(label=held.label, value=held.value, text=held.text, call=held.call)] if held else []
    scenario = scenario_of(task, builder, opening, extra, asked)
    if builder.confirm_writes:
        confirmations = sum(any(builder.tools[task.calls[i].name].writes for i in g) for g in task.groups)
        scenario.asks_back = [rng.choice(ASK_BACK) if rng.random() < ASK_BACK_RATE else ""
                              for _ in range(confirmations)]
    user = TemplateUser(scenario)
    messages: list[dict[str, Any]] = [{"role": "system", "content": task.system_prompt},
                                      {"role": "user", "content": user.opening()}]
    pending = list(enumerate(scenario.known))
    said = normalize_text(opening)
    for turn, group in enumerate(task.groups):
        for index, item in [p for p in pending if p[1].call in group]:
            pending.remove((index, item))
            values = item.value if isinstance(item.value, list) else [item.value]
            if index in user.revealed or (values and all(mentions(said, v) for v in values)):
                continue  # handed over already: asking again would be a question with nothing to learn
            which = (held is not None and item.text == held.text and held.which) or (
                _is_selection(task, item.call) and " and " not in item.label)
            template = _REVEALS["which" if which else "ask"]
            # ask only for what the user has not said yet ("What date should I use?" after "MSP to LAX")
            label = item.label if not item.labels else join_phrases(
                [noun for noun, v in zip(item.labels, values, strict=True) if not mentions(said, v)])
            question = {"role": "assistant", "content": rng.choice(template).format(label=label)}
            answer = user.reply(question)
            if answer.stop is not None or item.label not in answer.revealed:
                raise ConversationError("user_did_not_answer")
            messages += [question, {"role": "user", "content": answer.content}]
            said += " " + normalize_text(answer.content)
        if builder.confirm_writes and any(builder.tools[task.calls[i].name].writes for i in group):
            action = describe_actions(builder, task, group, said)
            change, ask = rng.choice(CONFIRM_TEMPLATES)
            question = {"role": "assistant", "content": f"{finish_sentence(change.format(action=action))} {ask}"}
            answer = user.reply(question)
            if answer.stop is not None or answer.revealed:
                raise ConversationError("confirmation_not_answered")
            messages += [question, {"role": "user", "content": answer.content}]
            if user.asking:  # the user asked what else changes: the answer restates this turn's change only
                said_change, ask_again = rng.choice(ASK_BACK_ANSWERS)
                question = {"role": "assistant",
                            "content": f"{finish_sentence(said_change.format(action=action))} {ask_again}"}
                answer = user.reply(question)
                if answer.stop is not None or user.asking:
                    raise ConversationError("confirmation_not_answered")
                messages += [question, {"role": "user", "content": answer.content}]
        call_turn: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": [
            {"id": call_id(task.task_id, i), "type": "function",
             "function": {"name": task.calls[i].name, "arguments": task.calls[i].arguments}} for i in group]}
        if thinking:
            call_turn["reasoning_content"] = first_plan if (turn == 0 and first_plan) else \
                plan_text(builder, task, group, turn == 0, said)
        messages.append(call_turn)
        for i in group:
            messages.append({"role": "tool", "tool_call_id": call_id(task.task_id, i), "name": task.calls[i].name,
                             "content": tool_content(task.calls[i].output)})
    final: dict[str, Any] = {"role": "assistant", "content": task.answer}
    if thinking:
        final["reasoning_content"] = final_plan(builder, task)
    messages.append(final)
    return messages, scenario


@cache
def _record_nouns(builder: Builder) -> tuple[str, ...]:
    """The nouns of the records a builder's users refer to ("contact", "order"), once per builder."""
    return tuple(sorted({ref.noun for ref in builder.language.references.values()}))


def _named_afresh(text: str, nouns: tuple[str, ...]) -> str:
    """``text`` with each "that <noun>" that nothing before it names made "a <noun>"."""
    for noun in nouns:
        for match in reversed(list(re.finditer(rf"\b([Tt])hat {re.escape(noun)}\b", text))):
            if re.search(rf"\b{re.escape(noun)}", text[:match.start()], re.IGNORECASE):
                continue
            article = ("an" if noun[:1].lower() in "aeiou" else "a")
            article = article.capitalize() if match.group(1) == "T" else article
            text = f"{text[:match.start()]}{article} {noun}{text[match.end():]}"
    return text


def _is_selection(task: Any, call: int) -> bool:
    return any(p.get("selection") and p["call"] == call for p in task.dialogue.get("contexts", []))

