"""How values are said to people: dates, times, amounts, statuses, counts.

Shared by synthesis (which writes answers), validation (which re-derives every spoken form from the
replayed outputs) and rewards (which accept a fact stated raw or spoken). Everything here is a pure
function of its inputs, so the same output always gives the same words.

Forms (the ``form`` of an answer fact):

- ``date``: ``2026-03-12`` (or the date part of a timestamp) -> ``March 12, 2026``;
- ``time``: ``15:30`` -> ``3:30 pm``, ``09:00`` -> ``9 am``;
- ``when``: ``2026-03-12T15:30`` -> ``March 12, 2026 at 3:30 pm``;
- ``money``: ``12.5`` with currency ``USD`` -> ``$12.50`` (other currencies: ``12.50 CAD``);
- ``status``: ``under_review`` -> ``under review``, ``resolved_refunded`` -> ``resolved with a refund``;
- ``n:noun`` or ``n:noun|plural``: a count (an integer or the length of a list) with its noun in
  agreement: ``no events``, ``1 event``, ``3 events``.
"""

from __future__ import annotations

import re
from typing import Any

from covert.language.plurals import plural
from covert.language.values import MONTHS, normalize_text, render

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
FORMS = frozenset(("date", "time", "when", "money", "status", "n"))

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?$")


class Unspeakable(ValueError):
    """A value that the requested form cannot say (``date`` of something that is not a date)."""


def say_date(value: Any) -> str:
    """``2026-03-12`` -> ``March 12, 2026``."""
    match = _DATE.match(value) if isinstance(value, str) else None
    if not match:
        raise Unspeakable(f"not a date: {value!r}")
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        raise Unspeakable(f"not a date: {value!r}")
    return f"{MONTHS[month - 1]} {day}, {year}"


def say_time(value: Any) -> str:
    """``15:30`` -> ``3:30 pm``; ``09:00`` -> ``9 am``; ``12:00`` -> ``noon``... kept plain: ``12 pm``."""
    match = _TIME.match(value) if isinstance(value, str) else None
    if not match:
        raise Unspeakable(f"not a time: {value!r}")
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        raise Unspeakable(f"not a time: {value!r}")
    suffix = "am" if hour < 12 else "pm"
    shown = hour % 12 or 12
    return f"{shown} {suffix}" if minute == 0 else f"{shown}:{minute:02d} {suffix}"


def say_when(value: Any) -> str:
    """``2026-03-12T15:30`` -> ``March 12, 2026 at 3:30 pm`` (a bare date is said as a date)."""
    match = _DATE.match(value) if isinstance(value, str) else None
    if not match:
        raise Unspeakable(f"not a timestamp: {value!r}")
    day = say_date(value[:10])
    if match.group(4) is None:
        return day
    return f"{day} at {say_time(f'{match.group(4)}:{match.group(5)}')}"


def say_money(value: Any, currency: Any) -> str:
    """``12.5``, ``USD`` -> ``$12.50``; ``1234``, ``CAD`` -> ``1,234.00 CAD``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Unspeakable(f"not an amount: {value!r}")
    if not isinstance(currency, str) or not currency:
        raise Unspeakable("an amount needs its currency")
    sign = "-" if value < 0 else ""
    digits = f"{abs(value):,.2f}"
    symbol = SYMBOLS.get(currency)
    return f"{sign}{symbol}{digits}" if symbol else f"{sign}{digits} {currency}"


# status codes whose words alone do not say what they mean ("is resolved refunded", "Noah (needs action)")
STATUS_WORDS = {"resolved_refunded": "resolved with a refund", "needs_action": "no reply yet"}


def say_status(value: Any) -> str:
    """``under_review`` -> ``under review``, ``resolved_refunded`` -> ``resolved with a refund`` (statuses
    in words, never snake_case; :data:`STATUS_WORDS` says the codes whose bare words would not)."""
    if not isinstance(value, str) or not value:
        raise Unspeakable(f"not a status: {value!r}")
    return STATUS_WORDS.get(value) or _status_words(value)


def _status_words(value: str) -> str:
    return value.replace("_", " ").replace("-", " ")


def _status_forms(value: str) -> list[str]:
    """How a status may be written: as :func:`say_status` says it and in its bare words ("resolved with a
    refund", "resolved refunded")."""
    return [say_status(value), _status_words(value)]


def count_of(value: Any) -> int:
    """What a count slot counts: an integer, or the length of a list."""
    if isinstance(value, list):
        return len(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise Unspeakable(f"not a count: {value!r}")


def say_count(value: Any, nouns: str) -> str:
    """``3``, ``event`` -> ``3 events``; ``0`` -> ``no events``; ``nouns`` may be ``noun|plural``."""
    noun, _, many = nouns.partition("|")
    many = many or plural(noun)
    n = count_of(value)
    if n == 0:
        return f"no {many}"
    return f"1 {noun}" if n == 1 else f"{n} {many}"


def raw_value(form: str, value: Any) -> str:
    """The raw text of a fact: the value as :func:`covert.language.values.render` writes it, or for a count the
    number counted."""
    counted = form == "n" or form.startswith("n:")  # the kind before the first ":" is "n"
    return str(count_of(value)) if counted else render(value)


def say(form: str, value: Any, unit: Any = None) -> str:
    """The spoken form of ``value``; ``form`` is one of :data:`FORMS` (``n`` with its ``:noun``);
    ``unit`` is the currency of a ``money`` value. Raises :class:`Unspeakable` when it does not fit."""
    kind, _, arg = form.partition(":")
    if kind == "date":
        return say_date(value)
    if kind == "time":
        return say_time(value)
    if kind == "when":
        return say_when(value)
    if kind == "money":
        return say_money(value, unit)
    if kind == "status":
        return say_status(value)
    if kind == "n":
        if not arg:
            raise Unspeakable("a count needs its noun (n:noun)")
        return say_count(value, arg)
    raise Unspeakable(f"unknown form {form!r}")


def fact_text(fact: dict[str, Any]) -> str:
    """What an answer must contain for ``fact``: its spoken form when it has one, else its value."""
    said = fact.get("said")
    return said if isinstance(said, str) and said else fact["value"]


def _date_variants(value: str) -> list[str]:
    match = _DATE.match(value)
    if not match:
        return []
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    if not 1 <= month <= 12:
        return []
    name = MONTHS[month - 1]
    out = [value[:10], f"{name} {day}, {year}", f"{name} {day} {year}", f"{day} {name} {year}",
           f"{name[:3]} {day}, {year}", f"{day} {name[:3]} {year}", f"{month}/{day}/{year}"]
    if match.group(4) is not None:
        spoken = say_time(f"{match.group(4)}:{match.group(5)}")
        hhmm = f"{match.group(4)}:{match.group(5)}"
        out = [f"{d} at {t}" for d in out for t in (spoken, hhmm)] + [f"{d} {t}" for d in out for t in (spoken, hhmm)]
        out.append(value)
    return out


def _time_variants(value: str) -> list[str]:
    match = _TIME.match(value)
    if not match:
        return []
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        return []
    shown = hour % 12 or 12
    suffix = "am" if hour < 12 else "pm"
    said = say_time(value)
    return [value, f"{hour:02d}:{minute:02d}", f"{shown}:{minute:02d} {suffix}", f"{shown}:{minute:02d}{suffix}",
            said, said.replace(" ", "")]


def _money_variants(fact: dict[str, Any]) -> list[str]:
    try:
        amount = float(fact["value"])
    except ValueError:
        return []
    said = fact.get("said") or ""
    currency = said.rsplit(" ", 1)[-1] if said and said[0] not in SYMBOLS.values() and " " in said else ""
    for code, symbol in SYMBOLS.items():
        if symbol in said:
            currency = code
    digits = {f"{amount:.2f}", f"{amount:,.2f}", fact["value"]}
    if amount == int(amount):
        digits |= {str(int(amount)), f"{int(amount):,}"}
    out = sorted(digits)
    if currency:
        symbol = SYMBOLS.get(currency, "")
        out += [f"{d} {currency}" for d in digits] + [f"{currency} {d}" for d in digits]
        out += [f"{symbol}{d}" for d in digits if symbol]
    return out


def fact_forms(fact: Any) -> tuple[str, ...]:
    """Every text under which an answer may state ``fact`` (a fact mapping or a plain value): its raw
    value, its spoken form and the usual variants of dates ("March 12, 2026", "12 March 2026",
    "2026-03-12"), times ("3:30 pm", "15:30") and amounts ("$12.50", "12.50 USD")."""
    if isinstance(fact, str):
        return (fact,)
    value = fact.get("value")
    if not isinstance(value, str):
        return ()
    forms = [value]
    said = fact.get("said")
    if isinstance(said, str) and said:
        forms.append(said)
    kind = str(fact.get("form") or "").split(":", 1)[0]
    if kind in ("date", "when"):
        forms += _date_variants(value)
    elif kind == "time":
        forms += _time_variants(value)
    elif kind == "money":
        forms += _money_variants(fact)
    elif kind == "status" and value:
        forms += _status_forms(value)
    return tuple(dict.fromkeys(f for f in forms if normalize_text(f)))


def spoken_variants(value: Any) -> tuple[str, ...]:
    """The texts a value may appear under when nobody says which form it was given in: the value
    itself, and for a date, a time, a timestamp or a snake_case word the spoken forms of them."""
    if not isinstance(value, str):
        return (render(value),)
    out = [value]
    if _DATE.match(value):
        out += _date_variants(value)
    elif _TIME.match(value):
        out += _time_variants(value)
    elif "_" in value and value.replace("_", "").isalpha():
        out += _status_forms(value)
    return tuple(dict.fromkeys(out))
