"""Rows over records that belong to two others (a job in a farm and in one of its queues) say true things:
a listed queue describes the queue, never the farm it names, and a count of a queue's jobs is a count of
jobs, not of farms (rows loaded with ``datasets.load_dataset`` from a build over a verified store)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from covert.build import BuildConfig, build
from covert.imports import envs
from covert.validation import validate_row
from tests.imports.api_fixtures import farms_botocore, stored

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    tmp_path = tmp_path_factory.mktemp("linked")
    with pytest.MonkeyPatch.context() as monkeypatch:
        for _root in stored(tmp_path, monkeypatch, (farms_botocore(),), verify=True):
            out = tmp_path / "ds"
            build(BuildConfig(builders=list(envs.admitted_names()), num_tasks=240, seed=3), out, progress=False)
            loaded = datasets.load_dataset("parquet", data_files=sorted(str(p) for p in (out / "sft").glob("*.parquet")),
                                           split="train")
            yield [dict(r) for r in loaded]


def _outputs(row: dict[str, Any], tool: str) -> list[Any]:
    names = {c["id"]: c["function"]["name"] for m in row["messages"] for c in m.get("tool_calls") or []}
    return [json.loads(m["content"]) for m in row["messages"]
            if m["role"] == "tool" and names.get(m.get("tool_call_id")) == tool]


def test_every_row_validates(rows: list[dict[str, Any]]) -> None:
    assert len(rows) > 100
    for row in rows:
        validate_row(row, "sft")


def test_a_farm_is_never_called_by_its_queues_name(rows: list[dict[str, Any]]) -> None:
    checked = 0
    for row in rows:
        farms = {f.get("displayName") for out in _outputs(row, "ListFarms") for f in out["farms"]}
        queues = {q.get("displayName") for out in _outputs(row, "ListQueues") for q in out["queues"]} - farms - {None}
        query = " ".join(m["content"] for m in row["messages"] if m["role"] == "user")
        for name in queues:
            for said in re.finditer(r"\bfarms?\b([^.?!]{0,40}?)" + re.escape(name), query):
                assert "queue" in said.group(1), (query, name)
            checked += 1
    assert checked > 20


def test_a_farm_is_described_only_by_what_its_own_record_says(rows: list[dict[str, Any]]) -> None:
    """AWS Deadline Cloud: "our farm updated by wayne.glass@example.net", where the farm was never updated and
    its queue was, by wayne.glass. A farm a request describes by who updated it was updated by them."""
    checked = 0
    for row in rows:
        state = row["initial_state"]
        farms = (json.loads(state) if isinstance(state, str) else state)["tables"].get("farms", {}).values()
        query = " ".join(m["content"] for m in row["messages"] if m["role"] == "user")
        for said in re.finditer(r"\bfarm (?:that was |which was )?(?:last )?updated by (\S+@[\w.-]+\w)", query):
            assert any(f.get("updatedBy") == said.group(1) for f in farms), (query, said.group(1))
            checked += 1
    assert checked > 3


def test_a_count_of_listed_jobs_counts_jobs(rows: list[dict[str, Any]]) -> None:
    counted = 0
    for row in rows:
        calls = [c for group in row["ground_truth"]["calls"] for c in group]
        answer = row["messages"][-1]["content"] or ""
        if not calls or calls[-1]["name"] not in ("ListJobs", "ListSteps", "ListQueues"):
            continue
        for noun in re.findall(r"\b\d+ ([a-z]+)\b", answer):
            if noun.startswith(("farm", "job", "step", "queue")):
                assert noun.startswith(calls[-1]["name"][4:-1].lower()), (answer, calls[-1]["name"])
                counted += 1
    assert counted > 3


def test_a_record_is_described_by_who_did_something_to_it_plainly() -> None:
    """"the farm updated by dan28@example.net", never "the farm with updated by dan28@example.net"."""
    from covert.imports.envs import make_builder

    builder = make_builder(farms_botocore())
    farm = next(r for r in builder.language.references.values() if r.noun == "farm")
    said = farm.by_field["updatedBy"]
    assert "the farm updated by {value}" in said
    assert not any(" with " in t or " whose " in t for t in said)


def test_a_field_every_record_of_a_scope_shares_describes_none() -> None:
    """An omics version's ``name`` is the store it is listed by (a scope parameter): all three versions hold
    it, so a list answer never names them "gateway-name, gateway-name and gateway-name"."""
    from covert.imports.envs import make_builder
    from covert.imports.model import ApiSpec, Operation

    version = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                                "title": {"type": "string"}}}
    path = {"type": "string", "x-in": "path"}
    ops = (
        Operation("ListStoreVersions", "ListStoreVersions", "Lists a store's versions.",
                  {"type": "object", "properties": {"name": path}, "required": ["name"]},
                  {"type": "object", "properties": {"versions": {"type": "array", "items": version}}},
                  "read", "GET", "/stores/{name}/versions"),
        Operation("GetStoreVersion", "GetStoreVersion", "Gets a version.",
                  {"type": "object", "properties": {"name": path, "id": path}, "required": ["name", "id"]},
                  version, "read", "GET", "/stores/{name}/versions/{id}"),
    )
    spec = ApiSpec("openapi", "openapi:stores:1", "Stores", "1", "Stores.", "MIT", None, {"package": "test"}, ops)
    builder = make_builder(spec)
    resource = builder.bound.resources[builder.bound.tools["ListStoreVersions"].role.table]
    assert resource.scope_fields == {"name"}
    state = builder.state(0, 0)
    assert len({rec["name"] for _, rec in state.records(resource.table)}) == 1  # the scope, said by every record
    reference = builder.language.references[resource.entity]
    assert "name" not in reference.by_field and "title" in reference.by_field
    answers = [a for i in builder.language.intents["ListStoreVersions"] for a in i.answer]
    assert answers and all(":list:title}" in a for a in answers)


def test_a_sentence_an_answer_says_is_quoted_whatever_its_declared_type() -> None:
    """A create answer quotes a description declared ``["string", "null"]`` as it quotes a plain string one:
    never 'with the description Shared for the jobs pilot..'."""
    from covert.imports.language import _value_slot

    assert _value_slot("description", {"type": ["string", "null"]}, "") == '"{description}"'
    assert _value_slot("description", {"type": "string"}, "") == '"{description}"'
    assert _value_slot("displayName", {"type": ["string", "null"]}, "") == "{displayName}"
