"""JSON values that are safe to take in: canonical floats, and arguments a state can hold.

Canonical floats: the same number whichever loader brought it in.

A float read back by an imprecise JSON decoder (``datasets.Json`` decodes with pandas' ujson, which
reads ``0.3`` as ``0.30000000000000004``) differs from what was written in its last bit or two. covert
writes JSON that loads back exactly (``covert.io.loader_safe``), and where data *enters* a state or a
tool call its floats are also put in canonical form, the double nearest their first 15 significant
digits: ``0.30000000000000004`` becomes ``0.3``; every float with at most 15 significant digits (a
price, a rate, a reading) is left as it is, so a real change of one cent is still a change. Rows
written before that fix, or passed through another tool's JSON, then still replay to their
recorded hash.

Admission: ``json.loads`` turns model text into values no state should hold and no caller can
serialise (NaN and infinities, integers past 64 bits, lone surrogates). :func:`admit` finds them
before a tool runs, so the call fails with an error observation instead of corrupting a state.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

__all__ = ["INT64", "admit", "canonical_float", "canonical_json", "map_floats"]

INT64 = (-(2**63), 2**63 - 1)  # the integers every JSON consumer here carries exactly
# a float that needs more than 15 significant digits has a run of at least 16 digits and dots
_LONG_NUMBER = re.compile(rb"\d[\d.]{15}")


def canonical_float(value: float) -> float:
    """The double nearest the first 15 significant digits of ``value`` (non-finite values as they are)."""
    if not math.isfinite(value):
        return value
    return float(f"{value:.15g}")


def canonical_json(value: Any) -> Any:
    """``value`` with every float in canonical form; the very same object when none changes.

    Cheap on data without long floats: one serialisation and a byte scan decide that nothing needs
    walking.
    """
    if isinstance(value, float):
        return canonical_float(value)
    if not isinstance(value, (dict, list)):
        return value
    try:
        text = orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_SUBCLASS)
    except (orjson.JSONEncodeError, TypeError):
        return value  # not JSON (too deep, a foreign type): whoever serialises it reports that
    if not _LONG_NUMBER.search(text):
        return value
    return _walk(value)


def _canonical_in_place(value: float) -> Any:
    short = canonical_float(value)
    return value if short == value or short != short else short


def _walk(value: Any) -> Any:
    return map_floats(value, _canonical_in_place)


def map_floats(value: Any, replace: Any) -> Any:
    """``value`` with each float ``f`` in it replaced by ``replace(f)``; containers are copied only
    where something changed (``replace`` returns ``f`` itself to keep it), so the very same object
    comes back when nothing did."""
    if type(value) is float:
        return replace(value)
    if isinstance(value, (dict, list)):
        copy: Any = None
        for key, item in (value.items() if isinstance(value, dict) else enumerate(value)):
            fixed = map_floats(item, replace)
            if fixed is not item:
                if copy is None:
                    copy = dict(value) if isinstance(value, dict) else list(value)
                copy[key] = fixed
        return value if copy is None else copy
    return value


def admit(value: Any) -> tuple[Any, str | None]:
    """``(value in canonical form, None)``, or ``(value, problem)`` when ``value`` holds something no
    state may take: a non-finite number, an integer outside int64, text that is not valid UTF-8 (a
    lone surrogate), a non-JSON object, or nesting too deep to serialise. ``problem`` names the path
    (``comment``, ``items[2].qty``) in one line."""
    try:
        text = orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return value, _problem(value, "") or "the arguments cannot be serialised as JSON"
    # NaN and infinities serialise as null; out-of-range integers have long digit runs
    if b"null" in text or _LONG_NUMBER.search(text):
        problem = _problem(value, "")
        if problem is not None:
            return value, problem
        return _walk(value), None
    return value, None


def _problem(value: Any, path: str, depth: int = 0) -> str | None:
    where = path or "the arguments"
    if depth > 64:
        return f"{where} nest too deeply"
    kind = type(value)
    if kind is float:
        return None if math.isfinite(value) else f"{where} is not a finite number"
    if kind is int:
        return None if INT64[0] <= value <= INT64[1] else f"{where} is out of range (integers must fit in 64 bits)"
    if kind is str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{where} is not valid UTF-8 text (it holds a lone surrogate)"
        return None
    if kind is bool or value is None:
        return None
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return f"{where} has a key that is not a string"
            found = _problem(key, where) or _problem(item, f"{path}.{key}" if path else key, depth + 1)
            if found is not None:
                return found
        return None
    if kind is list:
        for i, item in enumerate(value):
            found = _problem(item, f"{path}[{i}]", depth + 1)
            if found is not None:
                return found
        return None
    return f"{where} is a {kind.__name__}, not a JSON value"
