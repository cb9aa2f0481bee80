"""Seeded, realistic values from JSON Schemas: records for the state of an imported API.

Values follow the schema (type, enum, format, bounded patterns, minimum/maximum, lengths) and, where
the schema leaves room, the field's name: a ``name`` gets a person's or product's name, an ``email`` an
address, ``city`` a city, ``price`` an amount, ``created_at`` a timestamp. Floats are rounded to cents
and put in canonical form, so states hash the same however they were loaded. Work is bounded: nesting
depth, array lengths and pattern attempts are capped.
"""

from __future__ import annotations

import random
import re
import uuid
from functools import lru_cache
from typing import Any

from covert.env.jsonsafe import canonical_float
from covert.imports.resources import words

MAX_DEPTH = 3
MAX_ITEMS = 3

FIRST = ("Ava", "Liam", "Maya", "Noah", "Iris", "Omar", "Lena", "Jonas", "Priya", "Mateo", "Sofia", "Kenji",
         "Nora", "Elias", "Zara", "Hugo", "Amara", "Felix", "Ines", "Theo")
LAST = ("Okafor", "Lindqvist", "Moreau", "Tanaka", "Haddad", "Novak", "Castillo", "Brennan", "Kowalski", "Rossi",
        "Adeyemi", "Fischer", "Silva", "Nakamura", "Petrov", "Dubois", "Walsh", "Iqbal", "Jensen", "Costa")
THINGS = ("Aurora", "Summit", "Harbor", "Juniper", "Cobalt", "Meridian", "Willow", "Falcon", "Cedar", "Atlas",
          "Beacon", "Orchid", "Nimbus", "Quarry", "Saffron", "Tundra", "Vesper", "Lumen", "Pioneer", "Granite")
KINDS = ("Project", "Plan", "Studio", "Report", "Campaign", "Workspace", "Portal", "Pipeline", "Archive", "Library")
CITIES = (("Lisbon", "PT"), ("Osaka", "JP"), ("Denver", "US"), ("Lyon", "FR"), ("Toronto", "CA"), ("Leeds", "GB"),
          ("Porto Alegre", "BR"), ("Utrecht", "NL"), ("Brisbane", "AU"), ("Graz", "AT"))
STREETS = ("Maple Street", "Harbor Road", "Elm Avenue", "Station Lane", "Mill Road", "Park Terrace", "Quay Street")
DOMAINS = ("example.com", "example.org", "example.net")
WORDS = ("quarterly", "review", "shipment", "update", "draft", "final", "notes", "summary", "launch", "backup",
         "weekly", "budget", "onboarding", "design", "invoice", "roadmap")
_SIMPLE_PATTERNS = (
    lambda rng: "".join(rng.choice("0123456789") for _ in range(6)),
    lambda rng: "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8)),
    lambda rng: "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3)),
    lambda rng: "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10)),
    lambda rng: "".join(rng.choice("0123456789abcdef") for _ in range(16)),
    lambda rng: "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(12)),
    lambda rng: "-".join(rng.choice(WORDS) for _ in range(2)),
)
MAX_PATTERN_LENGTH = 200


class Unsatisfiable(ValueError):
    """A schema the factory cannot produce a value for (a pattern it cannot match, an empty range)."""


def seeded_uuid(rng: random.Random) -> str:
    """A version-4 UUID drawn from ``rng``."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def value_for(schema: Any, name: str, rng: random.Random, depth: int = 0) -> Any:
    """One plausible value for a field called ``name`` with JSON Schema ``schema``."""
    if not isinstance(schema, dict):
        return _by_name(name, rng) or "sample"
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        choices = [v for v in schema["enum"] if v is not None] or schema["enum"]
        return rng.choice(choices)
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return value_for(schema[key][0], name, rng, depth)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None:
        kind = "object" if "properties" in schema else ("array" if "items" in schema else "string")
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
        count = min(max(low, rng.randint(1, 2)), max(low, MAX_ITEMS))
        item_name = name[:-1] if name.endswith("s") else name
        values = [value_for(schema.get("items", {}), item_name, rng, depth + 1) for _ in range(count)]
        if schema.get("uniqueItems"):
            unique: list[Any] = []
            for v in values:
                if v not in unique:
                    unique.append(v)
            values = unique
        return values
    if kind == "object":
        return record(schema, rng, depth + 1) if depth < MAX_DEPTH else {}
    if kind == "null":
        return None
    return _string(schema, name, rng)


def record(schema: dict[str, Any], rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """An object for ``schema``: every required property, and most optional ones."""
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    out: dict[str, Any] = {}
    for name, sub in props.items():
        if name not in required and (depth > 1 or rng.random() < 0.15):
            continue
        try:
            out[name] = value_for(sub, name, rng, depth)
        except Unsatisfiable:
            if name in required:
                raise
    return out


_WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_MAX_REPEAT_EXTRA = 3
_MAX_OUTPUT = 256


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
                out.append(next(ch for ch in "ax0" if ord(ch) != arg))
            elif op is c.ANY:
                out.append(rng.choice("abcxyz"))
            elif op is c.IN:
                out.append(_pick_in(arg, rng, c))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, high, sub = arg
                high = low + _MAX_REPEAT_EXTRA if high is c.MAXREPEAT else min(high, low + _MAX_REPEAT_EXTRA)
                for _ in range(rng.randint(low, max(low, high))):
                    emit(sub, depth + 1)
            elif op is c.SUBPATTERN:
                emit(arg[-1], depth + 1)
            elif op is getattr(c, "ATOMIC_GROUP", None):
                emit(arg, depth + 1)
            elif op is c.BRANCH:
                emit(rng.choice(arg[1]), depth + 1)
            elif op is c.CATEGORY:
                out.append(_category(arg, c))
            elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
                continue
            else:
                raise Unsatisfiable(f"pattern construct {op} not supported")

    emit(_parsed(pattern), 0)
    return "".join(out)[:_MAX_OUTPUT]


@lru_cache(maxsize=8192)
def pattern_of(pattern: str) -> re.Pattern[str]:
    """``re.compile(pattern)``, remembered: imported APIs have more patterns than ``re``'s own cache holds."""
    return re.compile(pattern)


@lru_cache(maxsize=2048)
def _parsed(pattern: str) -> Any:
    """The parse tree of a regular expression (read, never changed, by :func:`sample_regex`)."""
    try:
        from re import _parser as sre_parse  # Python 3.11+
    except ImportError:  # pragma: no cover
        import sre_parse  # type: ignore[no-redef]
    return sre_parse.parse(pattern)


def _category(arg: Any, c: Any) -> str:
    if arg is c.CATEGORY_DIGIT:
        return "7"
    if arg is c.CATEGORY_SPACE:
        return " "
    if arg is c.CATEGORY_WORD:
        return "k"
    if arg is c.CATEGORY_NOT_DIGIT:
        return "q"
    if arg is c.CATEGORY_NOT_SPACE:
        return "m"
    return "-"


def _pick_in(items: Any, rng: random.Random, c: Any) -> str:
    negate = any(op is c.NEGATE for op, _ in items)
    choices: list[str] = []
    for op, arg in items:
        if op is c.LITERAL:
            choices.append(chr(arg))
        elif op is c.RANGE:
            low, high = arg
            choices.extend(chr(rng.randint(low, high)) for _ in range(3))
        elif op is c.CATEGORY:
            choices.append(_category(arg, c))
    if negate:
        allowed = [ch for ch in _WORD_CHARS if ch not in choices]
        return rng.choice(allowed) if allowed else "~"
    if not choices:
        raise Unsatisfiable("empty character class")
    return rng.choice(choices)


def _integer(schema: dict[str, Any], name: str, rng: random.Random) -> int:
    low, high = _bounds(schema, name, integer=True)
    if low > high:
        raise Unsatisfiable(f"{name}: minimum {low} exceeds maximum {high}")
    value = rng.randint(int(low), int(high))
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
    lowered = name.lower()
    if any(w in lowered for w in ("price", "amount", "cost", "total", "balance", "fee")):
        low, high = 5, 500
    elif any(w in lowered for w in ("lat",)):
        low, high = -60, 60
    elif "year" in lowered:
        low, high = 2015, 2025
    elif any(w in lowered for w in ("percent", "rate", "score")):
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


_BY_FORMAT = {
    "date-time": lambda rng: f"{rng.randint(2021, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                             f"{rng.randint(7, 19):02d}:{rng.choice((0, 15, 30, 45)):02d}:00Z",
    "date": lambda rng: f"{rng.randint(2021, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
    "email": lambda rng: _email(rng),
    "uri": lambda rng: f"https://{rng.choice(DOMAINS)}/{rng.choice(WORDS)}/{rng.randint(100, 999)}",
    "url": lambda rng: f"https://{rng.choice(DOMAINS)}/{rng.choice(WORDS)}/{rng.randint(100, 999)}",
    "uuid": lambda rng: seeded_uuid(rng),
    "ipv4": lambda rng: f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
    "hostname": lambda rng: f"{rng.choice(WORDS)}.{rng.choice(DOMAINS)}",
    "byte": lambda rng: "c2FtcGxl",
    "int64": lambda rng: str(rng.randint(1000, 999999)),
    "int32": lambda rng: str(rng.randint(1, 99999)),
}


def _string(schema: dict[str, Any], name: str, rng: random.Random) -> str:
    fmt = schema.get("format")
    make = _BY_FORMAT.get(fmt) if isinstance(fmt, str) else None
    text = make(rng) if make is not None else (_by_name(name, rng) or _phrase(rng))
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        text = _matching(pattern, text, rng, name)
    low, high = int(schema.get("minLength", 0) or 0), schema.get("maxLength")
    if isinstance(high, int) and len(text) > high:
        text = text[:high]
    if len(text) < low:
        text = text + "x" * (low - len(text))
    return text


def _matching(pattern: str, text: str, rng: random.Random, name: str) -> str:
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise Unsatisfiable(f"{name}: pattern longer than {MAX_PATTERN_LENGTH} characters")
    try:
        compiled = pattern_of(pattern)
    except re.error as exc:
        raise Unsatisfiable(f"{name}: invalid pattern ({exc})") from None
    if compiled.search(text):
        return text
    for make in _SIMPLE_PATTERNS:
        candidate = make(rng)
        if compiled.search(candidate):
            return candidate
    for _ in range(3):
        try:
            candidate = sample_regex(pattern, rng)
        except (Unsatisfiable, re.error, TypeError, ValueError, IndexError):
            break
        if compiled.search(candidate):
            return candidate
    raise Unsatisfiable(f"{name}: no value found for pattern {pattern[:60]!r}")


def _email(rng: random.Random) -> str:
    return f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}{rng.randint(1, 99)}@{rng.choice(DOMAINS)}"


def _phrase(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)} {rng.choice(WORDS)} {rng.randint(2, 99)}"


def _by_name(name: str, rng: random.Random) -> str | None:
    kind = _name_kind(name)
    return None if kind is None else _BY_KIND[kind](rng)


@lru_cache(maxsize=8192)
def _name_kind(name: str) -> str | None:
    """Which kind of plausible value a field called ``name`` gets (``None``: none by its name)."""
    parts = words(name)
    last = parts[-1] if parts else ""
    joined = "".join(parts)
    if "email" in joined:
        return "email"
    if last in ("firstname", "first", "given") or joined.endswith("firstname") or joined.endswith("givenname"):
        return "first"
    if joined.endswith(("lastname", "surname", "familyname")):
        return "last"
    if last in ("username", "login", "handle"):
        return "username"
    if last == "name" and len(parts) > 1 and parts[-2] in ("full", "display", "contact", "customer", "user", "person",
                                                          "owner", "member", "author"):
        return "person"
    if last in ("name", "title", "label"):
        return "thing"
    if last == "city":
        return "city"
    if last in ("country", "region"):
        return "country"
    if last in ("street", "address", "line1", "address1"):
        return "street"
    if last in ("zip", "postcode", "postal", "zipcode") or joined.endswith("postalcode"):
        return "zip"
    if last in ("phone", "mobile", "telephone") or "phone" in joined:
        return "phone"
    if last == "currency":
        return "currency"
    if last in ("description", "summary", "notes", "note", "comment", "message", "body", "text"):
        return "description"
    if last in ("url", "uri", "link", "website", "homepage", "href"):
        return "url"
    if last in ("at", "time", "date", "timestamp") or joined.endswith(("createdat", "updatedat", "date")):
        return "time"
    if last == "color" or last == "colour":
        return "color"
    if last in ("company", "organization", "organisation", "org"):
        return "company"
    if last in ("status", "state"):
        return "status"
    if last in ("type", "kind", "category"):
        return "type"
    if last in ("language", "locale"):
        return "language"
    return None


_BY_KIND = {
    "email": _email,
    "first": lambda rng: rng.choice(FIRST),
    "last": lambda rng: rng.choice(LAST),
    "username": lambda rng: f"{rng.choice(FIRST).lower()}{rng.randint(10, 99)}",
    "person": lambda rng: f"{rng.choice(FIRST)} {rng.choice(LAST)}",
    "thing": lambda rng: f"{rng.choice(THINGS)} {rng.choice(KINDS)}",
    "city": lambda rng: rng.choice(CITIES)[0],
    "country": lambda rng: rng.choice(CITIES)[1],
    "street": lambda rng: f"{rng.randint(10, 999)} {rng.choice(STREETS)}",
    "zip": lambda rng: f"{rng.randint(10000, 99999)}",
    "phone": lambda rng: f"+1-555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}",
    "currency": lambda rng: rng.choice(("usd", "eur", "gbp")),
    "description": lambda rng: f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} for {rng.choice(THINGS)}",
    "url": lambda rng: f"https://{rng.choice(DOMAINS)}/{rng.choice(WORDS)}",
    "time": lambda rng: f"{rng.randint(2021, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                        f"{rng.randint(7, 19):02d}:00:00Z",
    "color": lambda rng: rng.choice(("red", "blue", "green", "amber", "teal")),
    "company": lambda rng: f"{rng.choice(THINGS)} {rng.choice(('Labs', 'Group', 'Works', 'Partners'))}",
    "status": lambda rng: rng.choice(("active", "pending", "archived")),
    "type": lambda rng: rng.choice(("standard", "premium", "basic")),
    "language": lambda rng: rng.choice(("en", "fr", "de", "pt")),
}
