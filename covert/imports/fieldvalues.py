"""Realistic values for a field of an imported API, chosen by what the field means.

A field's meaning comes from its format, the fixed value or examples its description states ("the fixed
string ``dns#managedZone``", "e.g. ``us-central1``"), its name's words (``currencyCode``, ``roleArn``,
``followers_url``, ``createTime``) and, for a few words that mean different things in different records,
its siblings (a ``value`` beside a ``currency`` is an amount). :func:`field_kind` names the meaning;
:func:`make_value` draws a value of that kind from the state's seeded ``Random``, shaped by the API it
belongs to (:class:`ValueContext`: AWS, Google or another web API, its host, the resource's noun).

Person names, places with their countries and time zones, currencies, MIME types and job titles come from
Faker's data (pinned in ``pyproject.toml``; :data:`FAKER_VERSION` is recorded in every manifest, since
other releases carry other lists); everything is drawn with the caller's ``Random``, never Faker's own.
Nothing here is filler: a field whose meaning is not known gets an identifier-like token built from its
own name (``build-worker-pool-4f1c``), never a phrase of unrelated words.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import string
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Any

from covert.env.patterns import bounded_pattern
from covert.imports.bound import INTEGER_TEXT_FORMATS
from covert.imports.resources import words
from covert.language.plurals import plural as plural_of
from covert.language.plurals import singular

# -- data from Faker (read once, drawn with the caller's Random) -------------------------------------


@cache
def faker_version() -> str:
    """The installed Faker's version (the lists below come from it)."""
    from importlib.metadata import version

    return version("faker")


FAKER_VERSION = "40.54.0"  # the pinned release; a manifest records what was installed


@cache
def _people() -> tuple[tuple[str, ...], tuple[str, ...]]:
    from faker.providers.person.en_US import Provider

    first = tuple(sorted(set(Provider.first_names_female) | set(Provider.first_names_male)))
    return first, tuple(sorted(Provider.last_names))


@cache
def _places() -> tuple[tuple[str, str, str], ...]:
    """Real places: (name, ISO country code, IANA time zone)."""
    from faker.providers.geo import Provider

    return tuple((p[2], p[3], p[4]) for p in Provider.land_coords if p[2].isascii() and p[2][:1].isupper())


@cache
def _countries() -> tuple[tuple[str, str, str], ...]:
    """(name, alpha-2, alpha-3)."""
    from faker.providers.date_time import Provider

    return tuple((c.name, c.alpha_2_code, c.alpha_3_code) for c in Provider.countries)


@cache
def _currencies() -> tuple[str, ...]:
    from faker.providers.currency import Provider

    common = ("USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF", "SEK", "INR", "BRL", "MXN", "SGD")
    return common + tuple(sorted({c for c, _ in Provider.currencies} - set(common)))


@cache
def _mime_types() -> tuple[str, ...]:
    from faker.providers.file import Provider

    return tuple(sorted({m for group in Provider.mime_types.values() for m in group}))


@cache
def _jobs() -> tuple[str, ...]:
    from faker.providers.job import Provider

    return tuple(sorted(set(Provider.jobs)))


@cache
def _color_names() -> tuple[str, ...]:
    from faker.providers.color import Provider

    return tuple(sorted(Provider.all_colors))


def _pick(rng: random.Random, seq: Any) -> Any:
    return seq[int(rng.random() * len(seq))]


def _num(rng: random.Random, low: int, high: int) -> int:
    return low + int(rng.random() * (high - low + 1))


# -- the API a value belongs to ----------------------------------------------------------------------


@dataclass(frozen=True)
class ValueContext:
    """Where a value lives: the API's provider (``aws``, ``google`` or ``web``), its service and host,
    and the noun of the resource whose record holds it."""

    provider: str = "web"
    service: str = "api"
    host: str = "api.example.com"
    noun: str = "record"


@lru_cache(maxsize=4096)
def context_for(api_id: str, noun: str = "record") -> ValueContext:
    """The value context of an API id (``botocore:sqs:2012-11-05``, ``google:dns:v1``,
    ``openapi:twilio.com:twilio_accounts_v1:1.55.0``) and a resource noun."""
    parts = api_id.split(":")
    source = parts[0]
    if source == "botocore":
        service = parts[1] if len(parts) > 1 else "aws"
        return ValueContext("aws", service, f"{service}.us-east-1.amazonaws.com", noun)
    if source == "google":
        service = parts[1] if len(parts) > 1 else "cloud"
        return ValueContext("google", service, f"{service.lower()}.googleapis.com", noun)
    provider = parts[1] if len(parts) > 1 else "example.com"
    service = parts[2] if len(parts) > 3 else provider.split(".")[0]
    if provider.endswith("googleapis.com"):
        return ValueContext("google", service, f"{service.lower()}.googleapis.com", noun)
    if provider.endswith("amazonaws.com"):
        return ValueContext("aws", service, f"{service}.us-east-1.amazonaws.com", noun)
    host = provider if "." in provider else f"{provider}.example.com"
    return ValueContext("web", service, f"api.{host}" if not host.startswith("api.") else host, noun)


# -- what a field means ------------------------------------------------------------------------------

_BY_FORMAT = {
    "date-time": "timestamp", "google-datetime": "timestamp", "date": "date", "time": "clock", "email": "email",
    "uri": "url", "url": "url", "uri-reference": "url", "uuid": "uuid", "ipv4": "ipv4", "ipv6": "ipv6",
    "hostname": "hostname", "byte": "base64", "binary": "base64", "int64": "intstring", "uint64": "intstring",
    "int32": "intstring", "uint32": "intstring", "double": "decimalstring", "float": "decimalstring",
    "decimal": "decimalstring",  # Django REST framework's DecimalField, a number written as a string
    "google-duration": "duration", "google-fieldmask": "fieldmask", "password": "password", "phone": "phone",
}
_FIXED = re.compile(r"(?:fixed string|[Aa]lways(?: set to)?|[Vv]alue(?: is)?:?)\s*[\"`']([A-Za-z0-9#._:/-]{1,80})[\"`']")
_PERSON_NOUNS = frozenset((
    "user", "member", "contact", "customer", "employee", "author", "owner", "agent", "participant", "subscriber",
    "recipient", "person", "admin", "administrator", "reviewer", "assignee", "student", "patient", "driver",
    "speaker", "attendee", "collaborator", "follower", "actor", "creator", "sender", "committer", "teacher",
    "candidate", "guest", "host", "approver", "requester", "reporter", "operator", "manager", "player", "people",
    "principal", "signer", "traveler", "passenger", "buyer", "seller", "tenant", "viewer", "editor", "invitee"))
# fields beside which a bare ``job`` is a person's occupation
_PERSON_SIBLINGS = frozenset(("firstname", "lastname", "first_name", "last_name", "givenname", "familyname", "email",
                              "phone", "birthdate", "birthday", "employer"))
_COMPANY_NOUNS = frozenset((
    "organization", "organisation", "company", "advertiser", "vendor", "brand", "merchant", "partner", "client",
    "supplier", "publisher", "business", "agency", "enterprise", "provider", "carrier", "bank", "institution",
    "employer", "manufacturer", "retailer", "store", "shop", "issuer", "payee", "biller", "org", "firm"))
# a field saying why its record failed: a failure word, then what it says of it in words
_FAILURE_WORDS = frozenset(("failure", "failures", "error", "errors", "failed"))
FAILURE_SAID_IN_WORDS = frozenset(("reason", "reasons", "message", "messages", "detail", "details", "cause",
                                   "description"))


def names_a_failure(parts: list[str], tails: frozenset[str] = FAILURE_SAID_IN_WORDS) -> bool:
    """Whether a field's words (lower case) name why its record failed: a failure word, and last one of
    ``tails`` (``ErrorMessage``, ``failureReason``; ``OnFailure`` is a setting, ``errorCount`` a count)."""
    return bool(parts) and parts[-1] in tails and parts[0] != "on" and not _FAILURE_WORDS.isdisjoint(parts)
_TEXT_WORDS = frozenset(("description", "summary", "notes", "note", "comment", "comments", "message", "body", "text",
                         "content", "reason", "details", "detail", "explanation", "instructions", "remarks",
                         "bio", "about", "purpose", "justification", "feedback", "review", "answer", "question",
                         "caption", "excerpt", "abstract", "memo", "statement", "narrative", "prompt"))
_TITLE_WORDS = frozenset(("title", "label", "headline", "subject", "caption", "heading", "tagline"))
_TIME_WORDS = frozenset(("time", "timestamp", "at", "on", "datetime", "date", "since", "until", "expiry",
                         "expiration", "deadline", "time1", "time2"))
_EVENT_WORDS = frozenset(("created", "updated", "modified", "deleted", "started", "ended", "expires", "expired",
                          "last", "creation", "start", "end", "expire", "publish", "published", "scheduled",
                          "completed", "finished", "submitted", "received", "sent", "issued", "renewal", "effective",
                          "due", "closed", "opened", "resolved", "starred", "pushed", "merged", "archived",
                          "activated", "deactivated", "approved", "requested", "revoked", "launch", "release"))
_CODE_COUNTRY = ("country", "region")
_MONEY_WORDS = frozenset(("price", "amount", "cost", "total", "balance", "fee", "subtotal", "tax", "budget", "spend",
                          "revenue", "charge", "payment", "refund", "discount", "credit", "debit", "payout",
                          "salary", "bid", "value"))


@lru_cache(maxsize=65536)
def field_kind(name: str, description: str = "", fmt: str = "", pattern: str = "",
               siblings: frozenset[str] = frozenset()) -> str:
    """What a string field called ``name`` holds, as a kind :func:`make_value` draws: ``email``,
    ``arn``, ``url``, ``region``, ``display_name``, ``text``, ``const:<value>`` ... (see ``_MAKERS``); a
    field whose meaning nothing tells (:func:`meaning_known`) gets a token when it has a pattern, else a slug."""
    kind = _known_kind(name, description, fmt, siblings) or ("token" if pattern else "slug")
    if pattern and pattern.lstrip("^(").startswith("arn:") and kind != "arn":
        return "arn"  # WorkSpaces' IamRoleId holds a role's ARN: drawn as one, not letter by letter
    if kind == "hostname" and pattern and fmt != "hostname" and not _holds_a_host(pattern):
        return "resource_name:" + (words(name) or ["domain"])[0]  # OpenSearch's DomainName: [a-z][a-z0-9\-]+
    return kind


def _holds_a_host(pattern: str) -> bool:
    """Whether a field's pattern lets it hold a dotted host name (``[a-z][a-z0-9\\-]+`` names a domain
    record, never ``example.com``; a pattern no bounded engine compiles says nothing, so it may)."""
    return bounded_pattern(pattern).fullmatch("api.example.com")  # a spec's pattern: matched in bounded time


def meaning_known(name: str, description: str = "", fmt: str = "", siblings: frozenset[str] = frozenset()) -> bool:
    """Whether a string field's name, description or format tells what it holds (``backfill_material``,
    ``water_quality_odour`` tell nothing a value could be drawn from: any value made up for them is filler)."""
    return _known_kind(name, description, fmt, siblings) is not None


def _known_kind(name: str, description: str, fmt: str, siblings: frozenset[str]) -> str | None:
    if fmt in INTEGER_TEXT_FORMATS:  # a number sent as text; an id of that format is a number too ("1928740861")
        return "id_number" if _is_id_name(name) else _BY_FORMAT[fmt]
    if fmt in _BY_FORMAT:
        return _BY_FORMAT[fmt]
    fixed = _FIXED.search(description or "")
    parts = words(name)
    last = parts[-1] if parts else ""
    if fixed and (last == "kind" or "fixed string" in description):
        return "const:" + fixed.group(1)
    desc = (description or "").lower()
    kind = _kind_by_words(parts, desc, siblings)
    if kind is not None:
        return kind
    return _kind_by_description(desc)


def _is_id_name(name: str) -> bool:
    parts = words(name)
    return bool(parts) and parts[-1] in ("id", "ids", "identifier")


_DOCUMENT_WORDS = frozenset(("policy", "document", "template", "rule", "script", "payload"))
# a description that says the field names a resource ("Name of a TLS Inspection Policy resource", "The name of
# the policy initially applied", "Resource name of this data policy")
_NAMES_A_RESOURCE = re.compile(r"^(?:(?:optional|required|output only|immutable)\.\s*)*(?:the\s+)?"
                               r"(?:full\s+|fully qualified\s+|unique\s+)?(?:resource\s+)?name of (?:a|an|the|this)\b"
                               r"|\bresource name of\b")


def _kind_by_words(parts: list[str], desc: str, siblings: frozenset[str]) -> str | None:  # noqa: C901 - one table
    if not parts:
        return None
    last = parts[-1]
    prev = parts[-2] if len(parts) > 1 else ""
    joined = "".join(parts)
    lowered_siblings = {s.lower() for s in siblings}
    if "cidr" in parts and last not in ("id", "ids", "name", "association", "state", "status", "count"):
        return "cidr"
    if "email" in joined or last in ("mail",):
        return "email"
    if prev == "language" and last in ("tag", "tags"):  # a BCP 47 tag ("en-US"), not a tag of the record
        return "language"
    if prev == "security" and last in ("group", "groups"):  # an EC2 security group's id ("sg-0f3a..."), not a team
        return "id:group"
    if ("kms" in parts or prev == "crypto") and last in ("name", "key", "id", "arn") and "ring" not in parts:
        return "kms_key_version" if "version" in parts else "kms_key"  # a key's path or ARN, not "search-key-14"
    if last in ("url", "uri", "link", "href", "homepage", "website", "endpoint", "urls", "uris", "links",
                "webhook", "callback") or joined.endswith(("url", "uri")):
        if "avatar" in joined or "image" in joined or "photo" in joined or "icon" in joined or "logo" in joined:
            return "image_url"
        if last == "endpoint" and ("host" in desc or "port" in desc):
            return "host_port"
        return "url"
    if last in ("arn", "arns"):
        return "arn"
    if last in ("etag", "fingerprint"):
        return "etag"
    if last in ("uid", "uuid", "guid") or joined.endswith(("uuid", "guid")):
        return "uuid"
    if last in ("sha", "sha1", "hash", "checksum", "digest", "256", "md5", "crc32c") or "sha" in parts:
        return "sha"
    if last == "ocid":
        return "ocid"
    if last in ("kind",):
        return "kind"
    if last == "code":
        if prev in ("country", "region"):
            return "country_code"
        if prev in ("currency",):
            return "currency"
        if prev in ("language", "locale", "lang"):
            return "language"
        if prev in ("postal", "zip", "post"):
            return "postal_code"
        if prev in ("status", "http", "response"):
            return "http_status"
        if prev in ("error", "reason", "result", "failure"):
            return "error_code"
        if prev in ("auth", "authorization", "verification", "confirmation", "otp", "access"):
            return "secret"
        if prev in ("promo", "coupon", "discount", "voucher"):
            return "promo_code"
        if prev in ("airport",):
            return "airport"
        return "short_code"
    if last in ("currency", "currencies"):
        return "currency"
    if last in ("country", "countries", "nationality") or joined.endswith("countrycode"):
        return "country_code" if "code" in desc or "iso" in desc or "alpha" in desc else "country"
    if last in ("language", "languages", "locale", "lang", "locales"):
        return "language"
    if last in ("timezone", "tz") or (last == "zone" and prev == "time"):
        return "timezone"
    if last in ("zone", "zones") or (last == "location" and "zone" in desc):
        return "zone"
    if last in ("region", "regions") or joined in ("location", "locationid", "locations"):
        return "region"
    if last == "city" or last in ("locality", "town"):
        return "city"
    if last in ("sublocality", "district", "neighborhood", "neighbourhood"):
        return "district"
    if last in ("state", "province", "area") and prev in ("administrative", "admin"):
        return "us_state"
    if last in ("postcode", "zip", "zipcode") or joined.endswith("postalcode"):
        return "postal_code"
    if last in ("street", "line1", "line2", "address1", "address2", "1", "2", "3") and \
            ("address" in parts or "line" in parts or last in ("street", "line1", "address1")):
        return "street"
    if last in ("address", "addresses", "addresse"):
        if "ipv6" in joined:  # an endpoint's ipv6Address, never "6058 Ellison Wells"
            return "ipv6"
        if "ipv4" in joined:
            return "ipv4"
        if prev in ("ip", "ipv4", "internal", "external", "public", "private", "nat", "host", "server", "network",
                    "peer", "source", "destination", "gateway", "node", "remote", "local", "client", "bind"):
            return "ipv4"
        if prev in ("mac", "hardware"):
            return "mac"
        if prev in ("email", "mail"):
            return "email"
        if prev in ("wallet", "contract", "crypto", "eth", "bitcoin") or \
                {"btc", "bitcoin", "wallet", "crypto"} & set(parts) or "bitcoin" in desc[:80]:
            return "token"
        if "ip" in desc[:40] or "ipv4" in desc:
            return "ipv4"
        return "street_address"
    if last in ("ip", "ips", "ipv4", "nat") or joined.endswith(("ipaddress", "ipv4")):
        return "ipv4"
    if last == "ipv6":
        return "ipv6"
    if last in ("cidr", "cidrs", "subnet", "prefix") and ("cidr" in joined or "ip" in joined or "range" in joined
                                                            or "cidr" in desc or "ip" in desc[:60]):
        return "cidr" if last != "subnet" else "aws_id:subnet"
    if last in ("range", "ranges") and ("ip" in parts or "cidr" in desc or "ip address" in desc):
        return "cidr"
    if last in ("mac",):
        return "mac"
    if last in ("subdomain", "subdomains"):
        return "dns_label"
    if last in ("subnet", "subnets", "subnetwork", "subnetworks") and "cidr" not in desc:
        return "subnet"
    if last == "point" and prev == "entry":
        return "resource_name:entrypoint"
    if last in ("hostname", "host", "domain", "domains", "fqdn", "dns") or joined.endswith(("hostname", "domainname",
                                                                                             "dnsname")):
        if last == "host" and prev in ("ssh", "smtp", "db", "database", "redis", "server"):
            return "hostname"
        return "hostname"
    if last == "port" or joined.endswith("port"):
        return "port"
    if last in ("phone", "mobile", "fax", "telephone", "msisdn") or "phone" in joined:
        return "phone"
    if last in ("username", "login", "handle", "nickname", "screenname", "alias") or joined.endswith("username"):
        return "username"
    if last in ("firstname", "first", "given") or joined.endswith(("firstname", "givenname")):
        return "first_name"
    if last in ("lastname", "surname") or (last == "family" and prev in ("", "name")) or \
            joined.endswith(("lastname", "familyname", "surname")):
        return "last_name"  # a person's family name; DocDB's DBParameterGroupFamily is no surname
    if last in ("by",) or (last == "user" and prev in ("created", "updated", "modified", "last")):
        return "email"
    if last in ("password", "passphrase", "passwd"):
        return "password"
    if last in ("secret", "token", "tokens", "key", "keys", "credential", "credentials", "apikey", "signature",
                "nonce", "salt", "cursor", "certificate", "cert", "pem", "verifier") or joined.endswith(("apikey",
                                                                                                       "secretkey")):
        if last == "key" and ({"value"} & lowered_siblings or prev in ("tag", "label", "metadata", "attribute",
                                                                        "property", "sort", "partition")):
            return "tag_key"
        if last == "key" and ("kms" in parts or "kms" in desc or "crypto" in desc):
            return "kms_key"
        if last in ("certificate", "cert", "pem"):
            return "certificate"
        if last in ("cursor", "token") and prev in ("page", "next", "continuation", "sync", "resume", "start",
                                                     "sequence", "pagination"):
            return "page_token"
        return "secret"
    if last in ("version", "versions", "revision", "release", "tag") and not (last == "tag" and prev in ("network",)):
        if last == "tag" and prev in ("image", "docker", "git", "release"):
            return "version"
        if last == "tag":
            return "tag"
        if prev in ("api",):
            return "api_version"
        if "secret" in parts:
            return "secret_version"
        return "version"
    if last in ("tags", "labels", "keywords", "topics", "categories"):
        return "tag"
    if last == "runtime":
        return "runtime"
    if last in ("image", "images") and ("docker" in desc or "container" in desc or "registry" in desc):
        return "container_image"
    if last in ("image", "images", "avatar", "photo", "icon", "logo", "thumbnail", "picture"):
        return "image_url"
    if last == "rgb" and {"color", "colour"} & set(parts):  # Drive's folderColorRgb: "#4986e7"
        return "rgb_color"
    if last in ("color", "colour") or joined.endswith(("color", "colour")):
        return "hex_color" if ("hex" in desc or "#" in desc or "rgb" in desc or "hex" in joined) else "color_name"
    if last in ("mime", "mimetype", "contenttype", "media") or joined.endswith(("mimetype", "contenttype", "mediatype")):
        return "mime"
    if last in ("type",) and prev in ("content", "mime", "media", "file"):
        return "mime"
    if last in ("encoding", "charset"):
        return "encoding"
    if last in ("file", "filename", "files", "attachment") or joined.endswith("filename"):
        return "file_name"
    if last in ("path", "paths", "directory", "folder", "dir", "mount", "mountpoint"):
        if prev in ("s3", "gcs", "bucket", "storage", "output", "input", "source", "destination", "artifact"):
            return "storage_uri"
        return "file_path"
    if last in ("bucket", "buckets"):
        return "bucket"
    if last in ("branch",) or joined.endswith("branch"):
        return "branch"
    if last in ("commit", "ref") and prev != "page":
        return "sha"
    if last in ("network", "networks", "vpc", "vnet"):
        return "network"
    if last in ("project", "projects"):
        return "project"
    if last in ("account", "accounts") and "service" in parts:
        return "service_account"
    if last in ("agent",) and "service" in parts:
        return "service_account"
    if last in ("account",):
        return "account"
    if last in ("machine", "instance") and "type" in desc:
        return "machine_type"
    if joined.endswith("machinetype") or joined.endswith("instancetype") or joined.endswith("nodetype"):
        return "machine_type"
    if last in ("cron", "schedule", "schedules") or "cron" in desc:
        return "cron"
    if last in ("duration", "timeout", "ttl", "interval", "period", "retention", "delay", "window", "age") and \
            last != "window":
        return "duration"
    if last == "window":
        return "maintenance_window"
    if last == "pattern" and _DESIGN_PATTERN.search(desc) and not _REGEX_CUE.search(desc):
        return "category:pattern"  # eBay's item aspect: "Text describing the pattern used on the item. ..."
    if last in ("regex", "pattern", "glob"):
        return "regex"
    if last == "policy" and prev and prev not in _POLICY_DOCUMENTS and "json" not in desc and "document" not in desc \
            and not _NAMES_A_RESOURCE.search(desc):
        # Cloud Storage's admissionPolicy ("The cache-level entry admission policy."): a setting, not a document
        return "category:" + ("retention_policy" if prev in _RETENTION_WORDS else "policy")
    if last in _DOCUMENT_WORDS and _NAMES_A_RESOURCE.search(desc):
        # "Name of a TLS Inspection Policy resource": a reference to a policy, not a policy document
        return "resource_name:" + last
    if last in ("json", "yaml", "xml", "html", "markdown", "snippet", "template", "payload", "document", "script",
                "query", "sql", "expression", "filter", "condition", "policy", "rule"):
        return {"json": "json", "yaml": "yaml", "xml": "xml", "html": "html", "snippet": "html", "sql": "sql",
                "query": "sql" if "sql" in desc else "filter", "filter": "filter", "expression": "filter",
                "condition": "filter", "policy": "json", "document": "json", "payload": "json", "script": "script",
                "markdown": "text", "template": "name", "rule": "filter"}[last]
    if last in ("role", "roles"):
        return "role"
    if last in ("scope", "scopes", "permission", "permissions"):
        return "scope"
    if last in ("status", "state", "phase", "stage", "health", "condition", "lifecycle"):
        return "status"
    if last in ("visibility", "privacy", "access"):
        return "visibility"
    if last == "model":
        return _model_kind(parts, desc)
    if last in ("type", "kind", "category", "class", "tier", "level", "plan", "mode", "method", "format", "family",
                "flavor", "variant", "edition", "sku", "platform", "engine", "protocol", "series", "style",
                "source", "medium", "channel", "provider", "priority", "severity", "unit", "units", "operator",
                "gender", "direction", "frequency", "strategy", "policy"):
        return "category:" + last
    if last in _TIME_WORDS or (last in _EVENT_WORDS and prev not in ("auto",)):
        if last == "date" and "time" not in desc:
            return "date"
        return "timestamp"
    if last in ("year",):
        return "year"
    if last in ("number", "no", "num") and prev in ("invoice", "order", "ticket", "case", "reference", "po",
                                                    "receipt", "confirmation", "tracking", "policy", "claim"):
        return "reference_number"
    if last in ("number", "no", "num") and prev in ("account", "card", "routing", "serial", "tax", "vat", "license",
                                                    "passport", "registration"):
        return "digits"
    if last in ("value", "amount", "price", "total", "cost", "balance", "fee", "budget", "micros", "spend") and (
            {"currency", "currencycode", "currency_code"} & lowered_siblings or last != "value" or
            ("amount" in parts or "money" in desc or "price" in desc)):
        return "micros" if last == "micros" or "micros" in joined else "money"
    if prev in ("max", "maximum") and last in ("items", "results", "records", "entries", "keys", "uploads"):
        return "numeric:count"  # how many a page holds (Route 53's MaxItems "100"), never "kyc-docs"
    if last in ("count", "size", "bytes", "quantity", "length", "limit", "capacity", "seconds", "minutes", "hours",
                "days", "percent", "percentage", "score", "rating", "weight", "height", "width", "depth", "rate",
                "ratio", "threshold", "kbps", "mbps", "gb", "mb", "cpu", "memory", "replicas", "nodes", "retries",
                "concurrency", "parallelism",  # a reservation's job concurrency is a number, never "shipping-reservation-7"
                "attempts", "latitude", "longitude", "lat", "lng", "lon",
                # measurements ("liner_thickness", "ground_elevation", "well_yield", "artesian_pressure")
                "diameter", "thickness", "elevation", "altitude", "yield", "pressure", "conductivity",
                "storativity", "transmissivity", "drawdown", "distance", "radius", "temperature"):
        return "numeric:" + last
    if last in ("value", "values") and prev in ("secret", "password", "token", "api"):
        return "secret"  # a measurement protocol secret's secretValue is a secret, not a setting's value
    if last in ("value", "values") and ({"key", "name", "tagkey"} & lowered_siblings):
        return "tag_value"
    if last in ("value", "values"):
        return "config_value"
    if last in ("id", "ids", "identifier", "identifiers", "ref", "reference", "number", "no", "num", "key"):
        return "id:" + (prev or "record")
    if names_a_failure(parts):
        return "failure"  # why a record failed (ErrorMessage, failureReason), never a note of success
    if last in _TEXT_WORDS:
        return "message" if last in ("message",) else "text"
    if last in _TITLE_WORDS:
        return "title"
    if "log" in parts and (last == "group" or (last == "name" and prev == "group")):  # "/aws/lambda/orders-api"
        return "log_group"
    if last in ("display",) or (last == "name" and prev in ("display", "friendly", "pretty", "human")):
        return "display_name"
    if last in ("name", "names", "fullname") or joined.endswith("fullname"):
        if prev == "group" and len(parts) > 2 and parts[-3] not in _PEOPLE_GROUPS:
            return "resource_name:group"  # a DB parameter group's or subnet group's name, not a team's
        return _name_kind(prev, desc)
    if last in _PERSON_NOUNS or last in ("assignee", "owner", "author"):
        return "person"
    if last == "issuer" and ({"clientid", "clientsecret", "client_id", "client_secret", "jwksuri", "jwks_uri"}
                             & lowered_siblings or any(w in desc for w in ("oidc", "openid", "oauth", "token", "jwt"))):
        return "url"  # an OpenID Connect provider's issuer is its URL, never "Vang LLC" (a card's issuer is a bank)
    if last in _COMPANY_NOUNS:
        return "company"
    if last == "group" and prev == "age":  # a listing's ageGroup: "adult", not a team
        return "age_group"
    if last == "group" and prev in _RESOURCE_GROUPS:  # a resourceGroup or placementGroup is named as a resource
        return "resource_name:group"
    if last in ("team", "group", "department", "squad", "unit", "division"):
        return "team"
    if last == "position" and prev in _PLACE_IN_TEXT:  # a range's endPosition is an offset, not a job title
        return "numeric:position"
    if last == "job" and (prev or not _PERSON_SIBLINGS & lowered_siblings):
        return "resource_name:job"  # KMS's importJob, a pipeline's job: a job that runs, not "Adult guidance worker"
    if last in ("job", "occupation", "position", "profession"):
        return "job"
    if last in ("slug",):
        return "slug"
    if last in ("service", "services", "function", "application", "app", "database", "db", "cluster", "queue",
                "topic", "stream", "pool", "repository", "repo", "registry", "namespace", "workspace", "pipeline",
                "dataset", "table", "index", "bucket", "volume", "disk", "snapshot", "instance", "server", "node",
                "channel", "site", "environment", "env", "metric", "field", "column", "attribute", "property",
                "parameter", "param", "header", "argument", "arg", "variable", "entrypoint", "entry", "handler"):
        return "resource_name:" + last
    return None


_PEOPLE_GROUPS = frozenset(("user", "users", "team", "contact", "member", "members", "people", "admin", "owner",
                            "mail", "email", "distribution", "access", "display"))
# what a position that is no job is a place in ("startPosition" of a text range, "cursorPosition")
_PLACE_IN_TEXT = frozenset(("start", "end", "begin", "current", "cursor", "byte", "char", "character", "offset",
                            "scroll", "read", "write", "initial", "final", "playback", "stream", "file", "text"))
# what a group that is no group of people gathers ("resourceGroup", "placementGroup"; a securityGroup is an id)
_RESOURCE_GROUPS = frozenset(("resource", "resources", "subnet", "parameter", "placement", "scaling",
                              "target", "node", "instance", "replication", "option", "cache", "cluster", "capacity",
                              "host", "volume", "availability", "rule", "endpoint", "device", "thing", "server",
                              "task", "worker", "consumer", "network", "storage", "billing", "ad", "line", "item"))
_AI_WORDS = frozenset(("ai", "ml", "llm", "language", "embedding", "embeddings", "foundation", "generative", "genai",
                       "inference", "prediction", "chat", "completion", "bedrock", "vertex", "tuned", "base"))
_PRICING_WORDS = frozenset(("pricing", "billing", "licensing", "license", "payment", "charging", "cost", "revenue",
                            "business"))
# a model that is a way of doing something ("consistencyModel", "dataModel"), neither a product nor a scheme
_APPROACH_WORDS = frozenset(("data", "consistency", "security", "permission", "deployment", "delivery", "access",
                             "threat", "execution", "operating"))
_REGEX_CUE = re.compile(r"regular expression|regex|\bglob|wildcard|\bmatch")
_DESIGN_PATTERN = re.compile(r"\b(?:describ\w*|design|fabric|print|aspect)\b")
_POLICY_DOCUMENTS = frozenset(("iam", "bucket", "access", "resource", "key", "trust", "assume", "queue", "topic",
                               "repository", "registry", "lifecycle", "permissions", "inline", "managed", "session",
                               "endpoint", "vault", "domain", "secret", "table", "stream", "function", "file",
                               "backup", "scaling", "s3", "kms", "sns", "sqs"))
_RETENTION_WORDS = frozenset(("deletion", "retention", "removal", "termination", "update", "replacement"))


def _model_kind(parts: list[str], desc: str) -> str:
    """What a ``...model`` field names: a machine-learning model ("gpt-4o-mini"), a pricing scheme
    ("subscription"), a way of doing something ("standard"), or, by default, a product's model ("XR-200" for
    an antenna, never "llama-3-8b")."""
    said = set(parts[:-1])
    if said & _AI_WORDS or any(cue in desc for cue in ("machine learning", "language model", "llm", " ai ",
                                                        "foundation model", "generative", "embedding")):
        return "category:model"
    if said & _PRICING_WORDS:
        return "category:scheme"
    if said & _APPROACH_WORDS:
        return "category:type"
    return "category:device_model"


def _name_kind(prev: str, desc: str) -> str:
    """What a ``...name`` field holds, by the word before it."""
    if prev in _PERSON_NOUNS or prev in ("full", "legal", "given", "real", "contact", "display_user"):
        return "person"
    if prev in _COMPANY_NOUNS or prev in ("business", "company", "organization"):
        return "company"
    if prev in ("domain", "host", "dns", "server"):
        return "hostname"
    if prev in ("file",):
        return "file_name"
    if prev in ("bucket",):
        return "bucket"
    if prev in ("branch",):
        return "branch"
    if prev in ("team", "group", "department"):
        return "team"
    if prev in ("city", "town"):
        return "city"
    if prev in ("country",):
        return "country"
    if prev in ("street",):
        return "street"
    if prev in ("region", "zone"):  # AWS's regionName: "us-east-1", not a name of its own
        return prev
    if prev in ("", "friendly", "display", "short", "long", "common", "pretty", "title", "human"):
        if "display" in desc or "human" in desc or "friendly" in desc or "descriptive" in desc:
            return "display_name"
        return "name"
    return "resource_name:" + prev


_DESCRIPTION_KINDS = (
    ("iso 4217", "currency"), ("currency code", "currency"), ("iso 3166", "country_code"),
    ("country code", "country_code"), ("bcp 47", "language"), ("bcp-47", "language"), ("language code", "language"),
    ("iana time zone", "timezone"), ("time zone", "timezone"), ("timezone", "timezone"),
    ("amazon resource name", "arn"), ("(arn)", "arn"), (" arn ", "arn"),
    ("email address", "email"), ("e-mail", "email"), ("phone number", "phone"), ("ip address", "ipv4"),
    ("cidr", "cidr"), ("mime type", "mime"), ("media type", "mime"), ("content type", "mime"),
    ("hostname", "hostname"), ("host name", "hostname"), ("domain name", "hostname"), ("url", "url"),
    ("uri", "url"), ("rfc 3339", "timestamp"), ("rfc3339", "timestamp"), ("iso 8601", "timestamp"),
    ("timestamp", "timestamp"), ("base64", "base64"), ("base-64", "base64"), ("sha-256", "sha"),
    ("sha256", "sha"), ("json", "json"), ("version", "version"), ("semver", "version"),
    ("service account", "service_account"), ("region", "region"), ("zone", "zone"),
    ("display name", "display_name"), ("human-readable", "display_name"), ("human readable", "display_name"),
    ("description", "text"), ("message", "message"), ("comment", "text"), ("the name of", "name"),
    ("identifier", "id:record"), (" id ", "id:record"), ("token", "secret"),
)


def _kind_by_description(desc: str) -> str | None:
    if not desc:
        return None
    padded = f" {desc} "
    for needle, kind in _DESCRIPTION_KINDS:
        if needle in padded:
            return kind
    return None


_RECORD_NAMES = frozenset(("title", "display_name", "name", "person", "company"))


@lru_cache(maxsize=16384)
def names_record(name: str) -> bool:
    """Whether a field called ``name`` is what a record is called (a name or a title)."""
    kind = field_kind(name)
    if kind in _RECORD_NAMES:
        return True
    parts = words(name)
    return kind.startswith("resource_name:") and bool(parts) and parts[-1] == "name"


# -- examples a spec gives ---------------------------------------------------------------------------

_EXAMPLE_CUE = re.compile(r"(?:e\.g\.|for example|example:|examples:|such as|ex:|like)\s*,?\s*", re.IGNORECASE)
_QUOTED = re.compile(r"[`\"']([^`\"'\s][^`\"']{0,78})[`\"']")
# what comes before an example cue that makes its values counter-examples ("rejects bad addresses like ...")
_REFUSED = re.compile(r"\b(?:reject(?:s|ed)?|invalid|bad|not allowed|disallowed|forbidden|must not|cannot|can't|"
                      r"not valid|not supported|unsupported|illegal)\b", re.IGNORECASE)


@lru_cache(maxsize=16384)
def described_examples(description: str) -> tuple[str, ...]:
    """Values a description gives as examples ("... e.g. `us-central1`", 'For example: "en_US"'): quoted
    strings right after an example cue."""
    out: list[str] = []
    for cue in _EXAMPLE_CUE.finditer(description or ""):
        if _REFUSED.search(description, max(0, cue.start() - 60), cue.start()):
            continue  # "Service Directory rejects bad addresses like: * `8.8.8` * `test:bad:address`": no examples
        tail = description[cue.end():cue.end() + 160]
        if tail.lstrip("`'\" ").startswith(("{", "[")):  # a JSON document: its keys and ':' are no examples
            continue
        for found in _QUOTED.finditer(tail[:120]):
            value = found.group(1).strip()
            if value and not value.endswith((".", ",")) and "{" not in value and "\\" not in value and \
                    len(value) <= 80 and any(c.isalnum() for c in value):
                out.append(value)
            if len(out) >= 4:
                break
    return tuple(dict.fromkeys(out))


def vary_example(example: str, rng: random.Random) -> str:
    """An example value with its digits and hex runs redrawn (its shape and words kept): ``sg-0a1b2c3d``
    -> ``sg-7f02e9c1``, ``2024-01-05`` keeps the shape of a date."""
    between = _between_digits(example)
    if between is None:
        return example
    leads = _leading_digits(example)
    out = [between[0]]
    for n, text in enumerate(between[1:]):
        if n in leads:  # a number's first digit: "7200s" -> "5930s", never "0593s"
            out.append(_DIGIT_TEXT[1 + int(rng.random() * 9)])
        else:
            out.append(_DIGIT_TEXT[int(rng.random() * 10)])  # as _num(rng, 0, 9): one draw per digit
        out.append(text)
    return "".join(out)


@lru_cache(maxsize=16384)
def _leading_digits(example: str) -> frozenset[int]:
    """The places (among an example's digits) of each number's first digit where the example writes no zero
    there: a run of two or more digits that no letter, digit or point runs on from (``sg-0a1b`` and the
    ``05`` of ``1.05`` are no numbers of their own)."""
    leads, place = set(), 0
    for i, ch in enumerate(example):
        if not ch.isdigit():
            continue
        before = example[i - 1] if i else ""
        runs_on = before.isalnum() or before in (".", ",")
        if ch != "0" and i + 1 < len(example) and example[i + 1].isdigit() and not runs_on:
            leads.add(place)
        place += 1
    return frozenset(leads)


_DIGIT_TEXT = tuple("0123456789")


@lru_cache(maxsize=16384)
def _between_digits(example: str) -> tuple[str, ...] | None:
    """The text between an example's digits (``None`` for a date, which keeps its digits): worked out once
    per example, as a state draws the same examples thousands of times."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", example):
        return None
    parts, run = [], []
    for ch in example:
        if ch.isdigit():
            parts.append("".join(run))
            run = []
        else:
            run.append(ch)
    parts.append("".join(run))
    return tuple(parts)


# -- making a value ----------------------------------------------------------------------------------

QUALIFIERS = (
    "billing", "payments", "checkout", "analytics", "marketing", "support", "inventory", "search", "reporting",
    "onboarding", "orders", "shipping", "fraud", "audit", "security", "finance", "sales", "growth", "mobile", "web",
    "partner", "internal", "customer", "catalog", "pricing", "loyalty", "notifications", "identity", "logging",
    "metrics", "backup", "archive", "ingest", "export", "sync", "warehouse", "frontend", "backend", "edge", "gateway",
    "batch", "streaming", "media", "video", "docs", "legal", "compliance", "recruiting", "payroll", "crm",
    "helpdesk", "events", "ads", "campaigns", "newsletter", "feedback", "research", "ml", "training", "inference",
    "geo", "maps", "routing", "fleet", "iot", "telemetry", "devices", "firmware", "sandbox", "data", "platform",
    "ops", "infra", "portal", "storefront", "subscriptions", "invoicing", "ledger", "accounts", "risk", "kyc",
    "chat", "voice", "sms", "email", "cdn", "cache", "scheduler", "jobs", "workflow", "etl", "lakehouse", "bi",
)
ENVIRONMENTS = ("prod", "staging", "dev", "test", "qa", "eu", "us", "apac", "blue", "green", "v2", "east", "west")
_TEAMS = ("Platform", "Data", "Growth", "Payments", "Security", "Mobile", "Infrastructure", "Support", "Finance",
          "Marketing", "Research", "Identity", "Search", "Reliability", "Analytics", "Operations", "Design")


def _title(word: str) -> str:
    return {"ml": "ML", "iot": "IoT", "sms": "SMS", "crm": "CRM", "kyc": "KYC", "cdn": "CDN", "etl": "ETL",
            "bi": "BI", "qa": "QA", "eu": "EU", "us": "US", "apac": "APAC", "v2": "v2", "ops": "Ops"}.get(
        word, word[:1].upper() + word[1:])


def _noun_words(ctx: ValueContext) -> list[str]:
    return [w for w in ctx.noun.lower().replace("-", " ").split() if w not in ("info", "details", "data")] or ["item"]


def _slug_noun(ctx: ValueContext) -> str:
    return "-".join(_noun_words(ctx)[-2:])


# records whose name is a slug in every API that has them: a repository is "checkout-api", never
# "Huffman Recruiting" (Gitea and GitHub refuse spaces in it)
_SLUG_NAMED = frozenset(("repo", "repository", "bucket", "branch", "package", "namespace", "queue", "topic", "cluster",
                        "database", "function", "secret", "registry", "volume", "subnet", "network", "webhook"))


_BY_WORDS = frozenset(("created", "modified", "updated", "deleted", "owned", "requested", "submitted", "approved",
                       "assigned", "reported", "shared", "invited", "uploaded", "published", "edited", "reviewed"))


@lru_cache(maxsize=4096)
def person_context(ctx: ValueContext, field: str) -> ValueContext:
    """The context of an object held in a field named for a person (``creator``, ``author``,
    ``lastModifyingUser``, ``createdBy``): its display name is a person's ("Ana Diaz"), never a title of
    the record it sits in ("Blue Invoicing Case"); ``ctx`` itself for any other field."""
    said = words(field)
    if said[-1:] and said[-1] in _PERSON_NOUNS:
        return replace(ctx, noun=said[-1])
    if len(said) >= 2 and said[-1] == "by" and said[-2] in _BY_WORDS:
        return replace(ctx, noun="user")
    return ctx


def display_name(rng: random.Random, ctx: ValueContext) -> str:
    """A name a person gave the record ("EU Billing Server", "Checkout Dashboard")."""
    noun = " ".join(_title(w) for w in _noun_words(ctx)[-2:])
    roll = rng.random()
    if ctx.noun.split()[-1:] and ctx.noun.split()[-1] in _PERSON_NOUNS:
        return person(rng)
    said = set(noun.lower().split())
    if roll < 0.3:
        return f"{_title(_other_qualifier(rng, said))} {noun}"
    if roll < 0.45:
        first = _other_qualifier(rng, said)
        return f"{_title(first)} {_title(_other_qualifier(rng, said | {first}))} {noun}"
    if roll < 0.55:
        return f"{_title(_pick(rng, ENVIRONMENTS))} {_title(_other_qualifier(rng, said))} {noun}"
    if roll < 0.72:  # people seldom repeat the kind of record in its name: "Green Ops", "EU Checkout"
        first = _other_qualifier(rng, said)
        return f"{_title(first)} {_title(_other_qualifier(rng, said | {first}))}"
    if roll < 0.85:
        return f"{_title(_pick(rng, ENVIRONMENTS))} {_title(_other_qualifier(rng, said))}"
    last = _pick(rng, _people()[1])
    return f"{last} {_title(_pick(rng, QUALIFIERS))}"


def _other_qualifier(rng: random.Random, said: set[str]) -> str:
    """A qualifier none of ``said`` already is (never "Mobile Mobile Runner" or "Workflow workflow")."""
    qual = _pick(rng, QUALIFIERS)
    for _ in range(4):
        if qual not in said:
            break
        qual = _pick(rng, QUALIFIERS)
    return qual


def resource_slug(rng: random.Random, ctx: ValueContext, noun: str = "") -> str:
    """A name in the style cloud resources get (``payments-queue-prod``, ``resize-images``)."""
    head = noun or _slug_noun(ctx)
    roll = rng.random()
    if roll < 0.35:
        return f"{_pick(rng, QUALIFIERS)}-{head}"
    if roll < 0.6:
        return f"{_pick(rng, QUALIFIERS)}-{head}-{_pick(rng, ENVIRONMENTS)}"
    if roll < 0.8:
        return f"{_pick(rng, QUALIFIERS)}-{_pick(rng, QUALIFIERS)}"
    return f"{_pick(rng, QUALIFIERS)}-{head}-{_num(rng, 1, 40)}"


def person(rng: random.Random) -> str:
    """A person's full name."""
    first, last = _people()
    return f"{_pick(rng, first)} {_pick(rng, last)}"


def company(rng: random.Random) -> str:
    """A company's name."""
    last = _people()[1]
    roll = rng.random()
    if roll < 0.35:
        return f"{_pick(rng, last)} {_pick(rng, ('Inc', 'LLC', 'Group', 'Ltd', 'GmbH', 'Partners', 'Co'))}"
    if roll < 0.6:
        return f"{_pick(rng, last)} & {_pick(rng, last)}"
    if roll < 0.8:
        return f"{_pick(rng, last)} {_title(_pick(rng, ('labs', 'systems', 'logistics', 'analytics', 'foods', 'health', 'media', 'retail', 'studios', 'energy', 'robotics', 'outdoor', 'textiles', 'capital', 'travel')))}"
    return f"{_pick(rng, ('North', 'Blue', 'Silver', 'Bright', 'Red', 'Green', 'Iron', 'Summit', 'Harbor', 'Pine', 'Cedar', 'Lake', 'Stone', 'River', 'Golden', 'Maple'))}{_pick(rng, ('wind', 'field', 'path', 'line', 'point', 'gate', 'bridge', 'stone', 'wood', 'view', 'works', 'ridge'))} {_title(_pick(rng, ('outdoor', 'foods', 'software', 'logistics', 'health', 'media', 'supply', 'bank', 'travel', 'energy')))}"


_FREE_DOMAINS = ("example.com", "example.org", "example.net", "mail.example.com", "corp.example.com")


def email(rng: random.Random) -> str:
    """An email address at a reserved example domain."""
    first, last = _people()
    f, la = _pick(rng, first).lower(), _pick(rng, last).lower().replace("'", "")
    shape = _num(rng, 0, 3)
    local = (f"{f}.{la}", f"{f[0]}{la}", f"{f}_{la}{_num(rng, 1, 99)}", f"{f}{_num(rng, 10, 99)}")[shape]
    return f"{local}@{_pick(rng, _FREE_DOMAINS)}"


_SENTENCES = (
    "Used by the {team} team for {qual} work.", "Created for the {qual} rollout in {month}.",
    "Handles {qual} traffic for {company}.", "Owned by {first}; ask before changing the settings.",
    "Temporary {noun} for the {qual} migration, remove after {month}.", "Primary {noun} for {qual} in {place}.",
    "Shared with {company} for the {qual} pilot.", "Replaces the old {qual} {noun} set up in {year}.",
    "Backs the {qual} dashboard that {team} reviews weekly.", "Do not delete: the {qual} jobs depend on it.",
    "{Qual} {noun} for the {place} office.", "Staging copy of the {qual} {noun}; safe to reset.",
    "Set up by {first} for the {qual} review.", "Keeps {qual} records for {company}.",
    "Nightly {qual} {noun}, kept for 30 days.", "Test {noun} for the {qual} integration with {company}.",
)
_MESSAGES = (
    "Operation completed successfully.", "The request was accepted and is being processed.",
    "Waiting for the {qual} job to finish.", "Validation passed.", "Provisioning is in progress.",
    "Ready.", "The {noun} is up to date.", "Retrying after a timeout from the upstream service.",
    "Scheduled for {month} maintenance.", "Last sync finished without errors.", "Awaiting approval from {first}.",
    "Deployment succeeded.", "Queued behind 2 other requests.", "Stopped by {first} for maintenance.",
)
# what a field saying why a record failed holds (``ErrorMessage``, ``failureReason``): a failure, never "Validation
# passed." or "Ready."
_FAILURES = (
    "Timed out waiting for the {qual} service to respond.", "Permission denied on the {qual} bucket.",
    "The {qual} endpoint returned HTTP 503.", "Quota exceeded for {qual} requests; retry later.",
    "Connection refused by the upstream {qual} host.", "Invalid credentials for the {qual} connector.",
    "The {noun} could not be validated: a required setting is missing.", "Rate limit reached on the {qual} API.",
    "Certificate for the {qual} endpoint has expired.", "The {qual} job failed after 3 retries.",
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def sentence(rng: random.Random, ctx: ValueContext, pool: tuple[str, ...] = _SENTENCES) -> str:
    """One sentence a person wrote about a record."""
    first = _people()[0]
    qual = _other_qualifier(rng, set(_noun_words(ctx)[-2:]))
    return _pick(rng, pool).format(
        team=_pick(rng, _TEAMS), qual=qual, Qual=_title(qual), company=company(rng), first=_pick(rng, first),
        month=_pick(rng, _MONTHS), noun=" ".join(_noun_words(ctx)[-2:]), place=_pick(rng, _places())[0],
        year=_num(rng, 2019, 2024))


_AWS_REGIONS = ("us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "eu-north-1", "ap-southeast-1",
                "ap-northeast-1", "ap-south-1", "sa-east-1", "ca-central-1")
_GOOGLE_REGIONS = ("us-central1", "us-east1", "us-east4", "us-west1", "europe-west1", "europe-west4",
                   "europe-north1", "asia-east1", "asia-northeast1", "asia-south1", "australia-southeast1",
                   "southamerica-east1")
# the display names Google gives its regions in ``locations.list``
GOOGLE_REGION_CITIES = {
    "us-central1": "Iowa", "us-east1": "South Carolina", "us-east4": "Northern Virginia", "us-west1": "Oregon",
    "europe-west1": "Belgium", "europe-west4": "Netherlands", "europe-north1": "Finland", "asia-east1": "Taiwan",
    "asia-northeast1": "Tokyo", "asia-south1": "Mumbai", "australia-southeast1": "Sydney",
    "southamerica-east1": "São Paulo"}
_WEB_REGIONS = ("us-east", "us-west", "eu-central", "eu-west", "ap-southeast", "ap-northeast")


def region(rng: random.Random, ctx: ValueContext) -> str:
    """A region of the API's cloud."""
    return _pick(rng, {"aws": _AWS_REGIONS, "google": _GOOGLE_REGIONS}.get(ctx.provider, _WEB_REGIONS))


def _hex(rng: random.Random, n: int) -> str:
    return "".join(_pick(rng, "0123456789abcdef") for _ in range(n))


def _alnum(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_pick(rng, alphabet) for _ in range(n))


def _timestamp(rng: random.Random) -> str:
    return (f"{_num(rng, 2022, 2025)}-{_num(rng, 1, 12):02d}-{_num(rng, 1, 28):02d}T"
            f"{_num(rng, 0, 23):02d}:{_num(rng, 0, 59):02d}:{_num(rng, 0, 59):02d}Z")


AWS_HOME_REGION = "us-east-1"  # where an AWS environment's own resources are (its endpoint's region, its ids')


@lru_cache(maxsize=1024)
def aws_account(service: str) -> str:
    """The AWS account an environment's records live in: twelve digits of its own, the same in every ARN,
    owner and account field of one service (never AWS's documentation placeholder ``123456789012``)."""
    return str(10**11 + int(hashlib.sha256(f"aws-account:{service}".encode()).hexdigest()[:12], 16) % (9 * 10**11))


def _arn(rng: random.Random, ctx: ValueContext, kind_words: list[str]) -> str:
    noun = "-".join(w for w in kind_words if w not in ("arn",))[-40:] or _slug_noun(ctx)
    service = ctx.service if ctx.provider == "aws" else "iam"
    if noun.endswith("role") or "role" in kind_words:
        return f"arn:aws:iam::{aws_account(ctx.service)}:role/{resource_slug(rng, ctx, 'role')}"
    if "kms" in kind_words or "key" in kind_words:
        return f"arn:aws:kms:{AWS_HOME_REGION}:{aws_account(ctx.service)}:key/{_uuid(rng)}"
    if "topic" in kind_words or "sns" in kind_words:
        return f"arn:aws:sns:{AWS_HOME_REGION}:{aws_account(ctx.service)}:{resource_slug(rng, ctx, 'topic')}"
    if "bucket" in kind_words or "s3" in kind_words:
        return f"arn:aws:s3:::{resource_slug(rng, ctx, 'bucket')}"
    noun = noun or "resource"
    return f"arn:aws:{service}:{AWS_HOME_REGION}:{aws_account(ctx.service)}:{noun}/{resource_slug(rng, ctx)}"


def _json_document(rng: random.Random, ctx: ValueContext, name_words: list[str]) -> str:
    """A JSON document held in a string field, of what the field is: an AWS resource policy for a policy
    of an AWS API (its service's actions, by the account's root), else a small settings object whose
    keys each hold a value of their own kind (never ``{"retries": "eu-west-1"}``)."""
    if ctx.provider == "aws" and "policy" in name_words:
        account = aws_account(ctx.service)
        statement = {"Sid": f"Allow{_title(_pick(rng, QUALIFIERS))}Access", "Effect": "Allow",
                     "Principal": {"AWS": f"arn:aws:iam::{account}:root"},
                     "Action": f"{ctx.service}:{_pick(rng, ('Get*', 'List*', 'Describe*', 'Put*'))}",
                     "Resource": f"arn:aws:{ctx.service}:{AWS_HOME_REGION}:{account}:*"}
        return json.dumps({"Version": "2012-10-17", "Statement": [statement]}, separators=(",", ":"))
    settings = (("enabled", lambda: rng.random() < 0.8), ("retries", lambda: _num(rng, 1, 5)),
                ("region", lambda: region(rng, ctx)), ("owner", lambda: email(rng)),
                ("timeoutSeconds", lambda: _pick(rng, (30, 60, 120, 300))),
                ("environment", lambda: _pick(rng, ENVIRONMENTS)))
    chosen = sorted(rng.sample(range(len(settings)), _num(rng, 1, 3)))
    return json.dumps({settings[i][0]: settings[i][1]() for i in chosen}, separators=(", ", ": "))


def _uuid(rng: random.Random) -> str:
    import uuid

    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _money(rng: random.Random) -> str:
    return f"{rng.uniform(5, 2500):.2f}"


_RUNTIMES = ("python312", "python311", "nodejs20", "nodejs22", "go122", "java21", "ruby33", "dotnet8", "php83")
_BRANCHES = ("main", "develop", "release/2.4", "feature/checkout-redesign", "hotfix/login-timeout", "release/1.9",
             "feature/search-filters", "fix/rate-limit")
_STATUSES = ("active", "enabled", "ready", "running", "pending", "available", "in_progress", "completed", "draft",
             "scheduled", "paused", "provisioning")
_CATEGORY_WORDS = {
    "type": ("standard", "custom", "default", "managed", "internal", "external", "primary", "secondary"),
    "tier": ("basic", "standard", "premium", "enterprise", "free"), "plan": ("starter", "team", "business", "enterprise"),
    "level": ("info", "warning", "low", "medium", "high"), "priority": ("low", "normal", "high", "urgent"),
    "severity": ("low", "medium", "high", "critical"), "mode": ("automatic", "manual", "read-write", "read-only"),
    "method": ("GET", "POST", "card", "bank_transfer", "email"), "format": ("json", "csv", "parquet", "pdf", "xml"),
    "protocol": ("HTTPS", "HTTP", "TCP", "UDP", "gRPC", "SFTP"), "platform": ("linux", "windows", "android", "ios", "web"),
    "engine": ("postgres", "mysql", "redis", "elasticsearch", "mongodb"), "unit": ("seconds", "bytes", "count", "percent", "requests"),
    "units": ("seconds", "bytes", "count", "percent"), "gender": ("female", "male", "non-binary"),
    "direction": ("inbound", "outbound"), "frequency": ("daily", "weekly", "monthly", "hourly"),
    "channel": ("email", "sms", "web", "push", "phone"), "source": ("web", "api", "import", "mobile", "partner"),
    "medium": ("email", "cpc", "organic", "referral", "social"), "provider": ("google", "okta", "azure-ad", "github", "saml"),
    "model": ("gemini-1.5-pro", "claude-3-haiku", "gpt-4o-mini", "llama-3-8b", "mistral-7b-instruct",
              "text-embedding-3-small"),
    "device_model": ("XR-200", "AX-1800", "KX-3100", "EX-4400", "M-530", "TL-8600", "RT-2200", "SX-90"),
    "scheme": ("subscription", "pay-as-you-go", "per-seat", "flat-rate", "usage-based"),
    "pattern": ("solid", "striped", "floral", "plaid", "polka dot", "checked", "herringbone"),
    "retention_policy": ("retain", "delete", "snapshot"),
    "edition": ("standard", "enterprise", "developer"), "family": ("general-purpose", "compute-optimized", "memory-optimized"),
    "operator": ("equals", "contains", "greater_than", "less_than"), "strategy": ("rolling", "blue-green", "canary", "recreate"),
    "category": ("billing", "technical", "account", "security", "general", "feature request"),
    "class": ("standard", "nearline", "coldline", "archive"), "style": ("compact", "detailed", "summary"),
    "flavor": ("small", "medium", "large"), "variant": ("control", "treatment-a", "treatment-b"),
    "sku": ("SKU-10482", "SKU-22031", "SKU-30917"), "series": ("n2", "e2", "c3", "m3", "t2d"),
    "kind": ("standard", "custom", "managed"), "policy": ("default", "strict", "permissive", "custom"),
}
_MACHINE_TYPES = {"aws": ("t3.micro", "t3.medium", "m5.large", "m6i.xlarge", "c6g.2xlarge", "r5.large"),
                  "google": ("e2-standard-4", "n2-standard-8", "n1-standard-1", "c3-highcpu-22", "e2-medium"),
                  "web": ("s-1vcpu-1gb", "s-2vcpu-4gb", "c-4", "m-8vcpu-64gb")}
_TLDS = ("com", "org", "net", "io", "dev", "app")


def _hostname(rng: random.Random, ctx: ValueContext) -> str:
    qual = _pick(rng, QUALIFIERS)
    if ctx.provider == "aws":
        return f"{qual}-{_hex(rng, 6)}.{region(rng, ctx)}.elb.amazonaws.com" if rng.random() < 0.3 else \
            f"{qual}.{_pick(rng, ('example.com', 'example.net', 'example.org'))}"
    return f"{qual}.{_pick(rng, ('example.com', 'example.net', 'example.org', 'internal.example.com'))}"


def _url(rng: random.Random, ctx: ValueContext, kind_words: list[str]) -> str:
    tail = [w for w in kind_words if w not in ("url", "uri", "link", "href", "html", "api")]
    collection = "/".join(tail[-2:]) if tail else ""
    base = f"https://{ctx.host}"
    record = resource_slug(rng, ctx)
    noun = "-".join(_noun_words(ctx)[-1:])
    plural = plural_of(noun)  # "policies", not "policys"
    if "html" in kind_words:
        return f"https://{ctx.host.removeprefix('api.')}/{record}"
    if collection:
        return f"{base}/{plural}/{record}/{collection}"
    return f"{base}/{plural}/{record}"


def _make_text(kind: str, rng: random.Random, ctx: ValueContext, name_words: list[str]) -> str | None:  # noqa: C901
    """Values of the text kinds (names, sentences, codes of people and places)."""
    if kind == "email":
        return email(rng)
    if kind == "person":
        return person(rng)
    if kind == "first_name":
        return _pick(rng, _people()[0])
    if kind == "last_name":
        return _pick(rng, _people()[1])
    if kind == "username":
        first, last = _people()
        f, la = _pick(rng, first).lower(), _pick(rng, last).lower()
        return _pick(rng, (f"{f}{la[0]}", f"{f}.{la}", f"{f[0]}{la}{_num(rng, 1, 99)}", f"{f}-{la}", f"{f}{_num(rng, 1, 999)}"))
    if kind == "company":
        return company(rng)
    if kind == "display_name" or kind == "title":
        return display_name(rng, ctx)
    if kind == "name":
        slugged = ctx.provider in ("aws", "google") or (ctx.noun.split() or [""])[-1] in _SLUG_NAMED
        return resource_slug(rng, ctx) if slugged else display_name(rng, ctx)
    if kind == "team":
        return f"{_pick(rng, _TEAMS)} team"
    if kind == "job":
        return _pick(rng, _jobs())
    if kind == "text":
        return sentence(rng, ctx)
    if kind == "message":
        return sentence(rng, ctx, _MESSAGES)
    if kind == "failure":
        return sentence(rng, ctx, _FAILURES)
    if kind == "city":
        return _pick(rng, _places())[0]
    if kind == "district":
        return _pick(rng, ("Downtown", "Old Town", "Riverside", "Harbourfront", "Midtown", "Westend", "Northside"))
    if kind == "country":
        return _pick(rng, _countries())[0]
    if kind == "country_code":
        return _pick(rng, _places())[1]
    if kind == "us_state":
        from faker.providers.address.en_US import Provider

        return _pick(rng, tuple(sorted(Provider.states_abbr)))
    if kind == "street" or kind == "street_address":
        from faker.providers.address.en_US import Provider

        first, last = _people()
        return f"{_num(rng, 1, 9999)} {_pick(rng, last)} {_pick(rng, Provider.street_suffixes)}"
    if kind == "postal_code":
        return f"{_num(rng, 10000, 99999)}"
    if kind == "timezone":
        return _pick(rng, _places())[2]
    if kind == "currency":
        return _pick(rng, _currencies()[:12]) if rng.random() < 0.85 else _pick(rng, _currencies())
    if kind == "language":
        return _pick(rng, ("en", "en-US", "en-GB", "fr", "fr-FR", "de", "de-DE", "es", "es-ES", "pt-BR", "ja", "nl",
                           "it", "sv", "pl", "ko", "zh-CN"))
    if kind == "phone":
        return f"+1 {_num(rng, 201, 989)} 555 {_num(rng, 100, 199):04d}"
    if kind == "color_name":
        return _pick(rng, _color_names())
    if kind == "rgb_color":
        return "#" + _hex(rng, 6)
    if kind == "age_group":
        return _pick(rng, ("adult", "kids", "teen", "toddler", "infant", "newborn"))
    if kind == "log_group":
        group = f"{_pick(rng, QUALIFIERS)}-{_pick(rng, ('api', 'worker', 'sync', 'jobs', 'web'))}"
        return _pick(rng, (f"/aws/lambda/{group}", f"/ecs/{group}", f"/aws/apigateway/{group}")) \
            if ctx.provider == "aws" else f"{group}-logs"
    if kind == "hex_color":
        return _hex(rng, 6).upper()
    if kind == "mime":
        return _pick(rng, ("application/json", "text/plain", "application/pdf", "image/png", "image/jpeg", "text/csv",
                           "text/html")) if rng.random() < 0.7 else _pick(rng, _mime_types())
    if kind == "encoding":
        return _pick(rng, ("UTF-8", "gzip", "base64", "ISO-8859-1"))
    if kind == "file_name":
        return f"{_pick(rng, QUALIFIERS)}-{_pick(rng, ('report', 'export', 'invoice', 'summary', 'backup', 'notes', 'data'))}-" \
               f"{_num(rng, 2022, 2025)}{_num(rng, 1, 12):02d}.{_pick(rng, ('pdf', 'csv', 'json', 'png', 'txt', 'zip', 'xlsx'))}"
    if kind == "file_path":
        return f"/{_pick(rng, ('var', 'srv', 'data', 'opt', 'home'))}/{_pick(rng, QUALIFIERS)}/{_pick(rng, ('logs', 'exports', 'uploads', 'config', 'cache'))}"
    if kind == "storage_uri":
        scheme = "s3" if ctx.provider == "aws" else ("gs" if ctx.provider == "google" else "s3")
        return f"{scheme}://{resource_slug(rng, ctx, 'bucket')}/{_pick(rng, QUALIFIERS)}/{_num(rng, 2022, 2025)}/"
    if kind == "bucket":
        return resource_slug(rng, ctx, _pick(rng, ("exports", "assets", "logs", "backups", "uploads", "artifacts")))
    if kind == "branch":
        return _pick(rng, _BRANCHES)
    if kind == "status":
        return _pick(rng, _STATUSES)
    if kind == "visibility":
        return _pick(rng, ("public", "private", "internal"))
    if kind.startswith("category:"):
        return _pick(rng, _CATEGORY_WORDS.get(kind[9:], _CATEGORY_WORDS["type"]))
    if kind == "tag":
        return _pick(rng, QUALIFIERS) if rng.random() < 0.6 else _pick(rng, ENVIRONMENTS)
    if kind == "tag_key":
        return _pick(rng, ("environment", "team", "owner", "cost-center", "project", "app", "tier", "managed-by"))
    if kind == "tag_value":
        return _pick(rng, (*ENVIRONMENTS, *QUALIFIERS[:30]))
    if kind == "role":
        return (f"roles/{_pick(rng, ('viewer', 'editor', 'owner', 'storage.admin', 'logging.viewer'))}"
                if ctx.provider == "google" else _pick(rng, ("admin", "editor", "viewer", "owner", "member", "billing")))
    if kind == "scope":
        return _pick(rng, ("read", "write", "read:user", "repo", "admin:org", "openid profile email",
                           "https://www.googleapis.com/auth/cloud-platform"))
    if kind == "runtime":
        return _pick(rng, _RUNTIMES)
    return None


def _make_code(kind: str, rng: random.Random, ctx: ValueContext, name_words: list[str]) -> str | None:  # noqa: C901
    """Values of the code kinds (ids, hosts, tokens, references to other resources)."""
    if kind == "timestamp":
        return _timestamp(rng)
    if kind == "date":
        return f"{_num(rng, 2022, 2025)}-{_num(rng, 1, 12):02d}-{_num(rng, 1, 28):02d}"
    if kind == "clock":
        return f"{_num(rng, 0, 23):02d}:{_pick(rng, ('00', '15', '30', '45'))}:00"
    if kind == "year":
        return str(_num(rng, 2018, 2025))
    if kind == "url":
        return _url(rng, ctx, name_words)
    if kind == "image_url":
        return f"https://images.example.com/{_pick(rng, QUALIFIERS)}/{_hex(rng, 10)}.{_pick(rng, ('png', 'jpg', 'webp'))}"
    if kind == "uuid":
        return _uuid(rng)
    if kind == "ipv4":
        return _pick(rng, (f"10.{_num(rng, 0, 255)}.{_num(rng, 0, 255)}.{_num(rng, 1, 254)}",
                           f"172.{_num(rng, 16, 31)}.{_num(rng, 0, 255)}.{_num(rng, 1, 254)}",
                           f"192.168.{_num(rng, 0, 255)}.{_num(rng, 1, 254)}",
                           f"{_pick(rng, (34, 35, 52, 54, 104, 203))}.{_num(rng, 0, 255)}.{_num(rng, 0, 255)}.{_num(rng, 1, 254)}"))
    if kind == "ipv6":
        return f"2001:db8:{_hex(rng, 4)}:{_hex(rng, 4)}::{_hex(rng, 3)}"
    if kind == "cidr":
        return f"10.{_num(rng, 0, 255)}.{_pick(rng, (0, 16, 32, 64, 128))}.0/{_pick(rng, (16, 20, 24, 28))}"
    if kind == "mac":
        return ":".join(_hex(rng, 2) for _ in range(6))
    if kind == "hostname":
        return _hostname(rng, ctx)
    if kind == "host_port":
        return f"{_hostname(rng, ctx)}:{_pick(rng, (443, 5432, 6379, 8080, 9092, 2181))}"
    if kind == "port":
        return str(_pick(rng, (22, 80, 443, 3306, 5432, 6379, 8080, 8443, 9000, 9092, 27017)))
    if kind == "arn":
        return _arn(rng, ctx, name_words)
    if kind == "etag":
        return _pick(rng, (_hex(rng, 16), f"BwX{_alnum(rng, 9)}=", f"W/\"{_hex(rng, 8)}\""))
    if kind == "sha":
        return _hex(rng, 40)
    if kind == "ocid":
        return f"ocid1.{_slug_noun(ctx).replace('-', '')}.oc1.{_pick(rng, ('iad', 'phx', 'fra', 'lhr'))}.{_alnum(rng, 24, string.ascii_lowercase + string.digits)}"
    if kind == "base64":
        return _alnum(rng, 22, string.ascii_letters + string.digits + "+/") + "=="
    if kind == "intstring":
        return str(_num(rng, 100000, 99999999))
    if kind == "id_number":
        return str(_num(rng, 10**8, 10**10 - 1))
    if kind == "decimalstring":
        return f"{rng.uniform(0, 1000):.2f}"
    if kind == "duration":
        return _pick(rng, ("30s", "60s", "300s", "900s", "3600s", "86400s")) if ctx.provider == "google" else \
            _pick(rng, ("PT30S", "PT5M", "PT1H", "P1D", "P7D"))
    if kind == "maintenance_window":
        day = _pick(rng, ("sun", "mon", "tue", "wed", "thu", "fri", "sat"))
        hour = _num(rng, 0, 22)
        return f"{day}:{hour:02d}:00-{day}:{hour + 1:02d}:00"
    if kind == "fieldmask":
        return ",".join(_pick(rng, ("displayName", "labels", "description", "state")) for _ in range(2))
    if kind == "password":
        return _alnum(rng, 16, string.ascii_letters + string.digits + "!#%*")
    if kind == "secret":
        return f"{_pick(rng, ('sk', 'tok', 'key', 'ak'))}_{_alnum(rng, 24)}"
    if kind == "page_token":
        return _alnum(rng, 16)
    if kind in ("kms_key", "kms_key_version"):
        if ctx.provider == "aws":
            return _arn(rng, ctx, ["kms", "key"])
        key = f"projects/{resource_slug(rng, ctx, 'prod')}/locations/{region(rng, ctx)}/keyRings/{_pick(rng, QUALIFIERS)}/cryptoKeys/{_pick(rng, QUALIFIERS)}-key"
        return f"{key}/cryptoKeyVersions/{_num(rng, 1, 4)}" if kind == "kms_key_version" else key
    if kind == "certificate":
        return f"-----BEGIN CERTIFICATE-----\nMII{_alnum(rng, 40)}\n-----END CERTIFICATE-----"
    if kind == "version":
        return _pick(rng, (f"{_num(rng, 1, 5)}.{_num(rng, 0, 20)}.{_num(rng, 0, 9)}", f"v{_num(rng, 1, 4)}",
                           f"{_num(rng, 1, 12)}.{_num(rng, 0, 9)}"))
    if kind == "api_version":
        return _pick(rng, ("v1", "v2", "2023-10-16", "v1beta"))
    if kind == "secret_version":
        return f"projects/{resource_slug(rng, ctx, 'prod')}/secrets/{_pick(rng, QUALIFIERS)}-secret/versions/{_num(rng, 1, 9)}"
    if kind == "container_image":
        registry = {"aws": f"{aws_account(ctx.service)}.dkr.ecr.{region(rng, ctx)}.amazonaws.com",
                    "google": f"{region(rng, ctx).split('-')[0]}-docker.pkg.dev/{resource_slug(rng, ctx, 'prod')}/apps"}.get(
            ctx.provider, "registry.example.com/apps")
        return f"{registry}/{_pick(rng, QUALIFIERS)}:{_num(rng, 1, 5)}.{_num(rng, 0, 20)}.{_num(rng, 0, 9)}"
    if kind == "machine_type":
        return _pick(rng, _MACHINE_TYPES.get(ctx.provider, _MACHINE_TYPES["web"]))
    if kind == "cron":
        return _pick(rng, ("0 2 * * *", "*/15 * * * *", "0 9 * * 1-5", "30 3 * * 0", "0 0 1 * *"))
    if kind == "regex":
        return _pick(rng, ("^[a-z0-9-]+$", "^INV-[0-9]{6}$", ".*\\.csv$", "^[A-Z]{3}$"))
    if kind == "json":
        return _json_document(rng, ctx, name_words)
    if kind == "yaml":
        return f"replicas: {_num(rng, 1, 5)}\nimage: {_pick(rng, QUALIFIERS)}:latest\n"
    if kind == "xml":
        return f"<config><name>{_pick(rng, QUALIFIERS)}</name><enabled>true</enabled></config>"
    if kind == "html":
        return f'<div class="banner"><a href="https://shop.example.com/{_pick(rng, QUALIFIERS)}">{_title(_pick(rng, QUALIFIERS))} sale</a></div>'
    if kind == "sql":
        return f"SELECT id, status FROM {_pick(rng, QUALIFIERS)}_{_pick(rng, ('orders', 'events', 'users'))} WHERE created_at > '2024-01-01'"
    if kind == "filter":
        return _pick(rng, (f'status = "{_pick(rng, _STATUSES)}"', f"labels.env = {_pick(rng, ENVIRONMENTS)}",
                           f"severity >= {_pick(rng, ('WARNING', 'ERROR'))}", f"team:{_pick(rng, QUALIFIERS)}"))
    if kind == "script":
        return f"#!/bin/sh\n/usr/local/bin/{_pick(rng, QUALIFIERS)}-sync --verbose\n"
    if kind == "money":
        return _money(rng)
    if kind == "micros":
        return str(_num(rng, 5, 5000) * 10000)
    if kind.startswith("numeric:"):
        unit = kind[8:]
        if unit in ("latitude", "lat"):
            return f"{rng.uniform(-60, 60):.5f}"
        if unit in ("longitude", "lng", "lon"):
            return f"{rng.uniform(-150, 150):.5f}"
        if unit in ("percent", "percentage", "score", "rating"):
            return str(_num(rng, 1, 99))
        if unit in ("rate", "ratio", "threshold"):
            return f"{rng.uniform(0, 1):.2f}"
        if unit in ("bytes",):
            return str(_num(rng, 1, 900) * 1024 * _pick(rng, (1, 1024)))
        return str(_num(rng, 1, 500))
    if kind == "network":
        if ctx.provider == "google":
            return f"projects/{resource_slug(rng, ctx, 'prod')}/global/networks/{_pick(rng, ('default', 'shared-vpc', 'prod-vpc', 'data-vpc'))}"
        if ctx.provider == "aws":
            return f"vpc-{_hex(rng, 17)}"
        return _pick(rng, ("default", "private", "corp-net", "dmz"))
    if kind == "subnet":
        if ctx.provider == "google":
            return f"projects/{resource_slug(rng, ctx, 'prod')}/regions/{region(rng, ctx)}/subnetworks/{_pick(rng, QUALIFIERS)}-subnet"
        if ctx.provider == "aws":
            return f"subnet-{_hex(rng, 17)}"
        return make_value("cidr", rng, ctx)
    if kind == "dns_label":
        return f"{_pick(rng, QUALIFIERS)}-{_pick(rng, ENVIRONMENTS)}"
    if kind == "config_value":
        return _pick(rng, ("true", "false", "enabled", "1024", "300", "utf8mb4", "ON", "OFF", "0.75", "default",
                           "read-committed", "info", "UTC", "16MB"))
    if kind.startswith("aws_id:"):
        return f"{kind[7:]}-{_hex(rng, 17)}"
    if kind == "project":
        return f"{_pick(rng, QUALIFIERS)}-{_pick(rng, ENVIRONMENTS)}-{_num(rng, 100, 999)}"
    if kind == "service_account":
        project = f"{_pick(rng, QUALIFIERS)}-{_pick(rng, ENVIRONMENTS)}-{_num(rng, 100, 999)}"
        return f"{_pick(rng, QUALIFIERS)}-sa@{project}.iam.gserviceaccount.com" if ctx.provider == "google" else email(rng)
    if kind == "account":
        return aws_account(ctx.service) if ctx.provider == "aws" else (f"acct_{_alnum(rng, 14)}" if rng.random() < 0.5 else str(_num(rng, 1000000, 9999999)))
    if kind == "region":
        return region(rng, ctx)
    if kind == "zone":
        base = region(rng, ctx)
        return f"{base}{_pick(rng, 'abc')}" if ctx.provider == "aws" else f"{base}-{_pick(rng, 'abc')}"
    if kind == "http_status":
        return str(_pick(rng, (200, 201, 204, 400, 404, 409, 429, 500, 503)))
    if kind == "error_code":
        return _pick(rng, ("NOT_FOUND", "PERMISSION_DENIED", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "timeout", "rate_limited"))
    if kind == "promo_code":
        return f"{_pick(rng, ('SPRING', 'WELCOME', 'SAVE', 'VIP', 'BLACKFRIDAY'))}{_num(rng, 10, 50)}"
    if kind == "airport":
        return _pick(rng, ("JFK", "LHR", "CDG", "SFO", "NRT", "AMS", "FRA", "SIN", "ORD", "LIS"))
    if kind == "short_code":
        return _alnum(rng, _num(rng, 4, 8), string.ascii_uppercase + string.digits)
    if kind == "reference_number":
        prefix = {"invoice": "INV", "order": "ORD", "ticket": "TCK", "case": "CASE", "receipt": "RCP", "claim": "CLM",
                  "policy": "POL", "tracking": "1Z"}.get(name_words[-2] if len(name_words) > 1 else "", "REF")
        return f"{prefix}-{_num(rng, 2022, 2025)}-{_num(rng, 1000, 99999):05d}"
    if kind == "digits":
        return "".join(str(_num(rng, 0, 9)) for _ in range(_pick(rng, (8, 10, 12))))
    if kind.startswith("id:"):
        return _foreign_id(rng, ctx, kind[3:])
    if kind.startswith("resource_name:") or kind == "slug":
        noun = kind.split(":", 1)[1] if ":" in kind else _slug_noun(ctx)
        if noun in ("header",):
            return _pick(rng, ("X-Request-Id", "Authorization", "X-Api-Key", "Content-Type", "X-Correlation-Id"))
        if noun in ("field", "column", "attribute", "property", "parameter", "param", "variable", "argument", "arg"):
            return _pick(rng, ("customer_email", "order_total", "created_at", "status", "region", "plan", "country",
                               "account_id", "sku", "quantity"))
        if noun in ("entrypoint", "entry", "handler", "function"):
            return _pick(rng, ("handle_request", "main", "process_event", "on_upload", "resize_image", "sync_orders"))
        if noun in ("metric",):
            return _pick(rng, ("request_count", "latency_ms", "error_rate", "cpu_utilization", "queue_depth"))
        return resource_slug(rng, ctx, noun if noun != "record" else "")
    if kind == "token":
        return _alnum(rng, 12, string.ascii_lowercase + string.digits)
    if kind == "kind":
        if ctx.provider == "google":
            return f"{ctx.service}#{''.join(_title(w) if i else w for i, w in enumerate(_noun_words(ctx)))}"
        return _pick(rng, _CATEGORY_WORDS["kind"])
    return None


_ID_PREFIX = re.compile(r"[^a-z]")


def _foreign_id(rng: random.Random, ctx: ValueContext, noun: str) -> str:
    """An id another record of the API would carry, in the provider's style."""
    if ctx.provider == "aws":
        prefix = {"subnet": "subnet", "vpc": "vpc", "security": "sg", "group": "sg", "instance": "i", "image": "ami",
                  "volume": "vol", "snapshot": "snap", "key": "key", "account": ""}.get(noun, "")
        if noun in ("account", "catalog"):  # Glue's CatalogId is the account's id
            return aws_account(ctx.service)
        if prefix:
            return f"{prefix}-{_hex(rng, 17)}"
        return _alnum(rng, 10, string.ascii_lowercase + string.digits)
    if ctx.provider == "google":
        return str(_num(rng, 10**11, 10**12 - 1)) if _numeric_ids(ctx.service, noun) else \
            f"{_pick(rng, QUALIFIERS)}-{_hex(rng, 6)}"
    short = _ID_PREFIX.sub("", noun)[:4] or "id"
    return _pick(rng, (f"{short}_{_alnum(rng, 14)}", str(_num(rng, 100000, 9999999)), _uuid(rng)))


@lru_cache(maxsize=4096)
def _numeric_ids(service: str, noun: str) -> bool:
    """Whether a Google API's ids of one kind are numbers or slugs: one style per kind, so a list of SAS user
    ids never mixes "500407892062" with "streaming-936047"."""
    return hashlib.sha256(f"{service}:{noun}".encode()).digest()[0] < 128


def make_value(kind: str, rng: random.Random, ctx: ValueContext, name: str = "") -> str:
    """A value of ``kind`` (from :func:`field_kind`) for a field called ``name`` in ``ctx``."""
    if kind.startswith("const:"):
        return kind[6:]
    parts = words(name)
    made = _make_text(kind, rng, ctx, parts)
    if made is None:
        made = _make_code(kind, rng, ctx, parts)
    if made is None:  # an identifier named after the field itself
        head = "-".join(singular(p) for p in parts[-3:]) or _slug_noun(ctx)
        made = f"{head}-{_hex(rng, 4)}"
    return made


_EVENT_WORDS = frozenset(("created", "updated", "modified", "deleted", "expires", "expiry", "expiration", "last",
                         "start", "end", "creation", "modification", "started", "ended", "completed", "since"))


def _is_epoch(parts: list[str], last: str, desc: str) -> bool:
    """Whether an integer field is a point in time (a Unix time): ``createdDate`` ("The date and time the
    collection group was created"), ``updatedAt``, ``expiresAt``, a ``...Time`` the description calls epoch
    or Unix time, or whose other words say when (``creationTime``, ``lastModifiedTime``); never a duration
    (``timeoutSeconds``, ``responseTime`` in milliseconds)."""
    if "unix" in desc or "epoch" in desc or "seconds since" in desc or "milliseconds since" in desc:
        return last in ("created", "updated", "timestamp", "time", "at", "date", "expires", "modified", "ms", "millis")
    if last in ("created", "updated", "modified", "timestamp", "date", "at", "expires"):
        return not any(word in desc for word in ("duration", "number of", "how long", "days", "count"))
    return last == "time" and bool(_EVENT_WORDS.intersection(parts[:-1]))


def integer_range(name: str, description: str = "") -> tuple[int, int] | None:
    """A plausible range for an integer field by its meaning (``port``, ``ttl``, a Unix time, a count)."""
    parts = words(name)
    last = parts[-1] if parts else ""
    desc = (description or "").lower()
    if last in ("port",):
        return 1024, 65535
    if last in ("ttl", "timeout", "seconds", "duration", "interval", "retention"):
        return 30, 86400
    if last == "factor" and "replication" in parts:  # a Kafka topic's ReplicationFactor is 3, never 239
        return 1, 5
    if last in ("retries", "attempts", "retry"):
        return 1, 10
    if last == "index" and "start" in parts:  # SCIM's startIndex: the first result's index, 1-based
        return 1, 1
    if last in ("year",):
        return 2015, 2025
    if last == "zoom":  # a map's zoom level (0 is the whole world, about 20 a building)
        return 1, 20
    if _is_epoch(parts, last, desc):
        if "millisecond" in desc or last in ("ms", "millis"):
            return 1640995200000, 1767225599000
        return 1640995200, 1767225599  # 2022-01-01 .. 2025-12-31
    if last in ("bytes", "size"):
        return 1024, 5 * 1024 ** 3
    if last in ("micros",):
        return 50_000, 50_000_000
    if last in ("cents",) or ("amount" in parts and "cents" in desc):
        return 500, 250_000
    if last in ("percent", "percentage") or ("battery" in parts and last in ("level", "charge")) or \
            (last in ("level", "usage", "utilization", "progress", "completion") and "percent" in desc[:300]):
        return 0, 100
    return None
