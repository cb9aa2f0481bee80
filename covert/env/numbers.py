"""Canonical floats: the same number whichever loader brought it in.

A float read back by an imprecise JSON decoder (``datasets.Json`` decodes with pandas' ujson, which
reads ``0.3`` as ``0.30000000000000004``) differs from what was written in its last bit or two. covert
writes JSON that loads back exactly (``covert.io.loader_safe``), and where data *enters* a state or a
tool call its floats are also put in canonical form, the double nearest their first 15 significant
digits: ``0.30000000000000004`` becomes ``0.3``; every float with at most 15 significant digits (a
price, a rate, a reading) is left as it is, so a real change of one cent is still a change. Rows
written before that fix, or passed through another tool's JSON, then still replay to their
recorded hash.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

__all__ = ["canonical_float", "canonical_json", "map_floats"]

# a float that needs more than 15 significant digits has a run of at least 16 digits and dots
_LONG_NUMBER = re.compile(rb"\d[\d.]{15}")


def canonical_float(value: float) -> float:
    """The double nearest the first 15 significant digits of ``value`` (non-finite values as they are)."""
    if not math.isfinite(value):
        return value
    short = float(f"{value:.15g}")
    return short


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
    if isinstance(value, dict):
        out = None
        for key, item in value.items():
            fixed = map_floats(item, replace)
            if fixed is not item:
                if out is None:
                    out = dict(value)
                out[key] = fixed
        return value if out is None else out
    if isinstance(value, list):
        items = None
        for i, item in enumerate(value):
            fixed = map_floats(item, replace)
            if fixed is not item:
                if items is None:
                    items = list(value)
                items[i] = fixed
        return value if items is None else items
    return value
