"""A generic :class:`~covert.env.Language` for a bound API, written in words.

Nouns come from resource names, references describe records by their name-like fields ("the project
named Aurora Studio"), and every template is a sentence a person would say to that product: no
operation ids, paths, parameter keys or enum spellings. Ids a person could not know are never asked
for: the tool graph looks them up by a name first. Parameters whose values cannot be said in words
(objects, lists, enum codes) are never put in a template, so tasks that would need them are not made.
"""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

from covert.env import Intent, Language, Reference, State
from covert.imports.bind import BoundApi, BoundTool
from covert.imports.resources import Resource, record_of, words
from covert.imports.statefactory import Unsatisfiable, value_for

_WORDY_ENUM = re.compile(r"^[a-z][a-z ]{1,30}$")
_SLOT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_NAMEISH = ("name", "title", "label", "subject", "summary", "email", "username", "display")
_AMOUNTS = ("price", "amount", "total", "cost", "balance", "size", "count", "quantity", "fee", "score")
_SKIP_FORMATS = ("uri", "url", "byte", "binary", "password", "uuid")
OUT_OF_SCOPE = (
    "Can you suggest a good podcast for my commute?",
    "What will the weather be like in Porto on Saturday?",
    "Can you help me plan a birthday dinner for six people?",
    "How many tablespoons are in a cup?",
    "Who directed the film that won best picture last year?",
    "Can you translate 'good morning' into Korean?",
    "What's a good warm-up before a 10k run?",
    "Can you recommend a novel set in Iceland?",
)


def field_words(name: str) -> str:
    """A field name in words (``createdAt`` -> "creation date", ``display_name`` -> "display name")."""
    parts = words(name)
    if parts and parts[-1] in ("at", "on", "time", "timestamp") and len(parts) > 1:
        parts = parts[:-1]
    if parts and parts[-1] in ("created", "updated", "modified", "placed", "deleted", "started", "ended"):
        head = {"created": "creation", "updated": "last update", "modified": "last change", "placed": "order",
                "deleted": "deletion", "started": "start", "ended": "end"}[parts[-1]]
        parts = [*parts[:-1], head, "date"]
    return " ".join(parts) or name


def article(noun: str) -> str:
    """``noun`` with "a" or "an" in front."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def phrasable(schema: Any) -> bool:
    """Whether a person can say a value of ``schema`` in a sentence."""
    if not isinstance(schema, dict):
        return False
    if schema.get("enum"):
        return all(isinstance(v, str) and _WORDY_ENUM.match(v) for v in schema["enum"])
    if schema.get("format") in _SKIP_FORMATS or "pattern" in schema:
        return False
    return schema.get("type") in ("string", "integer", "number")


def _descriptors(resource: Resource, resources: dict[str, Resource]) -> list[str]:
    """Fields that describe a record in words, name-like first."""
    props = resource.schema["properties"]
    fk = {resource.parent_field}
    out = []
    for key, schema in props.items():
        if key == resource.id_field or key in fk or not isinstance(schema, dict):
            continue
        if schema.get("type") != "string" or schema.get("enum") or schema.get("format") in (*_SKIP_FORMATS, "date-time"):
            continue
        parts = words(key)
        if not parts or parts[-1] in ("id", "arn", "key", "token", "uri", "url", "etag", "hash", "secret"):
            continue
        out.append(key)
    out.sort(key=lambda k: (0 if any(n in k.lower() for n in _NAMEISH) else 1, list(props).index(k)))
    return out[:3]


def _amount_fields(resource: Resource) -> list[str]:
    props = resource.schema["properties"]
    return [k for k, s in props.items() if isinstance(s, dict) and s.get("type") in ("number", "integer")
            and k != resource.id_field and any(a in k.lower() for a in _AMOUNTS)][:2]


def _reference(resource: Resource, resources: dict[str, Resource], source: str) -> Reference:
    noun = resource.noun
    by_field: dict[str, tuple[str, ...]] = {}
    for key in _descriptors(resource, resources):
        said = field_words(key)
        if any(n in key.lower() for n in ("name", "title", "label")):
            by_field[key] = (f"the {noun} named {{value}}", f"the {noun} called {{value}}")
        else:
            by_field[key] = (f"the {noun} whose {said} is {{value}}", f"the {noun} with the {said} {{value}}")
    superlative = {k: (f"the {noun} with the highest {field_words(k)}", f"the {noun} with the lowest {field_words(k)}")
                   for k in _amount_fields(resource)}
    id_words = words(resource.id_field)
    knows = source in ("botocore", "mcp") and bool(id_words) and id_words[-1] == "name" and len(id_words) > 1
    return Reference(noun=noun, plural=resource.plural, by_id=(f"the {noun} {{value}}", f"{noun} {{value}}"),
                     user_knows_id=knows, by_field=by_field, superlative=superlative)


def _path(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _record_prefix(bound: BoundTool) -> str:
    """Where the record sits in the tool's output ("" when the output is the record)."""
    if bound.role.kind == "list":
        return ""
    found = record_of(bound.role.op.response)
    return found[0] if found else ""


def _intents(api: BoundApi, bound: BoundTool, refs: dict[str, Reference]) -> tuple[Intent, ...]:
    intents = _plain_intents(api, bound, refs)
    scopes = [p for p in bound.role.scope_params if _SLOT.match(p)]
    if len(scopes) != len(bound.role.scope_params):
        return (Intent(ask=(), answer=()),)
    if not scopes:
        return intents
    # every request names the scope the records live in ("... in project harbor-42")
    where = " ".join(f"in the {scope_noun(p)} {{{p}}}" for p in scopes)

    def placed(template: str) -> str:  # before a closing question mark: "can you ... in the project X?"
        return f"{template[:-1]} {where}?" if template.endswith("?") else f"{template} {where}"

    return tuple(Intent(ask=tuple(placed(t) for t in i.ask), answer=i.answer,
                        context=tuple(placed(t) for t in i.context)) for i in intents)


def scope_noun(param: str) -> str:
    """The noun of a scope parameter (``projectsId`` -> "project")."""
    from covert.imports.resources import singular

    parts = [w for w in words(param) if w not in ("id", "name", "key")] or words(param)
    return " ".join([*parts[:-1], singular(parts[-1])]) if parts else param


def _scope_sampler(param: str, schema: dict[str, Any]):
    from covert.imports.bind import SCOPES, scope_key

    key = scope_key(param, schema)

    def sample(rng: random.Random, state: State) -> Any:
        scopes = state.get(SCOPES, "scope") or {}
        return scopes.get(key)
    return sample


def _plain_intents(api: BoundApi, bound: BoundTool, refs: dict[str, Reference]) -> tuple[Intent, ...]:
    role = bound.role
    if role.kind == "custom":
        from covert.imports.custom_actions import custom_intents

        return custom_intents(api, bound, refs)
    resource = api.resources[role.table]
    noun, plural = resource.noun, resource.plural
    params = bound.spec.parameters["properties"]
    required = bound.spec.parameters["required"]
    id_slot = role.id_param if role.id_param and _SLOT.match(role.id_param) else None
    prefix = _record_prefix(bound)
    if any(not _SLOT.match(p) for p in required):
        return (Intent(ask=(), answer=()),)
    linked = [p for p in required if bound.spec.param_entity(p) in refs]
    plain = [p for p in required if p not in linked and p not in role.scope_params]
    if role.kind == "list":
        parent = next((p for p in linked if p != role.id_param), None)
        owner = f" for {{{parent}}}" if parent else ""
        counts = [k for k, s in bound.spec.returns.get("properties", {}).items()
                  if isinstance(s, dict) and s.get("type") == "integer"
                  and k.lower().replace("_", "") in ("totalcount", "total", "totalsize", "count", "totalitems", "totalresults")]
        if plain:
            return (Intent(ask=(), answer=()),)
        asks = (f"how many {plural} are there{owner}?", f"can you count the {plural}{owner} for me?") if counts else ()
        return (Intent(ask=asks, answer=tuple(f"There are {{{c}}} {plural}." for c in counts),
                       context=(f"I'm looking at the {plural}{owner}",)),)
    if role.kind == "get":
        if id_slot is None or any(not phrasable(params[p]) for p in plain if p != id_slot):
            return (Intent(ask=(), answer=()),)
        out = []
        for key in _facts(resource):
            said = field_words(key)
            out.append(Intent(
                ask=(f"what's the {said} of {{{id_slot}}}?", f"can you tell me the {said} of {{{id_slot}}}?",
                     f"I need the {said} of {{{id_slot}}}, please"),
                answer=(f"The {said} is {{{_path(prefix, key)}}}.",),
                context=(f"it's about {{{id_slot}}}", f"I mean {{{id_slot}}}")))
        return tuple(out) or (Intent(ask=(), answer=()),)
    if role.kind == "delete":
        if id_slot is None or (plain and plain != [id_slot]):
            return (Intent(ask=(), answer=()),)
        return (Intent(ask=(f"please delete {{{id_slot}}}", f"I no longer need {{{id_slot}}}; please remove it",
                            f"can you get rid of {{{id_slot}}}?"),
                       answer=(f"Done: the {noun} is deleted.",)),)
    labels = dict(bound.fields)
    if role.kind == "create" and role.id_param in params:
        labels[role.id_param] = resource.id_field
    settable = [p for p in labels if _SLOT.match(p) and phrasable(params.get(p))]
    must = [p for p in plain if p != id_slot or role.kind == "create"]
    if any(p not in settable for p in must):
        return (Intent(ask=(), answer=()),)
    optional = [p for p in settable if p not in must]
    combos = [list(c) for n in range(0, 3) for c in itertools.combinations(optional, n)]
    if role.kind == "update":
        if id_slot is None:
            return (Intent(ask=(), answer=()),)
        asks = []
        for combo in combos:
            chosen = must + combo
            if not chosen:
                continue
            changes = " and ".join(f"the {field_words(labels[p])} to {{{p}}}" for p in chosen)
            asks += [f"please change {changes} for {{{id_slot}}}", f"can you update {{{id_slot}}}? Set {changes}"]
        id_path = _path(prefix, resource.id_field)
        return (Intent(ask=tuple(asks), answer=(f"Done: {noun} {{{id_path}}} is updated.",)),)
    asks = []
    for combo in combos:
        chosen = must + combo
        if chosen:
            details = " and ".join(f"{field_words(labels[p])} {{{p}}}" for p in chosen)
            asks += [f"please create a new {noun} with {details}", f"I'd like to add {article(noun)}: {details}"]
        else:
            asks += [f"please set up a new {noun} for me", f"can you create a new {noun}?"]
    id_path = _path(prefix, resource.id_field)
    return (Intent(ask=tuple(asks), answer=(f"The new {noun} is created with id {{{id_path}}}.",)),)


def _facts(resource: Resource) -> list[str]:
    """Fields worth asking about: scalar values a person reads (not ids, links or codes)."""
    out = []
    for key, schema in resource.schema["properties"].items():
        if key in (resource.id_field, resource.parent_field) or not isinstance(schema, dict):
            continue
        if schema.get("type") not in ("string", "number", "integer") or not _SLOT.match(key):
            continue
        if schema.get("format") in _SKIP_FORMATS or (schema.get("enum") and not phrasable(schema)):
            continue
        parts = words(key)
        if not parts or parts[-1] in ("id", "arn", "key", "token", "uri", "url", "etag", "hash", "secret", "link"):
            continue
        if key not in (resource.schema.get("required") or ()) and len(out) >= 1:
            out.append(key)
        else:
            out.insert(0, key)
    return out[:3]


def _sampler(schema: dict[str, Any], field: str):
    def sample(rng: random.Random, state: State) -> Any:
        try:
            return value_for(schema, field, rng)
        except Unsatisfiable as exc:  # the task is not made; synthesis goes on
            from covert.synth.records import Rejected

            raise Rejected("unsatisfiable_value", str(exc)[:120]) from None
    return sample


def build_language(api: BoundApi) -> Language:
    """The generic language of a bound API."""
    refs = {r.entity: _reference(r, api.resources, api.spec.source) for r in api.resources.values()}
    intents = {name: _intents(api, bound, refs) for name, bound in api.tools.items()}
    values: dict[str, Any] = {}
    field_nouns: dict[str, str] = {}
    for name, bound in api.tools.items():
        for param, target in bound.fields.items():
            schema = bound.spec.parameters["properties"].get(param)
            if bound.role.kind in ("create", "update") and phrasable(schema):
                values[f"{name}.{param}"] = _sampler(schema, target)
        role = bound.role
        for param in role.scope_params:
            values[f"{name}.{param}"] = _scope_sampler(param, bound.spec.parameters["properties"][param])
        if role.kind == "create" and role.id_param and role.id_param in bound.spec.parameters["properties"]:
            schema = bound.spec.parameters["properties"][role.id_param]
            values[f"{name}.{role.id_param}"] = _sampler(schema, role.id_param)
    for resource in api.resources.values():
        for key in resource.schema["properties"]:
            field_nouns[key] = field_words(key)
    plurals = sorted({r.plural for r in api.resources.values()})
    return Language(
        scope=f"{', '.join(plurals[:4])} in {api.spec.title}",
        intents=intents, references=refs,
        entity_tables={r.entity: r.table for r in api.resources.values()},
        values=values, field_nouns=field_nouns, out_of_scope=OUT_OF_SCOPE,
    )
