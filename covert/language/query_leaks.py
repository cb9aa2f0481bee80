"""Queries that read like schema dumps: what a person could not or would not say to a product.

:func:`query_leaks` looks at a user's text against the tools the row offers and the arguments its calls
take, and names each defect it finds:

- ``operation_id``: an operation id or tool name ("listCustomers", "projects.locations.list");
- ``path``: a URL path or a resource path ("/v1/customers/{id}", "projects/harbor-42/locations/eu");
- ``parameter_key``: a parameter or record key in code spelling ("pageSize", "customer_id");
- ``enum_spelling``: an enum value said in its code spelling ("STANDARD_IA", "inProgress");
- ``opaque_id``: a value no person would know by heart (a UUID, an ARN, a long hex or random token);
- ``filler_value``: a filler a person would not type (lorem ipsum, "string", "sample", "xxxx", a
  word with no vowels);
- ``verb_as_noun``: an operation's verb used as a record noun ("the create", "a new list").

Validation (``query_schema_leak``) and the audit (``schema_in_query``) both use it. Work is bounded:
at most :data:`MAX_TEXT` characters of text and :data:`MAX_VALUES` values are looked at.
"""

from __future__ import annotations

import re
from typing import Any

from covert.language.values import mentions, normalize_text

MAX_TEXT = 20_000
MAX_VALUES = 2_000

_CAMEL = re.compile(r"^[a-z]+(?:[A-Z][a-z0-9]*)+$")
_CODE_ENUM = re.compile(r"^(?:[A-Z0-9]+(?:_[A-Z0-9]+)+|[a-z0-9]+(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]*)+|"
                        r"[A-Z]{2,}[0-9]*[A-Z]*(?:-[A-Z0-9]+)+)$")
_PATH = re.compile(r"(?:^|[\s(\"'])/(?:[\w.-]+/)*\{?[\w.-]+\}?/[\w{}.-]+|\{[A-Za-z_][\w-]*\}|"
                   r"\b[a-z][a-zA-Z]+s/[^\s/]+/[a-z][a-zA-Z]+s(?:/|\b)")
_DOTTED_OP = re.compile(r"\b[a-z][a-zA-Z0-9]*(?:\.[a-z][a-zA-Z0-9]*){2,}\b")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
_ARN = re.compile(r"\barn:[a-z0-9-]+:", re.IGNORECASE)
_HEX = re.compile(r"^[0-9a-f]{10,}$")
_TOKENISH = re.compile(r"^[A-Za-z0-9]{12,}$")
_WORDS_JOINED = re.compile(r"^(?:[A-Z][a-z]+)+$")  # "SandboxMedia": a name in words, typed as one
_FILLER_WORDS = frozenset(("lorem", "ipsum", "dolor", "amet", "consectetur", "adipiscing", "foo", "bar", "baz", "qux",
                           "string", "sample", "example", "placeholder", "test", "dummy", "asdf", "qwerty", "todo",
                           "tbd", "null", "none", "undefined", "value", "text"))
# a verb standing where a noun should ("whose create is ...", "delete the create."); "the patch jobs" or
# "the update time" are nouns in their own right
_VERB_NOUN = re.compile(r"\b(?:the|a|an|new|this|that|each|every|whose|my)\s+(?:create|update|delete|get|put|patch|"
                        r"describe|retrieve|insert|modify|remove)s?(?=\s+(?:is|was|are|were|for|in|named|called|"
                        r"with|I|you)\b|\s*[.?!,;:]|\s*$)", re.IGNORECASE)
_PADDING = re.compile(r"(?i)([a-z])\1{3,}")
_VOWELLESS = re.compile(r"(?i)^[b-df-hj-np-tv-xz]{5,}$")  # "y" is a vowel in "Flynn" and "Lynch"
_URL_SCHEME = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://")  # "https://" ("https" has no vowels, and is no filler)


def _opaque(value: str) -> bool:
    """A value no person knows by heart: a UUID, an ARN, a long hex string, a long random token (not a
    name of capitalised words typed as one, ``SandboxMedia``)."""
    if _UUID.search(value) or _ARN.search(value):
        return True
    if _HEX.match(value) and any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        return True
    if _TOKENISH.match(value) and not _WORDS_JOINED.match(value):
        letters = sum(c.isalpha() for c in value)
        digits = sum(c.isdigit() for c in value)
        cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
        return letters >= 3 and (digits >= 3 or cases)
    return False


_FILE_KEY = re.compile(r"(?i)path|dir|folder|file|mount")


def _file_path_given(said: str, values: list[tuple[str, Any]]) -> bool:
    """Whether ``said`` is a file system path a call takes as a path (a watched directory "/srv/ml/config"):
    a person types that one as it is."""
    return said.startswith("/") and any(value == said and _FILE_KEY.search(key) for key, value in values)


def filler(value: str) -> str:
    """Why ``value`` reads as filler (``""`` when it does not); a URL's scheme is no word of it."""
    tokens = re.findall(r"[A-Za-z]+", _URL_SCHEME.sub("", value) if "://" in value else value)
    if not tokens:
        return ""
    lowered = [t.lower() for t in tokens]
    if len(tokens) <= 3 and any(t in _FILLER_WORDS for t in lowered) and not any(t[:1].isupper() for t in tokens[1:]):
        hit = next(t for t in lowered if t in _FILLER_WORDS)
        if hit not in ("test", "value", "text", "example", "sample", "none") or len(tokens) == 1:
            return f"filler word {hit!r}"
    if any(t in ("lorem", "ipsum", "dolor", "consectetur") for t in lowered):
        return "lorem ipsum"
    for t in tokens:
        if _PADDING.search(t):
            return f"padding {t!r}"
        if _VOWELLESS.match(t) and not t.isupper():
            return f"no vowels {t!r}"
    # "test test", not a code whose letters repeat between digits ("8EB9EB")
    if " " in value.strip() and len(set(lowered)) < len(lowered) and 2 <= len(lowered) <= 3:
        return "repeated word"
    return ""


_COLLECTION = re.compile(r"^[a-z][A-Za-z]*$")


def path_said(text_normalized: str, value: Any) -> bool:
    """Whether normalised text says a resource path by its parts: ``projects/harbor-42/locations/us-central1``
    is said when "harbor-42" and "us-central1" are (the collections are the API's own spelling, which the
    tool's parameter pattern gives; the user names the resources)."""
    if not isinstance(value, str) or "/" not in value or len(value) > 300:
        return False
    parts = value.split("/")
    if len(parts) % 2 or not all(_COLLECTION.match(parts[i]) for i in range(0, len(parts), 2)):
        return False
    return all(parts[i] and mentions(text_normalized, parts[i]) for i in range(1, len(parts), 2))


_KEYS_SEEN: dict[int, tuple[list[dict[str, Any]], Any]] = {}  # id -> (the list itself, its keys)


def _keys(tools: list[dict[str, Any]]) -> tuple[set[str], set[str], dict[str, set[str]]]:
    """(tool names, parameter keys in code spelling, enum values per parameter) of offered tools.

    Remembered for the very list object (a builder hands every row of a tool set the same read-only
    list; the entry holds the list, so its id cannot be reused while it is remembered)."""
    seen = _KEYS_SEEN.get(id(tools))
    if seen is not None and seen[0] is tools:
        return seen[1]
    found = _collect_keys(tools)
    if len(_KEYS_SEEN) >= 512:
        _KEYS_SEEN.clear()
    _KEYS_SEEN[id(tools)] = (tools, found)
    return found


def _collect_keys(tools: list[dict[str, Any]]) -> tuple[set[str], set[str], dict[str, set[str]]]:
    names: set[str] = set()
    keys: set[str] = set()
    enums: dict[str, set[str]] = {}
    for tool in tools[:200]:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict):
            continue
        names.add(str(function.get("name", "")))
        props = (function.get("parameters") or {}).get("properties") or {}
        for key, schema in list(props.items())[:200]:
            if "_" in key or _CAMEL.match(key):
                keys.add(key)
            if isinstance(schema, dict):
                items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
                for source in (schema, items):
                    for v in source.get("enum") or ():
                        if isinstance(v, str):
                            enums.setdefault(key, set()).add(v)
    return names - {""}, keys, enums


def _scalars(arguments: Any, out: list[tuple[str, Any]], key: str = "", depth: int = 0) -> None:
    if depth > 6 or len(out) >= MAX_VALUES:
        return
    if isinstance(arguments, dict):
        for k, v in arguments.items():
            _scalars(v, out, str(k), depth + 1)
    elif isinstance(arguments, list):
        for v in arguments[:100]:
            _scalars(v, out, key, depth + 1)
    elif isinstance(arguments, (str, int, float)) and not isinstance(arguments, bool):
        out.append((key, arguments))


def query_leaks(query: str, tools: list[dict[str, Any]], calls: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(kind, detail)`` for each way ``query`` reads like a schema dump (see the module docstring).

    ``tools`` are the row's offered tools (OpenAI format), ``calls`` its oracle calls
    (``{"name", "arguments"}``); only argument values the query says are judged as values.
    """
    text = query[:MAX_TEXT]
    if not text.strip():
        return []
    lowered = text.lower()
    norm = normalize_text(text)
    found: list[tuple[str, str]] = []
    names, keys, enums = _keys(tools)
    for name in sorted(names):
        low = name.lower()  # a substring test first: a pattern is compiled only for a name the text holds
        if len(name) >= 4 and low in lowered and re.search(rf"(?<![\w/]){re.escape(low)}(?![\w/])", lowered):
            found.append(("operation_id", name))
            break
    match = _DOTTED_OP.search(text)
    if match and "@" not in match.group(0) and not re.search(r"\.(?:com|org|net|io|ai|dev)\b", match.group(0)):
        found.append(("operation_id", match.group(0)))
    values: list[tuple[str, Any]] = []
    for call in calls[:100]:
        _scalars(call.get("arguments") or {}, values)
    match = _PATH.search(text)
    if match and not _file_path_given(match.group(0).strip().rstrip("."), values):
        found.append(("path", match.group(0).strip()))
    for key in sorted(keys):
        if len(key) >= 4 and key in text and re.search(rf"(?<![\w@.]){re.escape(key)}(?![\w@])", text):
            found.append(("parameter_key", key))
            break
    match = _VERB_NOUN.search(text)
    if match:
        found.append(("verb_as_noun", match.group(0)))
    seen: set[str] = set()
    for key, value in values:
        said = str(value)
        if said in seen or not isinstance(value, str) or not mentions(norm, value):
            continue
        seen.add(said)
        if said in enums.get(key, ()) and _CODE_ENUM.match(said):
            found.append(("enum_spelling", said))
        elif _opaque(said):
            found.append(("opaque_id", said))
        elif "/" in said and re.search(r"[A-Za-z]+s/[^/\s]+/", said) and not said.startswith(("http:", "https:")):
            found.append(("path", said))
        else:
            why = filler(said)
            if why:
                found.append(("filler_value", f"{said} ({why})"))
    # a kind once: the first finding of each kind says enough
    out: dict[str, str] = {}
    for kind, detail in found:
        out.setdefault(kind, detail[:160])
    return list(out.items())
