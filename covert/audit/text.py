"""Text helpers of the audit: sentences, value mentions, sentence frames."""

from __future__ import annotations

import re
from typing import Any

from covert.values import mentions, normalize_text

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_DATE_OR_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$|^\d{1,2}:\d{2}(:\d{2})?$")
_CODE3 = re.compile(r"^[A-Z]{3}$")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def sentences(text: str) -> list[str]:
    """The sentences of a text (split after ``.``, ``!`` or ``?`` followed by a capital or a digit)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def distinctive(value: str) -> bool:
    """A value that names something when it shows up in text: a name, a title, a code with digits.

    Lower-case single words (statuses, folders), bare dates and times and three-letter codes
    (currencies, airports) are not: they occur in many records and in many answers.
    """
    if not isinstance(value, str) or not 3 <= len(value) <= 200:
        return False
    if _DATE_OR_TIME.match(value) or _CODE3.match(value):
        return False
    return any(ch.isupper() or ch.isdigit() or ch == " " for ch in value)


def says(text_norm: str, value: Any) -> bool:
    """Whether normalised text mentions ``value`` (a whole run of tokens)."""
    return mentions(text_norm, value)


def record_lists(value: Any, limit: int = 200) -> list[dict[str, Any]]:
    """The records of every non-empty list of records inside nested data (at most ``limit``)."""
    out: list[dict[str, Any]] = []
    stack = [value]
    while stack and len(out) < limit:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            records = [e for e in item if isinstance(e, dict)]
            out.extend(records[: limit - len(out)])
            stack.extend(records)
    return out


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
    """:func:`covert.values.normalize_text`, re-exported for the checks."""
    return normalize_text(text)
