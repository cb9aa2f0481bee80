"""A user query as its parts: the greeting, the sentences in between, the closing.

Queries are composed by :func:`covert.language.realize.compose_query` as ``greeting parts... closing``;
this module takes them apart again so a kind can rephrase, reorder or drop a sentence, and puts them
back together with the same conventions. Sentence breaks never fall inside a protected value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from covert.env import get_builder
from covert.language.realize import (
    CLARIFICATIONS,
    CLOSINGS,
    CONNECTORS,
    GREETINGS,
    SELECTION_CONTEXTS,
    keeps_capital,
    slots,
)

_BREAK = re.compile(r"(?<=[.?!])\s+")
_GREETINGS = sorted((g for g in GREETINGS if g), key=len, reverse=True)
_CLOSINGS = frozenset(c for c in CLOSINGS if c)


@dataclass
class Query:
    """A query taken apart; ``units`` are whole sentences with their final punctuation."""

    greeting: str
    units: list[str]
    closing: str

    def text(self) -> str:
        """The query as one string, with the greeting's capitalisation rule applied."""
        units = [capitalise(u) for u in self.units]
        if units and self.greeting.endswith(",") and not keeps_capital(units[0]):
            units[0] = units[0][0].lower() + units[0][1:]
        return " ".join(p for p in (self.greeting, *units, self.closing) if p)


def capitalise(text: str) -> str:
    """First letter upper case (an email address that opens the text stays as it is)."""
    if not text or "@" in text.split(" ", 1)[0]:
        return text
    return text[:1].upper() + text[1:]


def spans(text: str, values: list[str]) -> list[tuple[int, int]]:
    """Where each value occurs in ``text`` (exact, case-insensitive)."""
    lowered = text.lower()
    found = []
    for value in values:
        needle = value.lower()
        if not needle:
            continue
        start = lowered.find(needle)
        while start != -1:
            found.append((start, start + len(needle)))
            start = lowered.find(needle, start + 1)
    return found


def split_query(text: str, protected: list[str]) -> Query:
    """Take a query apart; no sentence break falls inside an occurrence of a ``protected`` value."""
    greeting = ""
    for candidate in _GREETINGS:
        if text.startswith(candidate + " ") or text == candidate:
            greeting, text = candidate, text[len(candidate):].lstrip()
            break
    guarded = spans(text, protected)
    units, start = [], 0
    for match in _BREAK.finditer(text):
        if any(a < match.start() < b for a, b in guarded):
            continue
        units.append(text[start:match.start()])
        start = match.end()
    if text[start:]:
        units.append(text[start:])
    closing = ""
    if units and units[-1] in _CLOSINGS:
        closing = units.pop()
    return Query(greeting, units, closing)


def strip_connector(unit: str) -> tuple[str, str]:
    """``("Also, ", "cancel it.")`` for a sentence that opens with a connector, else ``("", unit)``."""
    for connector in CONNECTORS:
        if unit.lower().startswith(connector.lower()):
            return unit[:len(connector)], unit[len(connector):]
    return "", unit


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{[^{}]*\}", template)
    return re.compile("(?:.+?)".join(re.escape(p) for p in parts) + r"[.?!]?", re.IGNORECASE)


@cache
def context_patterns(builder: str) -> tuple[tuple[frozenset[str], re.Pattern[str]], ...]:
    """Regexes of every context sentence a builder's queries may hold, with each template's slots."""
    language = get_builder(builder).language
    templates = {t for intents in language.intents.values() for it in intents for t in it.context}
    templates |= set(SELECTION_CONTEXTS) | set(CLARIFICATIONS)
    return tuple((slots(t), _pattern(t)) for t in sorted(templates))


def is_context(builder: str, unit: str) -> bool:
    """Whether a sentence hands over information rather than asking for something."""
    return any(p.fullmatch(unit) for _, p in context_patterns(builder))


@cache
def _patterns_for(builder: str, names: frozenset[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(p for slots_, p in context_patterns(builder) if slots_ == names)


def has_context(builder: str, names: frozenset[str]) -> bool:
    """Whether the builder has a context sentence with exactly the slots ``names``."""
    return bool(_patterns_for(builder, names))


def hands_over(builder: str, unit: str, names: frozenset[str]) -> bool:
    """Whether a sentence is a context sentence whose template has exactly the slots ``names``."""
    return any(p.fullmatch(unit) for p in _patterns_for(builder, names))


def replace_ci(text: str, old: str, new: str) -> str:
    """Replace every case-insensitive occurrence of ``old``; a replaced sentence start stays capitalised."""
    out, pos = [], 0
    for a, b in spans(text, [old]):
        if a < pos:
            continue
        piece = new
        if a == 0 and text[:1].isupper():
            piece = capitalise(new)
        out.append(text[pos:a])
        out.append(piece)
        pos = b
    out.append(text[pos:])
    return "".join(out)
