"""Seed records an LLM writes once per table of an imported environment (``covert envs seed --llm``).

Without an LLM, an imported state's values come from what each field is (:mod:`covert.imports.fieldvalues`):
true to the field's kind, but a record's fields do not tell one story. With one, the LLM writes a few
records per table from the API's own description and the table's record schema, the way EnvFactory makes
its states realistic; covert keeps the fields that hold up:

- only the table's own descriptive fields are asked for and kept: never its id, its parent link, another
  record's id or ARN, a timestamp or covert's private keys (ids, links and times stay covert's, so they
  stay consistent and in order);
- each value is checked against its field's schema (type, enum, bounds, length, the pattern in bounded
  time) and against the filler and form rules the row checks use (:mod:`covert.imports.rowforms`); a value
  that fails is dropped, a record left with no field is dropped;
- the work a reply can cause is bounded (its length, a record's size and depth, records per table).

The kept records are stored once in the environment store, content-addressed (``seeds/<sha256>.json``),
and named by the admitted-list entry; the environment's version carries their hash, so a build made with
them is regenerated only with the very same records. A state draws them in a seeded order
(:meth:`covert.imports.bind.BoundApi.make_state`): the same seed gives the same bytes, with no LLM.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from covert.env.jsonsafe import canonical_json
from covert.env.schema import ENTITY_KEY
from covert.imports.record_keys import PARENT_KEY, SCOPE_PREFIX
from covert.imports.resources import Resource, words
from covert.imports.rowforms import filler

SEEDS = "seeds"  # the store folder holding seed records, one <sha256>.json per environment
RECORDS_PER_TABLE = 5
MAX_RECORDS_PER_TABLE = 12
MAX_REPLY_CHARS = 48_000
MAX_VALUE_CHARS = 400  # a kept value's JSON text, at most
MAX_VALUE_DEPTH = 3
MAX_FIELDS_ASKED = 24
MAX_DESCRIPTION_CHARS = 160
_NOT_ASKED_WORDS = frozenset({"id", "ids", "arn", "arns", "uuid", "etag", "at", "time", "timestamp", "date",
                              "created", "updated", "modified", "deleted", "token", "url", "uri", "href", "link",
                              "self", "kind", "fingerprint", "version", "generation", "path"})
_NOT_ASKED_FORMATS = frozenset({"date-time", "date", "time", "uuid", "uri", "url", "byte", "binary",
                                "google-datetime", "google-fieldmask", "int64", "uint64"})
_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\r?\n(.*?)```", re.S)


class SeedError(ValueError):
    """A reply that holds no usable records; ``reason`` is a counted snake_case code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass
class TableSeeds:
    """What came of one table's request: the kept records and why values or records were dropped."""

    table: str
    records: list[dict[str, Any]] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)


def askable_fields(resource: Resource) -> dict[str, dict[str, Any]]:
    """The fields of a table an LLM may write: descriptive scalars (and small lists of them), never the
    record's id, its parent link, another record's id or ARN, a timestamp, a URL or covert's private keys.
    At most :data:`MAX_FIELDS_ASKED`, in the schema's order."""
    out: dict[str, dict[str, Any]] = {}
    for key, schema in (resource.schema.get("properties") or {}).items():
        if len(out) >= MAX_FIELDS_ASKED:
            break
        if not isinstance(schema, dict) or key in (resource.id_field, resource.parent_field, PARENT_KEY, ENTITY_KEY):
            continue
        if key.startswith(SCOPE_PREFIX) or key.startswith("x-") or schema.get("readOnly"):
            continue
        named = words(key)
        if not named or named[-1] in _NOT_ASKED_WORDS or set(named) & {"id", "arn"}:
            continue
        kind = schema.get("type")
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        if kind == "array" and items.get("type") not in ("string", "integer", "number"):
            continue
        if kind not in ("string", "integer", "number", "boolean", "array") and "enum" not in schema:
            continue
        if schema.get("format") in _NOT_ASKED_FORMATS or items.get("format") in _NOT_ASKED_FORMATS:
            continue
        out[key] = schema
    return out


def _field_line(key: str, schema: dict[str, Any]) -> str:
    kind = schema.get("type") or "string"
    if kind == "array":
        kind = f"list of {(schema.get('items') or {}).get('type', 'string')}"
    notes = []
    if schema.get("enum"):
        notes.append("one of " + ", ".join(json.dumps(v) for v in schema["enum"][:12]))
    for bound in ("minimum", "maximum", "minLength", "maxLength"):
        if bound in schema:
            notes.append(f"{bound} {schema[bound]}")
    if schema.get("pattern"):
        notes.append(f"matches {schema['pattern'][:80]}")
    if schema.get("format"):
        notes.append(f"format {schema['format']}")
    said = str(schema.get("description") or "").split("\n")[0][:MAX_DESCRIPTION_CHARS]
    return f"- {key} ({kind}{'; ' + '; '.join(notes) if notes else ''}){': ' + said if said else ''}"


def seed_prompt(title: str, description: str, resource: Resource, fields: dict[str, dict[str, Any]],
                count: int = RECORDS_PER_TABLE) -> str:
    """The request for one table's seed records."""
    about = description.split("\n")[0][:300] if description else ""
    lines = "\n".join(_field_line(k, s) for k, s in fields.items())
    return (
        f"You write realistic sample data for a test copy of the {title} API"
        f"{' (' + about + ')' if about else ''}.\n"
        f"Write {count} different {resource.plural} as a real account of this API would hold them: values a "
        "person or system of that business would really use, consistent within one record, varied across "
        "records. No placeholders, lorem ipsum, 'string', 'example' or 'test' values.\n"
        f"Each {resource.noun} may have these fields (leave out any you cannot fill sensibly; ids, links and "
        f"timestamps are added later):\n{lines}\n"
        'Reply with JSON only: {"records": [{...}, ...]}'
    )


def _json_in(text: str) -> Any:
    text = (text or "")[:MAX_REPLY_CHARS]
    fenced = _FENCE.search(text)
    candidates = [fenced.group(1)] if fenced else []
    candidates.append(text)
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start >= 0:
        candidates.append(text[start:max(text.rfind("}"), text.rfind("]")) + 1])
    for candidate in candidates:
        try:
            return orjson.loads(candidate.strip())
        except (orjson.JSONDecodeError, ValueError, RecursionError):
            continue
    raise SeedError("not_json", "the reply holds no JSON object or list")


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_VALUE_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level)
    return level


def _without_patterns(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_patterns(v) for k, v in schema.items() if k != "pattern"}
    if isinstance(schema, list):
        return [_without_patterns(v) for v in schema]
    return schema


# what an LLM writes where it has no value, besides the placeholders a spec writes (``filler`` refuses those):
# words no written record holds (a spec's own value may be "test" or "sample"; a seed record's never is)
_WRITTEN_PLACEHOLDERS = frozenset(("string", "example", "test", "sample", "n/a", "todo", "tbd", "bar", "placeholder",
                                   "value"))


def value_problem(key: str, value: Any, schema: dict[str, Any]) -> str | None:
    """Why a written value cannot stand in a record (``schema``, ``pattern``, ``too_large``, a filler
    reason such as ``word_salad`` or ``not_email``, ``placeholder``), or ``None`` when it can."""
    import jsonschema

    from covert.imports.statefactory import pattern_of

    if value is None or value == "" or value == []:
        return "empty"
    if len(orjson.dumps(value)) > MAX_VALUE_CHARS or _depth(value) > MAX_VALUE_DEPTH:
        return "too_large"
    try:
        if not jsonschema.Draft202012Validator(_without_patterns(schema)).is_valid(value):
            return "schema"
    except (jsonschema.exceptions.SchemaError, RecursionError, TypeError, ValueError):
        return "schema"
    texts = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)] \
        if isinstance(value, list) else []
    pattern = schema.get("pattern") or (schema.get("items") or {}).get("pattern")
    for text in texts:
        if isinstance(pattern, str) and not pattern_of(pattern).search(text):
            return "pattern"
        if text.strip().lower() in _WRITTEN_PLACEHOLDERS:
            return "placeholder"
        why = filler(key, text)
        if why is not None:
            return why
    return None


def parse_seeds(text: str, resource: Resource, limit: int = MAX_RECORDS_PER_TABLE) -> TableSeeds:
    """The usable records of a reply for ``resource``: each value checked (:func:`value_problem`), a record
    kept when one of its fields holds, at most ``limit``; raises :class:`SeedError` (``not_json``,
    ``no_records``) when nothing is left."""
    found = _json_in(text)
    items = found.get("records") if isinstance(found, dict) else found
    if not isinstance(items, list):
        raise SeedError("no_records", "the JSON holds no list of records")
    fields = askable_fields(resource)
    outcome = TableSeeds(resource.table)
    seen: set[bytes] = set()
    for item in items[: 4 * limit]:
        if len(outcome.records) >= limit:
            break
        if not isinstance(item, dict):
            outcome.dropped["not_an_object"] += 1
            continue
        kept: dict[str, Any] = {}
        for key, value in item.items():
            if key not in fields:
                outcome.dropped["not_asked"] += 1
                continue
            why = value_problem(key, value, fields[key])
            if why is None:
                kept[key] = value
            else:
                outcome.dropped[why] += 1
        digest = orjson.dumps(kept, option=orjson.OPT_SORT_KEYS)
        if not kept or digest in seen:
            outcome.dropped["empty_record" if not kept else "repeated_record"] += 1
            continue
        seen.add(digest)
        outcome.records.append(canonical_json(kept))
    if not outcome.records:
        raise SeedError("no_records", "no record kept a usable field: " + ", ".join(sorted(outcome.dropped)))
    return outcome


def seeds_digest(seeds: dict[str, list[dict[str, Any]]]) -> str:
    """The content hash of an environment's seed records."""
    return hashlib.sha256(_seed_bytes(seeds)).hexdigest()


def _seed_bytes(seeds: dict[str, list[dict[str, Any]]]) -> bytes:
    return orjson.dumps({t: seeds[t] for t in sorted(seeds)}, option=orjson.OPT_SORT_KEYS)


def seeded_version(version: str, seeds: dict[str, list[dict[str, Any]]] | None) -> str:
    """An environment's version with seed records: its own version plus their hash."""
    return f"{version}+s{seeds_digest(seeds)[:10]}" if seeds else version


def save_seeds(store: str | Path, seeds: dict[str, list[dict[str, Any]]], written_by: str) -> dict[str, Any]:
    """Write an environment's seed records into the store (``seeds/<sha256>.json``, atomically); the
    admitted-list entry that names them."""
    from covert.atomic import write_atomically

    digest = seeds_digest(seeds)
    rel = f"{SEEDS}/{digest}.json"
    write_atomically(Path(store) / rel, _seed_bytes(seeds).decode() + "\n")
    return {"file": rel, "sha256": digest, "tables": len(seeds), "records": sum(map(len, seeds.values())),
            "written_by": written_by}


def load_seeds(store: str | Path, name: str, entry: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """An environment's seed records read back from the store; :class:`~covert.imports.store.StoreError`
    (one line) when the file is missing or was changed since ``covert envs seed`` wrote it."""
    from covert.imports.store import StoreError

    path = Path(store) / str(entry.get("file", ""))
    try:
        seeds = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        raise StoreError(f"{path}: the seed records of {name} are missing or unreadable; run `covert envs seed "
                         "--llm ...` again") from None
    if not isinstance(seeds, dict) or seeds_digest(seeds) != entry.get("sha256"):
        raise StoreError(f"{path}: the seed records of {name} changed since they were written; run `covert envs "
                         "seed --llm ...` again")
    return seeds


def write_seeds(api: Any, backend: Any, *, count: int = RECORDS_PER_TABLE, max_tokens: int = 2048
                ) -> tuple[dict[str, list[dict[str, Any]]], list[TableSeeds], Counter[str]]:
    """Ask ``backend`` once per table of a bound API (:class:`covert.imports.bind.BoundApi`) for ``count``
    seed records, in one batch; the kept records by table, each table's outcome, and why tables got none."""
    from covert.llm.base import ChatRequest, SamplingParams

    spec = api.spec
    asked: list[tuple[Resource, str]] = []
    failures: Counter[str] = Counter()
    for table in sorted(api.resources):
        resource = api.resources[table]
        fields = askable_fields(resource)
        if not fields:
            failures["no_askable_field"] += 1
            continue
        asked.append((resource, seed_prompt(spec.title, spec.description or "", resource, fields, count)))
    sampling = SamplingParams(temperature=0.0, max_tokens=max_tokens, seed=0)
    completions = backend.generate([ChatRequest([{"role": "user", "content": p}], sampling=sampling)
                                    for _r, p in asked]) if asked else []
    seeds: dict[str, list[dict[str, Any]]] = {}
    outcomes: list[TableSeeds] = []
    for (resource, _prompt), completion in zip(asked, completions, strict=True):
        if not completion.ok:
            failures[f"llm_{completion.reason}"] += 1
            continue
        try:
            outcome = parse_seeds(completion.text, resource, limit=count)
        except SeedError as exc:
            failures[exc.reason] += 1
            continue
        outcomes.append(outcome)
        seeds[resource.table] = outcome.records
    return seeds, outcomes, failures
