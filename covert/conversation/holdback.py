"""Information the user holds back in the opening message, for the agent to ask for.

A task whose query hands everything over in one sentence would make a one-turn "conversation". Here
one value the user supplies is taken out of the opening: an id the user knows is replaced by a vague
reference ("cancel order #W5429527" -> "cancel my order"), or a value introduced by a preposition is
dropped ("flights from PHL to ORD on 2026-01-27" -> "flights from PHL to ORD"), or the one sentence
that hands it over is left for later ("Can you pull up my profile? My email is ..."). The agent then asks
for it, and the user hands it over. The value must occur once in the opening, be needed by no call
before the one that first uses it, and no other value may be lost with it.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from covert.env import Builder
from covert.language.values import mentions, normalize_text, render

_PREPOSITIONS = ("on", "for", "from", "at", "named", "called")
_NOT_NOUNS = frozenset(("until", "since", "from", "to", "after", "before", "by", "on", "at", "in", "query", "q"))
_SPACES = re.compile(r"\s{2,}")
_LOOSE_PUNCT = re.compile(r"\s+([,.?!;:])")


@dataclass(frozen=True)
class HeldBack:
    """A value taken out of the opening: the new opening, what the agent asks about (``label``), how
    the user hands it over (``text``), the call that first needs it, and whether the question is a
    "which one" question (a vague reference) or a "what" question (a dropped value)."""

    opening: str
    label: str
    value: Any
    text: str
    call: int
    which: bool


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _candidates(task: Any, builder: Builder) -> list[tuple[int, int, str, Any]]:
    """User-supplied ``(first call using it, call, param, value)`` that no other call of the same tool
    needs with another value."""
    out = []
    seen: set[str] = set()
    for item in task.user_inputs:
        call, param, value = item["call"], item["param"], item["value"]
        if not _scalar(value) or render(value) in seen:
            continue
        name = task.calls[call].name
        schema = builder.tools[name].parameters.get("properties", {}).get(param, {})
        if "enum" in schema or schema.get("default") == value:
            continue
        # what the system prompt already says (the signed-in user's email) is not asked for
        if isinstance(value, str) and value in (getattr(task, "system_prompt", "") or ""):
            continue
        siblings = [c for c in task.calls if c.name == name and param in c.arguments]
        if any(c.arguments[param] != value for c in siblings):
            continue
        first = next(i for i, c in enumerate(task.calls) if value in _flat(c.arguments.values()))
        seen.add(render(value))
        out.append((first, call, param, value))
    return out


def _flat(values: Any) -> list[Any]:
    out = []
    for v in values:
        out.extend(v if isinstance(v, list) else [v])
    return out


def _tidy(text: str) -> str:
    text = _LOOSE_PUNCT.sub(r"\1", _SPACES.sub(" ", text)).strip()
    return text.replace(",.", ".").replace(",?", "?")


def _by_reference(opening: str, builder: Builder, tool: str, param: str, value: Any,
                  rng: random.Random) -> tuple[str, str, str] | None:
    ref = builder.language.references.get(builder.tools[tool].param_entity(param))
    if ref is None or not ref.user_knows_id:
        return None
    lowered = opening.lower()
    for template in ref.by_id:
        phrase = template.format(value=render(value))
        if template == "{value}" or lowered.count(phrase.lower()) != 1:
            continue
        start = lowered.index(phrase.lower())
        vague = rng.choice((f"my {ref.noun}", f"one of my {ref.plural}"))
        before = opening[:start]
        if re.search(r"\b(my|your|the|a|an)\s+$", before, re.IGNORECASE):
            before = re.sub(r"\b(my|your|the|a|an)\s+$", "", before, flags=re.IGNORECASE)
        if not before.strip() or before.rstrip().endswith((".", "?", "!")):
            vague = vague[0].upper() + vague[1:]  # a sentence it opens starts with a capital: "My ticket is ..."
        new = before + vague + opening[start + len(phrase):]
        return new, f"It's {phrase}.", ref.noun
    return None


def _by_dropping(opening: str, builder: Builder, param: str, value: Any) -> tuple[str, str, str] | None:
    needle = render(value)
    if len(needle) < 2 or opening.lower().count(needle.lower()) != 1:
        return None
    pattern = re.compile(rf"\s(?:{'|'.join(_PREPOSITIONS)})\s+{re.escape(needle)}(?=[\s,.?!;:]|$)", re.IGNORECASE)
    matches = list(pattern.finditer(opening))
    if len(matches) != 1:
        return None
    match = matches[0]
    label = builder.language.noun_of_field(param)
    if label.lower() in _NOT_NOUNS or re.search(r"\b(up|back|down)$", opening[:match.start()], re.IGNORECASE):
        return None
    new = _tidy(opening[:match.start()] + opening[match.end():])
    return new, f"The {label} is {needle}.", label


_BREAK = re.compile(r"(?<=[.?!])\s+(?=[A-Z0-9\"'(])")


def _by_sentence(opening: str, builder: Builder, param: str, value: Any) -> tuple[str, str, str] | None:
    """Drop the one sentence that hands the value over ("My email is ..."), when it is not the first."""
    units = _BREAK.split(opening)
    holding = [i for i, u in enumerate(units) if mentions(normalize_text(u), value)]
    if len(units) < 2 or len(holding) != 1 or holding[0] == 0:
        return None
    unit = units[holding[0]]
    if len(unit.split()) > 12 or "?" in unit:
        return None
    ref = builder.language.references.get(_entity(builder, param))
    label = ref.noun if ref is not None else builder.language.noun_of_field(param)  # "reservation", not "reservation id"
    if label.lower() in _NOT_NOUNS:
        return None
    return " ".join(u for i, u in enumerate(units) if i != holding[0]), unit, label


@cache
def _entity(builder: Builder, param: str) -> str:
    """The entity a parameter names in any of the builder's tools (``""``: none)."""
    for spec in builder.tools.values():
        if param in spec.parameters.get("properties", {}):
            entity = spec.param_entity(param)
            if entity:
                return entity
    return ""


def hold_back(task: Any, builder: Builder, opening: str, rng: random.Random) -> HeldBack | None:
    """One value to take out of ``opening`` (``None`` when none can be taken out cleanly)."""
    candidates = _candidates(task, builder)
    rng.shuffle(candidates)
    values = [v for c in task.calls for v in _flat(c.arguments.values()) if _scalar(v)]
    values += [s["value"] for s in task.selections if s.get("mode") == "field" and _scalar(s.get("value"))]
    said = normalize_text(opening)
    for mode in ("reference", "sentence", "drop"):
        which = mode == "reference"
        for first, call, param, value in candidates:
            if not mentions(said, value):
                continue
            tool = task.calls[call].name
            if mode == "reference":
                found = _by_reference(opening, builder, tool, param, value, rng)
            elif mode == "sentence":
                found = _by_sentence(opening, builder, param, value)
            else:
                found = _by_dropping(opening, builder, param, value)
            if found is None:
                continue
            new, text, label = found
            new_norm = normalize_text(new)
            if mentions(new_norm, value):
                continue
            if any(mentions(said, v) and not mentions(new_norm, v) for v in values if v != value):
                continue
            # a record the user names ("I'm calling about booking 3J42A7") is asked for as "which ..."
            record = mode == "sentence" and _entity(builder, param) in builder.language.references
            return HeldBack(new, label, value, text, first, which or record)
    return None
