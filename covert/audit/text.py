"""Text helpers of the audit: sentences, value mentions, sentence frames."""

from __future__ import annotations

import re
from typing import Any

from covert.language.spoken import spoken_variants
from covert.language.values import mentions, normalize_text

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def sentences(text: str) -> list[str]:
    """The sentences of a text (split after ``.``, ``!`` or ``?`` followed by a capital or a digit)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def says(text_norm: str, value: Any) -> bool:
    """Whether normalised text mentions ``value`` (a whole run of tokens)."""
    return mentions(text_norm, value)


def says_spoken(text_norm: str, value: Any) -> bool:
    """Whether normalised text mentions ``value`` raw or in a spoken form ("March 12, 2026" for
    2026-03-12, "3:30 pm" for 15:30, "under review" for under_review)."""
    return any(mentions(text_norm, form) for form in spoken_variants(value))


_SPOKEN_DATE = re.compile(r"\b(?:January|February|March|April|May|June|July|August|September|October|November|"
                          r"December) \d{1,2}, \d{4}(?: at \d{1,2}(?::\d{2})? [ap]m)?|\b\d{1,2}(?::\d{2})? [ap]m\b")
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")


def without_dates(text: str) -> str:
    """``text`` with spoken dates and times taken out (their digits count nothing)."""
    return _SPOKEN_DATE.sub(" ", text)


def without_quotes(text: str) -> str:
    """``text`` with quoted passages (an email body, a subject) taken out."""
    return _QUOTED.sub(" ", text)


def frame(sentence: str, values: list[str]) -> tuple[str, int]:
    """A sentence with its values masked: ``(frame, literal word count)``.

    ``values`` are the strings the row's data holds (longest first); each occurrence becomes ``<v>``,
    and digits become ``#``, so "I found 1 contact matching Ana." and "I found 2 contacts matching
    Bo." differ only where the data does.
    """
    masked = sentence
    for value in values:
        if value in masked:
            masked = masked.replace(value, " qqvalueqq ")
    masked = _DIGITS.sub(" qqnumqq ", masked)
    words = [w for w in re.split(r"\W+", masked.lower()) if w]
    literal = sum(1 for w in words if w not in ("qqvalueqq", "qqnumqq"))
    return " ".join(words).replace("qqvalueqq", "<v>").replace("qqnumqq", "#"), literal


def normalized(text: str) -> str:
    """:func:`covert.language.values.normalize_text`, re-exported for the checks."""
    return normalize_text(text)
