"""Concision: padding, repetition and appended text cost the reward (issue 32: the oracle's final answer
repeated 50 times scored 1.0).

Answer facts are checked by presence, so saying more never missed one: a completion could state its
answer fifty times, pad it, or append a dump of every value it saw (the right one is in there). Two
checks on the assistant's text, each a factor in ``(0, 1]`` on the whole reward:

- length: the assistant's text (every turn) may use :data:`BASE_CHARS` characters, plus
  :data:`PER_CALL_TURN` for each turn that makes calls (a retry's note; an extra call costs the calls
  component anyway), plus :data:`PER_FACT_CHAR` per character of the answer facts (their longest
  accepted form), and that much again after each user reply inside the completion. Beyond it the
  factor is ``budget / length``. Every oracle answer covert writes fits with room to spare: over a
  300-task build of every builder and a 200-task one with conversations and every augmentation (3,476
  rows), the most an oracle used is 66% of its budget (an error report with its facts);
- repetition: a sentence (of at least :data:`MIN_SENTENCE` normalised characters) that occurs ``k > 1``
  times in one assistant message gives a factor of ``1 / k`` (many messages are the length's business).

The reasons say which (``answer:too_long``, ``answer:repeated``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from covert.language.values import normalize_text

BASE_CHARS = 400
PER_CALL_TURN = 100
PER_FACT_CHAR = 3
MIN_SENTENCE = 16
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def answer_budget(fact_forms: Sequence[Sequence[str]], exchanges: int = 1, call_turns: int = 0) -> int:
    """Characters the assistant's text may use: :data:`BASE_CHARS` plus :data:`PER_FACT_CHAR` per
    character of each fact's longest form, once per exchange (the first request and each user reply),
    plus :data:`PER_CALL_TURN` per turn that makes calls."""
    facts = sum(max((len(form) for form in forms), default=0) for forms in fact_forms)
    return (BASE_CHARS + PER_FACT_CHAR * facts) * max(1, exchanges) + PER_CALL_TURN * call_turns


def most_repeated(texts: Sequence[str]) -> int:
    """How many times the most repeated sentence of any one of ``texts`` occurs in it (1 when none
    repeats; the same note in two turns, a retry's, is not a repetition)."""
    most = 1
    for text in texts:
        counts = Counter(normalized for normalized in map(normalize_text, _SENTENCE_END.split(text))
                         if len(normalized) >= MIN_SENTENCE)
        most = max(most, max(counts.values(), default=1))
    return most


def concision(texts: Sequence[str], fact_forms: Sequence[Sequence[str]], exchanges: int = 1,
              repeats: int = 1, call_turns: int = 0) -> tuple[float, list[str]]:
    """The concision factor of the assistant's ``texts`` (in ``(0, 1]``) and the reasons it is below 1;
    ``repeats``: how often the right answer itself repeats a sentence (a procedural reference may)."""
    factor, reasons = 1.0, []
    length = sum(len(text) for text in texts)
    budget = answer_budget(fact_forms, exchanges, call_turns)
    if length > budget:
        factor *= budget / length
        reasons.append(f"answer:too_long: {length} characters of assistant text, over its budget of {budget}")
    copies = most_repeated(texts)
    if copies > max(1, repeats):
        factor *= max(1, repeats) / copies
        reasons.append(f"answer:repeated: a sentence is stated {copies} times")
    return factor, reasons
