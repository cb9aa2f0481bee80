"""What the assistant says around the calls of a conversation, in the user's terms.

Plans (the reasoning of a tool-call turn) say what the agent will look up and why; confirmations
restate a change before it is made. Both are derived from the builder's own data (tool names, the
references users use for each entity, the describing fields of its records), never from tool
descriptions or argument keys, so they read like a support agent and not like an API.

A builder may add its own phrasings in an optional ``builders/<name>/dialogue.py`` holding
``ACTIONS: dict[str, str]``: per write tool a template such as ``"cancel {order_id}"`` whose slots are
argument names; each slot is filled with the description of that argument (see :func:`describe`).
"""

from __future__ import annotations

import importlib
import random
import re
from functools import cache
from typing import Any

from covert.env import Builder
from covert.language.values import contains_value, join_phrases, mentions, render

_READ_VERBS = {"get": "check", "list": "list", "search": "search", "find": "look up", "check": "check",
               "lookup": "look up", "view": "check", "read": "read", "show": "check", "calculate": "work out"}
_NAME_KEYS = ("name", "title", "subject", "label", "nickname")
_QUOTED_KEYS = ("title", "subject")
_KIND_KEYS = ("brand", "label", "method_label", "product_name", "kind", "card_type", "type")
# nouns of records named by a proper name, said without an article ("assign it to Leila Chen", "pay Waste
# Management"), unlike things ("the Harbor Inn", "the Front Door")
_BARE_NAME_NOUNS = frozenset(("agent", "colleague", "contact", "employee", "invitee", "passenger", "payee", "person",
                              "bill", "biller", "merchant"))
_MAX_DEPTH = 8
_ENUM = re.compile(r"^[a-z]+(?:_[a-z]+)+$")


@cache
def builder_actions(name: str) -> dict[str, str]:
    """The optional per-tool action templates of a builder (``builders/<name>/dialogue.py``)."""
    try:
        module = importlib.import_module(f"builders.{name}.dialogue")
    except ModuleNotFoundError:
        return {}
    actions = getattr(module, "ACTIONS", {})
    return dict(actions) if isinstance(actions, dict) else {}


def _words(tool: str) -> list[str]:
    return [w for w in tool.split("_") if w]


def tool_object(tool: str) -> str:
    """The object of a tool's name: ``cancel_pending_order`` -> ``pending order``."""
    words = _words(tool)
    return " ".join(words[1:]) if len(words) > 1 else words[0]


def find_record(outputs: list[Any], key: str, value: Any) -> dict[str, Any] | None:
    """The first record in ``outputs`` whose field ``key`` holds ``value`` (bounded search)."""
    stack: list[tuple[Any, int]] = [(o, 0) for o in reversed(outputs)]
    while stack:
        item, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        if isinstance(item, dict):
            if item.get(key) == value and len(item) > 1:
                return item
            stack.extend((v, depth + 1) for v in reversed(list(item.values())) if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in reversed(item[:200]) if isinstance(v, (dict, list)))
    return None


def describe_record(record: dict[str, Any], noun: str, fields: tuple[str, ...] | list[str]) -> str | None:
    """A record as a person names it: "your Visa ending in 4242", "the Harbor Inn", "the meeting on ..."."""
    last_four = record.get("last_four")
    if isinstance(last_four, (str, int)) and not isinstance(last_four, bool):
        kind = next((record[k] for k in _KIND_KEYS if isinstance(record.get(k), str) and record[k]), noun)
        kind = str(kind).replace("_", " ")
        kind = kind[:1].upper() + kind[1:] if kind.islower() and kind != noun else kind
        return kind if str(last_four) in kind else f"your {kind} ending in {last_four}"
    first, last = record.get("first_name"), record.get("last_name")
    if isinstance(first, str) and isinstance(last, str):
        return f"{first} {last}"
    person = any(k in record for k in ("email", "date_of_birth", "first_name"))
    for key in (*[f for f in fields if any(n in f for n in _NAME_KEYS)], *_NAME_KEYS):
        value = record.get(key)
        if isinstance(value, str) and value and "_" not in value:
            if key in _QUOTED_KEYS and not person:  # an email or an event by its subject: the email "Re: lunch"
                return f'the {noun} "{value}"'
            plain = person or value.lower().startswith(("the ", "my ", "your "))
            if not plain and noun in _BARE_NAME_NOUNS:
                # a proper name as it is ("Leila Chen", "Waste Management"); a nickname the user gave: "your nephew"
                return value if value[:1].isupper() else f"your {value}"
            return value if plain else f"the {value}"
    parts = [render(record[f]) for f in fields if isinstance(record.get(f), (str, int, float))
             and not isinstance(record.get(f), bool) and "_" not in str(record[f])]
    return f"the {noun} ({', '.join(parts)})" if parts else None


_NAMED = re.compile(r"^the \{value\} [a-z]+$")  # "the {value} room": a record said by its name and its noun


def describe(builder: Builder, tool: str, param: str, value: Any, outputs: list[Any], said: str) -> str | None:
    """How the assistant names the entity an argument refers to (``None``: not an entity reference).

    An id the user said, or one a user knows that an output so far shows, is quoted ("booking
    WS4YWVW9"); any other id is described by its record in the outputs so far (its name, or its kind and
    last four digits), else by its noun: nothing is named that the conversation has not shown yet.
    """
    spec = builder.tools[tool]
    entity = spec.param_entity(param)
    ref = builder.language.references.get(entity)
    if ref is None:
        return None
    if isinstance(value, list):
        parts = [describe(builder, tool, param, v, outputs, said) or render(v) for v in value]
        return join_phrases([p for p in parts if p])
    if not mentions(said, value) and ref.user_knows_id and contains_value(outputs, value):
        # a record the outputs show by a name is said by it ("the Cobalt room"), not by a resource id
        # the user never said ("hq-3-cobalt")
        named = next((t for t in ref.by_field.get("name", ()) if _NAMED.match(t)), None)
        record = find_record(outputs, param, value) if named else None
        if record is not None and isinstance(record.get("name"), str) and record["name"]:
            return named.format(value=record["name"])
    if mentions(said, value) or (ref.user_knows_id and contains_value(outputs, value)):
        template = next((t for t in ref.by_id if t != "{value}"), ref.by_id[0])
        return template.format(value=render(value))
    for key in dict.fromkeys((param, entity, "id")):
        record = find_record(outputs, key, value)
        if record is not None:
            text = describe_record(record, ref.noun, ref.by_field)
            if text:
                return text
    return f"the {ref.noun}"


def _plain_argument(builder: Builder, key: str, value: Any) -> str:
    noun = builder.language.noun_of_field(key)
    text = _slot_value(value)
    if isinstance(value, str) and len(text.split()) > 3:
        text = f'"{text}"'
    return f"{noun} {text}"


def _slot_value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    text = render(value)
    return text.replace("_", " ") if _ENUM.match(text) else text


def action_phrase(builder: Builder, call: Any, outputs: list[Any], said: str) -> str:
    """A write call as the change it makes, in the user's terms: "cancel order #W5429527 (reason: no
    longer needed)" or "apply 2000 of your points to booking WS4YWVW9". No argument key or internal id
    is shown: entity arguments are described (:func:`describe`), the user's own account is left out."""
    described: dict[str, str] = {}
    plain: list[str] = []
    for key, value in call.arguments.items():
        text = describe(builder, call.name, key, value, outputs, said)
        if text is not None:
            described[key] = text
        else:
            plain.append(_plain_argument(builder, key, value))
    values = {**{k: _slot_value(v) for k, v in call.arguments.items() if k not in described}, **described}
    for template in builder_actions(builder.name).get(call.name) or builder.language.actions.get(call.name, ()):
        if slots_of(template) <= set(values):
            return template.format(**values)
    words = _words(call.name)
    verb, obj = words[0], " ".join(words[1:])
    targets = [t for k, t in described.items() if not _is_account(builder, call.name, k)]
    head = f"{verb} {obj}".strip() if obj else verb
    if targets:
        head = f"{head} for {targets[0]}" if obj else f"{verb} {targets[0]}"
        if targets[1:]:
            head += " using " + join_phrases(targets[1:])
    if plain:
        head += f" ({join_phrases(plain)})"
    return head


def slots_of(template: str) -> set[str]:
    """The slot names of a ``str.format`` template."""
    return set(re.findall(r"\{(\w+)\}", template))


def _is_account(builder: Builder, tool: str, key: str) -> bool:
    """Whether an argument is the user's own account (an entity users never describe by a field)."""
    ref = builder.language.references.get(builder.tools[tool].param_entity(key))
    return ref is not None and not ref.user_knows_id and not ref.by_field


def read_phrase(call_name: str, builder: Builder | None = None) -> str:
    """A read call as what the agent checks: ``get_customer_profile`` -> ``check the customer profile``
    (the builder's own phrase, ``Language.reads``, where it has one)."""
    if builder is not None and call_name in builder.language.reads:
        return builder.language.reads[call_name]
    words = _words(call_name)
    verb = _READ_VERBS.get(words[0], words[0])
    obj = " ".join(words[1:])
    if verb == "look up" and obj:
        obj = re.sub(r"( id)?( by .*)?$", "", obj)
    return f"{verb} the {obj}" if obj else verb


def output_noun(builder: Builder, output: Any) -> str | None:
    """The noun of the entity a lookup returns (its first id field with a reference)."""
    if not isinstance(output, dict):
        return None
    for key in output:
        ref = builder.language.references.get(key)
        if ref is not None:
            return ref.noun
    return None


def feeds(builder: Builder, call: Any, later: list[Any], given: list[Any]) -> list[str]:
    """Entity arguments of later calls whose values this call's output holds, other than values the
    user gives or this call already takes: what the lookup is for (bounded)."""
    own = {render(v) for v in call.arguments.values() if not isinstance(v, list)}
    said = {render(v) for v in given}
    keys = []
    for other in later:
        spec = builder.tools[other.name]
        for key, value in other.arguments.items():
            entity = spec.param_entity(key)
            if entity not in builder.language.references:
                continue
            values = value if isinstance(value, list) else [value]
            if any(isinstance(v, str) and len(v) >= 3 and v not in own and v not in said
                   and contains_value(call.output, v) for v in values):
                keys.append(entity)
    return list(dict.fromkeys(keys))


def step_purpose(builder: Builder, task: Any, index: int, said: str, now: bool = False,
                 shown: int | None = None) -> str:
    """Why the agent makes call ``index``, as one clause (``now``: it is being made, after any
    confirmation). Only the outputs of the first ``shown`` calls (default: every call before it) are
    known: a plan names nothing that no output has shown yet."""
    call = task.calls[index]
    spec = builder.tools[call.name]
    if spec.writes:
        action = action_phrase(builder, call, [c.output for c in task.calls[:min(index, _upto(shown, index))]], said)
        action = re.sub(r"\byour\b", "their", action)
        return f"{action} once they confirm" if builder.confirm_writes and not now else action
    given = [builder.language.noun_of_field(k) for k, v in call.arguments.items()
             if isinstance(v, (str, int)) and not isinstance(v, bool) and mentions(said, v)]
    later = feeds(builder, call, task.calls[index + 1:], [u["value"] for u in task.user_inputs])
    nouns = []
    for key in later:
        ref = builder.language.references.get(key)
        noun = ref.noun if ref is not None else builder.language.noun_of_field(key)
        if noun not in nouns:
            nouns.append(noun)
    found = output_noun(builder, call.output)
    if call.name.startswith("find") and given and found:
        return f"look up their {found} with the {join_phrases(list(dict.fromkeys(given)))} they gave"
    picked = _picked_phrase(builder, task, index, said)
    if picked:
        return f"{read_phrase(call.name, builder)} to find {picked}"
    if nouns:
        return f"{read_phrase(call.name, builder)} to find the {join_phrases(nouns)} this is about"
    return f"{read_phrase(call.name, builder)} to answer them"


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?$")


def _picked_phrase(builder: Builder, task: Any, index: int, said: str) -> str:
    """The record call ``index`` is read to pick, in the agent's words ("the email whose sender is Zoe
    Schmidt", "the account with the highest balance"), or ``""``: only by a short value the user said, and
    never the user's own wording again (a plan that copies the request is no plan)."""
    language = builder.language
    for sel in task.selections:
        if sel.get("source_call") != index:
            continue
        ref = language.references.get(builder.tools[task.calls[sel["call"]].name].param_entity(sel["param"]))
        if ref is None:
            continue
        field = language.noun_of_field(sel.get("by") or "")
        if sel.get("mode") == "field" and field and mentions(said, sel["value"]) and len(render(sel["value"]).split()) <= 4:
            if _ISO_DATE.match(str(sel["value"])):  # "the order from 2026-04-06", not "whose placed at is"
                return f"the {ref.noun} from {render(sel['value'])}"
            return f"the {ref.noun} whose {field} is {render(sel['value'])}"
        if sel.get("mode") in ("max", "min") and field:
            return f"the {ref.noun} with the {'highest' if sel['mode'] == 'max' else 'lowest'} {field}"
    return ""


def _upto(shown: int | None, index: int) -> int:
    return index if shown is None else shown


def _sentence_list(clauses: list[str]) -> str:
    clauses = list(dict.fromkeys(clauses))
    if len(clauses) == 1:
        return clauses[0]
    return ", ".join(clauses[:-1]) + " and then " + clauses[-1]


def goal_phrase(builder: Builder, task: Any, said: str, shown: int | None = None) -> str:
    """What the user wants, as an action: the writes of the task, else what its last turn reads (only
    the outputs of the first ``shown`` calls are known)."""
    writes = [i for i, c in enumerate(task.calls) if builder.tools[c.name].writes]
    picked = writes or (task.groups[-1] if task.groups else [])
    by_tool: dict[str, list[int]] = {}
    for i in picked:
        by_tool.setdefault(task.calls[i].name, []).append(i)
    parts = []
    for name, members in by_tool.items():
        if builder.tools[name].writes:
            first = members[0]
            phrase = action_phrase(builder, task.calls[first], [c.output for c in task.calls[:_upto(shown, first)]],
                                   said)
            phrase = re.sub(r"\byour\b", "their", phrase)
            if len(members) > 1:
                phrase += f", and the same for {len(members) - 1} more"
        else:
            phrase = read_phrase(name, builder).replace("check the ", "see the ").replace("list the ", "see the ")
            if len(members) > 1:
                phrase += f" for {len(members)} of them"
        parts.append(phrase)
    return join_phrases(parts) if parts else "get help"


def plan_text(builder: Builder, task: Any, group: list[int], first: bool, said: str) -> str:
    """The reasoning of a tool-call turn: what the agent looks up now and why, and what comes after."""
    shown = group[0]  # the outputs the conversation has shown: those of the turns before this one
    now = _sentence_list([step_purpose(builder, task, i, said, now=True, shown=shown) for i in group])
    confirmed = builder.confirm_writes and any(builder.tools[task.calls[i].name].writes for i in group)
    if first:
        later = [i for g in task.groups if g is not group and g[0] > group[-1] for i in g]
        opener = "They have confirmed, so I'll" if confirmed else "First I'll"
        pick = random.Random(f"plan:{task.task_id}:first")
        given = [render(u["value"]) for u in task.user_inputs
                 if isinstance(u["value"], (str, int)) and not isinstance(u["value"], bool) and mentions(said, u["value"])]
        given = list(dict.fromkeys(given))[:2]
        wants = pick.choice(("The customer wants to {goal}", "They'd like to {goal}", "The request is to {goal}",
                             "The user is asking me to {goal}")).format(goal=goal_phrase(builder, task, said, shown))
        if given:
            wants += pick.choice((", going by {given}", "; what I have to go on is {given}",
                                  " (they gave {given})")).format(given=join_phrases(given))
        text = f"{wants}. {opener} {now}."
        if later:
            rest = [step_purpose(builder, task, i, said, shown=shown) for i in later]
            text += f" After that I'll {_sentence_list(rest)}."
        return text
    previous = max((i for i in range(len(task.calls)) if i < group[0]), default=None)
    output = task.calls[previous].output if previous is not None else None
    noun = output_noun(builder, output) if previous is not None else None
    pick = random.Random(f"plan:{task.task_id}:{group[0]}")
    if confirmed:
        have = pick.choice(("They confirmed the change, so", "They said yes, so", "With their go-ahead,"))
    elif noun:
        name = record_name(output)
        frames = (("Now that I have the {noun} for {name},", "The {noun} for {name} is in, so",
                   "I have {name}'s {noun} now, so") if name else
                  ("Now that I have the {noun},", "With the {noun} in hand,", "The {noun} is in, so"))
        have = pick.choice(frames).format(noun=noun, name=name)
    else:
        have = pick.choice(("With that result,", "That result gives me what I need, so", "Given what that returned,",
                            "That's back, so", "With that answer in,", "That answered the first part, so"))
    return f"{have} I'll {now}."


_RECORD_NAME_KEYS = ("name", "title", "subject", "hotel_name", "product_name", "full_name", "owner_name")


def record_name(output: Any) -> str:
    """The name or title an output's top-level record carries ("Leila Fischer", "Beach House"), or ``""``."""
    if not isinstance(output, dict):
        return ""
    for key in _RECORD_NAME_KEYS:
        value = output.get(key)
        if isinstance(value, str) and 2 <= len(value) <= 60 and "_" not in value:
            return value
    return ""


def final_plan(builder: Builder, task: Any) -> str:
    """The reasoning of the final answer: what the results hold for this task and what the answer will
    tell the user (the fields its facts come from), never one fixed line."""
    pick = random.Random(f"final:{task.task_id}")
    if not task.calls:
        scope = builder.language.noun_of_field(builder.name)
        return pick.choice((
            "This request is outside what my {scope} tools do, so I'll say so and offer what I can help with.",
            "None of my {scope} tools can do this; I'll decline politely and say what I can do.",
            "Nothing in the {scope} tools I have covers this, so I'll explain that and point to what I can do.",
            "This isn't a {scope} request my tools can handle; I'll tell them and list what I can help with.",
        )).format(scope=scope.replace("_", " "))
    nouns = list(dict.fromkeys(n for n in (_fact_noun(builder, f, task.reasoning) for f in task.facts) if n))[:3]
    told = join_phrases([f"the {n}" for n in nouns]) if nouns else "what the results say"
    goal = goal_phrase(builder, task, "", len(task.calls))
    if any(builder.tools[c.name].writes for c in task.calls):
        return pick.choice((
            "Everything went through ({goal}); I'll confirm it and give them {told}.",
            "The change is made ({goal}). I'll tell them it's done, with {told}.",
            "Done: {goal}. My answer should confirm that and include {told}.",
        )).format(goal=goal, told=told)
    return pick.choice((
        "I have what I need to {goal}; I'll answer with {told}.",
        "The results let me {goal}: I'll tell them {told}.",
        "That covers it. To {goal}, I'll give them {told} from the results.",
    )).format(goal=goal.replace("see the ", "show them the "), told=told)


_AGGREGATE_NOUNS = {"sum": "total", "max": "highest", "min": "lowest", "count": "number of"}


def _fact_noun(builder: Builder, fact: dict[str, Any], reasoning: list[dict[str, Any]]) -> str:
    """What an answer fact is, as a noun: the field its path ends in ("cancellation deadline"), or the
    aggregate a reasoning step computed ("lowest room size")."""
    path = str(fact.get("path") or "")
    if not path:
        step = reasoning[fact["reasoning"]] if isinstance(fact.get("reasoning"), int) and \
            0 <= fact["reasoning"] < len(reasoning) else None
        if step is None:
            return ""
        field = builder.language.noun_of_field(str(step.get("field") or step.get("list_path") or "items"))
        return f"{_AGGREGATE_NOUNS.get(step.get('op'), 'result for')} {field}"
    key = next((part for part in reversed(path.split(".")) if not part.isdigit()), "")
    return builder.language.noun_of_field(key) if key else ""
