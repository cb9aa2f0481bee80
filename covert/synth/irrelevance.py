"""Irrelevance rows: requests no tool of the domain can serve, and the assistant's decline.

Requests come from two sources. A builder's ``out_of_scope`` holds off-topic requests and near-domain
ones (requests that look like the tools could serve them but do not, as in BFCL's irrelevance set, such
as a retail user asking to price-match a competitor); a template there may name a record of the state
with a ``{table.field}`` slot ("Can you rename my {devices.name}?"), filled from one record per table.
:data:`GENERIC` adds everyday off-topic requests built from templates and fillers. Declines are
composed from an apology, a reason and what the assistant can do instead.
"""

from __future__ import annotations

import random
from typing import Any

from covert.env import State
from covert.language.realize import fill, slots
from covert.language.values import render

NEAR_SHARE = 0.6  # share of requests drawn from the builder's own list (near-domain and off-topic)

FILLERS: dict[str, tuple[str, ...]] = {
    "city": ("Lisbon", "Denver", "Osaka", "Nairobi", "Toronto", "Krakow", "Austin", "Melbourne", "Seville",
             "Reykjavik", "Hanoi", "Montreal"),
    "when": ("this weekend", "tomorrow", "on Friday", "next week", "tonight", "over the holidays"),
    "past": ("last night", "yesterday", "on Sunday", "last weekend"),
    "language": ("Italian", "Japanese", "German", "Portuguese", "Korean", "French", "Swahili", "Dutch"),
    "phrase": ("where is the train station", "the bill, please", "I'm allergic to nuts", "good morning",
               "how much does this cost", "thank you very much"),
    "dish": ("a vegetarian lasagna", "banana bread", "a quick chicken curry", "pad thai", "sourdough starter",
             "a lemon tart"),
    "topic": ("compound interest", "how vaccines work", "the offside rule", "black holes", "how tides work",
              "inflation", "photosynthesis"),
    "thing": ("laptop for video editing", "running shoe for flat feet", "beginner guitar", "espresso machine",
              "podcast about history", "board game for four players", "book on negotiation"),
    "sport": ("football", "basketball", "cricket", "tennis", "hockey", "rugby"),
    "writing": ("a birthday poem for my mum", "a cover letter for a marketing job", "a toast for my brother's wedding",
                "a short bio for my LinkedIn", "a thank-you note to my neighbour"),
    "amount": ("5 miles", "12 ounces", "70 degrees Fahrenheit", "3 cups", "150 pounds"),
}
GENERIC: tuple[str, ...] = (
    "What's the weather going to be like in {city} {when}?",
    "How do I say '{phrase}' in {language}?",
    "What's a good recipe for {dish}?",
    "Can you explain {topic} in simple terms?",
    "Can you recommend a good {thing}?",
    "Who won the {sport} game {past}?",
    "Can you help me write {writing}?",
    "What time is it in {city} right now?",
    "Can you convert {amount} to metric for me?",
    "Is it worth visiting {city} {when}?",
    "Can you tell me a joke?",
    "What's the capital of Australia?",
    "How long should I boil an egg for a soft yolk?",
    "Can you help me with my maths homework?",
)
APOLOGIES = ("I'm sorry, but", "Sorry,", "Unfortunately,", "I'm afraid", "Apologies, but",
             "I wish I could help with that, but", "Thanks for asking, but", "Good question, but")
REASONS = ("that's not something I can do here", "I don't have a way to do that from here",
           "that's outside what I can help with", "I can't take care of that in this chat",
           "I don't have anything that can do that", "that's outside what my tools cover",
           "I'm not able to handle that request")
OFFERS = ("I can help with {scope}.", "What I can do is help with {scope}.",
          "I'm able to help with {scope} if you need anything there.",
          "If it's about {scope}, I'm happy to help.", "I can assist with {scope} instead.",
          "If there's anything about {scope} you need, just say.", "For {scope}, though, I'm glad to help.")


def _fill_record_slots(template: str, state: State, rng: random.Random) -> str | None:
    """A template with its ``{table.field}`` and filler slots filled (``None`` if the state has no
    record to name)."""
    values: dict[str, str] = {}
    chosen: dict[str, dict[str, Any] | None] = {}
    for name in sorted(slots(template)):
        if name in FILLERS:
            values[name] = rng.choice(FILLERS[name])
            continue
        table, _, key = name.partition(".")
        if table not in chosen:
            ids = state.ids(table)
            chosen[table] = state.get(table, rng.choice(ids)) if ids else None
        record = chosen[table]
        value = record.get(key) if record else None
        if value in (None, "") or isinstance(value, (dict, list)):
            return None
        values[name] = render(value)
    return fill(template, values)


def irrelevant_request(language: Any, state: State, rng: random.Random) -> str:
    """One request the domain's tools cannot serve."""
    own = tuple(language.out_of_scope)
    near = bool(own) and rng.random() < NEAR_SHARE
    if language.everyday and not near:
        return rng.choice(language.everyday)  # the language's own everyday requests, already worded
    pool = own if near else GENERIC
    for _ in range(4):
        text = _fill_record_slots(rng.choice(pool), state, rng)
        if text:
            return text
    return rng.choice([t for t in own if not slots(t)] or ["Can you tell me a joke?"])


def decline(scope: str, rng: random.Random) -> str:
    """The assistant's decline: an apology, why not (each reason says plainly that it cannot), and what it
    can do instead, as statements (a question would make the user answer it)."""
    offer = rng.choice(OFFERS).format(scope=scope)
    return f"{rng.choice(APOLOGIES)} {rng.choice(REASONS)}. {offer[0].upper()}{offer[1:]}"
