"""A generic :class:`~covert.env.Language` for a bound API, written in words.

Nouns come from resource names, references describe records by their name-like fields ("the project
named Aurora Studio"), and every template is a sentence a person would say to that product: no
operation ids, paths, parameter keys or enum spellings. Ids a person could not know are never asked
for: the tool graph looks them up by a name first. Parameters whose values cannot be said in words
(objects, lists, enum codes) are never put in a template, so tasks that would need them are not made.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar

from covert.env import Intent, Language, Reference, State
from covert.imports import phrasing
from covert.imports.bind import BoundApi, described_path
from covert.imports.bound import BoundTool
from covert.imports.fieldvalues import ValueContext, context_for, field_kind
from covert.imports.resources import RESPONSE_SHAPING, Resource, items_path, record_of, words
from covert.imports.rowforms import failure_field, foreign_name, name_field
from covert.imports.statefactory import Unsatisfiable, names_record, value_for
from covert.language.plurals import singular

_WORDY_ENUM = re.compile(r"^[a-z][a-z ]{1,30}$")
_SLOT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_NAMEISH = ("name", "title", "label", "subject", "summary", "email", "username", "display")
_AMOUNTS = ("price", "amount", "total", "cost", "balance", "size", "count", "quantity", "fee", "score")
_SKIP_FORMATS = ("uri", "url", "byte", "binary", "password", "uuid")


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
    if len(parts) > 1 and parts[-1] == "by" and parts[-2] in _AGENT_NOUNS:  # CreatedBy: "creator", not "created by"
        head, lead = _AGENT_NOUNS[parts[-2]], parts[:-2]
        if lead and lead[-1] == "last" and head.startswith("last "):
            lead = lead[:-1]  # LastModifiedBy: "last editor"
        return shown(" ".join([*lead, head]))
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
        head, lead = _EVENT_NOUNS[parts[-1]], parts[:-1]
        if lead and lead[-1] == "last" and head.startswith("last "):
            lead = lead[:-1]  # last_updated: "last update date", not "last last update date"
        parts = [*lead, head, "date"]
    return shown(" ".join(parts)) or name


_EVENT_NOUNS = {"created": "creation", "create": "creation", "creation": "creation", "updated": "last update",
                "update": "last update", "modified": "last change", "modify": "last change", "placed": "order",
                "deleted": "deletion", "delete": "deletion", "started": "start", "start": "start", "ended": "end",
                "end": "end", "begin": "start", "expire": "expiry", "expiry": "expiry", "expiration": "expiry", "expires": "expiry",
                "published": "publication", "publish": "publication", "insert": "creation", "inserted": "creation", "last_modified": "last change"}


# who did what a ``...By`` field names ("the created by of our ruleset" is no phrase)
_AGENT_NOUNS = {"created": "creator", "modified": "last editor", "updated": "last editor", "changed": "last editor",
                "edited": "last editor", "owned": "owner", "requested": "requester", "approved": "approver",
                "submitted": "submitter", "reviewed": "reviewer", "uploaded": "uploader", "published": "publisher",
                "invited": "inviter", "resolved": "resolver"}

_SAID_AS_YOU = ("us", "uni", "uti", "ur", "eu", "uk", "one", "once")
_VOWEL_LETTERS = "AEFHILMNORSX"  # letters said with a vowel first: an IP set, an SQL database, an MFA device


def article(noun: str) -> str:
    """``noun`` with "a" or "an" in front, by how it is said: "a user", "an IP set", "an hour"."""
    first = noun.split(" ", 1)[0]
    if len(first) > 1 and first.isupper():
        vowel = first[0] in _VOWEL_LETTERS
    else:
        lowered = first.lower()
        vowel = (lowered[:1] in "aeiou" and not lowered.startswith(_SAID_AS_YOU)) or lowered.startswith(("hour", "honest"))
    return ("an " if vowel else "a ") + noun


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
    """Whether a person would say a value of field ``key`` in a request: a wordy enum value, a number, or a
    string whose field says what goes there and that a person types or pastes (a name, an email, a city, a
    description, a URL, a region, a version); never a timestamp, a code, a token or an id the API issues."""
    if not isinstance(schema, dict):
        return False
    parts = words(key)
    if not parts or parts[-1] in _CODE_WORDS or any(p in _CODE_PARTS for p in parts) or key.lower() in RESPONSE_SHAPING:
        return False
    if failure_field(key):  # why a record failed (rolloutFailureReason): the service says it, no one asks for it
        return False
    if schema.get("enum"):
        return phrasable(schema)
    if schema.get("type") in ("integer", "number"):
        return "pattern" not in schema
    if schema.get("type") != "string" or _is_when(key, schema):
        return False
    pattern = schema.get("pattern")
    fmt = schema.get("format")
    kind = field_kind(key, str(schema.get("description") or "")[:300], fmt if isinstance(fmt, str) else "",
                      pattern if isinstance(pattern, str) else "")
    if isinstance(pattern, str) and (len(pattern) > 80 or kind not in _NAMED_KINDS):
        return False
    if fmt in ("int64", "int32", "google-duration", "google-fieldmask", "byte", "binary", "password", "uuid"):
        return False
    return kind in _SAID_KINDS or kind.startswith("resource_name:") or fmt in ("email", "date")


# what a person says when asking for a record to be made or changed: names, places, contacts, text, and the
# few codes people paste (a URL, a region, a version)
_NAMED_KINDS = frozenset(("name", "display_name", "title", "slug", "bucket", "branch", "dns_label", "username",
                          "resource_name:queue", "hostname"))
_SAID_KINDS = frozenset((
    "email", "first_name", "last_name", "username", "hostname", "person", "title", "display_name", "name", "city",
    "country", "country_code", "street", "street_address", "postal_code", "phone", "currency", "text", "message",
    "url", "storage_uri", "color_name", "company", "language", "team", "job", "district", "us_state",
    "region", "zone", "version", "runtime", "machine_type", "branch", "bucket", "timezone", "cron", "tag", "slug",
    "service_account", "project", "dns_label", "ipv4", "cidr", "port", "file_name", "file_path", "mime",
    "visibility"))


_CODE_WORDS = frozenset(("id", "ids", "arn", "key", "token", "etag", "hash", "secret", "uuid", "guid", "number", "no",
                         "fingerprint", "kind", "code", "sid", "uid"))


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
    fk = {resource.parent_field, *resource.scope_fields}
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
    out.sort(key=lambda k: (_name_rank(k, resource), list(props).index(k)))
    return out[:3]


_OWN_NAME_LEADS = frozenset(("display", "friendly", "full", "short", "common", "pretty", "given", "title"))


def _name_rank(key: str, resource: Resource | None = None) -> int:
    """0 for the record's own name or title (``name``, ``displayName``, ``QueueName`` of a queue), 1 for an
    address, a handle or a subject of the record itself (a user's ``email`` or ``primaryEmail``), 2 for anything
    else (``advertiserName`` names another record, a job's ``user_email`` the person who ran it)."""
    parts = words(key)
    if not parts:
        return 2
    own = set(words(resource.noun.replace(" ", "_"))) if resource is not None else set()
    last = parts[-1]
    if last in ("name", "title", "label", "headline", "display"):
        lead = parts[:-1]
        if not lead or set(lead) <= _OWN_NAME_LEADS or lead[-1] in own or (lead and lead[-1] + "s" in own):
            return 0
        return 2 if resource is not None else 0
    if last not in ("email", "username", "subject", "login", "handle"):
        return 2
    # a user's email names the user; a job's user_email names the person who ran it, not the job
    lead = parts[:-1]
    return 1 if resource is None or not lead or lead[-1] in own or lead[-1] in ("primary", "main") else 2


def _amount_fields(resource: Resource) -> list[str]:
    props = resource.schema["properties"]
    return [k for k, s in props.items() if isinstance(s, dict) and s.get("type") in ("number", "integer")
            and k != resource.id_field and any(a in k.lower() for a in _AMOUNTS)][:2]


def _reference(resource: Resource, resources: dict[str, Resource], source: str) -> Reference:
    noun = shown(resource.noun)
    by_field: dict[str, tuple[str, ...]] = {}
    own = {w.lower() for w in resource.noun.split()} | {singular(w) for w in words(resource.table)}
    props = resource.schema["properties"]
    for key in _descriptors(resource, resources):
        said = field_words(key)
        value = '"{value}"' if _is_text(key, props.get(key)) else "{value}"  # a sentence is quoted
        # a release is not "called" the name of the ruleset it points to (``rulesetName``), nor a gateway
        # its host name
        if name_field(key) and not foreign_name(key, own):
            by_field[key] = (f"the {noun} named {{value}}", f"the {noun} called {{value}}",
                             f"our {noun} named {{value}}", f"the {noun} {{value}}", f"our {noun} called {{value}}")
        elif (parts := words(key))[-1:] == ["by"]:  # a person who did something to it: "the farm updated by ..."
            did = shown(" ".join(parts))  # the verb, not the agent noun field_words says ("last editor")
            by_field[key] = (f"the {noun} {did} {{value}}", f"the {noun} that was {did} {{value}}",
                             f"our {noun} {did} {{value}}")
        else:
            by_field[key] = (f"the {noun} whose {said} is {value}", f"the {noun} with the {said} {value}",
                             f"the {noun} that has the {said} {value}", f"the {noun} with {value} as its {said}",
                             f"the {noun} with {said} {value}", f"the {noun} listed with {said} {value}")
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

    said = [_scope_words(p, props[p]) for p in scopes]  # each scope's ways, worked out once

    def placed(template: str, turn: int) -> str:  # before a closing "?" or ", please": "can you ... in the project X?"
        where = " ".join(ways[turn % len(ways)] for ways in said)
        for tail in ("?", ", please"):
            if template.endswith(tail):
                return f"{template[:-len(tail)]} {where}{tail}"
        return f"{template} {where}"

    return tuple(Intent(ask=tuple(placed(t, n) for n, t in enumerate(i.ask)), answer=i.answer,
                        context=tuple(placed(t, n) for n, t in enumerate(i.context)),
                        ask_many=tuple(placed(t, n) for n, t in enumerate(i.ask_many))) for i in intents)


_GENERIC_SCOPES = frozenset(("parent", "name", "resource", "scope", "path"))
_PLACES = frozenset(("locations", "regions", "zones"))
# how a request places itself in a scope: "for project harbor-42", "in project harbor-42", "under ..."
_PATH_PREPOSITIONS = ("for", "in", "under", "within", "for", "in", "on")
_NOUN_PREPOSITIONS = ("in", "for", "under", "in", "within")


def _scope_words(param: str, schema: dict[str, Any]) -> tuple[str, ...]:
    """The ways a request names the scope a parameter carries: a resource path by its parts ("for project
    harbor-42 in us-central1", "under project harbor-42 ...", see :func:`path_phrase`), else by its noun
    ("in the account atlas-17", the phrase coming from :func:`_scope_phrase`); one way per preposition
    people use for it, so that frames of one API do not all say it alike."""
    if _path_scope(schema):
        return tuple(f"{word} {{{param}}}" for word in _PATH_PREPOSITIONS)
    if scope_noun(param) in _GENERIC_SCOPES:
        return (f"for {{{param}}}",)
    return tuple(f"{word} {{{param}}}" for word in _NOUN_PREPOSITIONS)


def _path_scope(schema: Any) -> bool:
    """Whether a scope parameter holds a resource path: its pattern is one, or (with no pattern) its
    description spells one out, as the state's scope value is then made (:func:`~covert.imports.bind.scope_value`)."""
    from covert.imports.statefactory import scope_path

    if not isinstance(schema, dict):
        return False
    pattern = schema.get("pattern")
    if not isinstance(pattern, str):
        pattern = described_path(schema.get("description"))
    return isinstance(pattern, str) and scope_path(pattern, random.Random(0)) is not None


def _path_parts(value: Any) -> tuple[list[tuple[str, str]], tuple[str, str]] | None:
    """A resource path's named parts, outermost first, as ``(noun, name)``, and its place as ``(noun,
    name)`` (``("", "")`` for none); ``None`` for a value that is no ``collection/name/...`` path."""
    parts = str(value).split("/")
    if len(parts) % 2 or len(parts) < 2:
        return None
    named: list[tuple[str, str]] = []
    place = ("", "")
    for i in range(0, len(parts), 2):
        collection, name = parts[i], parts[i + 1]
        if collection in _PLACES:
            place = (singular(collection), name)
            continue
        nouns = words(collection) or [collection]
        named.append((" ".join([*nouns[:-1], singular(nouns[-1])]), name))
    return named, place


def path_phrase(value: Any) -> tuple[str, str]:
    """A resource path in words, and its noun: ``projects/harbor-42/locations/us-central1`` -> ("project
    harbor-42 in us-central1", "project"); the innermost resource comes first ("application falcon-7 of
    project harbor-42 in us-central1"), places after "in"."""
    found = _path_parts(value)
    if found is None:
        return str(value), "one"
    named, (_, place) = found
    if not named:
        return f"{place}", "location"
    said = " of ".join(f"{noun} {name}" for noun, name in reversed(named)) + (f" in {place}" if place else "")
    return said, named[-1][0]


def path_phrasings(value: Any) -> list[str]:
    """The ways a developer says a resource path by its parts: in words (:func:`path_phrase`), the
    innermost resource with its parents in brackets, the name before its noun ("the harbor-42 project in
    us-central1"), or the place by its noun ("project harbor-42, location us-central1")."""
    said, _ = path_phrase(value)
    found = _path_parts(value)
    if found is None or not found[0]:
        return [said]
    named, (place_noun, place) = found
    (noun, name), outer = named[-1], [f"{n} {v}" for n, v in reversed(named[:-1])]
    where = [*outer, place] if place else outer
    forms = [said]
    if not name.isdigit() and noun.split()[-1] not in name.lower().replace("_", "-").split("-"):
        # "the harbor-42 project", never "the 472 account" or "the geo-site site"
        forms.append(f"the {name} {noun}" + (f" of {' of '.join(outer)}" if outer else "")
                     + (f" in {place}" if place else ""))
    if where:
        forms.append(f"{noun} {name} ({', '.join(where)})")
    if place:
        forms.append(" of ".join([f"{noun} {name}", *outer]) + f", {place_noun} {place}")
    return forms


@dataclass(frozen=True)
class _PathSaid:
    """The phrase hook of a resource-path parameter: :func:`path_phrase`, or with a generator one of
    :func:`path_phrasings` (the noun a second mention refers back with is the same either way)."""

    varies: ClassVar[bool] = True

    def __call__(self, value: Any, rng: random.Random | None = None) -> tuple[str, str]:
        said, noun = path_phrase(value)
        return (said if rng is None else rng.choice(path_phrasings(value))), noun


def _scope_phrase(param: str, schema: dict[str, Any]):  # noqa: ANN202 - a phrase hook of the Language
    """The phrase hook of a scope parameter: a resource path by its parts, else the value itself; either
    way with the noun a second mention refers back with ("that project")."""
    if _path_scope(schema):
        return _PathSaid()
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
    parts = [w for w in words(param) if w not in ("id", "name", "key")] or words(param)
    return " ".join([*parts[:-1], singular(parts[-1])]) if parts else param


def _scope_sampler(param: str, schema: dict[str, Any]) -> _ScopeValue:
    from covert.imports.record_keys import scope_key

    return _ScopeValue(scope_key(param, schema))


@dataclass(frozen=True)
class _ScopeValue:
    """The value sampler of a scope parameter: the one scope of the state (its project, its region)."""

    key: str

    def __call__(self, rng: random.Random, state: State) -> Any:
        from covert.imports.record_keys import SCOPES

        scopes = state.get(SCOPES, "scope") or {}
        return scopes.get(self.key)


def _frames(frames: tuple[str, ...], kind: str, key: str, **fill: str | tuple[str, ...]) -> tuple[str, ...]:
    """``frames`` filled with the API's words, each also said once with a reason ("I'm doing some cleanup,
    so please list the servers"), the reason drawn by ``key`` so that an API keeps its own. A fill given as
    a tuple holds ways of saying one thing: the frames take them in turn."""
    turning = [(k, v) for k, v in fill.items() if isinstance(v, tuple)]
    if turning:
        words = dict(fill)
        filled_in = []
        for i, frame in enumerate(frames):
            words.update((k, v[i % len(v)]) for k, v in turning)
            filled_in.append(frame.format_map(words))
        filled = tuple(filled_in)
    else:
        filled = tuple(frame.format_map(fill) for frame in frames)
    pool = phrasing.REASONS[kind]
    digest = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
    count = max(1, round(len(filled) * phrasing.REASON_SHARE))
    reasoned = tuple(_with_reason(pool[(digest + i) % len(pool)], filled[(digest + 3 * i) % len(filled)], digest + i)
                     for i in range(count))
    return filled + reasoned


def _with_reason(reason: str, request: str, turn: int) -> str:
    """A request after the reason for it, joined one of the ways people join them ("I'm doing some
    cleanup, so list the servers", "I'm doing some cleanup. List the servers", "... - list the servers")."""
    joiner = phrasing.REASON_JOINERS[turn % len(phrasing.REASON_JOINERS)]
    if joiner.endswith(". "):
        request = request[:1].upper() + request[1:]
    return f"{reason}{joiner}{request}"


def _plain_intents(api: BoundApi, bound: BoundTool, refs: dict[str, Reference]) -> tuple[Intent, ...]:  # noqa: C901
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
    key = f"{api.spec.api}:{bound.spec.name}"
    none = (Intent(ask=(), answer=()),)
    if any(not _SLOT.match(p) for p in required):
        return none
    linked = [p for p in required if bound.spec.param_entity(p) in refs]
    plain = [p for p in required if p not in linked and p not in role.scope_params]
    if role.kind == "list":
        parent = next((p for p in linked if p != role.id_param), None)
        owner = f" for {{{parent}}}" if parent else ""
        counts = [k for k, s in bound.spec.returns.get("properties", {}).items()
                  if isinstance(s, dict) and s.get("type") == "integer"
                  and k.lower().replace("_", "") in ("totalcount", "total", "totalsize", "count", "totalitems", "totalresults")]
        if plain:
            return none
        out = []
        words_of = {"noun": noun, "plural": plural, "owner": owner}
        if counts:
            out.append(Intent(ask=_frames(phrasing.COUNT_ASKS, "list", key + ":count", **words_of),
                              answer=tuple(f"I count {{{c}:n:{noun}|{plural}}} in all." for c in counts) +
                              tuple(f"There are {{{c}:n:{noun}|{plural}}}." for c in counts),
                              context=tuple(c.format(plural=plural, owner=owner) for c in phrasing.LIST_CONTEXTS)))
        listed = _list_answers(bound, resource, refs[resource.entity].user_knows_id if resource.entity in refs else False)
        if listed:
            out.append(Intent(ask=_frames(phrasing.LIST_ASKS, "list", key, **words_of),
                              answer=listed, context=tuple(c.format(plural=plural, owner=owner) for c in phrasing.LIST_CONTEXTS)))
            for param, target in bound.fields.items():
                if param in required or not _SLOT.match(param) or not sayable(target, params.get(param)):
                    continue
                said = field_words(target)
                out.append(Intent(ask=_frames(phrasing.FILTER_ASKS, "list", key + param, field=said,
                                              value=f"{{{param}}}", **words_of), answer=listed))
        return tuple(out) or (Intent(ask=(), answer=(), context=tuple(c.format(plural=plural, owner=owner) for c in phrasing.LIST_CONTEXTS)),)
    if role.kind == "get":
        if id_slot is None or any(not phrasable(params[p]) for p in plain if p != id_slot):
            return none
        out = []
        props = resource.schema["properties"]
        for fact in _facts(resource):
            said = field_words(fact)
            slot = _answer_slot(fact, props[fact], _path(prefix, fact), props)
            if slot is None:
                continue
            quoted = f'"{slot}"' if _is_text(fact, props[fact]) else slot
            out.append(Intent(
                ask=_frames(phrasing.GET_ASKS, "get", key + fact, field=said, target=f"{{{id_slot}}}"),
                answer=(f"The {said} is {quoted}.", f"Its {said} is {quoted}.", f"{said[:1].upper()}{said[1:]}: {quoted}.",
                        f"It has the {said} {quoted}." if not _is_text(fact, props[fact]) else f"It reads {quoted}."),
                context=(f"it's about {{{id_slot}}}", f"I mean {{{id_slot}}}")))
        return tuple(out) or none
    if role.kind == "delete":
        if id_slot is None or (plain and plain != [id_slot]):
            return none
        return (Intent(ask=_frames(phrasing.DELETE_ASKS, "delete", key, target=f"{{{id_slot}}}"),
                       answer=_delete_answers(resource)),)
    knows = refs[resource.entity].user_knows_id if resource.entity in refs else False
    labels = dict(bound.fields)
    if role.kind == "create" and role.id_param in params:
        labels[role.id_param] = resource.id_field
    settable = [p for p in labels if _SLOT.match(p) and sayable(labels[p], params.get(p))]
    must = [p for p in plain if p != id_slot or role.kind == "create"]
    if any(p not in settable for p in must):
        return none
    optional = sorted((p for p in settable if p not in must), key=lambda p: (not names_record(labels[p]), p))
    naming = [p for p in optional if names_record(labels[p])]
    if role.kind == "update":
        if id_slot is None:
            return none
        out = []
        for chosen in _combos(must, optional, naming):
            changes = " and ".join(f"the {field_words(labels[p])} to {_given(p, labels[p], params)}" for p in chosen)
            changes_are = " and ".join(f"the {field_words(labels[p])} is {_given(p, labels[p], params)}"
                                       for p in chosen)
            changes_have = " and ".join(f"the {field_words(labels[p])} {_given(p, labels[p], params)}"
                                        for p in chosen)
            out.append(Intent(ask=_frames(phrasing.UPDATE_ASKS, "update", key + ".".join(chosen), changes=changes,
                                          changes_are=changes_are, changes_have=changes_have, target=f"{{{id_slot}}}"),
                              answer=_update_answers(resource, prefix, [labels[p] for p in chosen], knows)))
        return tuple(out) or none
    takes_body = any(p not in role.scope_params and p not in role.parent_params and p != role.id_param
                     for p in params)
    out = []
    for chosen in _combos(must, optional, naming):
        details = _details([(field_words(labels[p]), _given(p, labels[p], params)) for p in chosen])
        out.append(Intent(ask=_frames(phrasing.CREATE_ASKS, "create", key + ".".join(chosen), details=details,
                                      noun=noun, a_noun=article(noun)),
                          answer=_create_answers(resource, prefix, [labels[p] for p in chosen], knows),
                          ask_many=_frames(phrasing.CREATE_MANY_ASKS, "create", key + ".".join(chosen),
                                           details=details, noun=noun, plural=plural)))
    if not out and not takes_body:  # the API takes nothing but where the record goes
        out.append(Intent(ask=_frames(phrasing.CREATE_BARE_ASKS, "create", key, noun=noun, a_noun=article(noun)),
                          answer=_create_answers(resource, prefix, [], knows)))
    return tuple(out) or none


def _details(given: list[tuple[str, str]]) -> tuple[str, ...]:
    """The ways a request gives a new record's fields: "name X and size Y", "the name X and the size Y",
    "name X, size Y"."""
    return (" and ".join(f"{field} {value}" for field, value in given),
            " and ".join(f"the {field} {value}" for field, value in given),
            ", ".join(f"{field} {value}" for field, value in given))


def _combos(must: list[str], optional: list[str], names: list[str]) -> list[list[str]]:
    """The sets of fields a request gives: what the write needs plus one or two optional ones, a name (one
    of ``names``) first when the record has one; never nothing when the write takes fields."""
    names = [p for p in optional if p in names]
    others = [p for p in optional if p not in names]
    out: list[list[str]] = []
    if names:
        lead = names[:1]
        out.append(must + lead)
        out += [must + lead + [p] for p in others[:4]]
    else:
        if must:
            out.append(list(must))
        out += [[*must, p] for p in others[:5]]
        out += [must + list(c) for c in itertools.combinations(others[:4], 2)][:4]
    return [c for c in out if c]


def _is_text(key: str, schema: Any) -> bool:
    """A field whose values are sentences (a description, a message): quoted when an answer says them; a
    number never is (Gmail's ``messagesUnread``: 'It reads "30".')."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind is not None and kind != "string" and not (isinstance(kind, list) and "string" in kind):
        return False
    return field_kind(key, str((schema or {}).get("description") or "")[:300]) in ("text", "message")


def _given(param: str, label: str, params: dict[str, Any]) -> str:
    """The slot of a value a request gives: a sentence (a description, a message) in quotes, the way a
    developer writes it (``with description "Owned by the data team."``), anything else as it is."""
    return f'"{{{param}}}"' if _is_text(label, params.get(param)) else f"{{{param}}}"


def _said_name(resource: Resource, prefix: str, given: list[str] | None = None) -> str:
    """The answer slot that names a record in its output: its name or title (for a new record, only one the
    user gave it), else its id."""
    named = [k for k in _descriptors(resource, {}) if _name_rank(k, resource) < 2
             and (given is None or k in given)]
    return _path(prefix, named[0] if named else resource.id_field)


def _create_answers(resource: Resource, prefix: str, fields: list[str], knows_id: bool = False) -> tuple[str, ...]:
    """What the assistant says after a create: the new record by the name it was given (or the id the API
    gave it) and the values it was made with."""
    noun = shown(resource.noun)
    name = _said_name(resource, prefix, fields)
    given = [f for f in fields if _path(prefix, f) != name]
    props = resource.schema["properties"]
    with_ = " and ".join(f"the {field_words(f)} {_value_slot(f, props.get(f), prefix)}" for f in given)
    tail = f" with {with_}" if with_ else ""
    return (f"I created the {noun} {{{name}}}{tail}.", f"The new {noun} {{{name}}} is set up{tail}.",
            f"Done: {noun} {{{name}}} now exists{tail}.", f"I've added the {noun} {{{name}}}{tail}.")


def _update_answers(resource: Resource, prefix: str, fields: list[str], knows_id: bool = False) -> tuple[str, ...]:
    """What the assistant says after an update: which record, which fields and their new values."""
    noun = shown(resource.noun)
    name = _said_name(resource, prefix)
    props = resource.schema["properties"]
    changes = " and ".join(f"the {field_words(f)} to {_value_slot(f, props.get(f), prefix)}" for f in fields
                           if _path(prefix, f) != name)
    if any(_path(prefix, f) == name for f in fields) and name != _path(prefix, resource.id_field):
        # the record's name itself changed: the output names it by the new one, so the answer says the rename
        # ("The proposal Blue Sandbox now has the display name Blue Sandbox" says nothing)
        also, and_i = (f" and set {changes}", f", and I set {changes}") if changes else ("", "")
        return (f"I renamed the {noun} to {{{name}}}{also}.", f"Done: the {noun} is now called {{{name}}}{and_i}.",
                f"Updated: the {noun} goes by {{{name}}} now{and_i}.")
    if not changes:  # the id itself changed: the output names the record by its new one
        changes = f"the {field_words(fields[0])} to {{{name}}}" if fields else ""
    return (f"I changed {changes} on the {noun} {{{name}}}.", f"The {noun} {{{name}}} now has {changes.replace(' to ', ' ')}.",
            f"Updated: {noun} {{{name}}} has {changes.replace(' to ', ' set to ')}.")


def _delete_answers(resource: Resource) -> tuple[str, ...]:
    """What the assistant says after a delete: the record it deleted, by the name its output gives, else by
    its id (never by the id where the output names it: "Done: phrase set projects/.../phrase-set-2 has been
    removed" when the user asked to drop Prod Invoicing)."""
    noun = shown(resource.noun)
    named = [k for k in _descriptors(resource, {}) if _name_rank(k, resource) < 2][:1]
    unnamed = "".join(f"{{?-{k}}}" for k in named)
    out = []
    for key, guard in [*((k, "") for k in named), (resource.id_field, unnamed)]:
        out += [f"{guard}I deleted the {noun} {{{key}}}.", f"{guard}The {noun} {{{key}}} is deleted.",
                f"{guard}Done: {noun} {{{key}}} has been removed."]
    return tuple(out)


def _value_slot(field: str, schema: Any, prefix: str) -> str:
    """The answer slot of a field's new value, spoken where it has a spoken form."""
    slot = _answer_slot(field, schema, _path(prefix, field), {}) if isinstance(schema, dict) else None
    slot = slot or f"{{{_path(prefix, field)}}}"
    # a sentence is quoted, whatever its declared type (``["string", "null"]``): never "...pilot.."
    return f'"{slot}"' if _is_text(field, schema if isinstance(schema, dict) else None) else slot


def _list_answers(bound: BoundTool, resource: Resource, knows_id: bool = False) -> tuple[str, ...]:
    """Answers that name the records a list returned (by their own name, with the count), or ``()`` when
    its records have no name to say or the list is the whole output."""
    found = items_path(bound.spec.returns)
    if found is None or not found[0]:
        return ()
    path = found[0]
    required = resource.schema.get("required") or ()
    named = sorted((k for k in _descriptors(resource, {}) if _name_rank(k, resource) < 2),
                   key=lambda k: (_name_rank(k, resource), k not in required))
    if not named and knows_id:
        named = [resource.id_field]  # a name the user knows (botocore's FunctionName, an MCP entity's name)
    if not named:
        return ()
    spec = f"{path}:list:{named[0]}"
    noun, plural = shown(resource.noun), shown(resource.plural)
    return (f"I found {{{path}:n:{noun}|{plural}}}: {{{spec}}}.", f"Here are the {plural}: {{{spec}}}.",
            f"You have {{{path}:n:{noun}|{plural}}}: {{{spec}}}.", f"The {plural} I see are {{{spec}}}.",
            f"There are {{{path}:n:{noun}|{plural}}}: {{{spec}}}.", f"These {plural} are set up: {{{spec}}}.")


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


def _sampler(schema: dict[str, Any], field: str, ctx: ValueContext | None = None) -> _FieldValue:
    return _FieldValue(schema, field, ctx or ValueContext())


def _noun_of(api: BoundApi, bound: BoundTool) -> str:
    resource = api.resources.get(bound.role.table or "")
    return resource.noun if resource is not None else "record"


@dataclass(frozen=True, eq=False)
class _FieldValue:
    """The value sampler of a parameter the user supplies: a realistic value for its schema, in the API's
    style (``ctx``). A class, not a closure, so that a bound environment can be pickled (to another
    process)."""

    schema: dict[str, Any]
    field: str
    ctx: ValueContext = field(default_factory=ValueContext)

    def __call__(self, rng: random.Random, state: State) -> Any:
        try:
            return value_for(self.schema, self.field, rng, 0, self.ctx)
        except Unsatisfiable as exc:  # the task is not made; synthesis goes on
            from covert.errors import Rejected

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
                    from covert.errors import Rejected

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


def said_title(title: str) -> str:
    """An API's title as a sentence says it: without the full stop some specs end it with ("Gitea API."
    made "... followers in Gitea API.." and "You are the assistant for Gitea API..")."""
    return title.strip().rstrip(".").strip() or title


def resource_plurals(api: BoundApi) -> list[str]:
    """The plural nouns of an API's resources as a person writes them, each once, sorted."""
    return sorted({shown(r.plural) for r in api.resources.values()})


def said_list(items: list[str]) -> str:
    """Items joined as people write them: "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


MAX_NEAR_RESOURCES = 8


def _out_of_scope(api: BoundApi) -> tuple[str, ...]:
    """Requests near the API's domain that its tools cannot serve, in its own words (everyday ones are
    :func:`covert.imports.phrasing.everyday_requests`)."""
    resources = sorted(api.resources.values(), key=lambda r: r.table)
    near: list[str] = []
    for template in phrasing.NEAR_DOMAIN:  # each said of every resource, so an API has many
        for resource in resources[:MAX_NEAR_RESOURCES]:
            text = template.format(api=said_title(api.spec.title), noun=shown(resource.noun), plural=shown(resource.plural))
            if text not in near:
                near.append(text)
    return tuple(near)


def build_language(api: BoundApi, kept_intents: dict[str, tuple[Intent, ...]] | None = None) -> Language:
    """The generic language of a bound API. ``kept_intents``: its intents as an earlier process worked them
    out for this very binding (:mod:`covert.imports.envs` keeps them beside the cut-down spec), used only
    when they are for exactly its tools."""
    refs = {r.entity: _reference(r, api.resources, api.spec.source) for r in api.resources.values()}
    if kept_intents is not None and kept_intents.keys() == api.tools.keys():
        intents = {name: kept_intents[name] for name in api.tools}
    else:
        intents = {name: _intents(api, bound, refs) for name, bound in api.tools.items()}
    values: dict[str, Any] = {}
    phrases: dict[str, Any] = {}
    field_nouns: dict[str, str] = {}
    for name, bound in api.tools.items():
        for param, target in bound.fields.items():
            schema = bound.spec.parameters["properties"].get(param)
            if bound.role.kind in ("create", "update") and (phrasable(schema) or sayable(target, schema)):
                values[f"{name}.{param}"] = _sampler(schema, target, context_for(api.spec.api, _noun_of(api, bound)))
        role = bound.role
        for param in role.scope_params:
            values[f"{name}.{param}"] = _scope_sampler(param, bound.spec.parameters["properties"][param])
            phrases[f"{name}.{param}"] = _scope_phrase(param, bound.spec.parameters["properties"][param])
        if role.kind == "create" and role.id_param and role.id_param in bound.spec.parameters["properties"]:
            schema = bound.spec.parameters["properties"][role.id_param]
            values[f"{name}.{role.id_param}"] = _sampler(schema, role.id_param,
                                                         context_for(api.spec.api, _noun_of(api, bound)))
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
    return Language(
        scope=f"{said_list(resource_plurals(api)[:4])} in {said_title(api.spec.title)}",
        intents=intents, references=refs,
        entity_tables={r.entity: r.table for r in api.resources.values()},
        values=values, field_nouns=field_nouns, out_of_scope=_out_of_scope(api), phrases=phrases,
        register=phrasing.DEVELOPER_REGISTER,
        everyday=phrasing.everyday_requests(),
        actions=actions, reads=reads,
        fixed=frozenset(f"{name}.{param}" for name, bound in api.tools.items() for param in bound.role.scope_params),
    )
