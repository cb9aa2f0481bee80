"""Reading answers out of model responses, in the forms models write them, with bounded work.

Every helper takes any text (empty, garbage, megabytes) and never raises. Work is bounded: only the
part after the last ``</think>`` is read, and of that only the last :data:`MAX_TAIL` characters; a
parsed list holds at most :data:`MAX_ITEMS` numbers.

The answer is looked for, in this order: a JSON object ``{"answer": ...}`` written after every other
marker; the last ``\\boxed{...}``; the text after the last ``Answer:`` / ``Final answer:`` marker; the last
fenced code block; the last non-empty line(s).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_TAIL = 20_000
MAX_ANSWER = 8_000
MAX_ITEMS = 4_096

_MARKER = re.compile(r"(?i)(?:final\s+answer|answer)\s*(?:is)?\s*[:：=]")
_FENCE = re.compile(r"```[a-zA-Z]*\n?(.*?)```", re.DOTALL)
_INT = re.compile(r"-?\d{1,18}")
_BOXED = "\\boxed{"
_JSON_ANSWER = re.compile(r'(?i)\{\s*"(?:final_)?answer"\s*:')


def tail(response: Any) -> str:
    """The readable end of a response: after the last ``</think>``, at most :data:`MAX_TAIL` characters."""
    if not isinstance(response, str):
        return ""
    cut = response.rfind("</think>")
    if cut >= 0:
        response = response[cut + len("</think>"):]
    return response[-MAX_TAIL:]


def _last_boxed(text: str) -> str | None:
    start = text.rfind(_BOXED)
    if start < 0:
        return None
    depth, i = 1, start + len(_BOXED)
    begin = i
    while i < len(text) and i - begin < MAX_ANSWER:
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[begin:i]
        i += 1
    return None


def answer_text(response: Any, lines: int = 1) -> str:
    """The part of ``response`` that holds the final answer ("" when there is none).

    ``lines`` is how many trailing non-empty lines make the answer when no marker is found (a grid
    answer spans several)."""
    text = tail(response)
    if not text.strip():
        return ""
    wrapped = _json_answer(text)
    if wrapped is not None:
        return wrapped[:MAX_ANSWER]
    boxed = _last_boxed(text)
    if boxed is not None:
        return boxed.strip()[:MAX_ANSWER]
    markers = list(_MARKER.finditer(text))
    if markers:
        rest = text[markers[-1].end():]
        fenced = _FENCE.search(rest)
        if fenced:
            rest = fenced.group(1)
        return rest.strip().strip("`").strip()[:MAX_ANSWER]
    fences = _FENCE.findall(text)
    if fences:
        return fences[-1].strip()[:MAX_ANSWER]
    kept = [line for line in text.splitlines() if line.strip()][-lines:]
    return "\n".join(kept).strip()[:MAX_ANSWER]


def _json_answer(text: str) -> str | None:
    """The value of the last ``{"answer": ...}`` object in ``text`` when no ``\\boxed{`` or ``Answer:``
    marker follows it: a string value as it is, any other value as compact JSON text."""
    starts = [m.start() for m in _JSON_ANSWER.finditer(text)]
    if not starts:
        return None
    start = starts[-1]
    if text.rfind(_BOXED) > start or any(m.start() > start for m in _MARKER.finditer(text, start + 1)):
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:start + MAX_ANSWER * 2])
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    inner = next((v for k, v in value.items() if str(k).lower() in ("answer", "final_answer")), None)
    if inner is None:
        return None
    return inner.strip() if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False)


def ints(text: str, limit: int = MAX_ITEMS) -> list[int] | None:
    """Every integer in ``text`` in order (``None`` when there are more than ``limit``)."""
    found: list[int] = []
    for match in _INT.finditer(text):
        if len(found) >= limit:
            return None
        found.append(int(match.group()))
    return found


def json_value(text: str) -> Any:
    """``text`` (or its first ``[...]`` / ``{...}`` span) as JSON, or ``None``."""
    text = text.strip()
    for candidate in (text, _span(text, "[", "]"), _span(text, "{", "}")):
        if candidate:
            try:
                return json.loads(candidate)
            except (ValueError, RecursionError):
                continue
    return None


def _span(text: str, left: str, right: str) -> str | None:
    start, end = text.find(left), text.rfind(right)
    return text[start:end + 1] if 0 <= start < end else None


def int_answer(response: Any) -> int | None:
    """A single integer answer: the answer text must hold exactly one integer."""
    found = ints(answer_text(response), limit=2)
    return found[0] if found is not None and len(found) == 1 else None


def int_list_answer(response: Any, limit: int = MAX_ITEMS) -> list[int] | None:
    """A list of integers: JSON ``[1, 2]``, ``1, 2``, ``1 2``, ``(1, 2)``, ``{1, 2}`` or ``1 -> 2``.

    ``None`` when nothing is there or there are more than ``limit`` numbers."""
    text = answer_text(response)
    if not text:
        return None
    value = json_value(text)
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return value if len(value) <= limit else None
    found = ints(text, limit)
    return found if found else ([] if re.fullmatch(r"[\s\[\](){}]*(?:none|empty)?[\s\[\](){}]*", text.lower()) else None)


_NATURAL = re.compile(r"\d{1,18}")


def int_pairs_answer(response: Any, limit: int = MAX_ITEMS) -> list[tuple[int, int]] | None:
    """A list of pairs of non-negative integers: JSON ``[[1, 2], [3, 4]]``, ``1-2, 3-4``, ``(1, 2) (3, 4)`` or
    ``1 2 3 4``. ``None`` when nothing is there, the numbers do not pair up, or there are more than ``limit``
    pairs."""
    text = answer_text(response)
    if not text:
        return None
    value = json_value(text)
    if isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 for p in value):
        if len(value) > limit or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                                         for p in value for x in p):
            return None
        return [(p[0], p[1]) for p in value]
    found: list[int] = []
    for match in _NATURAL.finditer(text):
        if len(found) >= 2 * limit:
            return None
        found.append(int(match.group()))
    if not found or len(found) % 2:
        return [] if not found and re.fullmatch(r"[\s\[\](){}]*(?:none|empty)?[\s\[\](){}]*", text.lower()) else None
    return [(found[i], found[i + 1]) for i in range(0, len(found), 2)]
