"""Draws that can succeed on imported environments: seeded records always carry their name, patterned
values match their pattern in one pass, a project fixed per state never varies across a parallel turn,
and the planner gives up a category a builder cannot make (never on hand-written builders)."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from covert.build import DEFAULT_MIX, BuildConfig, TargetSampler, plan_round, split_of
from covert.env import get_builder, resolve_builders
from covert.imports import envs
from covert.imports.bind import _fill_wrapper
from covert.imports.fieldvalues import field_kind
from covert.imports.rowforms import filler
from covert.imports.statefactory import _choice, _randint, record, sample_regex, value_for
from covert.language.plurals import singular
from covert.language.query_leaks import _keys
from covert.synth.blueprint import parallel_tools
from covert.synth.generate import make_item
from covert.synth.stats import BuildStats
from tests.imports.api_fixtures import notes_google
from tests.imports.test_language_queries import cache_google

LIST_TOOL = "cache_projects_locations_instances_list"


def cache_builder():
    return envs.make_builder(cache_google())


def test_one_draw_helpers_stay_in_range_and_cover_it() -> None:
    rng = random.Random(5)
    drawn = {_randint(rng, 3, 7) for _ in range(2000)}
    assert drawn == {3, 4, 5, 6, 7}
    assert {_choice(rng, "abc") for _ in range(500)} == {"a", "b", "c"}
    with pytest.raises(IndexError):
        _choice(rng, [])


@pytest.mark.parametrize("pattern", [r"^[^a-z0-9]{6}$", r"^[A-F0-9]{8}$", r"^(?:ab|cd)[x-z]+-\d{3}$",
                                     r"^[^/\s]+$", r"^[a-z][a-z0-9-]{2,10}[a-z0-9]$"])
def test_sampled_values_match_their_pattern(pattern: str) -> None:
    compiled = re.compile(pattern)
    rng = random.Random(1)
    values = [sample_regex(pattern, rng) for _ in range(300)]
    assert all(compiled.search(v) for v in values), [v for v in values if not compiled.search(v)][:3]
    # a negated class excludes its whole range, not three letters drawn from it
    assert len(set(values)) > 30


def test_a_patterned_field_gets_a_matching_value_every_time() -> None:
    schema = {"type": "string", "pattern": r"^[A-Z]{2}-\d{4}$"}
    rng = random.Random(2)
    assert all(re.fullmatch(r"[A-Z]{2}-\d{4}", value_for(schema, "code", rng)) for _ in range(200))


def test_a_record_always_has_its_name_or_title() -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string"}, "displayName": {"type": "string"},
                                               "title": {"type": "string"}, "notes": {"type": "string"}}}
    records = [record(schema, random.Random(seed)) for seed in range(300)]
    assert all("displayName" in r and "title" in r for r in records)
    assert any("notes" not in r for r in records)  # other optional fields still come and go


def test_a_response_wrapper_is_filled_the_same_way_and_never_shared() -> None:
    response = {"type": "object", "required": ["kind", "items"],
                "properties": {"kind": {"type": "string"}, "items": {"type": "array"}}}
    first = _fill_wrapper(response, "items", [{"id": "a"}], "api:wrapper")
    again = _fill_wrapper(response, "items", [{"id": "b"}], "api:wrapper")
    assert first["kind"] == again["kind"] and list(first) == ["kind", "items"]
    first["kind"] = "changed"
    assert _fill_wrapper(response, "items", [], "api:wrapper")["kind"] == again["kind"]


def test_offered_tools_keys_follow_the_list_object() -> None:
    tools = [{"type": "function", "function": {"name": "listThings", "parameters": {"type": "object", "properties": {
        "page_size": {"type": "integer"}, "state": {"type": "string", "enum": ["ACTIVE"]}}}}}]
    names, keys, enums = _keys(tools)
    assert names == {"listThings"} and keys == {"page_size"} and enums == {"state": {"ACTIVE"}}
    other = [{"type": "function", "function": {"name": "getThing", "parameters": {"type": "object", "properties": {}}}}]
    assert _keys(other)[0] == {"getThing"}
    assert _keys(tools)[0] == {"listThings"}


def test_a_tool_whose_calls_cannot_differ_is_never_repeated_in_a_parallel_turn() -> None:
    builder = cache_builder()
    assert f"{LIST_TOOL}.parent" in builder.language.fixed  # one project and location per state
    assert LIST_TOOL in builder.tools
    assert LIST_TOOL not in parallel_tools(builder)
    hand = get_builder("retail")
    assert not hand.language.fixed and parallel_tools(hand)


def test_the_planner_gives_up_a_category_a_builder_failed_to_make_in_two_items() -> None:
    builders = [envs.make_builder(notes_google())]
    name = builders[0].name
    config = BuildConfig(builders=[name], num_tasks=10, mix=dict(DEFAULT_MIX))
    stats = BuildStats(builders)
    specs = plan_round(config, builders, TargetSampler(builders), 0, 200)
    wanted = next(c for c in ("sequential", "parallel", "simple") if any(s.category == c for s in specs))
    failed = [s for s in specs if s.category == wanted][:2]
    stats.record(failed[0], ["no_unique_descriptor"] * 6, {})
    assert (name, wanted) not in stats.exhausted()  # one item is no evidence
    stats.record(failed[1], ["no_unique_descriptor"] * 6, {})
    assert stats.exhausted() == {(name, wanted)}
    later = plan_round(config, builders, TargetSampler(builders), 200, 200, stats.exhausted())
    assert later and all(s.category != wanted for s in later)
    # a category that once made a task is never given up
    fine = BuildStats(builders)
    for spec in failed * 3:
        fine.record(spec, ["trivial"], {})
    fine.record(failed[0], [], {"tools": [], "query": "q", "category": wanted, "builder": name, "method": "m"})
    assert not fine.exhausted()


# (builder, category) pairs a hand-written builder cannot make, each for a stated reason:
# smart_home/parallel_multiple: its reads need a home id only a lookup gives, and a lookup then two reads
# together is two turns, which the category's one-turn invariant rejects (category_parallel_turns; see
# tests/synth/test_turn_checks.py::test_smart_home_makes_no_parallel_multiple_row_across_turns)
CANNOT_MAKE = frozenset({("smart_home", "parallel_multiple")})


def test_hand_written_builders_make_every_category_they_can() -> None:
    """The rule fires on the hand-written builders only for the categories they cannot make
    (:data:`CANNOT_MAKE`); any other pair found exhausted fails, and so does a listed pair made again."""
    builders = resolve_builders(["all"])
    config = BuildConfig(builders=[b.name for b in builders], num_tasks=400, seed=11)
    stats = BuildStats(builders)
    assign = split_of(11, config.split_ratios)
    for spec in plan_round(config, builders, TargetSampler(builders), 0, 400):
        outcome = make_item(spec, 11, assign)
        facts = {"tools": [c.name for c in outcome.task.calls], "query": outcome.task.query,
                 "category": outcome.task.category, "builder": spec.builder,
                 "method": outcome.task.method} if outcome.task else {}
        stats.record(spec, outcome.rejections, facts)
    assert stats.exhausted() == CANNOT_MAKE


def test_field_names_get_values_of_their_kind() -> None:
    rng = random.Random(3)
    assert all(re.fullmatch(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}", value_for({"type": "string"}, name, rng))
               for name in ("ipAddress", "externalIpAddress", "host_address") for _ in range(20))
    assert re.fullmatch(r"\d+ [A-Z][a-z'-]+ [A-Z][a-z]+", value_for({"type": "string"}, "address", rng))
    assert singular("apis") == "api" and singular("ips") == "ip"


def test_a_place_a_zoom_and_a_page_size_are_drawn_in_their_range() -> None:
    """Traccar's users had ``longitude`` 208.28 and a map ``zoom`` of 217, Route 53's list said ``MaxItems``
    "kyc-docs": a longitude lies within 180 degrees of Greenwich, a zoom level within the 0-22 a map has, and a
    page size written as text is a number."""
    rng = random.Random(5)
    for _ in range(200):
        assert -180 <= value_for({"type": "number"}, "longitude", rng) <= 180
        assert -180 <= value_for({"type": "number", "format": "double"}, "lng", rng) <= 180
        assert 0 <= value_for({"type": "integer"}, "zoom", rng) <= 22
        assert value_for({"type": "string"}, "MaxItems", rng).isdigit()
        # BigQuery's reservation "concurrency": "shipping-reservation-7", an account association's
        # "ErrorMessage": "Validation passed."
        assert value_for({"type": "string"}, "concurrency", rng).isdigit()
        assert filler("ErrorMessage", value_for({"type": "string"}, "ErrorMessage", rng)) is None
    # Identity Toolkit's OAuth IdP config had "issuer": "Vang LLC": an OpenID issuer is a URL; a card's issuer a bank
    assert field_kind("issuer", siblings=frozenset({"clientId", "clientSecret"})) == "url"
    assert field_kind("issuer", "The bank that issued the card.") == "company"
    # AWS PCS's cluster endpoint had "ipv6Address": "6058 Ellison Wells"
    assert field_kind("ipv6Address") == "ipv6" and field_kind("ipv4Address") == "ipv4"


def test_plans_an_imported_api_cannot_carry_are_rejected_when_drawn() -> None:
    """A create and a list of one table in one parallel turn (the list sees the create or not), and an id
    only lists of records nothing tells apart give: rejected at the plan, before any call runs."""
    from covert.errors import Rejected as PlanRejected
    from covert.synth.blueprint import _same_records_read_and_written, singles_out
    from covert.synth.graph import tool_graph

    builder = envs.make_builder(notes_google())
    graph = tool_graph(builder)
    with pytest.raises(PlanRejected) as caught:
        _same_records_read_and_written(builder, graph, ["notes_notes_insert", "notes_notes_list"])
    assert caught.value.reason == "parallel_order_dependent"
    _same_records_read_and_written(builder, graph, ["notes_notes_list", "notes_notes_get"])  # two reads
    hand = get_builder("retail")  # a domain with a signed-in user keeps its plans
    _same_records_read_and_written(hand, tool_graph(hand), ["cancel_pending_order", "get_order_details"])
    # notes are told apart by their titles; the same API with a reference that says nothing of a note is not
    entity, ref = next(iter(builder.language.references.items()))
    listed = next(t for t in builder.tools if any(o.in_list for o in graph.by_entity[t].get(entity, ())))
    single = next(t for t in builder.tools if any(not o.in_list for o in graph.by_entity[t].get(entity, ()))
                  and not builder.tools[t].writes)
    assert ref.by_field and singles_out(builder, listed, entity)
    blank = replace(builder, language=replace(builder.language, references={
        entity: replace(ref, by_field={}, superlative={})}))
    assert not singles_out(blank, listed, entity)  # a list of notes nothing tells apart
    assert singles_out(blank, single, entity)  # one note, returned by its id


def test_a_letters_only_name_is_made_of_words_not_random_letters() -> None:
    from covert.imports.fieldvalues import QUALIFIERS

    schema = {"type": "string", "pattern": "^([A-Za-z]_?)+$"}  # Lex's slot type names
    made = [value_for(schema, "name", random.Random(seed)) for seed in range(40)]
    assert all(re.fullmatch(schema["pattern"], m) for m in made)
    vocabulary = {w.lower() for w in QUALIFIERS}
    for value in made:  # "billing", "BillingOrders", "billing_orders": every piece is a word
        pieces = [p.lower() for p in re.findall(r"[A-Z]?[a-z]+", value)]
        assert pieces and all(p in vocabulary for p in pieces), value


def test_a_name_never_repeats_its_records_noun() -> None:
    from covert.imports.fieldvalues import ValueContext

    schema = {"type": "string", "examples": ["firewall"]}
    ctx = ValueContext(noun="firewall")
    made = {value_for(schema, "name", random.Random(seed), 0, ctx) for seed in range(30)}
    assert "firewall" not in made and len(made) > 20
    assert value_for(schema, "protocol", random.Random(0), 0, ctx) == "firewall"  # not a name: the example stands


def test_a_parent_described_as_a_path_is_a_path() -> None:
    from covert.imports.bind import described_path, scope_value

    described = "Required. The location name. For example: `projects/PROJECT_ID/locations/LOCATION_ID`."
    assert described_path(described) == "^projects/[^/]+/locations/[^/]+$"
    assert described_path("Format: projects/{project}/instances/{instance}") == "^projects/[^/]+/instances/[^/]+$"
    assert described_path("The parent of the pipeline.") is None
    value = scope_value({"type": "string", "description": described}, "parent", random.Random(3))
    assert re.fullmatch(r"projects/[a-z][a-z0-9-]+/locations/[a-z0-9-]+", value), value
    assert not scope_value({"type": "string"}, "parent", random.Random(3)).startswith("projects/")


def test_described_paths_need_plural_collections_and_keep_their_whole_path() -> None:
    from covert.imports.bind import described_path
    from covert.imports.fieldvalues import field_kind

    assert described_path("Required. Project, location. E.g., `projects/myproject/locations/US`") == \
        "^projects/[^/]+/locations/[^/]+$"  # not "locations/US" alone
    assert described_path("Use and/or to combine filters.") is None
    assert field_kind("regionName") == "region" and field_kind("zoneName") == "zone"


def test_a_quantity_google_sends_as_text_keeps_its_digits() -> None:
    from covert.imports.bound import clean_schema

    cleaned = clean_schema({"type": "object", "properties": {
        "concurrency": {"type": "string", "format": "int64"}, "accountId": {"type": "string", "format": "int64"}}}, 0)
    assert cleaned["properties"]["concurrency"]["pattern"] == "^-?[0-9]+$"
    assert "pattern" not in cleaned["properties"]["accountId"]  # ids stay in the API's id style
    assert all(value_for(cleaned["properties"]["concurrency"], "concurrency", random.Random(s)).isdigit()
               for s in range(10))


def test_a_url_names_its_collection_in_a_true_plural() -> None:
    """A return policy's URI reads .../policies/..., never .../policys/..."""
    from covert.imports.fieldvalues import ValueContext

    ctx = ValueContext(noun="return policy")
    made = {value_for({"type": "string", "format": "uri"}, "returnPolicyUri", random.Random(seed), 0, ctx)
            for seed in range(10)}
    assert all("/policies/" in url and "policys" not in url for url in made), made


def test_a_list_field_draws_items_of_its_singular() -> None:
    """The items of "countries" are countries and those of "categories" categories: the item's name is the
    list's singular ("country"), not the list's name less its last letter ("countrie")."""
    schema = {"type": "array", "items": {"type": "string"}}
    countries = [c for seed in range(8) for c in value_for(schema, "countries", random.Random(seed))]
    assert countries and not any("-" in c or c[:1].islower() for c in countries), countries
    addresses = [a for seed in range(8) for a in value_for(schema, "ipAddresses", random.Random(seed))]
    assert all(re.fullmatch(r"[\d.]+|[0-9a-f:]+", a) for a in addresses), addresses


def test_a_zone_scope_is_a_zone() -> None:
    """GKE's operations live in a zone such as us-central1-a, not in "recruiting-zone"."""
    from covert.imports.bind import scope_value
    from covert.imports.fieldvalues import ValueContext

    zones = {scope_value({"type": "string"}, "zone", random.Random(seed), ValueContext("google")) for seed in range(8)}
    assert all(re.fullmatch(r"[a-z]+-[a-z]+\d-[a-z]", z) for z in zones), zones


def test_a_json_document_in_a_description_gives_no_examples() -> None:
    """Workflow Executions' ``argument`` says "Example: `'{"argument":"{\\"firstName\\":...}"}'`": its keys and
    the ':' between them are no values (a create "with argument :" is filler); a plain example still is."""
    from covert.imports.fieldvalues import described_examples

    document = 'A JSON string. Example: `\'{"argument":"{\\\\"firstName\\\\":\\\\"FIRST\\\\"}"}\'`'
    assert described_examples(document) == ()
    assert described_examples('The region, e.g. `us-central1`; for example "en_US".') == ("us-central1", "en_US")
    assert described_examples('A separator such as ":" or "sep-1".') == ("sep-1",)


def test_a_decimal_or_a_measurement_held_as_text_is_a_number() -> None:
    """Django REST framework's DecimalField (``format: decimal``) and fields named as measurements hold numbers
    written as text, never a slug ("artesian_flow": "crm-well-apac")."""
    rng = random.Random(3)
    for name, schema in [("artesian_flow", {"type": "string", "format": "decimal"}),
                         ("aquifer_vulnerability_index", {"type": "string", "format": "decimal", "title": "AVI"}),
                         ("liner_thickness", {"type": "string", "maxLength": 9}),
                         ("ground_elevation", {"type": "string"}), ("well_yield", {"type": "string"})]:
        for _ in range(20):
            value = value_for(schema, name, rng)
            assert re.fullmatch(r"\d+(\.\d+)?", value), (name, value)
    # Dialogflow's `flow` names a flow: no measurement
    assert not re.fullmatch(r"[\d.]+", value_for({"type": "string"}, "flow", rng))


def test_an_optional_field_nothing_tells_the_meaning_of_is_left_unset() -> None:
    """An optional plain string whose name, description and format tell nothing it could hold is not filled
    with made-up text; a required one still gets a value, and one that says what it holds is filled."""
    schema = {"type": "object", "required": ["name", "casing_material"], "properties": {
        "name": {"type": "string"}, "backfill_material": {"type": "string", "maxLength": 100},
        "casing_material": {"type": "string"}, "water_quality_odour": {"type": "string"},
        "intended_water_use": {"type": "string", "examples": ["domestic", "irrigation"]},
        "contact_email": {"type": "string"}, "notes": {"type": "string", "description": "Free notes."}}}
    seen: set[str] = set()
    for seed in range(30):
        made = record(schema, random.Random(seed))
        assert "backfill_material" not in made and "water_quality_odour" not in made
        assert made["casing_material"] and made["name"]
        seen |= set(made)
    assert {"intended_water_use", "contact_email", "notes"} <= seen


def test_a_list_of_strings_says_each_item_once_and_a_count_is_never_negative() -> None:
    """``"daysOfTheWeek": ["TUESDAY", "TUESDAY"]`` is filler, unless the list must hold more items than there
    are distinct ones; a count whose name holds "lat" or "fee" among its letters is no latitude or fee."""
    days = {"type": "array", "minItems": 2, "maxItems": 2,
            "items": {"type": "string", "enum": ["MONDAY", "TUESDAY", "WEDNESDAY"]}}
    one = {"type": "array", "minItems": 3, "items": {"type": "string", "enum": ["ON"]}}
    for seed in range(60):
        rng = random.Random(seed)
        listed = value_for(days, "daysOfTheWeek", rng)
        assert len(listed) == len(set(listed)) == 2, listed
        assert value_for(one, "switches", rng) == ["ON", "ON", "ON"]  # minItems wins over saying it once
        for name in ("acknowledgedViolationCount", "translationCount", "feedbackCount", "relatedEntries"):
            assert value_for({"type": "integer"}, name, rng) >= 1, name
        assert -60 <= value_for({"type": "number"}, "latitude", rng) <= 60


def test_a_seeded_record_is_live_and_a_battery_level_is_a_percentage() -> None:
    """A record of a state holds no ``deleteTime`` (one that does reads as deleted) and a battery level is
    0-100, not 205."""
    schema = {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "createTime": {"type": "string", "format": "google-datetime"},
        "deleteTime": {"type": "string", "format": "google-datetime"}, "deleted_at": {"type": "string"},
        "purgeTime": {"type": "string", "format": "date-time"}, "batteryLevel": {"type": "integer"},
        "deletedCount": {"type": "integer"}, "deleted": {"type": "boolean"}, "isTrashed": {"type": "boolean"},
        "trashTime": {"type": "string", "format": "google-datetime"}}}
    seen: set[str] = set()
    for seed in range(40):
        made = record(schema, random.Random(seed))
        assert not {"deleteTime", "deleted_at", "purgeTime", "deleted", "isTrashed", "trashTime"} & set(made), made
        assert 0 <= made.get("batteryLevel", 0) <= 100, made
        seen |= set(made)
    assert {"createTime", "batteryLevel", "deletedCount"} <= seen  # a count of deleted things is no deletion time


def test_values_a_description_says_are_refused_are_no_examples() -> None:
    """Service Directory's ``address``: "rejects bad addresses like: * `8.8.8` * `test:bad:address`" names
    what the API refuses; a user asked to make an endpoint at ``test:bad:address`` before."""
    from covert.imports.fieldvalues import described_examples

    refused = "Optional. An IPv4 or IPv6 address. Service Directory rejects bad addresses like: * `8.8.8` * " \
              "`8.8.8.8:53` * `test:bad:address` * `[::1]` * `[::1]:8080` Limited to 45 characters."
    assert described_examples(refused) == ()
    drawn = {value_for({"type": "string", "description": refused}, "address", random.Random(s)) for s in range(30)}
    assert not drawn & {"8.8.8", "test:bad:address", "[::1]", "8.8.8.8:53"}, drawn
    assert described_examples("The zone, e.g. `us-central1-a`.") == ("us-central1-a",)


def test_values_fit_what_their_field_is() -> None:
    """A log group, an age group, an RGB colour, a sequence token and a JSON document read as what they are,
    not a team, a slug or a secret; a JSON setting holds a value of its own kind."""
    import json

    from covert.imports.fieldvalues import context_for, field_kind, make_value

    kinds = {name: field_kind(name) for name in ("CwLogGroup", "logGroupName", "ageGroup", "folderColorRgb",
                                                 "uploadSequenceToken", "Policy", "placementPolicy")}
    assert kinds == {"CwLogGroup": "log_group", "logGroupName": "log_group", "ageGroup": "age_group",
                     "folderColorRgb": "rgb_color", "uploadSequenceToken": "page_token", "Policy": "json",
                     "placementPolicy": "category:policy"}
    aws, google = context_for("botocore:events:2015-10-07"), context_for("google:networkservices:v1")
    for seed in range(30):
        rng = random.Random(seed)
        assert make_value("log_group", rng, aws, "LogGroupName").startswith(("/aws/", "/ecs/"))
        assert re.fullmatch(r"#[0-9a-f]{6}", make_value("rgb_color", rng, google, "folderColorRgb"))
        policy = json.loads(make_value("json", rng, aws, "Policy"))
        assert policy["Version"] == "2012-10-17" and policy["Statement"][0]["Action"].startswith("events:")
        settings = json.loads(make_value("json", rng, google, "placementPolicy"))
        assert settings and all(isinstance(settings[k], t) for k, t in (
            ("enabled", bool), ("retries", int), ("timeoutSeconds", int), ("owner", str)) if k in settings)
        assert "@" in settings.get("owner", "@") and "-" in settings.get("region", "-")


def test_hex_allowed_in_either_case_is_drawn_in_one() -> None:
    """``[0-9a-fA-F]`` ids read as hex is written (``3d1f2e45-aacb``), never ``5537-A563-6b3b``."""
    pattern = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[89ABab][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$"
    drawn = [sample_regex(pattern, random.Random(seed)) for seed in range(50)]
    assert all(re.fullmatch(pattern, value) and value == value.lower() for value in drawn)
    assert any(ch in "abcdef" for value in drawn for ch in value)
    assert any(ch.isupper() for seed in range(20) for ch in sample_regex("^[A-Za-z]{12}$", random.Random(seed)))
    # only where its lower case is allowed: [aA-F] still draws B to F
    assert set("BCDEF") <= {sample_regex("^[aA-F]$", random.Random(seed)) for seed in range(60)}


def test_an_aws_environment_lives_in_one_account_of_its_own() -> None:
    """Every ARN id read ``123456789012`` (AWS's documentation placeholder) while the ``Owner`` beside it was
    twelve random digits, and each drawn ARN had an account of its own: one environment's records, ARNs,
    owners and policies name one account, its own, and another service's environment another."""
    import json

    from covert.imports.fieldvalues import aws_account, context_for, field_kind, make_value
    from covert.imports.statefactory import value_for

    ctx = context_for("botocore:events:2015-10-07", "rule")
    own = aws_account("events")
    assert re.fullmatch(r"[1-9]\d{11}", own) and own != "123456789012" and own != aws_account("glacier")
    for seed in range(20):
        rng = random.Random(seed)
        assert make_value("account", rng, ctx, "OwnerId") == own
        for field in ("RoleArn", "TopicArn", "KmsKeyArn", "TargetArn"):
            arn = make_value(field_kind(field), rng, ctx, field)
            assert arn.startswith("arn:aws:") and arn.split(":")[4] == own, (field, arn)
            assert arn.split(":")[3] in ("", "us-east-1"), arn  # in the region of its endpoint and ids
        drawn = value_for({"type": "string", "pattern": "^arn:aws:events:[a-z0-9-]+:\\d{12}:rule/.+$"},
                          "RuleArn", rng, 0, ctx)
        assert drawn.split(":")[4] == own, drawn
        assert make_value(field_kind("CatalogId"), rng, ctx, "CatalogId") == own  # Glue's catalog is the account
        assert re.fullmatch(r"sg-[0-9a-f]{17}", make_value(field_kind("SecurityGroups"), rng, ctx, "SecurityGroups"))
        policy = json.loads(make_value("json", rng, ctx, "Policy"))
        assert policy["Statement"][0]["Principal"]["AWS"] == f"arn:aws:iam::{own}:root"
        assert policy["Statement"][0]["Resource"] == f"arn:aws:events:us-east-1:{own}:*"


def test_a_number_of_any_length_drawn_from_a_pattern_has_no_leading_zero() -> None:
    """A Google duration (``^[0-9]+s$``) was drawn ``"0593s"``: a number a pattern leaves open in length is
    written as numbers are; a fixed-length code (``\\d{6}``) and the fraction after a point keep theirs."""
    durations = [sample_regex(r"^[0-9]+s$", random.Random(seed)) for seed in range(200)]
    assert all(re.fullmatch(r"(0|[1-9][0-9]*)s", d) for d in durations), durations
    fixed = [sample_regex(r"^\d{6}$", random.Random(seed)) for seed in range(400)]
    assert any(code.startswith("0") for code in fixed)
    fractions = [sample_regex(r"^[0-9]\.[0-9]+$", random.Random(seed)) for seed in range(400)]
    assert any(f.split(".")[1].startswith("0") and len(f) > 3 for f in fractions)


def test_a_record_under_a_project_names_that_project() -> None:
    """A Cloud Build worker pool ``projects/events-eu-174/workerPools/worker-pool-1`` said
    ``"projectId": "fraud-9ef410"``: a record's project field names the project its path is under."""
    from covert.imports.statefactory import project_names_its_path

    rec = {"name": "projects/events-eu-174/workerPools/worker-pool-1", "projectId": "fraud-9ef410",
           "project": "projects/other-1", "keyManagementProjectId": "keys-3"}
    project_names_its_path(rec, "name")
    assert rec == {"name": "projects/events-eu-174/workerPools/worker-pool-1", "projectId": "events-eu-174",
                   "project": "projects/events-eu-174", "keyManagementProjectId": "keys-3"}
    aws = {"Arn": "arn:aws:events:us-east-1:1:rule/r", "ProjectId": "p-1"}
    project_names_its_path(aws, "Arn")
    assert aws["ProjectId"] == "p-1"


def test_an_example_varied_keeps_its_numbers_written_as_numbers() -> None:
    """Google's ``"e.g., \\"7200s\\""`` for a TTL was varied into ``"0593s"``: a number's first digit stays
    non-zero where the example's is; hex runs and fractions still draw any digit."""
    from covert.imports.fieldvalues import vary_example

    varied = [vary_example("7200s", random.Random(seed)) for seed in range(200)]
    assert all(re.fullmatch(r"[1-9]\d{3}s", v) for v in varied), varied
    assert any(vary_example("sg-0a1b2c3d", random.Random(seed)).startswith("sg-0") for seed in range(100))
    assert any(vary_example("1.25", random.Random(seed)).split(".")[1].startswith("0") for seed in range(100))


def test_a_separator_drawn_from_a_class_is_not_doubled() -> None:
    """A secret's ARN drawn from ``secret:[a-zA-Z0-9/_+=.@-]+`` read ``secret:3nwlo128t//b``."""
    pattern = r"^[a-z0-9/_.-]{40}$"
    drawn = [sample_regex(pattern, random.Random(seed)) for seed in range(300)]
    assert all(re.fullmatch(pattern, value) for value in drawn)
    assert not any(re.search(r"([/_.-])\1", value) for value in drawn), [v for v in drawn if re.search(r"([/_.-])\1", v)]
    assert any(ch in value for value in drawn for ch in "/_.-")  # separators are still drawn
    # where only separators fit, they still are drawn (doubled when they must be)
    assert all(re.fullmatch(r"[-/]{6}", sample_regex(r"^[-/]{6}$", random.Random(seed))) for seed in range(20))


def test_a_field_reads_as_what_it_is_by_its_words_and_description() -> None:
    """Binder 20, from rows read: an antenna's model is a product model, not an LLM; a cache's admission
    policy a setting, not a JSON document (a bucket's policy still is one); a measurement protocol secret's
    value a secret; a fabric's pattern a pattern, not a regex; an int64 account id digits, not a slug."""
    from covert.imports.fieldvalues import context_for, field_kind, integer_range, make_value

    def kind(name: str, description: str = "", fmt: str = "") -> str:
        return field_kind(name, description, fmt)

    assert kind("antennaModel", "If an external antenna is used, the antenna model is optionally provided") == \
        "category:device_model"
    assert kind("baseModel") == kind("model", "The language model that answers") == "category:model"
    assert kind("pricingModel") == "category:scheme" and kind("consistencyModel") == "category:type"
    assert kind("admissionPolicy", "The cache-level entry admission policy.") == "category:policy"
    assert kind("deletionPolicy") == "category:retention_policy"
    assert kind("bucketPolicy") == kind("Policy") == kind("accessPolicy", "The policy as JSON") == "json"
    assert kind("tlsInspectionPolicy", "Name of a TLS Inspection Policy resource") == "resource_name:policy"
    assert kind("secretValue", "Output only. The measurement protocol secret value.") == "secret"
    assert kind("pattern", "Text describing the pattern used on the item. For example, paisley.") == \
        "category:pattern"
    assert kind("pattern", "A pattern the names must match") == kind("filePattern") == "regex"
    assert kind("accountId", "Account ID of this ad.", "int64") == "id_number"
    # DocDB: a parameter group's family and a subnet group's name are no surname and no team
    assert kind("DBParameterGroupFamily") == "category:family" and kind("family") == kind("lastName") == "last_name"
    assert kind("DBSubnetGroupName") == kind("CacheParameterGroupName") == "resource_name:group"
    assert kind("groupName") == kind("userGroupName") == "team"
    # a launch wizard deployment's resourceGroup read "Reliability team"
    assert kind("resourceGroup") == kind("placementGroup") == "resource_name:group" and kind("salesGroup") == "team"
    # Speech's phrase sets had "kmsKeyName": "search-key-14"; Books' text ranges "endPosition": "Intelligence analyst"
    assert kind("kmsKeyName") == kind("KmsKeyId") == "kms_key" and kind("kmsKeyVersionName") == "kms_key_version"
    assert kind("endPosition") == kind("startPosition") == "numeric:position" and kind("jobPosition") == "job"
    google, aws = context_for("google:speech:v1", "phrase set"), context_for("botocore:kafka:2018-11-14", "cluster")
    assert re.fullmatch(r"projects/[\w-]+/locations/[\w-]+/keyRings/[\w-]+/cryptoKeys/[\w-]+/cryptoKeyVersions/\d",
                        make_value("kms_key_version", random.Random(3), google, "kmsKeyVersionName"))
    assert make_value("kms_key", random.Random(3), aws, "KmsKeyId").startswith("arn:aws:kms:us-east-1:")
    assert make_value("numeric:position", random.Random(3), google, "endPosition").isdigit()
    google = context_for("google:dfareporting:v4")
    for seed in range(20):
        rng = random.Random(seed)
        assert make_value("id_number", rng, google, "accountId").isdigit()
        assert make_value("category:device_model", rng, google, "antennaModel") not in \
            ("gpt-4o-mini", "claude-3-haiku", "llama-3-8b", "gemini-1.5-pro")
    sasportal = context_for("google:prod_tt_sasportal:v1alpha1")
    for noun in ("user", "customer", "account", "deployment"):  # one style per kind of id, not digits beside slugs
        styles = {make_value(f"id:{noun}", random.Random(seed), sasportal).isdigit() for seed in range(20)}
        assert len(styles) == 1, noun
    assert integer_range("ReplicationFactor") == (1, 5) and integer_range("startIndex") == (1, 1)
    assert integer_range("maxRetries") == (1, 10)


def test_a_value_made_longer_keeps_its_kind_and_times_keep_their_order() -> None:
    """A value shorter than its minLength is lengthened by characters of its own kind, never by a run of
    x's; a record's submit and start times come before its end time, and a GitHub user (a time that may be null)
    was made before it was suspended."""
    for seed in range(30):
        shard = value_for({"type": "string", "minLength": 28, "maxLength": 65}, "ParentShardId", random.Random(seed))
        assert len(shard) >= 28 and "xxx" not in shard
        job = record({"type": "object", "properties": {
            "submitTime": {"type": "string", "format": "date-time"},
            "startTime": {"type": "string", "format": "date-time"},
            "endTime": {"type": "string", "format": "date-time"}}, "required": ["submitTime", "startTime", "endTime"]},
            random.Random(seed))
        assert job["submitTime"] <= job["endTime"] and job["startTime"] <= job["endTime"]
        user = record({"type": "object", "required": ["created_at", "suspended_at"], "properties": {
            "created_at": {"type": ["string", "null"], "format": "date-time"},
            "suspended_at": {"type": ["string", "null"], "format": "date-time"}}}, random.Random(seed))
        assert not all(isinstance(user[k], str) for k in user) or user["created_at"] <= user["suspended_at"]


def test_a_person_held_in_a_record_has_a_persons_name() -> None:
    """A support case's ``creator.displayName`` read "Feedback Newsletter" and a Drive comment's
    ``author.displayName`` "Storefront Export Comment": an object in a field named for a person (creator,
    author, lastModifyingUser, createdBy) holds a person's name; other objects keep names like the record's."""
    from covert.imports.fieldvalues import _people, context_for

    first_names = set(_people()[0])
    person = {"type": "object", "properties": {"displayName": {"type": "string"}}, "required": ["displayName"]}
    schema = {"type": "object", "required": ["creator", "author", "lastModifyingUser", "createdBy", "settings"],
              "properties": {"creator": person, "author": person, "lastModifyingUser": person, "createdBy": person,
                             "settings": person}}
    ctx = context_for("google:drive:v3", "comment")
    said = {key: [] for key in schema["required"]}
    for seed in range(30):
        made = record(schema, random.Random(seed), 0, ctx)
        for key in said:
            said[key].append(made[key]["displayName"])
    for key in ("creator", "author", "lastModifyingUser", "createdBy"):
        assert all(name.split()[0] in first_names for name in said[key]), (key, said[key][:5])
    assert sum(name.split()[0] in first_names for name in said["settings"]) < 15, said["settings"][:5]


def test_an_arn_drawn_for_a_field_of_several_forms_has_a_real_region() -> None:
    """Elemental Inference's Bedrock ``model`` (a model id or a model's ARN) read
    ``arn:aws:bedrock:a185972:208410816506:provisioned-model/cy``: an ARN drawn from the pattern's classes gets
    a real region and account even where the field's own meaning is no ARN."""
    from covert.imports.fieldvalues import AWS_HOME_REGION, context_for

    schema = {"type": "string", "minLength": 1, "maxLength": 2048,
              "pattern": "([a-z0-9-]{1,63}[.][a-z0-9-.:]{1,76}|arn:aws:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:"
                         "(custom-model|provisioned-model)/.+)"}
    ctx = context_for("botocore:elementalinference:2018-11-14", "function")
    drawn = [value_for(schema, "model", random.Random(seed), 0, ctx) for seed in range(30)]
    arns = [d for d in drawn if d.startswith("arn:")]
    assert arns and all(a.split(":")[3] == AWS_HOME_REGION and re.fullmatch(r"\d{12}", a.split(":")[4]) for a in arns)


def test_a_record_says_why_it_failed_only_when_its_state_says_it_did() -> None:
    """Cloud KMS's key versions listed an ``ENABLED`` version with a ``generationFailureReason``: a record's
    optional failure fields are set only beside a state of trouble; an import job beside a key version is a
    job that runs, never a person's occupation."""
    schema = {"type": "object", "properties": {
        "state": {"type": "string", "enum": ["ENABLED", "GENERATION_FAILED", "DESTROYED"]},
        "generationFailureReason": {"type": "string"}, "importJob": {"type": "string"}, "name": {"type": "string"}}}
    failed = 0
    for seed in range(200):
        made = record(schema, random.Random(seed))
        if "generationFailureReason" in made:
            assert made.get("state") == "GENERATION_FAILED", made
            failed += 1
    assert failed > 10  # where the state says so, the reason is drawn
    assert field_kind("importJob") == "resource_name:job" and field_kind("occupation") == "job"
