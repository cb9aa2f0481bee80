"""Binding an imported API to generic implementations on the covert state, without an LLM.

:func:`bind` turns an :class:`~covert.imports.model.ApiSpec` into a :class:`BoundApi`: one table per
inferred resource (:mod:`covert.imports.resources`), one tool per CRUD operation with a generic
implementation (filters, pagination, id assignment, partial updates, errors in the API's own style), an
:class:`~covert.env.Environment` subclass built at run time, and a seeded state factory. Operations
that are not CRUD are left out and counted (``custom_action_no_llm``), as are CRUD operations whose
parameters the generic implementation cannot honour.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from covert.env import Environment, State, ToolError, ToolSpec
from covert.env.jsonsafe import canonical_json
from covert.env.schema import ENTITY_KEY
from covert.imports.bound import (
    INTEGER_TEXT_FORMATS,
    TOOL_NAME,
    BindError,
    BoundTool,
    clean_schema,
    typed_schema,
)
from covert.imports.fieldvalues import (
    AWS_HOME_REGION,
    GOOGLE_REGION_CITIES,
    QUALIFIERS,
    ValueContext,
    aws_account,
    context_for,
    make_value,
)
from covert.imports.google_paths import with_path_patterns
from covert.imports.model import ApiSpec
from covert.imports.record_keys import LINK_PREFIX, PARENT_KEY, SCOPES, fold_key, public, scope_key
from covert.imports.record_times import stamp_written
from covert.imports.resources import (
    LIMIT_NAMES,
    RESPONSE_SHAPING,
    TOKEN_NAMES,
    Resource,
    Role,
    infer,
    items_path,
    obj,
    record_of,
    spec_vocabulary,
    words,
)
from covert.imports.rowforms import (
    FINAL_STATES,
    STATUS_WORDS,
    counts_contents,
    ended_flag,
    ending_state,
    failure_field,
    failure_said,
    filler,
    key_words,
    troubled_state,
)
from covert.imports.state_cache import MadeRecords
from covert.imports.statefactory import (
    ARN_NAME,
    Unsatisfiable,
    arn_names_its_record,
    distinct_names,
    names_record,
    parts_name_their_record,
    pattern_of,
    project_names_its_path,
    record,
    scope_path,
    seeded_uuid,
    value_for,
)
from covert.language.plurals import singular

BINDER_VERSION = "31"
MAX_PAGE = 100
MAX_UPDATE_FIELDS = 4


@dataclass(frozen=True)
class ErrorStyle:
    """The error codes an API uses for a missing record, a clash and a bad argument."""

    not_found: str
    conflict: str
    invalid: str

    def message(self, code: str, text: str) -> str:
        """The message in the API's manner (HTTP APIs prefix the status line)."""
        status = {"not_found": "404 Not Found", "conflict": "409 Conflict", "bad_request": "400 Bad Request"}.get(code)
        return f"{status}: {text}" if status else text


@dataclass
class BoundApi:
    """An API bound to generic implementations.

    Attributes:
        spec: The imported spec.
        name: The environment's name (``api.<safe id>``).
        version: Hash of the source spec and :data:`BINDER_VERSION`.
        resources: Tables by name.
        tools: Bound tools by name, in source order.
        left_out: ``(operation name, reason)`` for every operation left out.
        environment: The Environment subclass holding the tools.
        style: The API's error codes.
        inferred: Every table inferred from the spec, those no tool uses too (a tool checks the parent
            its arguments name among them).
        seeds: Seed records by table, written by an LLM (:mod:`covert.imports.seed_records`): a state's
            records take their descriptive fields from them, in a seeded order.
    """

    spec: ApiSpec
    name: str
    version: str
    resources: dict[str, Resource]
    tools: dict[str, BoundTool]
    left_out: list[tuple[str, str]]
    environment: type[Environment]
    style: ErrorStyle
    inferred: dict[str, Resource] = field(default_factory=dict)
    seeds: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __getstate__(self) -> dict[str, Any]:
        """What a pickled copy holds (another process, never a file): not the Environment class."""
        return {**self.__dict__, "environment": None}

    def make_state(self, rng: random.Random, scale: int = 1) -> dict[str, Any]:
        """A seeded state: a few realistic records per table (``scale`` times as many), children
        spread over their parents."""
        tables: dict[str, dict[str, Any]] = {}
        counters: dict[str, int] = {}
        scopes: dict[str, str] = {}
        scoped: dict[str, set[str]] = {}
        patterns: dict[str, Any] = {}
        nouns: dict[str, str] = {}
        # a record field named as the scope or parent parameter its tools take ("projectId", "instance")
        # holds that scope's or parent's id: a snapshot listed for project cache-apac-572 says so
        named_as: dict[str, dict[str, tuple[str, str]]] = {}
        for bound in self.tools.values():
            for param in bound.role.scope_params:
                key = scope_key(param, bound.spec.parameters["properties"][param])
                if key not in scopes:
                    scopes[key] = scope_value(bound.spec.parameters["properties"][param], param, rng,
                                              context_for(self.spec.api, scope_noun_of(param)))
                    patterns[key] = bound.spec.parameters["properties"][param].get("pattern")
                    nouns[key] = scope_noun_of(param)
                scoped.setdefault(bound.role.table, set()).add(key)
                named_as.setdefault(bound.role.table, {}).setdefault(param, ("scope", key))
            for param, table in bound.role.parent_params.items():
                named_as.setdefault(bound.role.table, {}).setdefault(param, ("parent", table))
        scopes = aligned_scopes(scopes, patterns, nouns)
        if scopes:
            tables[SCOPES] = {"scope": dict(sorted(scopes.items()))}
        for resource in _parents_first(self.resources):
            count = rng.randint(3, 5) * max(1, scale)
            parent_ids = list(tables.get(resource.parent, {})) if resource.parent else []
            rows: dict[str, Any] = {}
            taken: dict[str, set[str]] = {}
            ctx = context_for(self.spec.api, resource.noun)
            written = self.seeds.get(resource.table) or ()
            order = rng.sample(range(len(written)), len(written)) if written else []
            for n in range(1, count + 1):
                rec = generate_record(resource, rng, self.spec.api, n)
                if n <= len(order):  # an LLM-written record's descriptive fields, each used once a state
                    for key, value in written[order[n - 1]].items():  # ids, links and times stay covert's
                        set_field(rec, key, value)
                distinct_names(resource.schema, rec, taken, rng, resource.id_field, ctx)
                arn_tail = arn_names_its_record(rec, resource.noun, resource.id_field)
                parent = tables[resource.parent][rng.choice(parent_ids)] if parent_ids else None
                if parent is not None:
                    set_parent(resource, rec, parent, self.resources)
                for key in sorted(scoped.get(resource.table, ())):
                    rec[key] = scopes[key]
                _agree_with_scope_and_parent(rec, resource, named_as.get(resource.table, {}), scopes, parent,
                                             self.resources)
                # a resource path names the project, location or parent the record lives in
                links = [scopes[k] for k in sorted(scoped.get(resource.table, ()))]
                if resource.parent:
                    links.append(rec.get(resource.parent_field or PARENT_KEY))
                if ctx.provider == "google" and resource.noun == "location":
                    google_location(rec, resource.id_field, links, rng, taken)
                set_field(rec, resource.id_field, placed_id(rec[resource.id_field], links))
                named = _arn_named(rec[resource.id_field], arn_tail)
                if str(named) not in rows:  # an ARN id ends in the record's name: ...:vault/kyc-vault
                    set_field(rec, resource.id_field, named)
                project_names_its_path(rec, resource.id_field)
                parts_name_their_record(rec, resource.id_field, resource.noun)
                rows[str(rec[resource.id_field])] = rec
            tables[resource.table] = rows
            counters[resource.table] = count
        self._link_records(tables, rng)
        self._count_children(tables)
        return {"tables": tables, "counters": counters}

    def _count_children(self, tables: dict[str, dict[str, Any]]) -> None:
        """Set a record's count of its children (a control panel's ``RoutingControlCount``) to the number of
        records of that table that belong to it, as the state was made: a panel listed with 124 routing
        controls has 124, not 2."""
        for table, resource in sorted(self.resources.items()):
            props = resource.schema.get("properties") or {}
            # integer fields "<noun> count", by the noun's words
            counts = {_words(k)[:-1]: k for k, v in props.items()
                      if isinstance(v, dict) and v.get("type") == "integer" and _words(k)[-1:] == ("count",)}
            if not counts or table not in tables:
                continue
            for child in self.resources.values():
                key = counts.get(_words(child.noun.replace(" ", "_")))
                if key is None or child.table not in tables or child.table == table:
                    continue
                link = (child.parent_field or PARENT_KEY) if child.parent == table else link_key(table)
                held: dict[Any, int] = {}
                for rec in tables[child.table].values():
                    held[rec.get(link)] = held.get(rec.get(link), 0) + 1
                low, high = props[key].get("minimum"), props[key].get("maximum")
                for rec in tables[table].values():
                    number = held.get(rec.get(resource.id_field), 0)
                    if key in rec and (not isinstance(low, (int, float)) or number >= low) \
                            and (not isinstance(high, (int, float)) or number <= high):
                        rec[key] = number

    def _link_records(self, tables: dict[str, dict[str, Any]], rng: random.Random) -> None:
        """Point each record at the other records it belongs to besides its parent (a job at one queue of
        its farm, a routing control at its control panel), so a call that names one (``ListJobs`` by
        ``queueId``) finds exactly the records that belong to it. Drawn after every table is made: the
        draws before are those of a state without such links."""
        linked: dict[str, dict[str, set[str]]] = {}  # table -> linked table -> the record's own fields saying it
        for bound in self.tools.values():
            for target, field_ in bound.links.values():
                if target in tables and bound.role.table in tables:
                    fields = linked.setdefault(bound.role.table, {}).setdefault(target, set())
                    if field_:
                        fields.add(field_)
        for table in sorted(linked):
            resource = self.resources[table]
            own_parent = resource.parent_field or PARENT_KEY
            # a field says a link only where no other linked table is said by it too
            said = [f for fields in linked[table].values() for f in fields]
            alone = {f for f in said if said.count(f) == 1}
            for rec in tables[table].values():
                for target, fields in sorted(linked[table].items()):
                    other = self.resources[target]
                    others = list(tables[target].values())
                    if resource.parent and other.parent == resource.parent:  # a queue of the job's own farm
                        others = [o for o in others if o.get(other.parent_field or PARENT_KEY) == rec.get(own_parent)]
                    if not others:  # its farm has no queue: the job is in none
                        continue
                    rec[link_key(target)] = value = rng.choice(others)[other.id_field]
                    for field_ in sorted(fields):
                        if field_ in alone and isinstance(rec.get(field_), str) \
                                and _fits_field(resource.schema["properties"][field_], value):
                            rec[field_] = value


def _agree_with_scope_and_parent(rec: dict[str, Any], resource: Resource, named_as: dict[str, tuple[str, str]],
                                 scopes: dict[str, str], parent: dict[str, Any] | None,
                                 resources: dict[str, Resource]) -> None:
    """Set each string field of ``rec`` named as a scope parameter of its tools (``projectId``) to that
    scope's value, and each named as its direct parent's parameter (``instance``) to the parent's id."""
    for param, (kind, target) in sorted(named_as.items()):
        if param == resource.id_field or not isinstance(rec.get(param), str):
            continue
        if kind == "scope":
            rec[param] = scopes[target]
        elif parent is not None and target == resource.parent and target in resources:
            parent_id = parent[resources[target].id_field]
            if isinstance(parent_id, str):
                rec[param] = parent_id


def google_location(rec: dict[str, Any], id_field: str, links: list[Any], rng: random.Random,
                    taken: dict[str, set[str]]) -> None:
    """A Google location as ``locations.list`` returns it: its ``locationId`` a region no other location
    of the state has (``us-east4``), its ``name`` the path ``projects/<project>/locations/<locationId>``
    under the project it was listed for, its display name the region's city where one is known."""
    used = taken.setdefault("\0regions", set())
    context = ValueContext("google")
    place = make_value("region", rng, context)
    for _ in range(16):
        if place not in used:
            break
        place = make_value("region", rng, context)
    used.add(place)
    if "locationId" in rec:
        set_field(rec, "locationId", place)
    project = next((link for link in links if isinstance(link, str) and link.startswith("projects/")), None)
    if "name" in rec and id_field != "name":
        rec["name"] = f"{'/'.join(project.split('/')[:2])}/locations/{place}" if project else place
    elif id_field == "name" and isinstance(rec.get("name"), str) and "/locations/" in rec["name"]:
        rec["name"] = rec["name"].rsplit("/", 1)[0] + "/" + place
    city = GOOGLE_REGION_CITIES.get(place)
    if city and "displayName" in rec:
        rec["displayName"] = city


def aligned_scopes(scopes: dict[str, str], patterns: dict[str, Any], nouns: dict[str, str] | None = None
                   ) -> dict[str, str]:
    """Scope paths that agree where they name the same collections: one user's account, project and
    region throughout (``accounts/354895/adUnits/aurora-90`` beside ``accounts/354895/mediationGroups/...``,
    not a second account), each path still matching its parameter's pattern. A bare value of a parameter
    whose noun is in ``nouns`` (``projectId``: "project") is the one at the root of that collection
    (``projects/bi-staging-923`` beside ``projectId`` ``bi-staging-923``, never a second project)."""
    known: dict[tuple[str, ...], str] = {}  # collections from the root -> the value of the last one
    out: dict[str, str] = {}
    for key, value in scopes.items():
        parts = value.split("/") if isinstance(value, str) else []
        if len(parts) == 1 and nouns and key in nouns and value:  # the root of the noun's collection
            candidate = known.setdefault((nouns[key] + "s",), value)
            out[key] = candidate if _fits_pattern(patterns.get(key), candidate) else value
            continue
        if len(parts) < 2 or len(parts) % 2:
            out[key] = value
            continue
        made = list(parts)
        for k in range(0, len(parts), 2):
            chain = tuple(parts[0:k + 1:2])
            made[k + 1] = known.setdefault(chain, made[k + 1])
        candidate = "/".join(made)
        out[key] = candidate if _fits_pattern(patterns.get(key), candidate) else value
    return out


def _fits_pattern(pattern: Any, value: str) -> bool:
    """Whether ``value`` matches a parameter's ``pattern`` (no pattern: it fits; a broken one: it does not)."""
    try:
        return not isinstance(pattern, str) or bool(pattern_of(pattern).search(value))
    except re.error:
        return False


def env_name(spec: ApiSpec) -> str:
    """The environment name of an API: ``api.`` plus its id made safe for names and folders."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", spec.api.replace(":", ".")).strip("._")
    return f"api.{safe}"[:120]


_VERSIONS: dict[int, tuple[ApiSpec, str]] = {}


def spec_version(spec: ApiSpec) -> str:
    """Hash of the source spec plus the binder version: rows built on it name this version."""
    found = _VERSIONS.get(id(spec))
    if found is not None and found[0] is spec:
        return found[1]
    text = orjson.dumps(spec, option=orjson.OPT_SORT_KEYS)  # dataclasses serialise natively, fields in order
    digest = hashlib.sha256(text + f":binder{BINDER_VERSION}".encode()).hexdigest()
    version = f"{BINDER_VERSION}.{digest[:12]}"
    if len(_VERSIONS) > 256:
        _VERSIONS.clear()
    _VERSIONS[id(spec)] = (spec, version)
    return version


def forget_version(spec: ApiSpec) -> None:
    """Drop ``spec`` from the version cache (which otherwise keeps the whole spec alive)."""
    found = _VERSIONS.get(id(spec))
    if found is not None and found[0] is spec:
        del _VERSIONS[id(spec)]


def error_style(spec: ApiSpec) -> ErrorStyle:
    """The API's own error codes: HTTP statuses for OpenAPI, canonical codes for Google, declared
    exception names for botocore, plain codes for MCP and BFCL."""
    if spec.source == "google":
        return ErrorStyle("NOT_FOUND", "ALREADY_EXISTS", "INVALID_ARGUMENT")
    if spec.source == "botocore":
        declared = sorted({e for op in spec.operations for e in op.errors})

        def pick(default: str, *needles: str) -> str:
            return next((e for e in declared if any(n in e for n in needles)), default)

        return ErrorStyle(pick("ResourceNotFoundException", "NotFound", "NoSuch", "DoesNotExist", "NotExist"),
                          pick("ResourceAlreadyExistsException", "AlreadyExists", "Exists", "Conflict", "InUse"),
                          pick("ValidationException", "Validation", "InvalidParameter", "InvalidRequest"))
    if spec.source == "openapi":
        return ErrorStyle("not_found", "conflict", "bad_request")
    return ErrorStyle("not_found", "already_exists", "invalid_argument")


def bind(spec: ApiSpec, exclude: dict[str, str] | None = None, custom: dict[str, Any] | None = None,
         version: str | None = None) -> BoundApi:
    """Bind ``spec``; raises :class:`BindError` when no operation can be bound.

    ``exclude`` maps tool names to the reason they are left out (tools that failed verification, or
    that no task could reach). ``custom`` maps custom actions' operation names to admitted LLM-written
    implementations (:mod:`covert.imports.custom_actions`); the others are left out and counted.
    ``version`` is the environment's version when ``spec`` is a cut-down copy of the source spec
    (:mod:`covert.imports.envs` keeps one); by default it is :func:`spec_version`.
    """
    exclude = exclude or {}
    # the vocabulary read before patterns are added (they add no property names): one a later process kept
    # for ``spec`` (remember_vocabulary) still serves
    vocabulary = spec_vocabulary(spec)
    spec = with_path_patterns(spec)  # a Google {parent} or {name} its converted spec left without a pattern
    resources, roles = infer(spec, vocabulary)
    inferred = resources
    style = error_style(spec)
    left_out: list[tuple[str, str]] = [(op_id, reason) for op_id, reason in spec.skipped]
    tools: dict[str, BoundTool] = {}
    customs: list[Role] = []
    typed: dict[int, tuple[Any, dict[str, Any]]] = {}  # see _typed: the tools of a table share its schema
    for role in roles:
        if role.kind == "custom":
            # CRUD by name but without what a generic implementation needs keeps its own reason
            crud_gap = role.reason in ("no_record_schema", "no_id_field", "no_id_parameter")
            if custom and not crud_gap and role.op.name in custom:
                customs.append(role)
                continue
            left_out.append((role.op.name, role.reason if crud_gap else "custom_action_no_llm"))
            continue
        if tool_name(role.op.name) in exclude:  # left out before the work of binding it
            left_out.append((role.op.name, exclude[tool_name(role.op.name)]))
            continue
        try:
            bound = _bind_tool(role, resources[role.table], resources, style, spec.api, typed)
        except BindError as exc:
            left_out.append((role.op.name, exc.reason))
            continue
        if bound.spec.name in tools:
            left_out.append((role.op.name, "duplicate_tool_name"))
            continue
        tools[bound.spec.name] = bound
    used = {b.role.table for b in tools.values()}
    resources = {t: r for t, r in resources.items() if t in used}
    for resource in resources.values():
        if resource.parent not in resources:
            resource.parent, resource.parent_field = None, None
    if customs and tools:
        from covert.imports.custom_actions import add_custom_tools

        add_custom_tools(spec, customs, custom or {}, resources, roles, style, tools, left_out, exclude)
    if not tools:
        raise BindError("no_bindable_operations", f"{spec.api}: none of {len(spec.operations)} operations is CRUD")
    name = env_name(spec)
    if version is None:  # a given version is final (a cut-down spec of an admitted environment)
        version = spec_version(spec)
        if custom:
            from covert.imports.custom_actions import custom_version

            version = custom_version(version, {n: c for n, c in custom.items() if n in {r.op.name for r in customs}})
    api = BoundApi(spec, name, version, resources, tools, left_out, _environment(name, tools, version), style,
                   inferred)
    return api


# -- records ----------------------------------------------------------------------------------------
def generate_record(resource: Resource, rng: random.Random, api: str, n: int) -> dict[str, Any]:
    """One realistic record of ``resource``, with the ``n``-th id in the API's id style."""
    rec = record(resource.schema, rng, 0, context_for(api, resource.noun))
    set_field(rec, resource.id_field, new_id(resource, api, n))
    return canonical_json(rec)


def set_field(rec: dict[str, Any], key: str, value: Any) -> None:
    """``rec[key] = value``, and the same value for the key's twins (``sid`` beside ``Sid``, ``id`` beside
    ``Id``): one record never says two things under one name."""
    rec[key] = value
    folded, first = fold_key(key), key[:1].lower()
    for other in [k for k in rec if k != key and k[:1].lower() == first and fold_key(k) == folded]:
        rec[other] = value


def new_id(resource: Resource, api: str, n: int) -> Any:
    """The ``n``-th id of a table, deterministic, in the style its schema suggests."""
    schema = resource.schema["properties"][resource.id_field]
    if resource.id_pattern and schema.get("type") != "integer":
        made = _from_path_pattern(resource.id_pattern, resource.noun.replace(" ", "-"), n,
                                  aws_account(context_for(api, resource.noun).service))
        if made is not None:
            return made
    if schema.get("type") == "integer":
        return 1000 + n
    if schema.get("format") == "uuid":
        return seeded_uuid(random.Random(f"{api}:{resource.table}:{n}"))
    lowered = resource.id_field.lower()
    if lowered.endswith("arn"):  # in the API's own service namespace (glacier, not the table's "vaults")
        ctx = context_for(api, resource.noun)
        service = ctx.service if ctx.provider == "aws" and ctx.service else resource.table.replace("_", "-")
        return f"arn:aws:{service}:{AWS_HOME_REGION}:{aws_account(ctx.service)}:{resource.noun.replace(' ', '-')}/{n:04d}"
    if lowered == "name" and api.startswith("google:"):
        return f"{resource.table.replace('_', '')}/{n:04d}"
    if lowered.endswith("name"):
        slug = resource.noun.replace(" ", "-")
        qualifier = QUALIFIERS[int(hashlib.sha256(f"{api}:{resource.table}:{n}".encode()).hexdigest()[:8], 16)
                               % len(QUALIFIERS)]
        made = f"{qualifier}-{slug}-{n}"
        # a domain known by its name is a host name ("billing-domain-2.example.com", not "billing-domain-2")
        return made if filler(resource.id_field, made) is None else f"{made}.example.com"
    digest = hashlib.sha256(f'{api}:{resource.table}:{n}'.encode()).hexdigest()
    if schema.get("format") in INTEGER_TEXT_FORMATS:  # an int64 id written as text (a DCM profileId): digits
        candidate = str(10**9 + int(digest[:12], 16) % (9 * 10**9))
    else:  # an opaque id as services hand them out (``acctok-7f3a9c21e04b``), the same for the same table and n
        prefix = "".join(w[:3] for w in resource.noun.split())[:6] or "rec"
        candidate = f"{prefix}-{digest[:12]}"
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            if not pattern_of(pattern).search(candidate):
                # an id the pattern gives in several forms is drawn in its first, the id's own (IoT SiteWise's
                # assetId is a UUID or "externalId:..." that refers to one: every key a UUID, never both)
                own = {**schema, "pattern": first_alternative(pattern)}
                candidate = value_for(own, resource.id_field, random.Random(f"{api}:{resource.table}:{n}"), 0,
                                      context_for(api, resource.noun))
        except (re.error, Unsatisfiable):
            pass
    return candidate


def first_alternative(pattern: str) -> str:
    """The first of a pattern's top-level alternatives (``^A$|^B`` -> ``^A$``); the pattern itself when it
    has one only (a ``|`` inside a group or a class is no top-level one)."""
    depth, in_class, escaped = 0, False, False
    for i, ch in enumerate(pattern):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            return pattern[:i]
    return pattern


_SEGMENT = re.compile(r"\[\^/\]\+|\[\^/\]\*|\.\+|\.\*")


def placed_id(key: Any, under: list[Any]) -> Any:
    """A resource-path id (``projects/p-1/locations/p-1/datasets/dataset-4``) moved under the longest of
    ``under`` (the record's project and location, or its parent's path) whose collections it shares:
    ``projects/willow-19/locations/us-east4/datasets/dataset-4``. Other ids are returned as they are."""
    if not isinstance(key, str) or "/" not in key:
        return key
    parts = key.split("/")
    best: list[str] = []
    for prefix in under:
        if not isinstance(prefix, str) or "/" not in prefix:
            continue
        head = prefix.split("/")
        if len(head) % 2 or len(head) >= len(parts) or len(head) <= len(best) or not all(head[1::2]):
            continue
        if all(head[i] == parts[i] for i in range(0, len(head), 2)):
            best = head
    return "/".join(best + parts[len(best):]) if best else key


def _arn_named(key: Any, name: Any) -> Any:
    """A new record's ARN id ending in the name the call gave it (``arn:aws:glacier:...:vault/video-vault``),
    as AWS makes them; ``key`` itself when it is no ARN with a ``/`` or the name cannot end one."""
    if not isinstance(key, str) or not key.startswith("arn:") or not isinstance(name, str) \
            or not ARN_NAME.match(name) or "/" not in key.split(":", 5)[-1]:
        return key
    return f"{key.rpartition('/')[0]}/{name}"


def _named_under(resource: Resource, given: Any, under: list[Any]) -> Any:
    """The id of a record created with the name ``given``: where the table's ids are Google resource paths
    (its ``name``) and the call gives a bare name (``name: "edge-connector"``), the path it is made at, under the call's own scope or
    parent (``projects/p-1/locations/us-east1/appConnectors/edge-connector``); else ``given`` itself."""
    if resource.id_field != "name" or not resource.id_pattern or not isinstance(given, str) or not given \
            or "/" in given:
        return given
    made = _from_path_pattern(resource.id_pattern, "x", 0)
    if made is None:
        return given
    return placed_id(f"{made.rsplit('/', 1)[0]}/{given}", under)


DEFAULT_ACCOUNT = aws_account("aws")  # where no environment is known (a pattern only tried for its shape)


def _from_path_pattern(pattern: str, slug: str, n: int, account: str = DEFAULT_ACCOUNT) -> str | None:
    """An id that matches a resource-path pattern (``^projects/[^/]+/locations/[^/]+$``), or ``None``; an
    ARN's account is ``account`` (the environment's own, :func:`~covert.imports.fieldvalues.aws_account`)."""
    body = pattern.removeprefix("^").removesuffix("$")
    if len(body) > 200 or "(" in body or "|" in body:
        return None
    if not body.startswith("arn:") and re.search(r"\\[SsWwDd]", body):
        return None  # a class (WAF's ".*\S.*": any text with a non-blank), no path: never "set-1Sset-1"
    if body.startswith("arn:"):
        made, count = _arn_filled(body, f"{slug}-{n}", account)
    else:
        made, count = _path_filled(body, f"{slug}-{n}", n)
    if not count:  # a fixed name (``^operations$``) cannot give distinct ids
        return None
    made = _collections_named(made.replace("\\", ""), f"{slug}-{n}", n)
    if any(ch in made for ch in "[]*+?{}"):  # a class or quantifier left over: no path pattern at all
        return None
    try:
        return made if pattern_of(pattern.removeprefix("^").removesuffix("$")).fullmatch(made) else None
    except re.error:
        return None


_COLLECTION = re.compile(r"(?:^|/)([A-Za-z][A-Za-z0-9]*)/$")


def _path_filled(body: str, filled: str, n: int) -> tuple[str, int]:
    """A path pattern's open segments filled: the last with ``filled``, one after a named collection with
    an id of that collection (``customers/customer-3/telemetry/telemetry-3/users/user-3``, never
    ``customers/user-3/telemetry/user-3/users/user-3``), any other with ``filled``; and how many were open."""
    found = list(_SEGMENT.finditer(body))
    out: list[str] = []
    last = 0
    for k, segment in enumerate(found):
        out.append(body[last:segment.start()])
        collection = _COLLECTION.search(body[:segment.start()]) if k < len(found) - 1 else None
        out.append(_ancestor_id(collection.group(1), n) if collection else filled)
        last = segment.end()
    out.append(body[last:])
    return "".join(out), len(found)


_REGIONS = tuple(sorted(GOOGLE_REGION_CITIES))


def _ancestor_id(collection: str, n: int) -> str:
    """The id of the ``n``-th record's ancestor in ``collection``: a project as projects are named, a region
    for a location, else the collection's noun and ``n`` (placed under the state's own scope later)."""
    if collection == "projects":
        return f"{QUALIFIERS[n % len(QUALIFIERS)]}-{n}"
    if collection == "locations":
        return _REGIONS[n % len(_REGIONS)]
    return f"{singular(collection).lower()}-{n}"


def _arn_filled(body: str, filled: str, account: str) -> tuple[str, int]:
    """An ARN pattern's open parts (``arn:.+:mediaconnect.+:gateway:.+:instance:.+``) filled as AWS writes
    them: the partition, region and account by their place, a part run on from the service
    (``mediaconnect.+``) with the region and account it stands for, the rest with ``filled``; and how many
    parts were open. Every open part filled with ``filled`` gave
    ``arn:gateway-instance-1:mediaconnectgateway-instance-1:gateway:...``."""
    places = {1: "aws", 3: AWS_HOME_REGION, 4: account}  # an ARN's open part by the colons before it
    out: list[str] = []
    last = count = 0
    for found in _SEGMENT.finditer(body):
        out.append(body[last:found.start()])
        before = "".join(out)  # as filled so far: a part run on from the service adds two places
        colons = before.count(":")
        if before.endswith(":") and colons in places:
            out.append(places[colons])
        elif colons == 2 and before[-1:].isalnum():
            out.append(f":{AWS_HOME_REGION}:{account}")
        else:
            out.append(filled)
        last, count = found.end(), count + 1
    out.append(body[last:])
    return "".join(out), count


def _collections_named(path: str, filled: str, n: int) -> str:
    """A path whose pattern left its parent collection open (``^[^/]+/[^/]+/sinks/[^/]+$``) under the
    collection Google names first in such paths: ``projects/atlas-2/sinks/sink-2``, never
    ``sink-2/sink-2/sinks/sink-2``."""
    parts = path.split("/")
    if len(parts) < 4 or len(parts) % 2 or parts[0] != filled:
        return path
    parts[0], parts[1] = "projects", _ancestor_id("projects", n)
    return "/".join(parts)


def set_parent(resource: Resource, rec: dict[str, Any], parent: dict[str, Any], resources: dict[str, Resource]) -> None:
    """Point ``rec`` at its parent record (its foreign-key field, or :data:`PARENT_KEY`)."""
    parent_id = parent[resources[resource.parent].id_field]
    rec[resource.parent_field or PARENT_KEY] = parent_id


def named_by(rec: dict[str, Any], id_field: str) -> dict[str, Any]:
    """The field that names ``rec`` (its name or title) with its value, if it has one besides its id."""
    for key, value in rec.items():
        if key != id_field and isinstance(value, str) and names_record(key):
            return {key: value}
    return {}


def scope_value(schema: dict[str, Any], param: str, rng: random.Random, ctx: ValueContext | None = None) -> str:
    """A scope a user would name (a project ``billing-prod-482``, an account, a region), in the parameter's
    pattern when it declares one."""
    ctx = ctx or ValueContext()
    parts = words(param)
    noun = next((p for p in reversed(parts) if p not in ("id", "name", "key")), "project")
    if noun in ("location", "locations", "region", "regions"):
        value = make_value("region", rng, ctx)
    elif noun in ("zone", "zones"):  # "us-central1-a", not "recruiting-zone"
        value = make_value("zone", rng, ctx)
    elif noun in ("account", "accounts", "organization", "organizations", "customer", "customers"):
        value = make_value("account", rng, ctx)
    elif noun in ("project", "projects"):
        value = make_value("project", rng, ctx)
    else:
        value = make_value("resource_name:" + noun.rstrip("s"), rng, ctx)
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        made = scope_path(pattern, rng, ctx) or _from_path_pattern(pattern, value, rng.randint(1, 9),
                                                                   aws_account(ctx.service))
        if made is None:  # in the pattern's first form (an asset's UUID, not "externalId:..." referring to one)
            made = value_for({**schema, "pattern": first_alternative(pattern)}, param, rng, 0, ctx)
        return made
    described = described_path(schema.get("description"))
    if described is not None:  # "The location name. For example: `projects/PROJECT_ID/locations/LOCATION_ID`."
        made = scope_path(described, rng, ctx)
        if made is not None:
            return made
    return value


_DESCRIBED_PATH = re.compile(r"(?<![\w/{])((?:[a-z][A-Za-z]{2,}s/(?:\{[^{}/\s]+\}|[A-Za-z0-9_.-]*[A-Za-z0-9_]))"
                             r"(?:/[a-z][A-Za-z]{2,}s/(?:\{[^{}/\s]+\}|[A-Za-z0-9_.-]*[A-Za-z0-9_]))*)")


def described_path(description: Any) -> str | None:
    """The path pattern a parameter's description spells out (``projects/PROJECT_ID/locations/LOCATION_ID``
    or ``projects/{project}/locations/{location}`` -> ``^projects/[^/]+/locations/[^/]+$``): a Google
    ``parent`` without a declared pattern is still a resource path, not a bare name. Collections are
    plural words ("and/or" is no path). Discovery's "Part of `parent`. ... Example: apps/myapp." is one
    segment of that path (App Engine's ``appsId``): its example is the whole parent, so it spells out none."""
    if not isinstance(description, str) or description.startswith("Part of `"):
        return None
    found = _DESCRIBED_PATH.search(description[:600])
    if found is None:
        return None
    collections = found.group(1).split("/")[::2]
    return "^" + "/".join(f"{c}/[^/]+" for c in collections) + "$"


def scope_noun_of(param: str) -> str:
    """The noun of a scope parameter in words (``projectsId`` -> "project")."""
    parts = [p for p in words(param) if p not in ("id", "name", "key")] or words(param) or ["project"]
    return parts[-1].rstrip("s") or "project"


def _parents_first(resources: dict[str, Resource]) -> list[Resource]:
    done: list[Resource] = []
    names: set[str] = set()
    pending = sorted(resources.values(), key=lambda r: r.table)
    while pending:
        ready = [r for r in pending if r.parent is None or r.parent in names or r.parent not in resources]
        if not ready:  # cannot happen (infer breaks cycles); never change a resource here
            ready = pending[:1]
        for r in ready:
            done.append(r)
            names.add(r.table)
        pending = [r for r in pending if r.table not in names]
    return done


# -- tools ------------------------------------------------------------------------------------------
def _takes_a_body(props: dict[str, Any], exposed: dict[str, Any]) -> bool:
    """Whether an operation takes fields in its body beyond those bound (``exposed``): a create that
    exposes none of them would be called with nothing."""
    return any(isinstance(schema, dict) and schema.get("x-in") == "body" and param not in exposed
               for param, schema in props.items())


def _bind_tool(role: Role, resource: Resource, resources: dict[str, Resource], style: ErrorStyle,
               api_id: str, typed: dict[int, tuple[Any, dict[str, Any]]]) -> BoundTool:
    op = role.op
    props = op.parameters.get("properties") or {}
    required = list(op.parameters.get("required") or [])
    record_props = resource.schema["properties"]
    exposed: dict[str, dict[str, Any]] = {}
    fields: dict[str, str] = {}
    limit_param = token_param = None
    pagination = op.pagination or {}
    for param, schema in props.items():
        if not isinstance(schema, dict) or schema.get("x-in") == "header":
            continue
        if param.lower() in RESPONSE_SHAPING and param not in required and param != role.id_param:
            continue  # ``expand`` shapes the answer: a request never sets or filters a record by it
        target = _matching_field(param, record_props)
        if param == role.id_param:
            entity = resource.entity if role.kind != "create" else None
            exposed[param] = _param_schema(schema, param, entity, f"The {resource.noun}'s id.")
            continue
        if param in role.scope_params:
            if param == resource.id_field and param != "name":
                # a list scoped by what its records are known by: Route 53's ListTrafficPolicyVersions(Id), whose
                # versions all share the policy's Id (a table keyed by Id holds one of them), or a list under
                # another record's id its records' own id field was taken for (Ad Exchange's deals listed by
                # proposalId, Monarch's /bioentity/gene/{id}/diseases); its records never carry the value asked
                # for. (Google's ``name`` scope is a parent's path, which its records' names extend.)
                raise BindError("scoped_by_own_id")
            exposed[param] = _param_schema(schema, param, None, f"The {' '.join(words(param))} it lives in.")
            continue
        if param in role.parent_params:
            parent = resources.get(role.parent_params[param])
            if parent is None or parent.table == resource.table:
                if param in required:
                    raise BindError("unresolved_parent")
                continue
            exposed[param] = _param_schema(schema, param, parent.entity, f"The {parent.noun}'s id.")
            continue
        if role.kind == "list":
            lowered = param.lower().replace("-", "_")
            is_limit = param == pagination.get("limit_param") or lowered in LIMIT_NAMES
            is_token = param in (pagination.get("token_param"), pagination.get("offset_param")) or lowered in TOKEN_NAMES
            if is_limit and schema.get("type") == "integer":
                limit_param = param
                exposed[param] = _param_schema(schema, param, None, "How many results to return at most.")
                continue
            if is_token and schema.get("type") in ("string", "integer"):
                token_param = param
                exposed[param] = _param_schema(schema, param, None, "Where the next page starts.")
                continue
            if target is not None and _scalar(schema) and _scalar(record_props[target]):
                fields[param] = target
                exposed[param] = _param_schema(schema, param, None, f"Only {resource.plural} with this value.")
                continue
        elif role.kind in ("create", "update") and target is not None and target != resource.id_field:
            if role.kind == "update" and param not in required and len(fields) >= MAX_UPDATE_FIELDS:
                continue
            if role.kind == "update" and not _scalar(schema):
                if param in required:
                    raise BindError("unsupported_required_parameter", param)
                continue
            fields[param] = target
            exposed[param] = _param_schema(schema, param, None, f"The {resource.noun}'s {' '.join(words(target))}.")
            continue
        if param in required:
            raise BindError("unsupported_required_parameter", param)
    if role.kind in ("get", "update", "delete") and role.id_param not in exposed:
        raise BindError("no_id_parameter")
    if role.kind == "update" and not fields:
        raise BindError("nothing_to_update")
    if role.kind == "create" and not fields and _takes_a_body(props, exposed):
        # the API takes the record in a body covert cannot fill ("createFeedConnections" with an array of
        # feeds): bound, it would teach creates with nothing ("createFeedConnections {}")
        raise BindError("nothing_to_create")
    if role.kind == "create":  # the field that names the new record first: parallel creates differ in it
        exposed = dict(sorted(exposed.items(), key=lambda kv: not (kv[0] in fields and names_record(fields[kv[0]]))))
    name = tool_name(op.name)
    parameters = {"type": "object", "properties": exposed,
                  "required": [p for p in required if p in exposed]}
    returns = _returns(role, resource, resources, typed)
    description = " ".join((op.description or "").split())[:600] or _default_description(role, resource)
    writes = role.kind in ("create", "update", "delete")
    errors = _errors(role, style)
    spec = ToolSpec(name=name, description=description, parameters=parameters, returns=returns, writes=writes,
                    errors=errors, method=f"_tool_{re.sub(r'[^A-Za-z0-9_]', '_', name)}")
    bound = BoundTool(spec, role, lambda state, args: None, fields, limit_param, token_param,
                      _other_links(role, resource, resources))
    bound.impl = _implementation(bound, resource, resources, style, api_id)
    return bound


def _other_links(role: Role, resource: Resource, resources: dict[str, Resource]) -> dict[str, tuple[str, str]]:
    """The parent parameters of ``role`` that name a record of another table than the record's own parent
    (``ListJobs`` by ``queueId``, a job's parent being its farm): parameter -> (that table, the record's own
    string field of that name, ``ControlPanelArn``, or ``""``). The link itself is kept under
    :func:`link_key`; the record's own field says the same where only one table is linked through it."""
    props = resource.schema.get("properties") or {}
    out: dict[str, tuple[str, str]] = {}
    for param, table in role.parent_params.items():
        if table in (resource.parent, resource.table) or table not in resources:
            continue
        field_ = _matching_field(param, props)
        other = resources[table]
        plain = field_ is not None and field_ != resource.id_field and field_ != resource.parent_field \
            and (props[field_] or {}).get("type", "string") == "string" \
            and ((other.schema.get("properties") or {}).get(other.id_field) or {}).get("type", "string") == "string"
        out[param] = (table, field_ if plain and field_ else "")
    return out


def _fits_field(schema: Any, value: Any) -> bool:
    """Whether ``value`` keeps the form rules of a string field (its pattern and length)."""
    if not isinstance(value, str) or not isinstance(schema, dict):
        return False
    pattern, longest, shortest = schema.get("pattern"), schema.get("maxLength"), schema.get("minLength")
    return (not isinstance(pattern, str) or bool(pattern_of(pattern).search(value))) \
        and (not isinstance(longest, int) or len(value) <= longest) \
        and (not isinstance(shortest, int) or len(value) >= shortest)


def link_key(table: str) -> str:
    """The private key under which a record keeps the record of ``table`` it belongs to besides its parent."""
    return LINK_PREFIX + table


def tool_name(op_name: str) -> str:
    """The tool name of an operation: its own name when it is a valid tool name, else a cleaned one."""
    return op_name if TOOL_NAME.match(op_name) else ("op_" + re.sub(r"[^A-Za-z0-9_.-]", "_", op_name))[:64]


def _errors(role: Role, style: ErrorStyle) -> tuple[str, ...]:
    out = []
    if role.kind in ("get", "update", "delete") or role.parent_params:
        out.append(style.not_found)
    if role.kind == "create" and role.id_param:
        out.append(style.conflict)
    if role.kind == "list":
        out.append(style.invalid)
    return tuple(dict.fromkeys(out))


def _default_description(role: Role, resource: Resource) -> str:
    return {"list": f"List {resource.plural}.", "get": f"Get one {resource.noun}.",
            "create": f"Create a {resource.noun}.", "update": f"Update a {resource.noun}.",
            "delete": f"Delete a {resource.noun}."}[role.kind]


def _matching_field(param: str, record_props: dict[str, Any]) -> str | None:
    if param in record_props:
        return param
    target = _words(param)
    for key in record_props:
        if _words(key) == target:
            return key
    return None


@lru_cache(maxsize=65536)
def _words(name: str) -> tuple[str, ...]:
    """:func:`~covert.imports.resources.words` of a name, remembered (field names repeat across tools)."""
    return tuple(words(name))


def _scalar(schema: Any) -> bool:
    return isinstance(schema, dict) and (schema.get("type") in ("string", "integer", "number", "boolean"))


def _param_schema(schema: dict[str, Any], param: str, entity: str | None, fallback: str) -> dict[str, Any]:
    out = clean_schema(schema, 0)
    description = " ".join(str(schema.get("description") or "").split())[:300]
    out["description"] = description or fallback
    if entity:
        out[ENTITY_KEY] = entity
    return out


def _typed(schema: Any, typed: dict[int, tuple[Any, dict[str, Any]]]) -> dict[str, Any]:
    """:func:`typed_schema` of ``schema`` at depth 0, worked out once per schema in ``typed`` (id -> (schema,
    typed copy), kept by one binding): a fresh top-level dict, as callers set keys on it; the levels below
    are shared and never changed."""
    found = typed.get(id(schema))
    if found is None or found[0] is not schema:
        found = typed[id(schema)] = (schema, typed_schema(schema, 0))
    return dict(found[1])


def _tagged(schema: dict[str, Any], resource: Resource, resources: dict[str, Resource],
            typed: dict[int, tuple[Any, dict[str, Any]]]) -> dict[str, Any]:
    rec = _typed(schema, typed)
    props = dict(rec.get("properties") or {})
    if resource.id_field in props:
        props[resource.id_field] = {**props[resource.id_field], ENTITY_KEY: resource.entity}
    if resource.parent and resource.parent_field in props and resource.parent in resources:
        props[resource.parent_field] = {**props[resource.parent_field], ENTITY_KEY: resources[resource.parent].entity}
    rec["properties"] = props
    return rec


def _returns(role: Role, resource: Resource, resources: dict[str, Resource],
             typed: dict[int, tuple[Any, dict[str, Any]]]) -> dict[str, Any]:
    response = role.op.response
    if role.kind == "list":
        found = items_path(response)
        if found is None:
            return {"type": "array", "items": _tagged(resource.schema, resource, resources, typed)}
        path, items = found
        tagged = _tagged(items, resource, resources, typed)
        if not path:
            return {**_typed(response, typed), "items": tagged}
        wrapper = _typed(response, typed)
        wrapper["properties"] = {**wrapper["properties"], path: {**wrapper["properties"][path], "items": tagged}}
        return wrapper
    if role.kind == "delete" and obj(response) is None:
        return {"type": "object", "properties": {"deleted": {"type": "boolean"}}}
    found = record_of(response)
    if found is None:
        return _tagged(resource.schema, resource, resources, typed)
    path, rec = found
    if not path:
        return _tagged(rec, resource, resources, typed)
    wrapper = _typed(response, typed)
    wrapper["properties"] = {**wrapper["properties"], path: _tagged(rec, resource, resources, typed)}
    return wrapper


# -- implementations --------------------------------------------------------------------------------
def _implementation(bound: BoundTool, resource: Resource, resources: dict[str, Resource],
                    style: ErrorStyle, api_id: str) -> Callable[[State, dict[str, Any]], Any]:
    role = bound.role
    response = role.op.response
    table, id_field = resource.table, resource.id_field
    api = role.op.op_id

    def fail(code: str, text: str) -> None:
        raise ToolError(code, style.message(code, text))

    def lookup(state: State, key: Any) -> dict[str, Any]:
        rec = state.get(table, str(key))
        if rec is None:
            fail(style.not_found, f"There is no {resource.noun} with id {str(key)[:80]}.")
        return rec

    def check_parents(state: State, args: dict[str, Any]) -> dict[str, Any]:
        links: dict[str, Any] = {}
        for param, parent_table in role.parent_params.items():
            if param not in args or parent_table not in resources:
                continue
            parent = resources[parent_table]
            if state.get(parent_table, str(args[param])) is None:
                fail(style.not_found, f"There is no {parent.noun} with id {str(args[param])[:80]}.")
            if parent_table == resource.parent:
                links[resource.parent_field or PARENT_KEY] = args[param]
            elif param in bound.links:
                links[link_key(parent_table)] = args[param]
        for param in role.scope_params:
            if param in args:
                links[scope_key(param, bound.spec.parameters["properties"][param])] = args[param]
        return links

    def under_parent(rec: dict[str, Any], links: dict[str, Any]) -> bool:
        return all(rec.get(k) == v for k, v in links.items())

    if role.kind == "list":
        found = items_path(response)
        items_at = found[0] if found else None
        wrapper_rng_seed = f"{api}:wrapper"

        def run_list(state: State, args: dict[str, Any]) -> Any:
            links = check_parents(state, args)
            hits = [public(r) for _, r in state.records(table) if under_parent(r, links)
                    and all(r.get(f) == args[p] for p, f in bound.fields.items() if p in args)]
            start = 0
            if bound.token_param and bound.token_param in args:
                token = str(args[bound.token_param])
                if not token.isdigit() or int(token) > len(hits):
                    fail(style.invalid, f"{bound.token_param} is not a page token this API issued.")
                start = int(token)
            size = MAX_PAGE
            if bound.limit_param and bound.limit_param in args:
                size = args[bound.limit_param]
                if not isinstance(size, int) or size < 1:
                    fail(style.invalid, f"{bound.limit_param} must be a positive number.")
                size = min(size, MAX_PAGE)
            page = hits[start:start + size]
            more = start + size < len(hits)
            if items_at is None:
                return page
            if items_at == "":
                return page
            return _list_wrapper(response, items_at, page, more, start + size, len(hits), role.op.pagination or {},
                                 wrapper_rng_seed, context_for(api_id, resource.noun))

        return run_list

    def shaped(rec: dict[str, Any]) -> Any:
        found = record_of(response)
        if found is None or not found[0]:
            return public(rec)
        return _fill_wrapper(response, found[0], public(rec), f"{api}:wrapper", context_for(api_id, resource.noun))

    if role.kind == "get":
        def run_get(state: State, args: dict[str, Any]) -> Any:
            links = check_parents(state, args)
            rec = lookup(state, args[role.id_param])
            if not under_parent(rec, links):
                fail(style.not_found, f"There is no such {resource.noun} there.")
            return shaped(rec)

        return run_get

    if role.kind == "create":
        made = bound.made = MadeRecords()
        # a parameter named like a field of the record (``projectName``, ``spaceName``) is where it went:
        # the new record says the value the call gave, never a drawn one beside it
        # (Glacier's CreateVault takes ``vaultName``; a vault holds ``VaultName``): matched by the letters alone
        record_fields = resource.schema.get("properties") or {}
        by_letters = {fold_key(f): f for f in record_fields}
        filled = set(bound.fields.values())
        echoed = [(p, target) for p in bound.spec.parameters.get("properties") or {}
                  if p not in bound.fields and (target := p if p in record_fields else by_letters.get(fold_key(p)))
                  and target != id_field and target not in filled]
        other_keys = {link_key(table) for table, _ in bound.links.values()}

        def run_create(state: State, args: dict[str, Any]) -> Any:
            links = check_parents(state, args)
            if role.id_param and role.id_param in args:
                key = _named_under(resource, args[role.id_param], [v for k, v in links.items() if k not in other_keys])
                if state.get(table, str(key)) is not None:
                    fail(style.conflict, f"A {resource.noun} with id {str(key)[:80]} already exists.")
                n = state.next_id(table)
            else:
                n = state.next_id(table)
                under = [v for k, v in links.items() if k not in other_keys]  # its path: scope and parent
                key = placed_id(new_id(resource, api_id, n), under)
                named = _arn_named(key, next((args[p] for p, target in echoed if names_record(target)), None))
                if named != key:  # CreateVault(vaultName="video-vault") makes ...:vault/video-vault
                    if state.get(table, str(named)) is not None:
                        fail(style.conflict, f"A {resource.noun} with id {str(named)[:80]} already exists.")
                    key = named
                for _ in range(64):
                    if state.get(table, str(key)) is None:
                        break
                    n = state.next_id(table)
                    key = placed_id(new_id(resource, api_id, n), under)
                else:
                    fail(style.conflict, f"No new {resource.noun} id is free.")
            rec = _fresh_record(made, resource.schema, f"{api}:{n}", n, context_for(api_id, resource.noun))
            for param, target in bound.fields.items():
                if param in args:
                    set_field(rec, target, args[param])
            for link, value in links.items():
                set_field(rec, link, value)
            for param, target in echoed:
                value = args.get(param)
                if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                    set_field(rec, target, value)
            set_field(rec, id_field, key)
            arn_names_its_record(rec, resource.noun, id_field)  # its own ARN names it, as a seeded record's does
            project_names_its_path(rec, id_field)
            parts_name_their_record(rec, id_field, resource.noun)
            rec = canonical_json(rec)
            state.insert(table, str(key), rec)
            return shaped(rec)

        return run_create

    if role.kind == "update":
        def run_update(state: State, args: dict[str, Any]) -> Any:
            links = check_parents(state, args)
            key = args[role.id_param]
            if not under_parent(lookup(state, key), links):
                fail(style.not_found, f"There is no such {resource.noun} there.")
            rec = state.edit(table, str(key))
            stamp_written(rec, created=False)  # changed now (a call's own values win)
            for param, target in bound.fields.items():
                if param in args:
                    rec[target] = args[param]
            return shaped(rec)

        return run_update

    answers_record = _is_the_record(response, resource)  # worked out once per tool, not per call

    def run_delete(state: State, args: dict[str, Any]) -> Any:
        links = check_parents(state, args)
        key = args[role.id_param]
        rec = lookup(state, key)
        if not under_parent(rec, links):
            fail(style.not_found, f"There is no such {resource.noun} there.")
        state.delete(table, str(key))
        if obj(response) is None:  # the API answers with no body: say which record went
            return {"deleted": True, id_field: key, **named_by(rec, id_field)}
        return _deleted_body(response, id_field, key, f"{api}:wrapper", context_for(api_id, resource.noun), args,
                             rec if answers_record else None)

    return run_delete


def _fresh_record(made: MadeRecords, schema: dict[str, Any], seed: str, n: int,
                  ctx: ValueContext | None = None) -> dict[str, Any]:
    """``record(schema, Random(seed))`` in its first state (its status a first one, made and last changed
    now: :func:`~covert.imports.record_times.stamp_written`), a fresh copy each time: the ``n``-th new record
    of a create tool is the same in every task on the same state (and again when validation replays it),
    so it is made once and kept as JSON (in the store too: :class:`~covert.imports.state_cache.MadeRecords`)."""
    blob = made.get(n)
    if blob is not None:
        return orjson.loads(blob)
    rec = record(schema, random.Random(seed), 0, ctx)
    first_status(schema, rec)
    holds_nothing_yet(schema, rec)
    stamp_written(rec, created=True, n=n)  # not on a day drawn from the past (a call's own values win)
    try:
        blob = orjson.dumps(rec)
    except (orjson.JSONEncodeError, TypeError):
        return rec
    if orjson.loads(blob) == rec:  # only what JSON carries exactly (no NaN, no huge integers)
        made.keep(n, blob)
    return rec


def holds_nothing_yet(schema: dict[str, Any], rec: dict[str, Any]) -> None:
    """Set to 0, in place, what a record just made counts of what it holds (:func:`~covert.imports.rowforms.
    counts_contents`: ``NumberOfArchives``, ``open_issues_count``, ``SizeInBytes``), where its field lets it
    be 0: a new vault holds no archives (a call's own values win, set after this). An optional object of
    what its work gave or did last (``dataProfileResult``, ``lastRun``) is left out: a data scan just made
    has run no scan."""
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    for key in [k for k, v in rec.items() if isinstance(v, dict) and k not in required]:
        said = words(key)
        if "result" in said or "results" in said or said[:1] in (["last"], ["latest"]):
            del rec[key]
    for key, value in rec.items():
        if isinstance(value, bool) or not isinstance(value, (int, str)) or not counts_contents(key):
            continue
        field = props.get(key) if isinstance(props.get(key), dict) else {}
        low = field.get("minimum")
        if (isinstance(low, (int, float)) and low > 0) or field.get("exclusiveMinimum") not in (None, False):
            continue
        zero: Any = 0 if isinstance(value, int) else "0" if value.isdigit() else None
        if zero is not None and ("enum" not in field or zero in field["enum"]):
            rec[key] = zero


_FIRST_STATES = ("creating", "provisioning", "pending", "new", "queued", "draft", "open", "active", "enabled",
                 "ready", "available", "running", "in_progress", "inprogress", "submitted", "requested", "scheduled",
                 "initializing", "starting", "preparing", "verifying", "validating", "propagating", "deploying",
                 "created", "live", "valid", "ok", "healthy")
_ENDED_STATES = ("deleting", "deleted", "cancelling", "canceling", "cancelled", "canceled", "terminating",
                 "terminated", "removed", "disabled", "inactive")


def _ended(schema: Any, name: str) -> str | None:
    """The state a status field says of a record being deleted (``DELETING``, ``CANCELED``), from its enum,
    or ``None`` when the field is no status or its enum has none."""
    parts = _words(name)
    if not parts or parts[-1] not in STATUS_WORDS or not isinstance(schema, dict):
        return None
    choices = {v.lower(): v for v in schema.get("enum") or () if isinstance(v, str)}
    return next((choices[s] for s in _ENDED_STATES if s in choices), None)


def _first_rank(state: str) -> int | None:
    """Where a state stands among :data:`_FIRST_STATES`, by itself or by a word of it (``DOMAIN_CHANGE_PENDING``
    ranks as pending), or ``None`` for a state no new record is in (ended, failing, ``NOT_READY``)."""
    folded = state.lower()
    if folded in _FIRST_STATES:
        return _FIRST_STATES.index(folded)
    said = key_words(state)
    if troubled_state(state) or ending_state(state) or "not" in said or not FINAL_STATES.isdisjoint(said):
        return None
    return min((_FIRST_STATES.index(word) for word in said if word in _FIRST_STATES), default=None)


def _living(state: str) -> bool:
    """Whether a record may be in ``state`` right after it is made: not ended, not failing, not unset."""
    return (state.lower() not in FINAL_STATES and not troubled_state(state) and not ending_state(state)
            and not state.upper().endswith("_UNSPECIFIED"))


_FIRST_DEPTH = 3  # how deep a new record's parts are looked at for states and failures


def first_status(schema: dict[str, Any], rec: dict[str, Any], within_status: bool = False, depth: int = 0) -> None:
    """Set ``rec``'s status-like enum fields to a state a record is in right after it is made (``CREATING``,
    ``pending``, ``active``), never ``canceled``, ``deleted`` or failing (``DOMAIN_VERIFICATION_LOST``); left as
    drawn when the enum has no first state and the drawn one is living. A status that is an object
    (``"status": {"statusCode": "DELETING"}``) gets the same for its fields, and so do the record's parts
    (``"resourceInfo": {"status": "UNHEALTHY"}``). Fields that say why a record failed (``failureReason``) are
    dropped, or unset where the schema requires them: nothing has failed yet; a yes/no saying it ended
    (``archived``, ``isDeleted``) is false (a call that asks for it still sets it)."""
    props = schema.get("properties") or {}
    required = schema.get("required") or ()
    for key, sub in list(props.items()):
        if not isinstance(sub, dict):
            continue
        if key in rec and failure_field(key) and failure_said(rec[key]):
            _unfail(rec, key, sub, key in required)
            continue
        if rec.get(key) is True and ended_flag(key):  # a repository just made is not archived
            rec[key] = False
            continue
        parts = _words(key)
        status = bool(parts) and (parts[-1] in STATUS_WORDS or within_status)
        if isinstance(rec.get(key), dict) and sub.get("properties"):
            if depth < _FIRST_DEPTH:
                first_status(sub, rec[key], within_status=status and not within_status, depth=depth + 1)
            continue
        items = sub.get("items")
        if isinstance(rec.get(key), list) and isinstance(items, dict) and items.get("properties"):
            # a list of the record's parts: each part of a record just made is as new as the record (a blue/green
            # deployment made now has no paired node DELETING and no mapping SWITCHOVER_FAILED)
            if depth < _FIRST_DEPTH:
                for part in rec[key]:
                    if isinstance(part, dict):
                        first_status(items, part, within_status=status and not within_status, depth=depth + 1)
            continue
        if not status:
            continue
        choices = [v for v in sub.get("enum") or () if isinstance(v, str)]
        ranked = sorted((rank, i) for i, v in enumerate(choices) if (rank := _first_rank(v)) is not None)
        if ranked:
            rec[key] = choices[ranked[0][1]]
        elif isinstance(rec.get(key), str) and not _living(rec[key]):
            # no first state to take: any the record may be in, but not one it ends or fails in
            living = [v for v in choices if _living(v)]
            if living:
                rec[key] = living[0]
            elif not choices and " " not in rec[key]:  # a free-text state drawn as "completed": a new record is active
                rec[key] = "ACTIVE" if rec[key].isupper() else "Active" if rec[key][:1].isupper() else "active"


def _unfail(rec: dict[str, Any], key: str, schema: dict[str, Any], required: bool) -> None:
    """Say in ``rec[key]`` that nothing has failed: the field dropped, or where required its unset value
    (``FAILURE_REASON_UNSPECIFIED``, an empty list)."""
    if not required:
        del rec[key]
        return
    unset = [v for v in schema.get("enum") or () if isinstance(v, str) and not failure_said(v)]
    if unset:
        rec[key] = unset[0]
    elif isinstance(rec[key], list):
        rec[key] = []


_WRAPPERS: dict[tuple[int, str, str], tuple[dict[str, Any], bytes]] = {}


def _fill_wrapper(response: dict[str, Any], key: str, value: Any, seed: str,
                  ctx: ValueContext | None = None) -> dict[str, Any]:
    """``value`` at ``key`` of a response object whose other required fields hold seeded values (the
    same in every response: they are drawn once per response schema and copied)."""
    remembered = _WRAPPERS.get((id(response), key, seed))
    if remembered is None or remembered[0] is not response:  # the entry holds the schema: its id stays its own
        out = {}
        props = response.get("properties", {})
        rng = random.Random(seed)
        for name in response.get("required") or ():
            if name != key and name in props:
                out[name] = value_for(props[name], name, rng, 0, ctx)
        if len(_WRAPPERS) >= 8192:
            _WRAPPERS.clear()
        remembered = _WRAPPERS[(id(response), key, seed)] = (response, orjson.dumps(out))
    out = orjson.loads(remembered[1]) if len(remembered[1]) > 2 else {}
    out[key] = value
    return canonical_json(out)


def _list_wrapper(response: dict[str, Any], items_at: str, page: list[Any], more: bool, next_start: int,
                  total: int, pagination: dict[str, str], seed: str, ctx: ValueContext | None = None) -> dict[str, Any]:
    out = _fill_wrapper(response, items_at, page, seed, ctx)
    props = response.get("properties", {})
    next_field = pagination.get("next_token_field")
    for name, schema in props.items():
        lowered = name.lower().replace("_", "")
        if not isinstance(schema, dict):
            continue
        if name == next_field or lowered in ("nextpagetoken", "nexttoken", "nextmarker", "nextcursor", "next"):
            if more and schema.get("type", "string") in ("string", "integer"):
                out[name] = str(next_start) if schema.get("type", "string") == "string" else next_start
            else:
                out.pop(name, None)
        elif lowered in ("hasmore", "istruncated", "truncated") and schema.get("type") == "boolean":
            out[name] = more
        elif lowered in ("totalcount", "total", "totalsize", "count", "totalitems", "totalresults") and schema.get("type") == "integer":
            out[name] = total
    return out


def _is_the_record(response: Any, resource: Resource) -> bool:
    """Whether a delete's response is the deleted record (CancelZonalShift's ZonalShift: most of its fields
    are the record's), not an operation that shares a few names with it (Google's ``Operation``: ``name``,
    ``status``, ``selfLink``)."""
    props = response.get("properties") if isinstance(response, dict) else None
    if not isinstance(props, dict) or not props:
        return False
    shared = props.keys() & (resource.schema.get("properties") or {}).keys()
    return len(shared) * 2 >= len(props)


def _deleted_body(response: dict[str, Any], id_field: str, key: Any, seed: str,
                  ctx: ValueContext | None = None, args: dict[str, Any] | None = None,
                  rec: dict[str, Any] | None = None) -> dict[str, Any]:
    """The body a delete answers with: its schema's fields drawn, the deleted id, ``deleted: true``, the
    deleted record's own values where the body holds its fields (CancelZonalShift answers with the shift it
    cancelled, away from the zone it was, not a drawn one), and a field named as one of the call's own
    arguments holding that argument (DeleteDataSource says the ``knowledgeBaseId`` it was called with)."""
    props = response.get("properties", {})
    out = _fill_wrapper(response, "", None, seed, ctx)
    out.pop("", None)
    held = public(rec) if rec is not None else {}
    for name, schema in props.items():
        if name in held and name != id_field:
            value = _ended(schema, name) or held[name]
            choices = schema.get("enum") if isinstance(schema, dict) else None
            if not choices or value in choices:
                out[name] = value
    if id_field in props:
        set_field(out, id_field, key)
    for name, value in (args or {}).items():
        if name != id_field and name in out and isinstance(value, (str, int)) and not isinstance(value, bool) \
                and type(out[name]) is type(value):
            out[name] = value
    for name, schema in props.items():
        if name.lower() == "deleted" and isinstance(schema, dict) and schema.get("type") == "boolean":
            out[name] = True
    return out


class ImportedEnvironment(Environment):
    """Base of the environments :func:`bind` makes."""


def _environment(name: str, tools: dict[str, BoundTool], version: str) -> type[Environment]:
    """An Environment subclass whose tools call the bound implementations on ``self.state``."""
    namespace: dict[str, Any] = {"__doc__": f"Generic implementations of {name}.", "name": name}
    cls = type("ImportedEnv_" + re.sub(r"[^A-Za-z0-9_]", "_", name), (ImportedEnvironment,), namespace)
    for bound in tools.values():
        impl = bound.impl

        def method(self: Environment, _impl: Callable[[State, dict[str, Any]], Any] = impl, **kwargs: Any) -> Any:
            return _impl(self.state, kwargs)

        setattr(cls, bound.spec.method, method)
    cls.tool_specs = {name: b.spec for name, b in tools.items()}
    cls._validators = {}
    return cls


def operations_by_kind(spec: ApiSpec) -> dict[str, int]:
    """How many operations of ``spec`` the binder reads as each kind (for reports)."""
    _resources, roles = infer(spec)
    out: dict[str, int] = {}
    for role in roles:
        out[role.kind] = out.get(role.kind, 0) + 1
    return out
