"""Turning bound intents into a user query and a final answer (template realization)."""

from __future__ import annotations

import random
import string
from functools import cache

from covert.values import ends_sentence

GREETINGS = ("", "", "Hi,", "Hello,", "Hey there,", "Hi there!", "Good morning.", "Hello!")
CLOSINGS = ("", "", "Thanks!", "Thank you.", "Thanks in advance.", "Appreciate it.", "Cheers.")
CONNECTORS = ("Also, ", "And ", "After that, ", "Then ", "Once that's done, ", "On top of that, ")
QUESTION_STARTS = ("what", "which", "when", "where", "who", "how", "can", "could", "would", "will", "is", "are",
                   "do", "does", "did", "has", "have", "should")
SELECTION_CONTEXTS = ("this is about {phrase}", "I mean {phrase}", "it concerns {phrase}")
DECLINES = (
    "I'm sorry, but I can't help with that here. I can help with {scope}.",
    "Unfortunately that's outside what I can do. I'm able to help with {scope}.",
    "Sorry, I don't have a way to do that. I can assist with {scope} if you need anything there.",
)
AGGREGATE_ASKS = {
    "sum": ("what's the total {field} across {items}?", "how much do {items} add up to in {field}?"),
    "count": ("how many {plural} do I have?", "can you tell me how many {plural} there are?"),
    "max": ("which of {items} has the highest {field}?", "which one of {items} has the largest {field}?"),
    "min": ("which of {items} has the lowest {field}?", "which one of {items} has the smallest {field}?"),
}


@cache
def _parsed(template: str) -> tuple[tuple[str, str | None], ...]:
    return tuple((literal, name or None) for literal, name, _, _ in string.Formatter().parse(template))


@cache
def slots(template: str) -> frozenset[str]:
    """The ``{slot}`` names of a template."""
    return frozenset(name for _, name in _parsed(template) if name)


def fill(template: str, values: dict[str, str]) -> str:
    """Fill a template's slots (dotted slot names allowed)."""
    out = []
    for literal, name in _parsed(template):
        out.append(literal)
        if name:
            out.append(values[name])
    return "".join(out)


def sentence(text: str) -> str:
    """Capitalise the first letter and end with fitting punctuation."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    if not ends_sentence(text):
        last = text.replace("? ", ". ").replace("! ", ". ").rsplit(". ", 1)[-1]
        first = last.split(" ", 1)[0].lower().strip(",")
        text += "?" if first in QUESTION_STARTS else "."
    return text


def _keeps_capital(text: str) -> bool:
    """Sentences that start with "I", a name or an id stay capitalised after "Hi,"."""
    first = text.split(" ", 1)[0]
    return first == "I" or first.startswith(("I'", "I’")) or (len(first) > 1 and not first[1:].islower())


def compose_query(rng: random.Random, contexts: list[str], asks: list[str]) -> str:
    """A user message: optional greeting, the context the user hands over, the requests, optional thanks."""
    ask_sentences = [sentence(asks[0])] + [sentence(rng.choice(CONNECTORS) + a) for a in asks[1:]]
    context_sentences = [sentence(c) for c in contexts]
    parts = context_sentences + ask_sentences if rng.random() < 0.75 else ask_sentences + context_sentences
    greeting = rng.choice(GREETINGS)
    if greeting.endswith(",") and parts and not _keeps_capital(parts[0]):
        parts[0] = parts[0][0].lower() + parts[0][1:]
    closing = rng.choice(CLOSINGS)
    return " ".join(p for p in (greeting, *parts, closing) if p)
