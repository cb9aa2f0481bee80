"""Plain-value helpers shared by synthesis, validation and rewards: paths, text forms, normalisation."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_MISSING = object()


def get_path(value: Any, path: str, default: Any = None) -> Any:
    """Follow a dotted path (``refund.amount``, ``events.0.title``) into nested dicts and lists (a
    numeric part indexes a list); ``default`` if absent."""
    current = value
    for part, index in _path_parts(path):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and index is not None and (index if index >= 0 else int(part)) < len(current):
            current = current[index if index >= 0 else int(part)]
        else:
            return default
    return current


@lru_cache(maxsize=1 << 14)
def _path_parts(path: str) -> tuple[tuple[str, int | None], ...]:
    """A dotted path's parts, each with its list index: ``None`` for a part that is not all digits, ``-1``
    for digits other than ASCII ones (``int`` reads them where a list is indexed, as it always did)."""
    return tuple((part, None if not part.isdigit() else int(part) if part.isascii() else -1)
                 for part in path.split("."))


def render(value: Any) -> str:
    """How a value reads in text: ``200.0`` as ``200``, booleans as yes/no, lists joined."""
    if type(value) is str:
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, list):
        return join_phrases([render(v) for v in value])
    return str(value)


_CLOSERS = "\"'”’)"


def ends_sentence(text: str) -> bool:
    """Whether ``text`` already ends a sentence: ``.``, ``?`` or ``!``, also inside a closing quote
    (``... next month?"``)."""
    return text.rstrip(_CLOSERS)[-1:] in (".", "?", "!") if text else False


_DOUBLED_STOP = re.compile(r'([.!?])"\.')


def single_stops(text: str) -> str:
    """``text`` with no second stop after a quoted sentence: 'with "I'll be there."', not '... there.".'"""
    return _DOUBLED_STOP.sub(r'\1"', text) if '".' in text else text


def finish_sentence(text: str) -> str:
    """``text`` stripped, with a capital first letter (an email address that opens it is written as typed) and
    a full stop unless it already ends a sentence; a quoted sentence takes no second stop."""
    text = single_stops(text.strip())
    if not text:
        return text
    if "@" not in text.split(" ", 1)[0]:
        text = text[0].upper() + text[1:]
    return text if ends_sentence(text) else text + "."


def join_phrases(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def join_items(parts: list[str]) -> str:
    """A list of items as :func:`join_phrases` says it, unless an item's own words hold a comma ("size
    checked, color navy"; one inside its parentheses, "SK7468 (8:15 am, 5 open seats)", is no such
    comma): then semicolons set the items apart (``a, b; c, d; and e``), so the reader sees where one
    ends."""
    parts = [p for p in parts if p]
    if len(parts) <= 1 or not any(_bare_comma(p) for p in parts):
        return join_phrases(parts)
    return "; ".join(parts[:-1]) + "; and " + parts[-1]


def _bare_comma(text: str) -> bool:
    """Whether ``text`` holds a comma outside parentheses."""
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char == "," and depth == 0:
            return True
    return False


@lru_cache(maxsize=1 << 16)
def normalize_text(text: str) -> str:
    """Lower case, single spaces, no thousands separators, for containment checks (memoized: one
    query or fact is normalized by several checks)."""
    return " ".join(text.lower().replace(",", " ").replace("$", " ").split())


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


@lru_cache(maxsize=16384)
def written_dates(value: str) -> tuple[str, ...]:
    """The ways a person writes the calendar date ``value`` (``2026-03-12``) with its year: ``March 12, 2026``,
    ``12 March 2026``, ``Mar 12, 2026``, ``12 Mar 2026``; ``()`` for anything but a plain ISO date."""
    if len(value) != 10 or value[4] != "-" or value[7] != "-" or not (value[:4] + value[5:7] + value[8:]).isdigit():
        return ()
    month, day = int(value[5:7]), int(value[8:])
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return ()
    name, year = MONTHS[month - 1], value[:4]
    return (f"{name} {day}, {year}", f"{day} {name} {year}", f"{name[:3]} {day}, {year}", f"{day} {name[:3]} {year}")


@lru_cache(maxsize=65536)
def _str_forms(value: str) -> tuple[str, ...]:
    return (normalize_text(value), *(normalize_text(d) for d in written_dates(value)))


def text_forms(value: Any) -> list[str] | tuple[str, ...]:
    """Normalised forms under which ``value`` may appear in text (``12.5`` -> ``12.50``, ``12.5``; a date
    ``2026-03-12`` also as it is written, ``March 12, 2026``)."""
    if type(value) is str:
        return _str_forms(value) if len(value) == 10 else [normalize_text(value)]
    if isinstance(value, bool):
        return ["true" if value else "false", "yes" if value else "no"]
    if isinstance(value, int):
        return [str(value)]
    if isinstance(value, float):
        forms = {f"{value:.2f}", repr(value)}
        if value == int(value):
            forms.add(str(int(value)))
        return sorted(forms)
    if isinstance(value, str):
        return [normalize_text(value)]
    return []


def mentions(text_normalized: str, value: Any) -> bool:
    """Whether normalised text contains any text form of ``value`` (as a whole token run)."""
    forms = text_forms(value)
    if len(forms) > 1 and type(value) is str and value[:4] not in text_normalized:
        forms = forms[:1]  # every written form of a date holds its year: without it, only the value can be there
    for form in forms:
        if not form:
            continue
        start = text_normalized.find(form)
        while start != -1:
            end = start + len(form)
            before = text_normalized[start - 1] if start else " "
            after = text_normalized[end] if end < len(text_normalized) else " "
            if not (before.isalnum() and form[0].isalnum()) and not (after.isalnum() and form[-1].isalnum()):
                return True
            start = text_normalized.find(form, start + 1)
    return False


def contains_value(haystack: Any, value: Any) -> bool:
    """Whether ``value`` occurs anywhere inside nested JSON data (numbers compare by value)."""
    if isinstance(haystack, dict):
        return any(contains_value(v, value) for v in haystack.values())
    if isinstance(haystack, list):
        return any(contains_value(v, value) for v in haystack)
    if isinstance(haystack, bool) or isinstance(value, bool):
        return haystack is value
    if isinstance(haystack, (int, float)) and isinstance(value, (int, float)):
        return haystack == value
    return haystack == value


def scalar_set(value: Any) -> set[Any]:
    """Every scalar inside nested JSON data, for repeated membership tests (booleans kept apart from
    numbers: ``True`` is stored as ``("bool", True)``)."""
    out: set[Any] = set()
    add = out.add
    stack = [value]
    pop = stack.pop
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is int or kind is float:
            add(item)
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is bool:
            add(("bool", item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif item is not None:  # subclasses of str, int or float (bool cannot be subclassed)
            add(item)
    return out


def in_scalars(scalars: set[Any], value: Any) -> bool:
    """Membership in a :func:`scalar_set` with the same bool/number separation."""
    if isinstance(value, bool):
        return ("bool", value) in scalars
    try:
        return value in scalars
    except TypeError:
        return False


def said_twice(text: str, values: Any, codes: Any = ()) -> str:
    """A value that ``text`` hands over twice ("... of Ingrid Kim? The person is Ingrid Kim."), or ``""``.

    ``values`` are the strings a task's calls take. Not counted: values under five characters, bare
    numbers and dates, ``codes`` (enum codes, whose word may come up in plain speech: "fixed"), a value
    inside a longer value or an email ("Rossi" in yuki.rossi42@...), and a value that starts a name
    made with another value ("Priya" in "Priya Dubois", a first name kept while the last name changes).
    """
    query = text.lower()
    skip = _lowered(codes) if isinstance(codes, frozenset) else {str(c).lower() for c in codes}
    strings = sorted({v for v in values if isinstance(v, str)}, key=len, reverse=True)
    without_emails = None
    for value in strings:
        needle = value.lower()
        if len(value) < 5 or needle in skip or query.count(needle) < 2 or \
                value.replace(".", "").replace("-", "").isdigit():
            continue
        if "@" in needle:
            rest = query
        else:
            without_emails = _EMAIL.sub(" ", query) if without_emails is None else without_emails
            rest = without_emails
        for other in strings:
            low = other.lower()
            if len(other) > len(value) and needle in low:
                rest = rest.replace(low, " ")
            elif low != needle:
                rest = rest.replace(f"{needle} {low}", " ")
        if _word_count(rest, needle) >= 2:
            return value
    return ""


_EMAIL = re.compile(r"\S+@\S+")


@lru_cache(maxsize=256)
def _lowered(codes: frozenset[Any]) -> frozenset[str]:
    """A builder's enum codes in lower case (cached: validation passes the same codes for every row)."""
    return frozenset(str(c).lower() for c in codes)


def _word_count(text: str, needle: str) -> int:
    """How often ``needle`` occurs in ``text`` as a whole word (no word character right before or after)."""
    count, at = 0, text.find(needle)
    while at != -1:
        end = at + len(needle)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            count += 1
        at = text.find(needle, at + 1)
    return count


def enum_codes(functions: Any) -> frozenset[str]:
    """The enum codes the parameters of tool ``functions`` take (dicts with an OpenAI-style
    ``parameters`` object; list items' enums too)."""
    out: set[str] = set()
    for function in functions:
        props = ((function or {}).get("parameters") or {}).get("properties") or {}
        for schema in props.values():
            for part in (schema, (schema or {}).get("items") or {}):
                out.update(str(c) for c in (part or {}).get("enum") or ())
    return frozenset(out)


def overlaps(value: Any, given: Any) -> bool:
    """Whether the string ``value`` says again one of the lower-case ``given`` strings, or is part of one
    ("Interview feedback: Chloe Whitfield" and "chloe"): describing a record by it says the value twice."""
    if not isinstance(value, str):
        return False
    text = value.lower()
    return any(g in text or text in g for g in given)
