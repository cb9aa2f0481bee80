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
from covert.env.patterns import BoundedPattern, bounded_pattern
from covert.imports.resources import words

MAX_DEPTH = 3
MAX_ITEMS = 3
# how often an optional field is left out: a record's own fields mostly there, a nested object's half of
# them (nothing says them; they make outputs long), deeper objects only what they require
OPTIONAL_LEFT_OUT = (0.15, 0.5)

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
DESCRIPTIONS = ("Weekly budget review for the {} team", "Staging setup for the {} launch", "Nightly backups of the {} data",
                "Customer onboarding for {}", "Quarterly report for the {} account", "Draft roadmap for {}",
                "Shared space for the {} design work", "Invoices and receipts for {}", "Release checklist for {}",
                "Support requests from the {} office", "Training material for new {} staff", "Test plan for {}")
_SIMPLE_PATTERNS = (
    lambda rng: "".join(_choice(rng, "0123456789") for _ in range(6)),
    lambda rng: "".join(_choice(rng, "abcdefghijklmnopqrstuvwxyz") for _ in range(8)),
    lambda rng: "".join(_choice(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3)),
    lambda rng: "".join(_choice(rng, "abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10)),
    lambda rng: "".join(_choice(rng, "0123456789abcdef") for _ in range(16)),
    lambda rng: "".join(_choice(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(12)),
    lambda rng: "-".join(_choice(rng, WORDS) for _ in range(2)),
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


def value_for(schema: Any, name: str, rng: random.Random, depth: int = 0) -> Any:
    """One plausible value for a field called ``name`` with JSON Schema ``schema``."""
    if not isinstance(schema, dict):
        return _by_name(name, rng) or "sample"
    kind, arg = _shape(schema)
    if kind == "const":
        return arg
    if kind == "enum":
        return _choice(rng, arg)
    if kind == "alternative":
        return value_for(arg, name, rng, depth)
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


# Per schema, what value_for and record decide from the schema alone, worked out once: a state draws
# tens of thousands of values from the same few hundred schemas. Entries hold their schema, so an id
# is never reused while its entry lives.
_SHAPES: dict[int, tuple[dict[str, Any], str, Any]] = {}
_PLANS: dict[tuple[int, int], tuple[dict[str, Any], tuple[tuple[str, Any, bool, bool], ...]]] = {}
_KEPT = 65536


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
        kind, arg = "enum", [v for v in schema["enum"] if v is not None] or schema["enum"]
    elif alternatives := next((schema[k] for k in ("oneOf", "anyOf") if isinstance(schema.get(k), list) and schema[k]),
                              None):
        kind, arg = "alternative", alternatives[0]
    else:
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "string")
        if kind is None:
            kind = "object" if "properties" in schema else ("array" if "items" in schema else "string")
    if len(_SHAPES) >= _KEPT:
        _SHAPES.clear()
    _SHAPES[id(schema)] = (schema, kind, arg)
    return kind, arg


def _plan(schema: dict[str, Any], depth: int) -> tuple[tuple[str, Any, bool, bool], ...]:
    """The properties a record of ``schema`` at ``depth`` may hold: ``(name, schema, required, drawn)``,
    ``drawn`` when an optional one is left out by a draw (deeper levels keep only required ones; a
    top-level name or title is always kept)."""
    found = _PLANS.get((id(schema), depth))
    if found is not None and found[0] is schema:
        return found[1]
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    plan = []
    for name, sub in props.items():
        if name in required:
            plan.append((name, sub, True, False))
        elif depth <= 1:
            plan.append((name, sub, False, not (depth == 0 and _names_record(name))))
    if len(_PLANS) >= _KEPT:
        _PLANS.clear()
    _PLANS[(id(schema), depth)] = (schema, tuple(plan))
    return tuple(plan)


def record(schema: dict[str, Any], rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """An object for ``schema``: every required property, and most optional ones."""
    out: dict[str, Any] = {}
    for name, sub, required, drawn in _plan(schema, depth):
        # a record always has its name or title (lists are told by it); other optional fields mostly
        if drawn and rng.random() < OPTIONAL_LEFT_OUT[depth]:
            continue
        try:
            out[name] = value_for(sub, name, rng, depth)
        except Unsatisfiable:
            if required:
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
                out.append(_choice(rng, "abcxyz"))
            elif op is c.IN:
                out.append(_pick_in(arg, rng, c))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, high, sub = arg
                high = low + _MAX_REPEAT_EXTRA if high is c.MAXREPEAT else min(high, low + _MAX_REPEAT_EXTRA)
                # an optional run (``.*`` around anchors) is left empty half of the time
                times = low if low == 0 and rng.random() < 0.5 else _randint(rng, low, max(low, high))
                for _ in range(times):
                    emit(sub, depth + 1)
            elif op is c.SUBPATTERN:
                emit(arg[-1], depth + 1)
            elif op is getattr(c, "ATOMIC_GROUP", None):
                emit(arg, depth + 1)
            elif op is c.BRANCH:
                emit(_choice(rng, arg[1]), depth + 1)
            elif op is c.CATEGORY:
                out.append(_category(arg, c))
            elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
                continue
            else:
                raise Unsatisfiable(f"pattern construct {op} not supported")

    emit(_parsed(pattern), 0)
    return "".join(out)[:_MAX_OUTPUT]


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
    """A character of the class ``items``: a literal or a range (each range as likely as three literals),
    or for a negated class, a word character none of its members covers."""
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
            literals.append(_category(arg, c))
    if negate:
        allowed = [ch for ch in _WORD_CHARS
                   if ch not in literals and not any(low <= ord(ch) <= high for low, high in ranges)]
        return _choice(rng, allowed) if allowed else "~"
    size = len(literals) + 3 * len(ranges)
    if not size:
        raise Unsatisfiable("empty character class")
    pick = int(rng.random() * size)
    if pick < len(literals):
        return literals[pick]
    low, high = ranges[(pick - len(literals)) // 3]
    return chr(_randint(rng, low, high))


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


_BY_FORMAT: dict[str, Any] = {
    "date-time": lambda rng: f"{_randint(rng, 2021, 2025)}-{_randint(rng, 1, 12):02d}-{_randint(rng, 1, 28):02d}T"
                             f"{_randint(rng, 7, 19):02d}:{_choice(rng, (0, 15, 30, 45)):02d}:00Z",
    "date": lambda rng: f"{_randint(rng, 2021, 2025)}-{_randint(rng, 1, 12):02d}-{_randint(rng, 1, 28):02d}",
    "email": lambda rng: _email(rng),
    "uri": lambda rng: f"https://{_choice(rng, DOMAINS)}/{_choice(rng, WORDS)}/{_randint(rng, 100, 999)}",
    "uuid": lambda rng: seeded_uuid(rng),
    "ipv4": lambda rng: f"10.{_randint(rng, 0, 255)}.{_randint(rng, 0, 255)}.{_randint(rng, 1, 254)}",
    "hostname": lambda rng: f"{_choice(rng, WORDS)}.{_choice(rng, DOMAINS)}",
    "byte": lambda rng: "c2FtcGxl",
    "int64": lambda rng: str(_randint(rng, 1000, 999999)),
    "int32": lambda rng: str(_randint(rng, 1, 99999)),
}
_BY_FORMAT["url"] = _BY_FORMAT["uri"]


def _string(schema: dict[str, Any], name: str, rng: random.Random) -> str:
    fmt = schema.get("format")
    make = _BY_FORMAT.get(fmt) if isinstance(fmt, str) else None
    pattern = schema.get("pattern")
    # a patterned code with no name to go by: a slug ("harbor-42"), which most id-like patterns accept
    fallback = _slug if isinstance(pattern, str) else _phrase
    text = make(rng) if make is not None else (_by_name(name, rng) or fallback(rng))
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
            return candidate
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


def _email(rng: random.Random) -> str:
    return f"{_choice(rng, FIRST).lower()}.{_choice(rng, LAST).lower()}{_randint(rng, 1, 99)}@{_choice(rng, DOMAINS)}"


def _slug(rng: random.Random) -> str:
    return f"{_choice(rng, THINGS).lower()}-{_randint(rng, 10, 99)}"


def _phrase(rng: random.Random) -> str:
    return f"{_choice(rng, WORDS)} {_choice(rng, WORDS)} {_randint(rng, 2, 99)}"


_PATH_CHAIN = re.compile(r"[a-z][A-Za-z]*/\[\^/\]\+(?:/[a-z][A-Za-z]*/\[\^/\]\+)*")
_PATH_COLLECTION = re.compile(r"([a-z][A-Za-z]*)/\[\^/\]\+")
_ANY_PARENT = "[^/]+/[^/]+/"
REGIONS = ("us-central1", "europe-west1", "asia-east1", "us-east4", "europe-north1", "australia-southeast1")


def scope_path(pattern: str, rng: random.Random) -> str | None:
    """A resource path a user would name, for a path pattern such as ``^projects/[^/]+/locations/[^/]+$``:
    each collection gets a value in its own style (a project slug, a region for a location), or ``None``
    when the pattern is not a plain chain of ``collection/[^/]+`` segments."""
    body = pattern.removeprefix("^").removesuffix("$")
    if body == _ANY_PARENT[:-1] or body.startswith(_ANY_PARENT):
        # Google's ``{+parent}`` of any kind (``^[^/]+/[^/]+/services/[^/]+$``): a project is the usual one,
        # and the path it makes still matches the pattern
        body = "projects/[^/]+" + body[len(_ANY_PARENT) - 1:]
    if len(body) > 200 or not _PATH_CHAIN.fullmatch(body):
        return None
    out = []
    for collection in _PATH_COLLECTION.findall(body):
        if collection in ("locations", "regions"):
            value = _choice(rng, REGIONS)
        elif collection == "zones":
            value = _choice(rng, REGIONS) + "-" + _choice(rng, "abc")
        elif collection in ("organizations", "billingAccounts", "accounts", "customers"):
            value = str(_randint(rng, 100000, 999999))
        else:
            value = f"{_choice(rng, THINGS).lower()}-{_randint(rng, 10, 99)}"
        out += [collection, value]
    made = "/".join(out)
    return made if re.fullmatch(body, made) else None


def plausible(name: str) -> bool:
    """Whether the field's name tells what a person would put there (a name, an email, a city, a
    description ...): only such values are said in a request; others are filler a person would not type."""
    return _name_kind(name) is not None


def _by_name(name: str, rng: random.Random) -> str | None:
    kind = _name_kind(name)
    return None if kind is None else _BY_KIND[kind](rng)


def _names_record(name: str) -> bool:
    """Whether a field called ``name`` is what a record is called (a name or a title)."""
    return _name_kind(name) in ("title", "person")


DISTINCT_ATTEMPTS = 8


def distinct_names(schema: dict[str, Any], rec: dict[str, Any], taken: dict[str, set[str]], rng: random.Random,
                   id_field: str = "") -> None:
    """Redraw the name or title of ``rec`` (a record of ``schema`` whose id is ``id_field``) while another
    record of its table has it (at most :data:`DISTINCT_ATTEMPTS` draws: a pattern or enum may allow no
    other), and note it in ``taken``: a list of a table's records never says one name twice, and a name
    tells a record."""
    props = schema.get("properties") or {}
    for key, value in rec.items():
        if key == id_field or not isinstance(value, str) or not _names_record(key) or key not in props:
            continue
        seen = taken.setdefault(key, set())
        for _ in range(DISTINCT_ATTEMPTS):
            if value not in seen:
                break
            try:
                drawn = value_for(props[key], key, rng)
            except Unsatisfiable:
                break
            if isinstance(drawn, str):
                value = drawn
        rec[key] = value
        seen.add(value)


@lru_cache(maxsize=65536)
def _name_kind(name: str) -> str | None:
    """What a field called ``name`` holds, from its words (remembered: a state factory asks per record)."""
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
    if last == "name" and len(parts) > 1 and parts[-2] in ("domain", "host", "hostname", "dns"):
        return "hostname"  # a domain name is no title
    if last == "name" and len(parts) > 1 and parts[-2] in ("full", "contact", "customer", "user", "person",
                                                          "owner", "member", "author", "given", "family"):
        return "person"
    if last in ("name", "title", "label", "subject", "headline", "topic"):
        return "title"
    if last == "city":
        return "city"
    if last in ("country", "region"):
        return "country"
    if last == "address" and len(parts) > 1 and parts[-2] in ("ip", "ipv4", "host", "server", "network", "internal",
                                                              "external", "public", "private", "nat"):
        return "ip"  # a node's IP address is no street
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
        return "timestamp"
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


_BY_KIND: dict[str, Any] = {
    "email": _email,
    "first": lambda rng: _choice(rng, FIRST),
    "last": lambda rng: _choice(rng, LAST),
    "username": lambda rng: f"{_choice(rng, FIRST).lower()}{_randint(rng, 10, 99)}",
    "person": lambda rng: f"{_choice(rng, FIRST)} {_choice(rng, LAST)}",
    "title": lambda rng: f"{_choice(rng, THINGS)} {_choice(rng, KINDS)}",
    "city": lambda rng: _choice(rng, CITIES)[0],
    "country": lambda rng: _choice(rng, CITIES)[1],
    "street": lambda rng: f"{_randint(rng, 10, 999)} {_choice(rng, STREETS)}",
    "ip": _BY_FORMAT["ipv4"],
    "hostname": _BY_FORMAT["hostname"],
    "zip": lambda rng: f"{_randint(rng, 10000, 99999)}",
    "phone": lambda rng: f"+1-555-{_randint(rng, 100, 999)}-{_randint(rng, 1000, 9999)}",
    "currency": lambda rng: _choice(rng, ("usd", "eur", "gbp")),
    "description": lambda rng: _choice(rng, DESCRIPTIONS).format(_choice(rng, THINGS)),
    "url": lambda rng: f"https://{_choice(rng, DOMAINS)}/{_choice(rng, WORDS)}",
    "timestamp": lambda rng: f"{_randint(rng, 2021, 2025)}-{_randint(rng, 1, 12):02d}-{_randint(rng, 1, 28):02d}"
                             f"T{_randint(rng, 7, 19):02d}:00:00Z",
    "color": lambda rng: _choice(rng, ("red", "blue", "green", "amber", "teal")),
    "company": lambda rng: f"{_choice(rng, THINGS)} {_choice(rng, ('Labs', 'Group', 'Works', 'Partners'))}",
    "status": lambda rng: _choice(rng, ("active", "pending", "archived")),
    "type": lambda rng: _choice(rng, ("standard", "premium", "basic")),
    "language": lambda rng: _choice(rng, ("en", "fr", "de", "pt")),
}
