"""What an imported row's values, creates and write answers must look like: one set of rules, read by
``covert validate`` (which rejects a row that breaks them, :mod:`covert.validation`) and by ``covert audit``
(which counts them, :mod:`covert.audit.imported`).

The rules are a careful reader's, not the generator's: a value whose form contradicts its field (a currency
code that is no code, an amount that is no number), a word salad ("design final 32") or lorem ipsum; a create
called with nothing but where the record goes although the tool takes fields; a write answer that says
nothing of what was done.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from covert.imports.fieldvalues import FAILURE_SAID_IN_WORDS, names_a_failure, names_record
from covert.imports.record_keys import fold_key
from covert.language.spoken import spoken_variants
from covert.language.values import mentions

# states a record ends in: a record just made is never in one (``deleting``, ``completed``, ``canceled``)
FINAL_STATES = frozenset((
    "canceled", "cancelled", "deleted", "failed", "error", "terminated", "expired", "closed", "disabled", "suspended",
    "archived", "rejected", "deleting", "stopped", "inactive", "revoked", "retired", "removed", "stopping", "blocked",
    "destroyed", "completed", "succeeded", "done", "finished"))

# words of a state a record on its way out is in, whatever comes before them (``PENDING_DELETION``,
# ``SCHEDULED_FOR_REMOVAL``): a record just made is never going away
ENDING_WORDS = frozenset(("deletion", "delete", "deleting", "termination", "terminating", "removal", "removing",
                          "cancellation", "cancelling", "canceling", "decommission", "decommissioning",
                          "decommissioned", "retiring", "shutdown"))


def ending_state(state: str) -> bool:
    """Whether ``state`` says its record is being deleted, removed or shut down, by a word of it."""
    return not ENDING_WORDS.isdisjoint(key_words(state))


# words of a state a record in trouble is in: a record just made is not failing, lost or unhealthy
# (``DOMAIN_VERIFICATION_LOST``, ``CERT_ERROR``, ``FAILING``, ``UNHEALTHY``)
TROUBLE_WORDS = frozenset((
    "fail", "failed", "failing", "failure", "error", "errored", "lost", "unhealthy", "degraded", "broken",
    "unresponsive", "unreachable", "invalid", "expired", "expiring", "corrupt", "corrupted", "fault", "faulted",
    "crashed", "rejected", "denied", "suspended", "quarantined", "impaired", "timeout"))
# the last word of a field saying what state its record is in (``status``, ``connectionState``, ``lifecycle``)
STATUS_WORDS = frozenset(("status", "state", "phase", "lifecycle", "stage"))
# what a failure field says besides words: a code or a status (``lastErrorCode``)
_FAILURE_TAILS = FAILURE_SAID_IN_WORDS | {"code", "error", "errors", "failure", "failures", "info", "status"}

MAX_PAIRS = 4000  # (key, value) pairs looked at per value: a hostile output cannot make a check slow
MAX_DEPTH = 12

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def key_words(key: str) -> list[str]:
    """The lower-cased words of a field name (``sourceCidrBlock`` -> source, cidr, block)."""
    return [w.lower() for w in _WORD.findall(key.replace("-", "_").replace(".", "_"))]


# what a record holds, counted or measured (``NumberOfArchives``, ``open_issues_count``, ``release_counter``,
# ``SizeInBytes``): a record just made holds nothing yet, never a vault with 225 archives or a repository
# with 249 open issues; a count that sets the record up (``PartitionCount``, ``desiredCount``,
# ``maxRetryCount``) or measures something else (``diskSizeGb``, ``pageSize``) is no such count
_COUNT_WORDS = frozenset(("count", "counter"))
_SIZE_WORDS = frozenset(("size", "in", "bytes", "used"))
_SETTING_WORDS = frozenset((
    "desired", "min", "minimum", "max", "maximum", "replica", "replicas", "node", "nodes", "instance", "instances",
    "shard", "shards", "partition", "partitions", "retry", "retries", "worker", "workers", "capacity", "limit",
    "threshold", "target", "port", "concurrency", "broker", "brokers", "vcpu", "cpu", "core", "cores", "memory",
    "disk", "volume", "batch", "page", "retention", "timeout", "interval", "period", "version", "sequence", "index",
    "position", "priority", "weight", "step", "steps", "attempt", "attempts", "allowed", "requested", "initial",
    "default", "per", "slot", "slots", "thread", "threads", "parallel", "parallelism"))


def counts_contents(key: str) -> bool:
    """Whether a field counts or measures what its record holds (see :data:`_COUNT_WORDS`), by its words."""
    said = key_words(key)
    if not said or not _SETTING_WORDS.isdisjoint(said):
        return False
    if not _COUNT_WORDS.isdisjoint(said):
        return True
    if said[0] in ("num", "number") and len(said) > 1 and said[1] != "id":  # NumberOfArchives, numItems
        return True
    return said[0] == "size" and _SIZE_WORDS.issuperset(said)  # size, SizeInBytes


def troubled_state(state: str) -> bool:
    """Whether a state says its record failed or is in trouble (``DOMAIN_VERIFICATION_LOST``, ``CERT_ERROR``,
    ``Unhealthy``), by its words; ``ERROR_FREE`` or ``NO_ERRORS`` is none."""
    said = key_words(state)
    return not TROUBLE_WORDS.isdisjoint(said) and not {"no", "free", "none", "without"} & set(said)


# a yes/no field saying its record has ended or is shut: a record just made is none of these
_ENDED_FLAGS = frozenset(("archived", "deleted", "disabled", "suspended", "locked", "closed", "banned", "blocked",
                          "expired", "revoked", "terminated", "canceled", "cancelled", "removed", "retired",
                          "deprecated", "trashed"))


def ended_flag(key: str) -> bool:
    """Whether a yes/no field says its record has ended or is shut (``archived``, ``isDeleted``,
    ``is_locked``), which a record just made is not (unless asked to be)."""
    said = [w for w in key_words(key) if w not in ("is", "has", "been")]
    return len(said) == 1 and said[0] in _ENDED_FLAGS


def failure_field(key: str) -> bool:
    """Whether a field says why its record failed (``failureReason``, ``errorMessage``, ``lastErrorCode``),
    which a record just made has nothing in; ``ErrorDocument``, ``OnFailure`` and ``errorCount`` are
    settings or counts, not failures."""
    said = key_words(key)
    return names_a_failure(said, _FAILURE_TAILS)


def failure_said(value: Any) -> bool:
    """Whether a failure field's value says a failure: a non-empty string other than an unset one
    (``FAILURE_REASON_UNSPECIFIED``, ``NONE``), or a non-empty list or object."""
    if isinstance(value, str):
        folded = value.strip().lower()
        return bool(folded) and folded not in ("none", "null", "n/a", "ok", "success") and \
            not folded.endswith("_unspecified")
    return isinstance(value, (list, dict)) and bool(value)


def pairs(value: Any, key: str = "", depth: int = 0) -> Iterator[tuple[str, Any]]:
    """``(key, scalar)`` pairs of nested data (list items keep their list's key)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield from pairs(v, str(k), depth + 1)
    elif isinstance(value, list):
        for v in value:
            yield from pairs(v, key, depth + 1)
    else:
        yield key, value


_SALAD = re.compile(r"^[a-z]{3,12}(?: [a-z]{3,12}){1,2} \d{1,3}$")
_LOREM = frozenset(["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "eiusmod",
                    "tempor", "incididunt", "labore", "dolore", "magna", "aliqua"])
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$")
_IPV4 = re.compile(r"^(?:\d{1,3}\.){3}\d{1,3}(?:/\d{1,2})?$")
_IPV6 = re.compile(r"^[0-9a-fA-F:]+:[0-9a-fA-F:]*(?:/\d{1,3})?$")
_DATEISH = re.compile(r"^(?:\d{4}-\d{2}-\d{2}|\d{9,13}$)")
# a URL: with a scheme or scheme-relative, a path, a URN-like "scheme:rest", git's "git@host:owner/repo.git",
# or a host and path with no scheme ("us-docker.pkg.dev/my-project/my-repo/image", an image's URI)
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//|^/|^[a-z][a-z0-9+.-]*:[^\s]+$|^[\w.-]+@[\w.-]+\.[a-z]{2,}:\S+$|"
                  r"^(?:[a-z0-9-]+\.)+[a-z]{2,}/\S*$")
# versions known by name (an agent's working "DRAFT", a function's "$LATEST")
NAMED_VERSIONS = frozenset(("latest", "current", "draft", "stable", "beta", "alpha", "preview", "head", "main"))
_CONSTANT = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")  # an enum constant: FOO_BAR
_BOUNDS = frozenset(("max", "min", "maximum", "minimum", "total", "average", "avg"))  # "maxHandlingTime": an amount
_AMOUNT_WORDS = ("rate", "amount", "price", "total", "cost", "micros", "bytes", "count", "percent", "quantity",
                 "balance", "fee")


def form_rule(words: list[str]) -> tuple[str, Any] | None:
    """What the value of a field with these name words must look like: ``(rule name, test)``, or ``None``
    when the name says nothing about the form."""
    if not words:
        return None
    last, joined = words[-1], "".join(words)
    prev = words[-2] if len(words) > 1 else ""
    if joined.endswith("currencycode") or last == "currency":
        return "currency_code", lambda v: bool(re.fullmatch(r"[A-Za-z]{3}", v))
    if joined.endswith("countrycode"):
        return "country_code", lambda v: bool(re.fullmatch(r"[A-Za-z]{2,3}", v))
    if joined.endswith("languagecode") or last == "locale":
        return "language_code", lambda v: bool(re.fullmatch(r"[a-zA-Z]{2,3}(?:[-_][A-Za-z0-9]{2,4})*", v))
    if last in ("url", "uri", "href") or joined.endswith(("url", "uri")):
        return "url", lambda v: bool(_URL.match(v)) and " " not in v
    if last == "email" or joined.endswith("emailaddress"):
        return "email", lambda v: "@" in v and " " not in v
    if last in ("ip", "ipv4", "ipv6") or joined.endswith(("ipaddress", "ipv4address", "ipv6address")):
        return "ip", lambda v: bool(_IPV4.match(v) or _IPV6.match(v))
    if "cidr" in words and last not in ("id", "ids"):
        return "cidr", lambda v: "/" in v and " " not in v
    if last == "arn":
        return "arn", lambda v: v.startswith("arn:")
    if joined.endswith(("mimetype", "contenttype", "mediatype")):
        return "mime", lambda v: bool(re.fullmatch(r"[\w.+-]+/[\w.+-]+(?:;.*)?", v))
    if last in ("version", "revision") and prev not in ("secret", "password"):
        return "version", lambda v: any(ch.isdigit() for ch in v) or v.lower().lstrip("$") in NAMED_VERSIONS
    if last in ("phone", "fax", "mobile") or "phone" in joined:
        return "phone", lambda v: sum(ch.isdigit() for ch in v) >= 7
    if last in ("time", "timestamp", "at", "date", "datetime") and prev not in ("up", "run", "response", "wait") \
            and words[0] not in _BOUNDS:  # "maxHandlingTime" is a number of days
        return "timestamp", lambda v: bool(_DATEISH.match(v)) or bool(re.fullmatch(r"\d{1,2}:\d{2}(?::\d{2})?", v))
    if last in ("html", "snippet") or joined.endswith("htmlsnippet"):
        return "html", lambda v: "<" in v and ">" in v
    if last in _AMOUNT_WORDS and prev not in ("sample", "frame", "bit"):
        return "number", lambda v: bool(_NUMBER.match(v.replace(",", "")))
    if last in ("hostname", "domain", "fqdn") or joined.endswith(("hostname", "domainname", "dnsname")):
        return "hostname", lambda v: ("." in v and " " not in v) or v == "localhost"
    if last == "timezone" or joined.endswith("timezone"):
        return "timezone", lambda v: "/" in v or v.upper().startswith(("UTC", "GMT"))
    if last in ("id", "ids", "key", "token", "etag", "uid", "uuid", "sid", "slug", "sha", "hash"):
        return "identifier", lambda v: " " not in v.strip()
    if names_a_failure(words):
        return "failure", lambda v: not _SUCCESS.search(v)  # "ErrorMessage": "Validation passed."
    return None


# what a note of success says (a field saying why a record failed never does)
_SUCCESS = re.compile(r"(?i)\b(?:succeeded|successful(?:ly)?|passed|without (?:any )?errors?|(?:is )?up to date)\b|"
                      r"^\s*(?:ready|ok|success|done|healthy)\.?\s*$")


@lru_cache(maxsize=16384)
def _rule_of(key: str) -> tuple[str, Any] | None:
    """:func:`form_rule` of a field name (remembered: one API has few field names)."""
    return form_rule(key_words(key))


# what a spec's author writes where a value goes ("example": "a string value"): no value a record holds
_PLACEHOLDERS = frozenset(("a string value", "string value", "a string", "some string", "sample string", "any string",
                          "example string", "string", "some text", "sample text", "foo", "baz", "foobar",
                          "lorem ipsum", "your value here", "value goes here", "replace me", "changeme"))
_KIND_WORDS = frozenset(("type", "types", "kind", "format", "datatype", "schema"))  # "string" may be a type's value


@lru_cache(maxsize=65536)  # a row's SFT and RL views, and the rows of one state, show the same records
def filler(key: str, value: str) -> str | None:
    """Why a string value is filler for its field (``word_salad``, ``lorem``, ``placeholder``: what a spec
    writes where a value goes, ``not_<form>`` when its form contradicts the field's name), or ``None``. An
    API's enum constant (``BOOSTED_SPEC_CONTENT``) is a code of the API's own, whatever the field's name
    suggests."""
    if _SALAD.match(value):
        return "word_salad"
    lowered = value.strip().lower()
    if lowered in _PLACEHOLDERS and not (lowered == "string" and _KIND_WORDS & set(key_words(key))):
        return "placeholder"
    if len(lowered) > 5 and fold_key(lowered) == fold_key(key) and not _CONSTANT.match(value):
        return "placeholder"  # the field's own name as its value ("accountIdAlias": "account_id_alias")
    tokens = value.lower().split()
    if len(tokens) >= 3 and sum(t.strip(".,") in _LOREM for t in tokens) >= 2:
        return "lorem"
    rule = _rule_of(key)
    if rule is not None and value and not rule[1](value) and not _CONSTANT.match(value):
        return f"not_{rule[0]}"
    return None


def first_filler(value: Any) -> tuple[str, str, str] | None:
    """The first filler string in nested data: ``(why, key, value)``, or ``None`` (at most
    :data:`MAX_PAIRS` pairs looked at)."""
    for seen, (key, item) in enumerate(pairs(value)):
        if seen >= MAX_PAIRS:
            return None
        if isinstance(item, str):
            why = filler(key, item)
            if why is not None:
                return why, key, item
    return None


# the verb as a word of the name: "notes_notes_insert", "users_addUser", "createCurrentUserRepo"; never a
# word it begins ("advertisers_insertionOrders_delete", "posts_list")
_CREATE_WORD = re.compile(r"(?:^|_|\b)([Cc]reate|[Ii]nsert|[Aa]dd|[Pp]ut|[Rr]egister|[Nn]ew|[Pp]ost|CREATE|INSERT|ADD|PUT|"
                          r"REGISTER|NEW|POST)(?=$|_|[A-Z0-9])")
_CREATE_VERB = re.compile(r"^(Create|Put|Add|Register|Insert|New)[A-Z]")


def is_create(name: str) -> bool:
    """Whether a writing tool's name says it makes a record (create/insert/add/put/register/new/post)."""
    return bool(_CREATE_WORD.search(name) or _CREATE_VERB.match(name))


_PLACE_PARAM = re.compile(r"(?:^|_)(?:parent|project|projects|location|locations|region|zone|account|accounts|"
                          r"scope|name)(?:s?id|_id|Id)?$", re.IGNORECASE)
_PLACE_WORDS = ("parent", "lives in", "project", "location", "region", "account")


def where_params(properties: Mapping[str, Any]) -> set[str]:
    """The parameters of a tool (its ``properties``) that only say where a record goes: its parent,
    project, region, account. A ``name`` is the record's own (Google's resource name, whose description
    gives a path under a project as its example), never only where it goes."""
    out = set()
    for key, schema in properties.items():
        description = str(schema.get("description") or "").lower() if isinstance(schema, dict) else ""
        placed = _PLACE_PARAM.search(key) and key.lower() != "name" and (
            key.lower() == "parent" or any(w in description for w in _PLACE_WORDS))
        if placed or (description.startswith("the ") and description.endswith("it lives in.")) or (
                "'s id." in description and key != "name"):
            out.add(key)
    return out


def empty_create(properties: Mapping[str, Any], arguments: Mapping[str, Any]) -> bool:
    """Whether a create call gives nothing but where the record goes while its tool takes other fields."""
    where = where_params(properties)
    return any(p not in where for p in properties) and not any(p not in where for p in arguments)


def _distinctive(value: Any) -> bool:
    text = str(value)
    return len(text) >= 2 and not isinstance(value, bool) and text.lower() not in ("true", "false", "none", "null")


def names_write(answer_norm: str, properties: Mapping[str, Any], arguments: Mapping[str, Any], output: Any) -> bool:
    """Whether a normalised answer says something of a write: one of its argument values (other than
    where the record goes) or a distinctive value of its output, raw or in a spoken form."""
    where = where_params(properties)
    candidates = [v for k, v in arguments.items() if k not in where and isinstance(v, (str, int, float))]
    candidates += [v for _k, v in pairs(output) if isinstance(v, (str, int, float))][:200]
    return any(_distinctive(v) and any(mentions(answer_norm, form) for form in spoken_variants(v))
               for v in candidates)


# a record's own name, whatever its nouns: ``displayName``, and a person's ``GivenName`` or ``lastName``
_OWN_NAME_WORDS = frozenset(("display", "friendly", "full", "name", "title", "short", "common", "given", "first",
                             "last", "family", "middle", "nick", "preferred", "legal"))
_NAME_FIELD_WORDS = ("name", "title", "label")


def name_field(key: str) -> bool:
    """Whether a field is a name a record is called by: its last word is name, title or label
    (``displayName``, ``rulesetName``), never a ``hostname`` or ``defaultHostname``."""
    parts = key_words(key)
    return bool(parts) and parts[-1] in _NAME_FIELD_WORDS


def foreign_name(key: str, own: set[str]) -> bool:
    """Whether a record's field is another record's name: a ``<noun>Name`` whose noun is none of the
    record's own nouns ``own`` (lower-case singular words): a release's ``rulesetName``, a creative's
    ``advertiserName``; never its ``name``, ``displayName``, a person's ``GivenName`` or a queue's
    ``QueueName``."""
    parts = key_words(key)
    return len(parts) >= 2 and parts[-1] == "name" and parts[0] not in _OWN_NAME_WORDS and parts[-2] not in own


def same_name(a: Mapping[str, Any], b: Mapping[str, Any]) -> str | None:
    """The field in which two different calls give their records the same name (three plugins all "Data
    Plugin"), or ``None``."""
    if a == b:
        return None
    return next((k for k, v in a.items() if isinstance(v, str) and v and b.get(k) == v and names_record(k)), None)


def numbers_only_differ(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two calls' arguments differ, and only in numbers ("limit 141" and "limit 58", "sink-28" and
    "sink-15"): two writes a person would not ask for side by side."""
    if set(a) != set(b) or a == b:
        return False
    differing = [k for k in a if a[k] != b[k]]
    return all(isinstance(a[k], (int, float)) and isinstance(b[k], (int, float)) for k in differing) or all(
        isinstance(a[k], str) and isinstance(b[k], str) and re.sub(r"\d+", "#", a[k]) == re.sub(r"\d+", "#", b[k])
        for k in differing)
