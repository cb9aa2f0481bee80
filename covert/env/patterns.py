"""Patterns from tool schemas, matched in bounded time whatever the pattern and the text.

A tool's argument schema can carry ``pattern`` (an imported spec's, so written by someone else) and the
text matched against it comes from a model. Python's ``re`` backtracks: ``^(\\w+\\s?)*$`` takes 49 s on a
27-character name. Here a pattern is matched by the Rust ``regex`` engine that jsonschema-rs (a core
dependency) carries, which runs in time linear in the text; a pattern that needs lookaround or
backreferences (which that engine refuses) runs on fancy-regex with a backtracking budget of
:data:`BACKTRACK_LIMIT` steps, and a text that exhausts it does not match. A pattern neither engine
compiles cannot be checked in bounded time and is not checked (:attr:`BoundedPattern.checked` is
false); importers keep such patterns as ``x-pattern`` documentation instead
(:func:`covert.imports.schema.usable_pattern`).

Patterns follow JSON Schema (ECMA-262) semantics: ``\\d`` and ``\\w`` are ASCII, ``$`` is the end of the
text. Formats that fastjsonschema checks with its own regular expressions are checked on at most
:data:`MAX_FORMAT_LENGTH` characters (a longer value is not an e-mail address, a date or a host name);
see :mod:`covert.env.validators`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import jsonschema_rs

BACKTRACK_LIMIT = 20_000  # fancy-regex steps for a pattern with lookaround or backreferences
MAX_FORMAT_LENGTH = 2048  # characters of a value checked against a format's regular expression
LINEAR = jsonschema_rs.RegexOptions()
BOUNDED = jsonschema_rs.FancyRegexOptions(backtrack_limit=BACKTRACK_LIMIT)


def _engine(pattern: str) -> Any:
    """``is_valid`` of a schema holding only ``pattern``: the linear engine, else the bounded one;
    ``None`` when neither compiles it."""
    for options in (LINEAR, BOUNDED):
        try:
            return jsonschema_rs.validator_for({"pattern": pattern}, pattern_options=options).is_valid
        except (ValueError, jsonschema_rs.ValidationError):
            continue
    return None


class BoundedPattern:
    """One pattern, matched in bounded time; ``search`` and ``fullmatch`` answer ``True``/``False``.

    Attributes:
        pattern: The pattern as written.
        checked: Whether a bounded engine compiles it (else every text passes: it is documentation).
    """

    __slots__ = ("_full", "_search", "checked", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._search = _engine(pattern)
        self.checked = self._search is not None
        self._full: Any = None

    def search(self, text: str) -> bool:
        """Whether the pattern occurs in ``text`` (JSON Schema's ``pattern``)."""
        if self._search is None or not isinstance(text, str):
            return True
        try:
            return bool(self._search(text))
        except (ValueError, jsonschema_rs.ValidationError):
            return False

    def fullmatch(self, text: str) -> bool:
        """Whether the whole of ``text`` matches the pattern."""
        if self._full is None:
            self._full = bounded_pattern(f"^(?:{self.pattern})$")
        return self._full.search(text)

    def __repr__(self) -> str:
        return f"BoundedPattern({self.pattern!r})"


@lru_cache(maxsize=8192)
def bounded_pattern(pattern: str) -> BoundedPattern:
    """The :class:`BoundedPattern` of ``pattern`` (remembered: imported APIs hold thousands)."""
    return BoundedPattern(pattern)


def checkable(pattern: Any) -> bool:
    """Whether ``pattern`` is a string a bounded engine compiles (and Python's ``re`` too)."""
    if not isinstance(pattern, str):
        return False
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return False
    return bounded_pattern(pattern).checked


def bounded_validator(schema: Any) -> Any:
    """A jsonschema-rs validator of ``schema`` whose patterns run in bounded time (for response schemas
    and other data checked against a schema someone else wrote)."""
    return jsonschema_rs.validator_for(schema, pattern_options=BOUNDED)
