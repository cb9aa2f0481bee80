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
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from covert.env import Intent, Language, Reference, State
from covert.imports.bind import BoundApi, BoundTool
from covert.imports.resources import Resource, items_path, record_of, words
from covert.imports.statefactory import Unsatisfiable, plausible, value_for

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


ACRONYMS = {w: w.upper() for w in ("ip", "dns", "vm", "api", "sql", "ssh", "gpg", "ssl", "tls", "url", "uri", "lb",
                                     "byoc", "iot", "sms", "http", "vpc", "vpn", "cdn", "ml", "os", "kms", "sip", "ca",
                                     "acl", "iam", "saml", "oidc", "jwt", "mfa", "nat", "gpu", "cpu", "tcp", "udp",
                                     "grpc", "etl", "crm", "ssm", "ec2", "rds", "sso", "pdf", "csv", "faq", "id", "gb",
                                     "mb", "kb", "tb", "cidr", "arn", "sku", "ttl")}
_ACRONYM_PLURALS = {f"{w}s": f"{w.upper()}s" for w in ACRONYMS}


def shown(text: str) -> str:
    """Words as a person writes them: acronyms in capitals ("ip record" -> "IP record", "vms" -> "VMs")."""
    return " ".join(ACRONYMS.get(w, _ACRONYM_PLURALS.get(w, w)) for w in text.split(" "))


@lru_cache(maxsize=65536)
def field_words(name: str) -> str:
    """A field name in words (``createdAt`` -> "creation date", ``display_name`` -> "display name")."""
    parts = words(name)
    if parts and parts[-1] in ("at", "on", "time", "timestamp", "date") and len(parts) > 1:
        last = parts[-2]
        head = _EVENT_NOUNS.get(last)
        if head is not None:
            lead = parts[:-2]
            if lead and lead[-1] == "last" and head.startswith("last "):
                lead = lead[:-1]  # lastModifiedTime: "last change date", not "last last change date"
            return shown(" ".join([*lead, head, "date"]).strip())
        parts = parts[:-1] if parts[-1] in ("at", "on") else [*parts[:-1], "date" if parts[-1] == "date" else "time"]
    if parts and parts[-1] in _EVENT_NOUNS:
        parts = [*parts[:-1], _EVENT_NOUNS[parts[-1]], "date"]
    return shown(" ".join(parts)) or name


_EVENT_NOUNS = {"created": "creation", "create": "creation", "creation": "creation", "updated": "last update",
                "update": "last update", "modified": "last change", "modify": "last change", "placed": "order",
                "deleted": "deletion", "delete": "deletion", "started": "start", "start": "start", "ended": "end",
                "end": "end", "begin": "start", "expire": "expiry", "expiry": "expiry", "expiration": "expiry", "expires": "expiry",
                "published": "publication", "publish": "publication", "insert": "creation", "inserted": "creation", "last_modified": "last change"}


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


def sayable(key: str, schema: Any) -> bool:
    """Whether a person would say a value of field ``key`` in a request: :func:`phrasable`, and for a
    string, a field whose name tells what goes there (a name, an email, a city, a description; not a
    timestamp, a code or a token), so the request never carries filler."""
    if not phrasable(schema):
        return False
    parts = words(key)
    if not parts or parts[-1] in _CODE_WORDS or any(p in _CODE_PARTS for p in parts):
        return False
    if schema.get("enum") or schema.get("type") in ("integer", "number"):
        return True
    if _is_when(key, schema) or schema.get("format") in ("int64", "int32", "google-duration", "google-fieldmask"):
        return False
    return plausible(key) or schema.get("format") in ("email", "date")


_CODE_WORDS = frozenset(("id", "ids", "arn", "key", "token", "uri", "url", "etag", "hash", "secret", "link", "currency",
                         "href", "website", "homepage", "endpoint", "path", "uuid", "guid", "number", "no",
                         "language", "locale", "version", "fingerprint", "type", "kind", "state", "status", "code"))


_CODE_PARTS = frozenset(("key", "token", "secret", "hash", "arn", "etag", "kms", "fingerprint", "uuid", "guid", "sha",
                         "checksum", "crc", "regex", "cron", "json", "yaml", "base64"))


def _is_when(key: str, schema: Any) -> bool:
    """A timestamp field (said in an answer as a date and time, never asked for in a request)."""
    fmt = schema.get("format") if isinstance(schema, dict) else None
    if fmt in ("date-time", "google-datetime"):
        return True
    parts = words(key)
    return bool(parts) and parts[-1] in ("at", "time", "timestamp", "date", "datetime") and fmt != "date"


def _answer_slot(key: str, schema: dict[str, Any], path: str, props: dict[str, Any]) -> str | None:
    """The answer slot of a field: dates and times spoken, amounts with their currency, wordy enums in
    words; ``None`` for values a person would not be told (codes, tokens, filler)."""
    if schema.get("enum"):
        return f"{{{path}:status}}" if phrasable(schema) else None
    if schema.get("type") in ("integer", "number"):
        if any(a in key.lower() for a in ("price", "amount", "cost", "balance", "fee", "total")):
            currency = next((k for k in props if words(k) and words(k)[-1] == "currency"), None)
            if currency is None:
                return None
            prefix = path.rpartition(".")[0]
            return f"{{{path}:money:{prefix + '.' if prefix else ''}{currency}}}"
        return f"{{{path}}}"
    if schema.get("type") != "string":
        return None
    if _is_when(key, schema):
        return f"{{{path}:when}}"
    if schema.get("format") == "date":
        return f"{{{path}:date}}"
    return f"{{{path}}}" if sayable(key, schema) else None


def _descriptors(resource: Resource, resources: dict[str, Resource]) -> list[str]:
    """Fields that describe a record in words, name-like first."""
    props = resource.schema["properties"]
    fk = {resource.parent_field}
    out = []
    for key, schema in props.items():
        if key == resource.id_field or key in fk or not isinstance(schema, dict):
            continue
        if schema.get("type") != "string" or schema.get("enum") or not sayable(key, schema):
            continue
        if schema.get("format") == "date" or words(key)[-1] in ("description", "summary", "notes", "note", "comment",
                                                                 "message", "body", "text"):
            continue  # a record is named by its name, title or address, not by a date or a paragraph
        out.append(key)
    out.sort(key=lambda k: (_name_rank(k), list(props).index(k)))
    return out[:3]


def _name_rank(key: str) -> int:
    """0 for a name or title, 1 for an address or handle, 2 for anything else."""
    lowered = key.lower()
    if any(n in lowered for n in ("name", "title", "label", "subject", "display")):
        return 0
    return 1 if any(n in lowered for n in ("email", "username", "summary")) else 2


def _amount_fields(resource: Resource) -> list[str]:
    props = resource.schema["properties"]
    return [k for k, s in props.items() if isinstance(s, dict) and s.get("type") in ("number", "integer")
            and k != resource.id_field and any(a in k.lower() for a in _AMOUNTS)][:2]


def _reference(resource: Resource, resources: dict[str, Resource], source: str) -> Reference:
    noun = shown(resource.noun)
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
    # a user names what they keep by name: botocore's QueueName, an MCP memory's entity ``name``
    knows = source in ("botocore", "mcp") and bool(id_words) and id_words[-1] == "name" \
        and (len(id_words) > 1 or source == "mcp")
    return Reference(noun=noun, plural=shown(resource.plural), by_id=(f"the {noun} {{value}}", f"{noun} {{value}}"),
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
    # every request names the scope the records live in ("... for project harbor-42 in us-central1")
    props = bound.spec.parameters["properties"]
    where = " ".join(_scope_words(p, props[p]) for p in scopes)

    def placed(template: str) -> str:  # before a closing "?" or ", please": "can you ... in the project X?"
        for tail in ("?", ", please"):
            if template.endswith(tail):
                return f"{template[:-len(tail)]} {where}{tail}"
        return f"{template} {where}"

    return tuple(Intent(ask=tuple(placed(t) for t in i.ask), answer=i.answer,
                        context=tuple(placed(t) for t in i.context)) for i in intents)


_GENERIC_SCOPES = frozenset(("parent", "name", "resource", "scope", "path"))
_PLACES = frozenset(("locations", "regions", "zones"))


def _scope_words(param: str, schema: dict[str, Any]) -> str:
    """How a request names the scope a parameter carries: a resource path by its parts ("for project
    harbor-42 in us-central1", see :func:`path_phrase`), else by its noun ("in the account atlas-17", the
    phrase coming from :func:`_scope_phrase`)."""
    if _path_scope(schema):
        return f"for {{{param}}}"
    return f"for {{{param}}}" if scope_noun(param) in _GENERIC_SCOPES else f"in {{{param}}}"


def _path_scope(schema: Any) -> bool:
    from covert.imports.statefactory import scope_path

    pattern = schema.get("pattern") if isinstance(schema, dict) else None
    return isinstance(pattern, str) and scope_path(pattern, random.Random(0)) is not None


def path_phrase(value: Any) -> tuple[str, str]:
    """A resource path in words, and its noun: ``projects/harbor-42/locations/us-central1`` -> ("project
    harbor-42 in us-central1", "project"); the innermost resource comes first ("application falcon-7 of
    project harbor-42 in us-central1"), places after "in"."""
    from covert.imports.resources import singular

    parts = str(value).split("/")
    if len(parts) % 2 or len(parts) < 2:
        return str(value), "one"
    named: list[str] = []
    place = ""
    for i in range(0, len(parts), 2):
        collection, name = parts[i], parts[i + 1]
        if collection in _PLACES:
            place = name
            continue
        nouns = words(collection) or [collection]
        named.append(" ".join([*nouns[:-1], singular(nouns[-1]), name]))
    if not named:
        return f"{place}", "location"
    said = " of ".join(reversed(named)) + (f" in {place}" if place else "")
    head = named[-1].rsplit(" ", 1)[0]
    return said, head


def _scope_phrase(param: str, schema: dict[str, Any]):  # noqa: ANN202 - a phrase hook of the Language
    """The phrase hook of a scope parameter: a resource path by its parts, else the value itself; either
    way with the noun a second mention refers back with ("that project")."""
    if _path_scope(schema):
        return path_phrase
    noun = scope_noun(param)
    return _ScopeSaid(noun, noun in _GENERIC_SCOPES)


@dataclass(frozen=True)
class _ScopeSaid:
    """How a user says a scope that is no resource path: the value itself or "the <noun> <value>"."""

    noun: str
    generic: bool

    def __call__(self, value: Any) -> tuple[str, str]:
        return (str(value), "one") if self.generic else (f"the {self.noun} {value}", self.noun)


def scope_noun(param: str) -> str:
    """The noun of a scope parameter (``projectsId`` -> "project")."""
    from covert.imports.resources import singular

    parts = [w for w in words(param) if w not in ("id", "name", "key")] or words(param)
    return " ".join([*parts[:-1], singular(parts[-1])]) if parts else param


def _scope_sampler(param: str, schema: dict[str, Any]) -> _ScopeValue:
    from covert.imports.bind import scope_key

    return _ScopeValue(scope_key(param, schema))


@dataclass(frozen=True)
class _ScopeValue:
    """The value sampler of a scope parameter: the one scope of the state (its project, its region)."""

    key: str

    def __call__(self, rng: random.Random, state: State) -> Any:
        from covert.imports.bind import SCOPES

        scopes = state.get(SCOPES, "scope") or {}
        return scopes.get(self.key)


def _plain_intents(api: BoundApi, bound: BoundTool, refs: dict[str, Reference]) -> tuple[Intent, ...]:
    role = bound.role
    if role.kind == "custom":
        from covert.imports.custom_actions import custom_intents

        return custom_intents(api, bound, refs)
    resource = api.resources[role.table]
    noun, plural = shown(resource.noun), shown(resource.plural)
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
        out = []
        if counts:
            out.append(Intent(ask=(f"how many {plural} are there{owner}?", f"can you count the {plural}{owner} for me?"),
                              answer=tuple(f"I count {{{c}:n:{noun}|{plural}}} in all." for c in counts),
                              context=(f"I'm looking at the {plural}{owner}",)))
        listed = _list_answers(bound, resource, refs[resource.entity].user_knows_id if resource.entity in refs else False)
        if listed:
            out.append(Intent(ask=(f"which {plural} are there{owner}?", f"can you show me the {plural}{owner}?",
                                   f"please list the {plural}{owner}"),
                              answer=listed, context=(f"I'm looking at the {plural}{owner}",)))
            for param, target in bound.fields.items():
                if param in required or not _SLOT.match(param) or not sayable(target, params.get(param)):
                    continue
                said = field_words(target)
                out.append(Intent(ask=(f"which {plural}{owner} have the {said} {{{param}}}?",
                                       f"can you show me the {plural}{owner} whose {said} is {{{param}}}?"),
                                  answer=listed))
        return tuple(out) or (Intent(ask=(), answer=(), context=(f"I'm looking at the {plural}{owner}",)),)
    if role.kind == "get":
        if id_slot is None or any(not phrasable(params[p]) for p in plain if p != id_slot):
            return (Intent(ask=(), answer=()),)
        out = []
        props = resource.schema["properties"]
        for key in _facts(resource):
            said = field_words(key)
            slot = _answer_slot(key, props[key], _path(prefix, key), props)
            if slot is None:
                continue
            out.append(Intent(
                ask=(f"what's the {said} of {{{id_slot}}}?", f"can you tell me the {said} of {{{id_slot}}}?",
                     f"I need the {said} of {{{id_slot}}}, please"),
                answer=(f"The {said} is {slot}.", f"Its {said} is {slot}."),
                context=(f"it's about {{{id_slot}}}", f"I mean {{{id_slot}}}")))
        return tuple(out) or (Intent(ask=(), answer=()),)
    if role.kind == "delete":
        if id_slot is None or (plain and plain != [id_slot]):
            return (Intent(ask=(), answer=()),)
        return (Intent(ask=(f"please delete {{{id_slot}}}", f"I no longer need {{{id_slot}}}; please remove it",
                            f"can you get rid of {{{id_slot}}}?"),
                       answer=(f"Done: the {noun} is deleted.",)),)
    knows = refs[resource.entity].user_knows_id if resource.entity in refs else False
    labels = dict(bound.fields)
    if role.kind == "create" and role.id_param in params:
        labels[role.id_param] = resource.id_field
    settable = [p for p in labels if _SLOT.match(p) and sayable(labels[p], params.get(p))]
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
        return (Intent(ask=tuple(asks), answer=_write_answers(resource, prefix, "updated", knows)),)
    asks = []
    for combo in combos:
        chosen = must + combo
        if chosen:
            details = " and ".join(f"{field_words(labels[p])} {{{p}}}" for p in chosen)
            asks += [f"please create a new {noun} with {details}", f"I'd like to add {article(noun)}: {details}"]
        else:
            asks += [f"please set up a new {noun} for me", f"can you create a new {noun}?"]
    return (Intent(ask=tuple(asks), answer=_write_answers(resource, prefix, "created", knows)),)


def _write_answers(resource: Resource, prefix: str, done: str, knows_id: bool = False) -> tuple[str, ...]:
    """What the assistant says after a create or an update: the record by its name when it has one,
    else its id (a number the user may need later), never a resource path."""
    noun = shown(resource.noun)
    named = [k for k in _descriptors(resource, {}) if _name_rank(k) < 2]
    if named:
        slot = _path(prefix, named[0])
        return (f"Done: the {noun} {{{slot}}} is {done}.", f"All set: I've {done} the {noun} {{{slot}}}.")
    if knows_id:  # a name the user knows (botocore's RoleName): several results each say which one
        slot = _path(prefix, resource.id_field)
        return (f"Done: the {noun} {{{slot}}} is {done}.", f"All set: {noun} {{{slot}}} has been {done}.")
    # ids the API assigns are internals (the user refers to the record by what they asked for)
    return (f"Done: the {noun} is {done}.", f"All set: the {noun} has been {done}.")


def _list_answers(bound: BoundTool, resource: Resource, knows_id: bool = False) -> tuple[str, ...]:
    """Answers that name the records a list returned (by name, with the count), or ``()`` when its
    records have no name to say or the list is the whole output."""
    found = items_path(bound.spec.returns)
    if found is None or not found[0]:
        return ()
    path = found[0]
    required = resource.schema.get("required") or ()
    named = sorted((k for k in _descriptors(resource, {}) if _name_rank(k) < 2), key=lambda k: k not in required)
    if not named and knows_id:
        named = [resource.id_field]  # a name the user knows (botocore's FunctionName, an MCP entity's name)
    if not named:
        return ()
    spec = f"{path}:list:{named[0]}"
    noun, plural = shown(resource.noun), shown(resource.plural)
    return (f"I found {{{path}:n:{noun}|{plural}}}: {{{spec}}}.", f"Here are the {plural}: {{{spec}}}.",
            f"You have {{{path}:n:{noun}|{plural}}}: {{{spec}}}.", f"The {plural} I see are {{{spec}}}.")


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


def _sampler(schema: dict[str, Any], field: str) -> _FieldValue:
    return _FieldValue(schema, field)


@dataclass(frozen=True, eq=False)
class _FieldValue:
    """The value sampler of a parameter the user supplies: a realistic value for its schema. A class,
    not a closure, so that a bound environment can be pickled (to another process)."""

    schema: dict[str, Any]
    field: str

    def __call__(self, rng: random.Random, state: State) -> Any:
        try:
            return value_for(self.schema, self.field, rng)
        except Unsatisfiable as exc:  # the task is not made; synthesis goes on
            from covert.synth.records import Rejected

            raise Rejected("unsatisfiable_value", str(exc)[:120]) from None


_RANGE_END = re.compile(r"^(min|max)(?:imum)?_?(?=[A-Za-z0-9])", re.IGNORECASE)


def _ranges(tool: str, bound: BoundTool, values: dict[str, Any]) -> list[tuple[str, str, Any, Any]]:
    """The numeric parameters of a create or update that bound one range (``minInstances`` and
    ``maxInstances``), as ``(low, high, low sampler, high sampler)``."""
    if bound.role.kind not in ("create", "update"):
        return []
    ends: dict[str, dict[str, str]] = {}
    for param in bound.fields:
        schema = bound.spec.parameters["properties"].get(param) or {}
        found = _RANGE_END.match(param)
        if found and schema.get("type") in ("integer", "number") and f"{tool}.{param}" in values:
            ends.setdefault(param[found.end():].lower(), {})[found.group(1).lower()] = param
    return [(pair["min"], pair["max"], values[f"{tool}.{pair['min']}"], values[f"{tool}.{pair['max']}"])
            for _, pair in sorted(ends.items()) if len(pair) == 2]


@dataclass(frozen=True, eq=False)
class _OrderedRanges:
    """The joint sampler of a tool with range parameters: each low end at most its high end (drawn as
    each alone would be, then put in order; a draw the order would put outside a bound is not made)."""

    pairs: tuple[tuple[str, str, Any, Any], ...]

    def __call__(self, rng: random.Random, state: State) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for low, high, draw_low, draw_high in self.pairs:
            a, b = draw_low(rng, state), draw_high(rng, state)
            if a > b:
                a, b = b, a
                if not (_within(a, draw_low.schema) and _within(b, draw_high.schema)):
                    from covert.synth.records import Rejected

                    raise Rejected("unordered_range", f"{low} > {high}")
            out[low], out[high] = a, b
        return out


def _within(value: Any, schema: dict[str, Any]) -> bool:
    low, high = schema.get("minimum"), schema.get("maximum")
    return (not isinstance(low, (int, float)) or value >= low) and (not isinstance(high, (int, float)) or value <= high)


def _dialogue(api: BoundApi) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """How conversations restate each write ("delete {name}", "update {name}: set the display name to
    {displayName}") and say each read ("list the custom metrics"): operation ids are no phrases."""
    actions: dict[str, tuple[str, ...]] = {}
    reads: dict[str, str] = {}
    for name, bound in api.tools.items():
        role = bound.role
        resource = api.resources[role.table]
        noun, plural = shown(resource.noun), shown(resource.plural)
        params = bound.spec.parameters["properties"]
        if role.kind == "list":
            reads[name] = f"list the {plural}"
        elif role.kind == "get":
            reads[name] = f"look up the {noun}"
        elif role.kind == "delete" and role.id_param:
            actions[name] = (f"remove {{{role.id_param}}}",)
        elif role.kind in ("create", "update"):
            labels = dict(bound.fields)
            fields = [p for p in labels if _SLOT.match(p) and sayable(labels[p], params.get(p))][:4]
            combos = [c for n in (2, 1) for c in itertools.combinations(fields, n)]
            # worded unlike the requests, so a plan restates the change instead of copying the user
            if role.kind == "update" and role.id_param:
                target = f"{{{role.id_param}}}"
                actions[name] = (*("change " + " and ".join(f"the {field_words(labels[p])} of {target} to {{{p}}}"
                                                            if k == 0 else f"its {field_words(labels[p])} to {{{p}}}"
                                                            for k, p in enumerate(c)) for c in combos),
                                 f"make the change to {target}")
            else:
                head = f"add {article(noun)}"
                actions[name] = (*(head + " with the " + " and the ".join(f"{field_words(labels[p])} {{{p}}}" for p in c)
                                   for c in combos), head)
    return actions, reads


def _nested_nouns(schema: Any, out: dict[str, str], depth: int) -> None:
    if not isinstance(schema, dict) or depth > 4:
        return
    for key, sub in (schema.get("properties") or {}).items():
        if isinstance(key, str) and key not in out and _SLOT.match(key):
            out[key] = field_words(key)
        _nested_nouns(sub, out, depth + 1)
    _nested_nouns(schema.get("items"), out, depth + 1)


def build_language(api: BoundApi) -> Language:
    """The generic language of a bound API."""
    refs = {r.entity: _reference(r, api.resources, api.spec.source) for r in api.resources.values()}
    intents = {name: _intents(api, bound, refs) for name, bound in api.tools.items()}
    values: dict[str, Any] = {}
    phrases: dict[str, Any] = {}
    field_nouns: dict[str, str] = {}
    for name, bound in api.tools.items():
        for param, target in bound.fields.items():
            schema = bound.spec.parameters["properties"].get(param)
            if bound.role.kind in ("create", "update") and phrasable(schema):
                values[f"{name}.{param}"] = _sampler(schema, target)
        role = bound.role
        for param in role.scope_params:
            values[f"{name}.{param}"] = _scope_sampler(param, bound.spec.parameters["properties"][param])
            phrases[f"{name}.{param}"] = _scope_phrase(param, bound.spec.parameters["properties"][param])
        if role.kind == "create" and role.id_param and role.id_param in bound.spec.parameters["properties"]:
            schema = bound.spec.parameters["properties"][role.id_param]
            values[f"{name}.{role.id_param}"] = _sampler(schema, role.id_param)
    for name, bound in api.tools.items():
        pairs = _ranges(name, bound, values)
        if pairs:  # "min instances 120 and max instances 63" is no request
            values[name] = _OrderedRanges(tuple(pairs))
    for resource in api.resources.values():
        for key in resource.schema["properties"]:
            field_nouns[key] = field_words(key)
    for bound in api.tools.values():  # nested fields too: what a count or a list inside a record is called
        _nested_nouns(bound.spec.returns, field_nouns, 0)
    actions, reads = _dialogue(api)
    plurals = sorted({shown(r.plural) for r in api.resources.values()})
    return Language(
        scope=f"{', '.join(plurals[:4])} in {api.spec.title}",
        intents=intents, references=refs,
        entity_tables={r.entity: r.table for r in api.resources.values()},
        values=values, field_nouns=field_nouns, out_of_scope=OUT_OF_SCOPE, phrases=phrases,
        actions=actions, reads=reads,
        fixed=frozenset(f"{name}.{param}" for name, bound in api.tools.items() for param in bound.role.scope_params),
    )
