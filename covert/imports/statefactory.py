"""Seeded, realistic values from JSON Schemas: records for the state of an imported API.

Values follow the schema (type, enum, format, bounded patterns, minimum/maximum, lengths) and, where
the schema leaves room, what the field means (:mod:`covert.imports.fieldvalues`): the spec's own
examples, the fixed value its description states, and its name's words (a ``currencyCode`` gets an ISO
code, a ``roleArn`` an IAM role ARN, a ``displayName`` a name fitting the resource). Fields that differ
only in case (``sid`` and ``Sid``) hold one value, and a record's creation time comes before its last
update. Floats are rounded to cents and put in canonical form, so states hash the same however they were
loaded. Work is bounded: nesting depth, array lengths and pattern attempts are capped.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import random
import re
import uuid
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from covert.env.jsonsafe import canonical_float
from covert.env.patterns import BoundedPattern, bounded_pattern
from covert.imports.arn_fit import plausible_arn
from covert.imports.fieldvalues import (
    QUALIFIERS,
    ValueContext,
    described_examples,
    field_kind,
    integer_range,
    make_value,
    meaning_known,
    names_record,
    person_context,
    resource_slug,
    vary_example,
)
from covert.imports.record_keys import PROJECT_KEYS, fold_key, path_project
from covert.imports.record_times import CHANGED_EVENTS, CREATED_EVENTS, END_EVENTS, FINISHED_EVENTS
from covert.imports.resources import words
from covert.imports.rowforms import STATUS_WORDS, failure_field, filler, troubled_state
from covert.imports.stated_values import stated_values
from covert.language.plurals import singular

MAX_DEPTH = 3
MAX_ITEMS = 3
# how often an optional field is left out: a record's own fields mostly there, a nested object's half of
# them (nothing says them; they make outputs long), deeper objects half of a few plain values (never an
# empty "errors": [{}]) besides what they require
OPTIONAL_LEFT_OUT = (0.15, 0.5, 0.5)
DEEP_OPTIONAL = 3  # optional plain values an object two levels down may hold
_PLAIN = frozenset(("string", "integer", "number", "boolean", "enum", "const"))

DEFAULT_CONTEXT = ValueContext()
_SIMPLE_PATTERNS = (
    # words first: a name made only of letters is a word or two ("billing", "BillingOrders"), not "enrkkont"
    lambda rng: _choice(rng, QUALIFIERS),
    lambda rng: "".join(_choice(rng, QUALIFIERS).capitalize() for _ in range(2)),
    lambda rng: "_".join(_choice(rng, QUALIFIERS) for _ in range(2)),
    lambda rng: "".join(_choice(rng, "0123456789") for _ in range(6)),
    lambda rng: "".join(_choice(rng, "abcdefghijklmnopqrstuvwxyz") for _ in range(8)),
    lambda rng: "".join(_choice(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3)),
    lambda rng: "".join(_choice(rng, "abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10)),
    lambda rng: "".join(_choice(rng, "0123456789abcdef") for _ in range(16)),
    lambda rng: "".join(_choice(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(12)),
    lambda rng: "-".join(_choice(rng, QUALIFIERS) for _ in range(2)),
)
MAX_PATTERN_LENGTH = 200
PATTERN_ATTEMPTS = 24  # draws from a pattern before a value is given up (anchored alternatives need several)


class Unsatisfiable(ValueError):
    """A schema the factory cannot produce a value for (a pattern it cannot match, an empty range)."""


def _randint(rng: random.Random, low: int, high: int) -> int:
    """An integer in ``[low, high]`` from one ``rng.random()`` draw (``randint`` costs several calls;
    a state has tens of thousands of draws)."""
    return low + int(rng.random() * (high - low + 1))


def _choice(rng: random.Random, seq: Any) -> Any:
    """An element of ``seq`` from one ``rng.random()`` draw (``IndexError`` when it is empty)."""
    if not seq:
        raise IndexError("cannot choose from an empty sequence")
    return seq[int(rng.random() * len(seq))]


def seeded_uuid(rng: random.Random) -> str:
    """A version-4 UUID drawn from ``rng``."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def value_for(schema: Any, name: str, rng: random.Random, depth: int = 0, ctx: ValueContext | None = None,
              siblings: frozenset[str] = frozenset()) -> Any:
    """One plausible value for a field called ``name`` with JSON Schema ``schema``, in the API and record
    ``ctx`` describes (``siblings``: the other fields of its record, which tell what a ``value`` is)."""
    ctx = ctx or DEFAULT_CONTEXT
    if not isinstance(schema, dict):
        return make_value(field_kind(name), rng, ctx, name)
    kind, arg = _shape(schema)
    if kind == "const":
        return arg
    if kind == "enum":
        return _choice(rng, arg)
    if kind == "alternative":
        return value_for(arg, name, rng, depth, ctx, siblings)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        return _integer(schema, name, rng)
    if kind == "number":
        return _number(schema, name, rng)
    if kind == "array":
        if depth >= MAX_DEPTH:
            return []
        low = int(schema.get("minItems", 0) or 0)
        count = min(max(low, _randint(rng, 1, 2)), max(low, MAX_ITEMS))
        item_name = singular(name) if name.endswith("s") else name  # "countries" -> "country", not "countrie"
        values = [value_for(schema.get("items", {}), item_name, rng, depth + 1, ctx) for _ in range(count)]
        if values and all(v == {} for v in values):
            return []  # objects with nothing in them are no items: "deploymentMappings": [{}] is filler
        # a list says each item once: "daysOfTheWeek": ["TUESDAY", "TUESDAY"] is filler (so are repeated strings
        # where the schema does not say uniqueItems), unless it must hold more items than there are distinct ones
        if schema.get("uniqueItems") or all(isinstance(v, str) for v in values):
            unique: list[Any] = []
            for v in values:
                if v not in unique:
                    unique.append(v)
            for _ in range(4 * (low - len(unique))):  # a list that must hold more: a few more draws, bounded
                if len(unique) >= low:
                    break
                drawn = value_for(schema.get("items", {}), item_name, rng, depth + 1, ctx)
                if drawn not in unique:
                    unique.append(drawn)
            if len(unique) >= low or schema.get("uniqueItems"):
                values = unique
        return values
    if kind == "object":  # a creator or author holds a person's name, not one like the record's
        return record(schema, rng, depth + 1, person_context(ctx, name)) if depth < MAX_DEPTH else {}
    if kind == "null":
        return None
    return _string(schema, name, rng, ctx, siblings)


# Per schema, what value_for and record decide from the schema alone, worked out once: a state draws
# tens of thousands of values from the same few hundred schemas. Entries hold their schema, so an id
# is never reused while its entry lives.
_SHAPES: dict[int, tuple[dict[str, Any], str, Any]] = {}
_PLANS: dict[tuple[int, int], tuple[dict[str, Any], Plan]] = {}
_KEPT = 65536


def _placeholder(value: Any) -> bool:
    """An enum member that says no value was set (Google's ``*_UNSPECIFIED``)."""
    return isinstance(value, str) and value.upper().endswith("_UNSPECIFIED")


def _shape(schema: dict[str, Any]) -> tuple[str, Any]:
    """What kind of value ``schema`` gives: ``const`` / ``enum`` / ``alternative`` (with the constant,
    the choices or the first alternative), else its JSON type."""
    found = _SHAPES.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1], found[2]
    arg: Any = None
    if "const" in schema:
        kind, arg = "const", schema["const"]
    elif schema.get("enum"):
        # a placeholder member (``STATE_UNSPECIFIED``) is no value a record holds
        kind, arg = "enum", [v for v in schema["enum"] if v is not None and not _placeholder(v)] or schema["enum"]
    elif alternatives := next((schema[k] for k in ("oneOf", "anyOf") if isinstance(schema.get(k), list) and schema[k]),
                              None):
        kind, arg = "alternative", alternatives[0]
    else:
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "string")
        if kind is None:
            kind = "object" if "properties" in schema else ("array" if "items" in schema else "string")
        stated = _stated(schema, kind)
        if stated:  # "Valid values are `0`, `1`, and `3`": an enum in prose
            kind, arg = "enum", stated
    if len(_SHAPES) >= _KEPT:
        _SHAPES.clear()
    _SHAPES[id(schema)] = (schema, kind, arg)
    return kind, arg


def _stated(schema: dict[str, Any], kind: str) -> list[Any]:
    """The values a string or number field's description lists as the only ones it takes (of its type and
    pattern), or ``[]`` (see :mod:`covert.imports.stated_values`)."""
    description = schema.get("description")
    if kind not in ("string", "integer", "number") or not isinstance(description, str):
        return []
    out: list[Any] = []
    pattern = schema.get("pattern")
    for text in stated_values(description):
        if kind == "string":
            if isinstance(pattern, str) and not pattern_of(pattern).search(text):
                continue
            out.append(text)
        else:
            try:
                value: Any = int(text) if kind == "integer" else canonical_float(float(text))
            except ValueError:
                return []
            out.append(value)
    return out if len(out) >= 2 else []


@dataclass(frozen=True)
class Plan:
    """What a record of one schema at one depth holds: ``fields`` as ``(name, schema, required, drawn)``
    (``drawn`` when an optional one is left out by a draw; deeper levels keep only required ones; a
    top-level name or title is always kept), the names of the fields (``siblings``), ``twins``: fields that
    differ only in case or separators from an earlier one (``Sid`` beside ``sid``), which copy its value,
    ``ordered``: (earlier, later) timestamp fields (creation before the last update), ``failures``: optional
    fields saying why the record failed (``generationFailureReason``) and ``statuses``: fields saying its state,
    where a failure would show."""

    fields: tuple[tuple[str, Any, bool, bool], ...]
    siblings: frozenset[str]
    twins: tuple[tuple[str, str], ...]
    ordered: tuple[tuple[str, str], ...]
    failures: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()


# what happens to a record first and what later (creation before the last update, a start before an end): the
# events record_times stamps on a written record, and a few it never stamps
_TIME_KINDS = ("timestamp", "date")  # the kinds of field whose values are put in order
_ISO_DAY = re.compile(r"\d{4}-\d\d-\d\d")  # a time put in order is compared as written (RFC 3339 or a date)
_FIRST_EVENTS = CREATED_EVENTS | {"start", "started", "begin", "opened", "issued", "queued"}
_LATER_EVENTS = CHANGED_EVENTS | END_EVENTS | FINISHED_EVENTS | {
    "last", "closed", "resolved", "deleted", "archived", "suspended", "stop", "stopped", "cancelled", "canceled", "terminated"}


def _plan(schema: dict[str, Any], depth: int) -> Plan:
    """The :class:`Plan` of a record of ``schema`` at ``depth``, worked out once per schema."""
    found = _PLANS.get((id(schema), depth))
    if found is not None and found[0] is schema:
        return found[1]
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    fields = []
    deep = 0
    siblings = frozenset(props)
    for name, sub in props.items():
        if name in required:
            fields.append((name, sub, True, False))
        elif _meaningless(name, sub, siblings):
            continue  # an optional field nothing tells the meaning of is left unset, not filled with made-up text
        elif _says_deleted(name):
            continue  # a live record has no deleteTime: one that has reads as deleted
        elif depth <= 1:
            fields.append((name, sub, False, not (depth == 0 and names_record(name))))
        elif depth == 2 and deep < DEEP_OPTIONAL and isinstance(sub, dict) and _shape(sub)[0] in _PLAIN:
            fields.append((name, sub, False, True))
            deep += 1
    seen: dict[str, str] = {}
    twins = []
    firsts: list[str] = []
    laters: list[str] = []
    for name, sub, _required, _drawn in fields:
        folded = fold_key(name)
        if folded in seen:
            twins.append((name, seen[folded]))
        else:
            seen[folded] = name
        if isinstance(sub, dict) and _may_be_text(sub.get("type")) and \
                field_kind(name, str(sub.get("description") or "")[:300], str(sub.get("format") or "")) in _TIME_KINDS:
            parts = words(name)
            if any(p in _FIRST_EVENTS for p in parts):
                firsts.append(name)
            elif any(p in _LATER_EVENTS for p in parts):
                laters.append(name)
    failures = tuple(name for name, _sub, required, _drawn in fields if not required and failure_field(name))
    statuses = tuple(name for name, *_ in fields if (words(name) or [""])[-1] in STATUS_WORDS) if failures else ()
    plan = Plan(tuple(fields), siblings, tuple(twins),
                tuple((a, b) for a in firsts for b in laters), failures, statuses)
    if len(_PLANS) >= _KEPT:
        _PLANS.clear()
    _PLANS[(id(schema), depth)] = (schema, plan)
    return plan


_DELETION_WORDS = frozenset(("delete", "deleted", "deletion", "purge", "purged", "trash", "trashed", "destroyed",
                             "destruction"))
_WHEN_WORDS = frozenset(("time", "at", "date", "timestamp", "on"))


def _says_deleted(name: str) -> bool:
    """Whether an optional field says its record was deleted, or when (``deleted``, ``isTrashed``,
    ``deleteTime``, ``deleted_at``, ``purgeTime``, ``DeletionDate``, ``timeDeleted``): set only on records that are gone,
    which a state's records are not."""
    parts = words(name)
    if parts[:1] == ["is"]:
        parts = parts[1:]
    if len(parts) == 1:  # "deleted": true, "isTrashed": true
        return parts[0] in ("deleted", "trashed", "purged", "destroyed")
    # the time word before or after ("deleteTime", "timeDeleted": a Cloud Storage object's)
    return len(parts) >= 2 and (parts[-1] in _WHEN_WORDS or parts[0] in _WHEN_WORDS) and \
        any(p in _DELETION_WORDS for p in parts)


def _meaningless(name: str, schema: Any, siblings: frozenset[str]) -> bool:
    """Whether ``schema`` is a plain string (no enum, pattern, const or usable example) whose field's name,
    description and format tell nothing it could hold (:func:`~covert.imports.fieldvalues.meaning_known`):
    any value :func:`_string` drew for it would be made up."""
    if not isinstance(schema, dict) or schema.get("type") != "string" or schema.get("pattern") or schema.get("enum") \
            or "const" in schema or _string_plan(schema, name, siblings).examples:
        return False
    fmt = schema.get("format")
    return not meaning_known(name, str(schema.get("description") or "")[:300], fmt if isinstance(fmt, str) else "",
                             siblings)


def _may_be_text(kind: Any) -> bool:
    """Whether a JSON Schema ``type`` lets a value be a string (GitHub's ``suspended_at``: ``["string", "null"]``)."""
    return kind in ("string", None) or (isinstance(kind, list) and "string" in kind)


def record(schema: dict[str, Any], rng: random.Random, depth: int = 0, ctx: ValueContext | None = None) -> dict[str, Any]:
    """An object for ``schema``: every required property, and most optional ones."""
    out: dict[str, Any] = {}
    plan = _plan(schema, depth)
    twins = dict(plan.twins)
    for name, sub, required, drawn in plan.fields:
        # a record always has its name or title (lists are told by it); other optional fields mostly
        if drawn and rng.random() < OPTIONAL_LEFT_OUT[depth]:
            continue
        if name in twins and twins[name] in out:
            out[name] = out[twins[name]]
            continue
        try:
            value = value_for(sub, name, rng, depth, ctx, plan.siblings)
        except Unsatisfiable:
            if required:
                raise
            continue
        if value != {} or required:  # an optional object with nothing in it is left out, not written {}
            out[name] = value
    if not out and depth and plan.fields:  # a nested object every draw left empty keeps its first value
        name, sub = plan.fields[0][:2]
        with contextlib.suppress(Unsatisfiable):
            out[name] = value_for(sub, name, rng, depth, ctx, plan.siblings)
    for first, later in plan.ordered:  # what happened first carries the earlier time
        a, b = out.get(first), out.get(later)
        if isinstance(a, str) and isinstance(b, str) and _ISO_DAY.match(a) and _ISO_DAY.match(b) and a[:19] > b[:19]:
            out[first], out[later] = b, a  # compared to the second ("...:01.268Z" beside "...:00Z")
    if plan.failures and not any(isinstance(out.get(k), str) and troubled_state(out[k]) for k in plan.statuses) \
            and any(k not in plan.failures for k in out):
        # a record in no trouble says of no failure why it failed (KMS's enabled key version with a
        # generationFailureReason); a part that is nothing but its failure (a non-compliance detail) keeps it
        for name in plan.failures:
            out.pop(name, None)
    return out


_WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_MAX_REPEAT_EXTRA = 3
_RUN_EXTRA = 9
_LOWER, _DIGITS = "abcdefghijklmnopqrstuvwxyz", "0123456789"
_MAX_OUTPUT = 256
_SEPARATOR_DRAWS = 4  # draws of a class character before a doubled separator is kept


def sample_regex(pattern: str, rng: random.Random) -> str:
    """A string the regular expression ``pattern`` matches, drawn from ``rng`` (bounded: each
    unbounded repeat adds at most three, output at most 256 characters)."""
    from re import _constants as c

    out: list[str] = []

    def emit(items: Any, depth: int) -> None:
        if depth > 20 or len(out) > _MAX_OUTPUT:
            raise Unsatisfiable("pattern too deep")
        for op, arg in items:
            if op is c.LITERAL:
                out.append(chr(arg))
            elif op is c.NOT_LITERAL:
                drawn = _choice(rng, _LOWER + _DIGITS)
                out.append(drawn if ord(drawn) != arg else "x" if arg != ord("x") else "y")
            elif op is c.ANY:
                out.append(_choice(rng, "abcxyz"))
            elif op is c.IN:
                drawn = _pick_in(arg, rng, c)
                for _ in range(_SEPARATOR_DRAWS):  # a separator once: "secret:prod/db", never "prod//db" or "a--b"
                    if drawn.isalnum() or not out or out[-1] != drawn:
                        break
                    drawn = _pick_in(arg, rng, c)
                out.append(drawn)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, high, sub = arg
                one_class = len(sub) == 1 and sub[0][0] in (c.IN, c.CATEGORY, c.NOT_LITERAL)
                # a required run of one character class (``[\w-]+``) is as long as an id is; else short
                extra = _RUN_EXTRA if low and one_class else _MAX_REPEAT_EXTRA
                high = low + extra if high is c.MAXREPEAT else min(high, low + extra)
                # an optional run of anything (``.*`` around anchors) is left empty half of the time; an
                # optional run of one class is a part of the value (``project/[^/]*/feature``: never "project//")
                least = 1 if one_class and low == 0 and high >= 1 else low
                times = low if least == 0 and rng.random() < 0.5 else _randint(rng, least, max(least, high))
                start = len(out)
                for _ in range(times):
                    emit(sub, depth + 1)
                if times > 1 and low != high and _leading_zero(out, start):
                    out[start] = _choice(rng, _DIGITS[1:])  # a number of any length: "593s", never "0593s"
            elif op is c.SUBPATTERN:
                emit(arg[-1], depth + 1)
            elif op is getattr(c, "ATOMIC_GROUP", None):
                emit(arg, depth + 1)
            elif op is c.BRANCH:
                emit(_choice(rng, arg[1]), depth + 1)
            elif op is c.CATEGORY:
                out.append(_category(arg, c, rng))
            elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
                continue
            else:
                raise Unsatisfiable(f"pattern construct {op} not supported")

    emit(_parsed(pattern), 0)
    return "".join(out)[:_MAX_OUTPUT]


def _leading_zero(out: list[str], start: int) -> bool:
    """Whether the characters drawn from ``start`` on are a run of digits led by a zero that starts a number
    (not the fraction after a point, nor more digits of one already begun)."""
    run = out[start:]
    return bool(run) and run[0] == "0" and all(len(ch) == 1 and ch.isdigit() for ch in run) \
        and not (start and (out[start - 1][-1:].isdigit() or out[start - 1][-1:] in (".", ",")))


def pattern_of(pattern: str) -> BoundedPattern:
    """A spec's pattern, matched in bounded time (:mod:`covert.env.patterns`: the pattern is someone
    else's, and a backtracking engine can take minutes on a short text); ``search``/``fullmatch``
    answer ``True``/``False``. A pattern no bounded engine compiles accepts every text."""
    return bounded_pattern(pattern)


@lru_cache(maxsize=2048)
def _parsed(pattern: str) -> Any:
    """The parse tree of a regular expression (read, never changed, by :func:`sample_regex`)."""
    try:
        from re import _parser as sre_parse  # Python 3.11+
    except ImportError:  # pragma: no cover
        import sre_parse  # type: ignore[no-redef]
    return sre_parse.parse(pattern)


def _category(arg: Any, c: Any, rng: random.Random) -> str:
    """A character of a class escape (``\\d``, ``\\w`` ...), drawn: ids made of ``\\w`` read as ids."""
    if arg is c.CATEGORY_DIGIT:
        return _choice(rng, _DIGITS)
    if arg is c.CATEGORY_SPACE:
        return " "
    if arg in (c.CATEGORY_WORD, c.CATEGORY_NOT_SPACE):
        return _choice(rng, _LOWER + _DIGITS)
    if arg is c.CATEGORY_NOT_DIGIT:
        return _choice(rng, _LOWER)
    return "-"


def _pick_in(items: Any, rng: random.Random, c: Any) -> str:
    """A character of the class ``items``: letters and digits (a range weighs as three literals) far more
    often than the punctuation it allows, or for a negated class, a word character none of its members
    covers."""
    negate, literals, ranges, cumulative = _class_of(items, c)
    if negate:
        allowed = [ch for ch in _WORD_CHARS
                   if ch not in literals and not any(low <= ord(ch) <= high for low, high in ranges)]
        return _choice(rng, allowed) if allowed else "~"
    if not cumulative:
        raise Unsatisfiable("empty character class")
    k = min(bisect.bisect_right(cumulative, rng.random() * cumulative[-1]), len(cumulative) - 1)
    if k < len(literals):
        return literals[k]
    low, high = ranges[k - len(literals)]
    return chr(_randint(rng, low, high))


_CLASSES: dict[int, tuple[Any, tuple[bool, list[str], list[tuple[int, int]], list[float]]]] = {}


def _class_of(items: Any, c: Any) -> tuple[bool, list[str], list[tuple[int, int]], list[float]]:
    """A class's members read once per parsed class (the parse tree is kept, so is this): whether it is
    negated, its literals, its ranges and their cumulative weights. Hex digits allowed in either case are
    drawn in lower case, as hex is written."""
    kept = _CLASSES.get(id(items))
    if kept is not None and kept[0] is items:
        return kept[1]
    negate = False
    literals: list[str] = []
    ranges: list[tuple[int, int]] = []
    for op, arg in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            literals.append(chr(arg))
        elif op is c.RANGE:
            ranges.append(arg)
        elif op is c.CATEGORY:
            ranges += _CATEGORY_RANGES.get(str(arg), [])
    # hex in one case (never "5537-A563-6b3b"): an upper-case hex letter goes where its lower case is allowed
    lower_hex = set("abcdef") if (97, 102) in ranges else set(literals) & set("abcdef")
    if lower_hex == set("abcdef") and (65, 70) in ranges:
        ranges.remove((65, 70))
    literals = [ch for ch in literals if not (ch in "ABCDEF" and ch.lower() in lower_hex)]
    weights = [1.0 if ch.isalnum() else 0.2 for ch in literals] + [3.0] * len(ranges)
    found = (negate, literals, ranges, list(itertools.accumulate(weights)))
    if len(_CLASSES) > 4096:
        _CLASSES.clear()
    _CLASSES[id(items)] = (items, found)
    return found


# the characters of class escapes inside a class, as ranges (``[\w-]``: letters and digits, then "-")
_CATEGORY_RANGES = {"CATEGORY_DIGIT": [(48, 57)], "CATEGORY_WORD": [(97, 122), (48, 57)],
                    "CATEGORY_NOT_SPACE": [(97, 122), (48, 57)], "CATEGORY_NOT_DIGIT": [(97, 122)]}


def _integer(schema: dict[str, Any], name: str, rng: random.Random) -> int:
    low, high = _bounds(schema, name, integer=True)
    if low > high:
        raise Unsatisfiable(f"{name}: minimum {low} exceeds maximum {high}")
    value = _randint(rng, int(low), int(high))
    step = schema.get("multipleOf")
    if isinstance(step, int) and step > 0:
        value = max(int(low), (value // step) * step)
    return value


def _number(schema: dict[str, Any], name: str, rng: random.Random) -> float:
    low, high = _bounds(schema, name, integer=False)
    if low > high:
        raise Unsatisfiable(f"{name}: minimum {low} exceeds maximum {high}")
    value = round(rng.uniform(low, high), 2)
    value = min(max(value, low), high)
    return canonical_float(float(value))


def _bounds(schema: dict[str, Any], name: str, integer: bool) -> tuple[float, float]:
    # by the name's words, not its letters: "acknowledgedViolationCount" holds no latitude, "feedbackCount" no fee
    said = set(words(name))
    meant = integer_range(name, str(schema.get("description") or "")[:300]) if integer else None
    if meant is not None:
        low, high = meant
    elif said & {"price", "amount", "cost", "total", "balance", "fee", "fees"}:
        low, high = 5, 500
    elif said & {"lat", "latitude"}:
        low, high = -60, 60
    elif said & {"lng", "lon", "longitude"}:  # a place on Earth: never 208.28 degrees east
        low, high = -150, 150
    elif "year" in said:
        low, high = 2015, 2025
    elif said & {"percent", "percentage", "rate", "score"}:
        low, high = 1, 99
    else:
        low, high = 1, 250
    minimum, maximum = schema.get("minimum"), schema.get("maximum")
    if isinstance(minimum, (int, float)) and not isinstance(minimum, bool):
        low = max(low, minimum) if minimum < high else minimum
    if isinstance(maximum, (int, float)) and not isinstance(maximum, bool):
        high = min(high, maximum) if maximum > low else maximum
    if schema.get("exclusiveMinimum") is True or isinstance(schema.get("exclusiveMinimum"), (int, float)):
        low = (schema["exclusiveMinimum"] if not isinstance(schema["exclusiveMinimum"], bool) else low) + (1 if integer else 0.01)
    if schema.get("exclusiveMaximum") is True or isinstance(schema.get("exclusiveMaximum"), (int, float)):
        high = (schema["exclusiveMaximum"] if not isinstance(schema["exclusiveMaximum"], bool) else high) - (1 if integer else 0.01)
    if low > high:  # a declared range above the plausible one: draw near its bottom
        maximum = schema.get("maximum")
        high = maximum if isinstance(maximum, (int, float)) and not isinstance(maximum, bool) and maximum >= low \
            else low + 250
        high = min(high, low + 250)
    return low, high


_TEXT_KINDS = frozenset(("display_name", "title", "name", "person", "company", "text", "message", "email",
                         "username", "first_name", "last_name", "city", "street", "street_address", "team", "job"))


@dataclass(frozen=True)
class _StringPlan:
    """What :func:`_string` decides from a field's schema, name and siblings alone."""

    kind: str
    examples: tuple[str, ...]
    from_examples_always: bool  # examples are drawn every time (else a quarter of the time, for text kinds)
    lower: bool  # a currency code the API writes in lower case
    pattern: str | None
    low: int
    high: int | None
    names: bool  # the field is what its record is called


_STRING_PLANS: dict[tuple[int, str, frozenset[str]], tuple[dict[str, Any], _StringPlan]] = {}


def _string_plan(schema: dict[str, Any], name: str, siblings: frozenset[str]) -> _StringPlan:
    key = (id(schema), name, siblings)
    found = _STRING_PLANS.get(key)
    if found is not None and found[0] is schema:
        return found[1]
    fmt = schema.get("format")
    pattern = schema.get("pattern")
    description = schema.get("description")
    kind = field_kind(name, description[:300] if isinstance(description, str) else "",
                      fmt if isinstance(fmt, str) else "", pattern if isinstance(pattern, str) else "", siblings)
    # an example whose form its field contradicts ("the timestamp of 'last_error_status'") is no example
    examples = () if kind.startswith("const:") else tuple(e for e in _examples(schema) if filler(name, e) is None)
    high = schema.get("maxLength")
    plan = _StringPlan(kind, examples, kind not in _TEXT_KINDS,
                       kind == "currency" and "lowercase" in str(description or "").lower(),
                       pattern if isinstance(pattern, str) else None, int(schema.get("minLength", 0) or 0),
                       high if isinstance(high, int) else None, names_record(name))
    if len(_STRING_PLANS) >= _KEPT:
        _STRING_PLANS.clear()
    _STRING_PLANS[key] = (schema, plan)
    return plan


def _string(schema: dict[str, Any], name: str, rng: random.Random, ctx: ValueContext,
            siblings: frozenset[str] = frozenset()) -> str:
    plan = _string_plan(schema, name, siblings)
    text = None
    if plan.examples and (plan.from_examples_always or rng.random() < 0.25):
        text = vary_example(_choice(rng, plan.examples), rng)
        if plan.names and _is_noun(text, ctx):
            text = None  # "the firewall named firewall": the spec's example is the kind, not a name
    if text is None:
        text = make_value(plan.kind, rng, ctx, name)
    if plan.lower:
        text = text.lower()
    if plan.pattern is not None:
        if plan.kind == "arn":
            text = _arn_service_of(plan.pattern, text)
        text = _matching(plan.pattern, text, rng, name)
    if plan.high is not None and len(text) > plan.high:
        text = text[:plan.high]
    if len(text) < plan.low:
        text = _padded(text, plan.low, plan.high, plan.kind in _PROSE_KINDS, rng)
    return text


_PROSE_KINDS = frozenset(("text", "message", "title", "display_name"))
_LETTERS_DIGITS = _LOWER + _LOWER.upper() + _DIGITS


def _padded(text: str, low: int, high: int | None, prose: bool, rng: random.Random) -> str:
    """``text`` made at least ``low`` characters long (at most ``high``): prose by more words, an id or code
    by more of its own kind of characters drawn at random (a DynamoDB shard id "jhgacsf576kq0v...", never
    "jhgacsf576xxxxxxxxxxxxxxxxxx")."""
    while prose and len(text) < low:
        text = f"{text} {_choice(rng, QUALIFIERS)}"
    alphabet = _DIGITS if text.isdigit() else (_LOWER + _DIGITS if text == text.lower() else _LETTERS_DIGITS)
    text += "".join(_choice(rng, alphabet) for _ in range(low - len(text)))
    return text if high is None or high < low else text[:high]


_ARN_SERVICE = re.compile(r"^\^?arn:aws(?:\[[^\]]*\][*+?]?)?:([a-z0-9-]+):")


def _is_noun(text: str, ctx: ValueContext) -> bool:
    """Whether a value only repeats its record's noun (``firewall`` for a firewall)."""
    said = text.lower().replace("-", " ").replace("_", " ").strip()
    noun = ctx.noun.lower()
    return bool(said) and said in (noun, noun + "s", "my " + noun, "my " + noun + "s", "example " + noun)


def _arn_service_of(pattern: str, text: str) -> str:
    """An ARN in the service namespace its pattern spells out (``arn:aws[-a-z]*:aps:...``: Amazon Managed
    Prometheus is ``amp`` to botocore, ``aps`` in its ARNs), so the ARN made for the field matches its
    pattern rather than one drawn from the pattern's character classes (``arn:aws-ry:aps:z8:...``)."""
    found = _ARN_SERVICE.match(pattern)
    parts = text.split(":", 5)
    if found is None or len(parts) < 6 or parts[0] != "arn":
        return text
    parts[2] = found.group(1)
    return ":".join(parts)


def _examples(schema: dict[str, Any]) -> tuple[str, ...]:
    """The string examples a schema carries (``examples``, kept at import) or its description states."""
    found = schema.get("examples")
    if isinstance(found, list):
        kept = tuple(e for e in found if isinstance(e, str) and 0 < len(e) <= 200)
        if kept:
            return kept
    description = schema.get("description")
    return described_examples(description[:600]) if isinstance(description, str) and description else ()


def _matching(pattern: str, text: str, rng: random.Random, name: str) -> str:
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise Unsatisfiable(f"{name}: pattern longer than {MAX_PATTERN_LENGTH} characters")
    try:
        compiled = pattern_of(pattern)
    except re.error as exc:
        raise Unsatisfiable(f"{name}: invalid pattern ({exc})") from None
    if compiled.search(text):
        return text
    for shape in _fitting_shapes(pattern):
        candidate = _SIMPLE_PATTERNS[shape](rng)
        if compiled.search(candidate):
            return candidate
    for _ in range(PATTERN_ATTEMPTS):
        try:
            candidate = sample_regex(pattern, rng)
        except (Unsatisfiable, re.error, TypeError, ValueError, IndexError):
            break
        if compiled.search(candidate):
            # an ARN drawn from character classes gets AWS's partition, a real region and account back (also
            # where the field takes an ARN among other forms: Bedrock's model, a model id or a model's ARN)
            return plausible_arn(candidate, compiled.search, text, rng) if candidate.startswith("arn:") else candidate
    raise Unsatisfiable(f"{name}: no value found for pattern {pattern[:60]!r}")


@lru_cache(maxsize=8192)
def _fitting_shapes(pattern: str) -> tuple[int, ...]:
    """Which of the simple value shapes (digits, a slug, a hex string ...) the pattern accepts, tried
    on two probe draws seeded by the pattern itself (so the answer depends on the pattern alone): a
    record's value is drawn only in those shapes, not in all seven first."""
    compiled = pattern_of(pattern)
    probe = random.Random(f"shapes:{pattern}")
    return tuple(i for i, make in enumerate(_SIMPLE_PATTERNS)
                 if any(compiled.search(make(probe)) for _ in range(2)))


_PATH_CHAIN = re.compile(r"[a-z][A-Za-z]*/\[\^/\]\+(?:/[a-z][A-Za-z]*/(?:\[\^/\]\+|global))*")
_PATH_COLLECTION = re.compile(r"([a-z][A-Za-z]*)/(\[\^/\]\+|global)")
_ANY_PARENT = "[^/]+/[^/]+/"
def scope_path(pattern: str, rng: random.Random, ctx: ValueContext | None = None) -> str | None:
    """A resource path a user would name, for a path pattern such as ``^projects/[^/]+/locations/[^/]+$``:
    each collection gets a value in its own style (a project id, a region for a location, a name fitting
    the collection; ``locations/global`` as it is), or ``None`` when the pattern is not a plain chain of
    ``collection/[^/]+`` segments."""
    ctx = ctx or ValueContext("google")
    body = pattern.removeprefix("^").removesuffix("$")
    if body == _ANY_PARENT[:-1] or body.startswith(_ANY_PARENT):
        # Google's ``{+parent}`` of any kind (``^[^/]+/[^/]+/services/[^/]+$``): a project is the usual one,
        # and the path it makes still matches the pattern
        body = "projects/[^/]+" + body[len(_ANY_PARENT) - 1:]
    if len(body) > 200 or not _PATH_CHAIN.fullmatch(body):
        return None
    out = []
    for collection, open_value in _PATH_COLLECTION.findall(body):
        if open_value == "global":
            value = open_value
        elif collection in ("locations", "regions"):
            value = make_value("region", rng, ctx)
        elif collection == "zones":
            value = make_value("region", rng, ctx) + "-" + _choice(rng, "abc")
        elif collection in ("organizations", "billingAccounts", "accounts", "customers", "folders"):
            value = str(_randint(rng, 100000, 999999))
        elif collection == "projects":
            value = make_value("project", rng, ctx)
        else:
            noun = "-".join(singular(w) for w in words(collection)[-1:]) or "item"
            value = resource_slug(rng, ctx, noun)
        out += [collection, value]
    made = "/".join(out)
    return made if re.fullmatch(body, made) else None


_SAYABLE_KINDS = frozenset((
    "email", "first_name", "last_name", "username", "hostname", "person", "title", "display_name", "name", "city",
    "country", "ipv4", "street", "street_address", "postal_code", "phone", "currency", "text", "message", "url",
    "timestamp", "date", "color_name", "company", "status", "language", "team", "job", "district", "us_state"))


def plausible(name: str) -> bool:
    """Whether the field's name tells what a person would put there (a name, an email, a city, a
    description ...): only such values are said in a request; others are codes a person would not type."""
    kind = field_kind(name)
    return kind in _SAYABLE_KINDS or kind.startswith("category:")


DISTINCT_ATTEMPTS = 8


def distinct_names(schema: dict[str, Any], rec: dict[str, Any], taken: dict[str, set[str]], rng: random.Random,
                   id_field: str = "", ctx: ValueContext | None = None) -> None:
    """Redraw the name or title of ``rec`` (a record of ``schema`` whose id is ``id_field``) while another
    record of its table has it (at most :data:`DISTINCT_ATTEMPTS` draws: a pattern or enum may allow no
    other), and note it in ``taken``: a list of a table's records never says one name twice, and a name
    tells a record."""
    props = schema.get("properties") or {}
    for key, value in rec.items():
        if key == id_field or not isinstance(value, str) or not names_record(key) or key not in props:
            continue
        seen = taken.setdefault(key, set())
        for _ in range(DISTINCT_ATTEMPTS):
            if value not in seen:
                break
            try:
                drawn = value_for(props[key], key, rng, 0, ctx)
            except Unsatisfiable:
                break
            if isinstance(drawn, str):
                value = drawn
        rec[key] = value
        seen.add(value)


ARN_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")  # a name an ARN can end in


def arn_names_its_record(rec: dict[str, Any], noun: str, id_field: str = "") -> str | None:
    """The record's own ARN (``arn``, ``Arn``, ``<noun>Arn``) ends in the record's name, as AWS makes them:
    ``...:compliance-inquiry/routing-compliance-inquiry`` beside ``"name": "routing-compliance-inquiry"``,
    never a second, unrelated name; where the name is the record's id (OpenSearch's ``DomainName``), that
    name. An ARN that is the record's id, a name an ARN cannot hold, and an ARN
    of another resource (``roleArn``, ``kmsKeyArn``) stay as they are; a record with no name has ARNs ending
    in its id. Returns that name (``None`` when the record has none an ARN can hold)."""
    noun_key = "".join(noun.split()).lower()
    own = {"arn", noun_key + "arn"}
    # a person or company beside the record (a KMS key's KeyManager "CUSTOMER") is not what it is called
    names = [(k == id_field, v) for k, v in rec.items()  # DomainName is a domain's name, though it reads as a host
             if (k.lower() == noun_key + "name" or (names_record(k) and field_kind(k) not in _BESIDE_A_RECORD))
             and isinstance(v, str) and ARN_NAME.match(v)]
    name = min(names, key=lambda pair: pair[0])[1] if names else None  # a name beside the id first, else the id
    tail = name if name is not None else rec.get(id_field)  # no name: the id (":key/1234abcd-..."), as AWS's do
    if not isinstance(tail, str) or not ARN_NAME.match(tail):
        return None
    for key, value in rec.items():
        if key == id_field or fold_key(key) not in own or not isinstance(value, str):
            continue
        if value.startswith("arn:") and value.count(":") >= 5:
            head, sep, _ = value.rpartition("/") if "/" in value.split(":", 5)[5] else value.rpartition(":")
            rec[key] = f"{head}{sep}{tail}"
    return name


_BESIDE_A_RECORD = frozenset(("person", "company"))


def project_names_its_path(rec: dict[str, Any], id_field: str) -> None:
    """A record whose id is a path under a project (``projects/events-eu-174/workerPools/pool-1``) names that
    project in its ``projectId``/``project`` field (``events-eu-174``, or ``projects/events-eu-174`` where the
    field holds a path), never another project's id drawn on its own."""
    project = path_project(rec.get(id_field))
    if project is None:
        return
    for field, value in rec.items():
        if field == id_field or fold_key(field) not in PROJECT_KEYS or not isinstance(value, str) or not value:
            continue
        rec[field] = f"projects/{project}" if value.startswith("projects/") else project


# a part of a record that stands for another record than its own (a parent, the source it was copied from):
# its id field names that other record, not this one
_OTHER_RECORD_WORDS = frozenset(("parent", "parents", "source", "origin", "original", "previous", "next", "target",
                                 "linked", "related", "base", "template", "upstream", "fork", "forks", "child",
                                 "children", "destination", "peer", "peers", "replica", "replicas", "primary",
                                 "secondary", "from", "to", "copy", "clone"))
_PART_DEPTH = 3  # how deep a record's parts are looked at for a copy of its id


def parts_name_their_record(rec: dict[str, Any], id_field: str, noun: str) -> None:
    """A part of a record that repeats the record's own id field holds the record's id: an application's
    ``Version.ApplicationId`` is that application's, never an id drawn on its own. Only an id field that
    names the record's noun (``ApplicationId`` of an application; not ``id`` or ``node_id``, which a part that is
    another record has its own of) and only parts that are not another record (``parent``, ``source``)."""
    said = words(id_field)
    if len(said) < 2 or set(said[:-1]).isdisjoint(noun.split()):
        return
    value = rec.get(id_field)
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return
    stack: list[tuple[Any, int]] = [(v, 1) for k, v in rec.items()
                                    if k != id_field and _OTHER_RECORD_WORDS.isdisjoint(words(k))]
    while stack:
        part, depth = stack.pop()
        if isinstance(part, list):
            stack.extend((item, depth) for item in part)
        elif isinstance(part, dict):
            if id_field in part and type(part[id_field]) is type(value):
                part[id_field] = value
            if depth < _PART_DEPTH:
                stack.extend((v, depth + 1) for k, v in part.items()
                             if k != id_field and _OTHER_RECORD_WORDS.isdisjoint(words(k)))
