"""What a careful reader refuses in a row on an imported API is refused by ``covert validate`` and counted by
``covert audit``: a filler value, a create that gives nothing, a write answer that names nothing. Each is
shown on a row built over a real store, loaded with ``datasets.load_dataset`` and broken on purpose."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from covert.audit import audit_rows
from covert.build import BuildConfig, build
from covert.errors import Invalid
from covert.imports import envs
from covert.imports.rowforms import empty_create, filler, names_write
from covert.language.values import normalize_text
from covert.validation import validate_row
from tests.imports.api_fixtures import notes_google, queues_botocore, shop_openapi, stored

datasets = pytest.importorskip("datasets")

INSERT = "notes_notes_insert"


@pytest.mark.parametrize(("key", "value", "why"), [
    ("currencyCode", "design final 32", "word_salad"),
    ("description", "lorem ipsum dolor sit amet", "lorem"),
    ("currencyCode", "dollars", "not_currency_code"),
    ("allowedCidrBlocks", "harbor", "not_cidr"),
    ("unitPrice", "cheap", "not_number"),
    ("HTMLSnippet", "plain words", "not_html"),
    ("createTime", "last_error_status", "not_timestamp"),
    ("agentVersion", "banana", "not_version"),
    ("homepageUrl", "our site", "not_url"),
    ("DomainName", "bi-domain-2", "not_hostname"),
    ("description", "a string value", "placeholder"), ("Comment", "String", "placeholder"), ("label", "foo", "placeholder"),
    # why a record failed, said as a success (IoT Managed Integrations' "ErrorMessage": "Validation passed.")
    ("ErrorMessage", "Validation passed.", "not_failure"), ("failureReason", "Ready.", "not_failure"),
    ("lastErrorMessage", "Last sync finished without errors.", "not_failure"),
    ("accountIdAlias", "account_id_alias", "placeholder"),  # Merchant API: the field's own name as its value
    ("ipv6Address", "6058 Ellison Wells", "not_ip"),  # a PCS cluster endpoint's address, drawn as a street
])
def test_filler_is_named(key: str, value: str, why: str) -> None:
    assert filler(key, value) == why


@pytest.mark.parametrize(("key", "value"), [
    ("currencyCode", "EUR"), ("allowedCidrBlocks", "10.32.0.0/16"), ("unitPrice", "12.50"),
    ("displayName", "Harbor Analytics"), ("HTMLSnippet", "<p>Spring sale</p>"), ("port", "https"),
    # what specs give as examples and values, read wrongly by the field's name before
    ("agentVersion", "DRAFT"), ("ssh_url", "git@github.com:octocat/Hello-World.git"),
    ("uri", "us-docker.pkg.dev/my-project/my-repo/image"), ("maxHandlingTime", "20786318"),
    ("SubnetCidrReservationId", "subcid-65937ed92be9"), ("specContentType", "BOOSTED_SPEC_CONTENT"),
    ("dataType", "string"), ("valueFormat", "STRING"),  # "string" is a type's value
    ("ErrorMessage", "Timed out waiting for the billing service to respond."), ("OnFailureMessage", "Passed."),
    ("statusMessage", "Validation passed."), ("ipv6Address", "2001:db8:2dc4:77ac::10d"),
])
def test_values_of_their_kind_pass(key: str, value: str) -> None:
    assert filler(key, value) is None


def test_empty_create_and_unnamed_write_rules() -> None:
    props = {"parent": {"type": "string", "description": "The project it lives in."}, "title": {"type": "string"}}
    assert empty_create(props, {"parent": "projects/harbor"})
    assert not empty_create(props, {"parent": "projects/harbor", "title": "Q3 plan"})
    assert not empty_create({"parent": props["parent"]}, {"parent": "projects/harbor"})  # the API takes no body
    # a Google resource's own name, whose description gives a path under a project as its example, names it
    named = {**props, "name": {"type": "string", "description": "The resource path name. For example, "
                                                                "`projects/p/locations/us-central1/registries/r`."}}
    assert not empty_create(named, {"parent": "projects/harbor/locations/us-east1", "name": "registries/iot-7"})
    assert empty_create(named, {"parent": "projects/harbor/locations/us-east1"})
    output = {"id": "note-0042", "title": "Q3 plan"}
    assert names_write(normalize_text("I created the note Q3 plan."), props, {"title": "Q3 plan"}, output)
    assert not names_write(normalize_text("Done: the note has been created."), props, {"title": "Q3 plan"}, output)


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    tmp_path = tmp_path_factory.mktemp("quality")
    with pytest.MonkeyPatch.context() as monkeypatch:
        for _root in stored(tmp_path, monkeypatch, (shop_openapi(), notes_google(), queues_botocore()), verify=True):
            out = tmp_path / "ds"
            build(BuildConfig(builders=list(envs.admitted_names()), num_tasks=150, seed=5), out, progress=False)
            loaded = datasets.load_dataset("parquet", data_files=sorted(str(p) for p in (out / "sft").glob("*.parquet")),
                                           split="train")
            yield [dict(r) for r in loaded]


def _insert_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    for row in rows:
        calls = [c for group in row["ground_truth"]["calls"] for c in group]
        if [c["name"] for c in calls] == [INSERT] and row["ground_truth"]["behaviour"] == "tool_use":
            return row
    raise AssertionError("the build made no row with one note insert")


def test_rows_as_built_pass_validation_and_audit(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        validate_row(row, "sft")
    report = audit_rows(rows, "sft")
    for name in ("filler_value", "empty_create", "write_answer_unnamed", "empty_objects", "scope_disagrees",
                 "malformed_arn", "create_terminal_status", "times_out_of_order", "new_record_holds_contents",
                 "part_names_another_record"):
        result = report.results[name]
        assert result.total.applicable > 0 and result.flagged == [], (name, result.flagged[:3])


def _reason(row: dict[str, Any]) -> str:
    with pytest.raises(Invalid) as caught:
        validate_row(row, "sft")
    return caught.value.reason


def _calls(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for group in row["ground_truth"]["calls"] for c in group]


def _set_arguments(row: dict[str, Any], arguments: dict[str, Any]) -> None:
    """The one call's arguments, in the oracle and in the assistant's tool call alike."""
    _calls(row)[0]["arguments"] = arguments
    for message in row["messages"]:
        for call in message.get("tool_calls") or []:
            text = isinstance(call["function"]["arguments"], str)
            call["function"]["arguments"] = json.dumps(arguments) if text else arguments


def test_a_create_that_gives_nothing_is_refused(rows: list[dict[str, Any]]) -> None:
    row = copy.deepcopy(_insert_row(rows))
    _set_arguments(row, {})
    assert _reason(row) == "empty_create"


@pytest.mark.parametrize("value", ["design final 32", "a string value"])
def test_a_filler_value_is_refused(rows: list[dict[str, Any]], value: str) -> None:
    row = copy.deepcopy(_insert_row(rows))
    arguments = dict(_calls(row)[0]["arguments"])
    arguments[next(iter(arguments))] = value
    _set_arguments(row, arguments)
    assert _reason(row) == "filler_value"


def test_a_write_answer_that_names_nothing_is_refused_and_counted(rows: list[dict[str, Any]]) -> None:
    row = copy.deepcopy(_insert_row(rows))
    row["messages"][-1]["content"] = "All set: the note has been created."
    assert _reason(row) == "write_answer_unnamed"
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["write_answer_unnamed"].flagged] == ["write_not_named"]


def test_filler_in_an_output_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    row = copy.deepcopy(_insert_row(rows))
    tool = next(m for m in row["messages"] if m["role"] == "tool")
    output = json.loads(tool["content"])
    output["currencyCode"] = "design final 32"
    tool["content"] = json.dumps(output)
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["filler_value"].flagged] == ["word_salad"]



def _output(row: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    tool = next(m for m in row["messages"] if m["role"] == "tool")
    return tool, json.loads(tool["content"])


def test_a_list_of_empty_objects_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    row = copy.deepcopy(_insert_row(rows))
    tool, output = _output(row)
    output["deploymentMappings"] = [{}, {}]
    tool["content"] = json.dumps(output)
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["empty_objects"].flagged] == ["empty_in_list"]


def test_an_output_contradicting_its_call_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    row = copy.deepcopy(_insert_row(rows))
    key = next(k for k, v in _calls(row)[0]["arguments"].items() if isinstance(v, str) and k != "name")
    tool, output = _output(row)
    output[key] = "ads-0687bc"
    tool["content"] = json.dumps(output)
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["scope_disagrees"].flagged] == \
        ["field_contradicts_argument"]
    # the output's field may spell the argument's name in another case (CreateVault's vaultName, VaultName)
    output[key[:1].upper() + key[1:] if key[:1].islower() else key[:1].lower() + key[1:]] = output.pop(key)
    tool["content"] = json.dumps(output)
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["scope_disagrees"].flagged] == \
        ["field_contradicts_argument"]


def test_a_record_naming_another_project_than_its_path_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    """``projects/events-eu-174/workerPools/worker-pool-1`` with ``"projectId": "fraud-9ef410"``."""
    row = copy.deepcopy(_insert_row(rows))
    tool, output = _output(row)
    output.update(name="projects/events-eu-174/workerPools/worker-pool-1", projectId="events-eu-174")
    tool["content"] = json.dumps(output)
    assert audit_rows([row], "sft").results["scope_disagrees"].flagged == []
    for key, value in (("projectId", "fraud-9ef410"), ("project", "projects/other-2")):
        output.pop("projectId", None)
        output[key] = value
        tool["content"] = json.dumps(output)
        report = audit_rows([row], "sft")
        assert [kind for _id, kind, _detail in report.results["scope_disagrees"].flagged] == \
            ["project_disagrees_with_path"], (key, value)


def test_an_arn_no_aws_service_writes_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    """A partition, region or account drawn from a pattern's letters, no service, a resource part left
    empty; AWS's own forms pass."""
    row = copy.deepcopy(_insert_row(rows))
    tool, output = _output(row)
    flagged = []
    for arn in ("arn:aws:lambda:us-east-1:123456789012:function:resize", "arn:aws:iam::123456789012:role/etl",
                "arn:aws:s3:::logs-bucket", "arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/k1",
                "arn:aws-k:lambda:nt-bz-4:534744421414:runtime/62", "arn:aws:outposts:0l:730098087754:outpost/op-1",
                "arn:awsd:secretsmanager::l0s:secret:Bf0", "arn:aws::us-east-1:140182789247:project/p-3/feature/f-5",
                "arn:aws:evidently:us-east-1:140182789247:project//feature/f-5"):
        output["nested"] = {"items": [{"ResourceArn": arn}]}
        tool["content"] = json.dumps(output)
        flagged.append([kind for _id, kind, _detail in audit_rows([row], "sft").results["malformed_arn"].flagged])
    assert flagged == [[], [], [], [], *[["malformed_arn"]] * 5]


def test_a_new_record_failing_or_ended_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    """A just-made record whose status says it ended or fails, whose part is unhealthy, or which says why it
    failed; a living state, a part disabled and an unset failure reason pass."""
    row = copy.deepcopy(_insert_row(rows))
    tool, output = _output(row)
    flagged = []
    for extra in ({"state": "ACTIVE"}, {"status": "DOMAIN_CHANGE_PENDING"},
                  {"encryption": {"status": "DISABLED"}}, {"failureReason": "FAILURE_REASON_UNSPECIFIED"},
                  {"ErrorDocument": "error.html"}, {"state": "CANCELED"}, {"status": "DOMAIN_VERIFICATION_LOST"},
                  {"resourceInfo": {"status": "UNHEALTHY"}}, {"failureReason": "TOPIC_NOT_FOUND"},
                  {"error": {"code": 1}}, {"archived": True}, {"private": True}, {"State": "PENDING_DELETION"}):
        tool["content"] = json.dumps({**output, **extra})
        flagged.append([kind for _id, kind, _detail in
                        audit_rows([row], "sft").results["create_terminal_status"].flagged])
    assert flagged == [[], [], [], [], [], ["final_status"], ["failing_status"], ["failing_status"],
                       ["failure_said"], ["failure_said"], ["ended_flag"], [], ["final_status"]]


def test_a_new_record_that_already_holds_things_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    """A vault just made with 225 archives, a repository with 249 open issues, a queue whose record (under
    its own name) counts 146 jobs: flagged. Counts at 0, counts that set the record up (``PartitionCount``),
    a size of something else and a count the call gave pass."""
    row = copy.deepcopy(_insert_row(rows))
    tool, output = _output(row)
    call = next(m for m in row["messages"] if m.get("tool_calls"))["tool_calls"][0]["function"]
    arguments = call["arguments"]
    flagged = []
    for extra, given in (({"NumberOfArchives": 0, "SizeInBytes": 0}, {}), ({"PartitionCount": 6}, {}),
                         ({"diskSizeGb": 100, "maxRetryCount": 3}, {}), ({"itemCount": 4}, {"itemCount": 4}),
                         ({"NumberOfArchives": 225}, {}), ({"open_issues_count": 249}, {}),
                         ({"note": {"ProgressingJobsCount": 146}}, {}), ({"entryCount": "134"}, {})):
        tool["content"] = json.dumps({**output, **extra})
        call["arguments"] = json.dumps({**json.loads(arguments), **given}) if isinstance(arguments, str) \
            else {**arguments, **given}
        flagged.append([kind for _id, kind, _detail in
                        audit_rows([row], "sft").results["new_record_holds_contents"].flagged])
    assert flagged == [[], [], [], [], *[["holds_contents"]] * 4]


def test_a_part_that_repeats_its_records_id_with_another_value_is_counted_by_the_audit(
        rows: list[dict[str, Any]]) -> None:
    """A note whose ``revision`` (or a part of a listed revision) says another ``noteId`` than the note's:
    flagged. A part that agrees, a part that is another record (``parent``) and an id field not named for
    the note (``node_id``) pass."""
    row = copy.deepcopy(_insert_row(rows))
    tool, output = _output(row)
    flagged = []
    for extra in ({"noteId": "n-1", "revision": {"noteId": "n-1"}}, {"noteId": "n-1", "parent": {"noteId": "n-0"}},
                  {"node_id": "a", "owner": {"node_id": "b"}}, {"noteId": "n-1", "revision": {"noteId": "x7"}},
                  {"noteId": "n-1", "revisions": [{"meta": {"noteId": "x7"}}]}):
        tool["content"] = json.dumps({**output, **extra})
        flagged.append([kind for _id, kind, _detail in
                        audit_rows([row], "sft").results["part_names_another_record"].flagged])
    assert flagged == [[], [], [], ["part_id_differs"], ["part_id_differs"]]


def test_a_record_made_now_holds_nothing_yet() -> None:
    """What a record just made counts of what it holds is 0 where its field allows it, and it has no results
    of work yet (Dataplex's new data scan had a ``dataProfileResult`` of 73,512,278 rows); counts that set it
    up, a field whose minimum is above 0, an enum without 0 and a required object keep their draw."""
    from covert.imports.bind import holds_nothing_yet

    schema = {"type": "object", "properties": {"NumberOfArchives": {"type": "integer"},
                                               "SizeInBytes": {"type": "integer"},
                                               "entryCount": {"type": "string", "format": "int64"},
                                               "PartitionCount": {"type": "integer"},
                                               "replicaCount": {"type": "integer"},
                                               "memberCount": {"type": "integer", "minimum": 1},
                                               "slotCount": {"type": "integer", "enum": [2, 4]},
                                               "VaultName": {"type": "string"}},
              "required": ["lastCheck"]}
    vault = {"NumberOfArchives": 225, "SizeInBytes": 4068632909, "entryCount": "134", "PartitionCount": 6,
             "replicaCount": 3, "memberCount": 5, "slotCount": 4, "VaultName": "video-vault",
             "dataProfileResult": {"rowCount": "73512278"}, "lastRun": {"state": "DONE"}, "lastCheck": {"ok": True},
             "spec": {"rowFilter": "x > 1"}}
    holds_nothing_yet(schema, vault)
    assert vault == {"NumberOfArchives": 0, "SizeInBytes": 0, "entryCount": "0", "PartitionCount": 6,
                     "replicaCount": 3, "memberCount": 5, "slotCount": 4, "VaultName": "video-vault",
                     "lastCheck": {"ok": True}, "spec": {"rowFilter": "x > 1"}}  # required, or no result: kept


BODIES = ("Ship the plan on Friday.", "Review the budget with Ana.", "Call the venue about chairs.",
          "Send the minutes round.", "Book the train to Leeds.")


def test_parallel_creates_naming_their_records_alike_are_refused_and_counted(rows: list[dict[str, Any]]) -> None:
    """Three plugins all called "Data Plugin" that differ in their description only: a reader refuses
    the row, so validation does and the audit counts it."""
    from covert.imports.rowforms import same_name

    assert same_name({"displayName": "Data Plugin", "description": "a"},
                     {"displayName": "Data Plugin", "description": "b"}) == "displayName"
    assert same_name({"displayName": "Data Plugin"}, {"displayName": "Billing Plugin"}) is None
    row = copy.deepcopy(next(r for r in rows if any(
        len(g) >= 2 and all(c["name"] == INSERT for c in g) for g in r["ground_truth"]["calls"])))
    group = next(g for g in row["ground_truth"]["calls"] if len(g) >= 2 and all(c["name"] == INSERT for c in g))
    title = group[0]["arguments"]["title"]
    for n, call in enumerate(group):  # the same title, bodies that differ
        call["arguments"].update(title=title, body=BODIES[n])
    tool_calls = [c for m in row["messages"] for c in m.get("tool_calls") or [] if c["function"]["name"] == INSERT]
    for n, call in enumerate(tool_calls):
        arguments = call["function"]["arguments"]
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
        parsed.update(title=title, body=BODIES[n])
        call["function"]["arguments"] = json.dumps(parsed) if isinstance(arguments, str) else parsed
    assert _reason(row) == "parallel_same_name"
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["parallel_near_duplicate"].flagged] == ["same_name"]


def test_a_described_example_its_field_refuses_is_never_drawn() -> None:
    import random

    from covert.imports.statefactory import value_for

    # Cloud IoT's lastErrorTime: "... such as a failure to publish. This field is the timestamp of 'last_error_status'."
    schema = {"type": "string", "description": "The time the most recent error occurred, such as a failure to "
                                               "publish; the timestamp of 'last_error_status'."}
    drawn = {value_for(schema, "lastErrorTime", random.Random(seed)) for seed in range(40)}
    assert "last_error_status" not in drawn
    assert all(filler("lastErrorTime", v) is None for v in drawn), drawn
    # an example of the right form is still drawn
    zone = {"type": "string", "description": "The zone, e.g. `us-central1-a`."}
    assert "us-central1-a" in {value_for(zone, "zone", random.Random(seed)) for seed in range(40)}
    # what a spec writes where a value goes is no example
    for holder in ({"type": "string", "examples": ["a string value"]}, {"type": "string", "description": "e.g. `foo`"}):
        drawn = {value_for(holder, "remark", random.Random(seed)) for seed in range(40)}
        assert drawn and not drawn & {"a string value", "foo"}, drawn


def test_a_record_called_by_another_records_name_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    """A release whose ``rulesetName`` is edge-growth is no release "called edge-growth"."""
    from covert.imports.rowforms import foreign_name

    assert foreign_name("rulesetName", {"release"}) and foreign_name("advertiserName", {"creative"})
    assert not foreign_name("QueueName", {"queue"}) and not foreign_name("displayName", {"release"})
    assert not foreign_name("name", {"release"})
    assert not foreign_name("GivenName", {"user"}) and not foreign_name("lastName", {"member"})  # a person's own
    row = copy.deepcopy(_insert_row(rows))
    assert audit_rows([row], "sft").results["list_by_foreign_name"].flagged == []
    tool, output = _output(row)
    output["rulesetName"] = "edge-growth"
    tool["content"] = json.dumps(output)
    assert audit_rows([row], "sft").results["list_by_foreign_name"].flagged == []  # nobody calls it that
    user = next(m for m in row["messages"] if m["role"] == "user")
    user["content"] += " It's the note called edge-growth."
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["list_by_foreign_name"].flagged] == \
        ["called_by_foreign_name"]


def test_a_record_is_described_by_a_foreign_name_field_plainly() -> None:
    from covert.imports.language import _reference
    from covert.imports.resources import Resource

    release = Resource("releases", "release", "releases", "release_id", "name",
                       {"type": "object", "properties": {"name": {"type": "string"},
                                                         "rulesetName": {"type": "string"},
                                                         "displayName": {"type": "string"},
                                                         "defaultHostname": {"type": "string"}}})
    said = _reference(release, {"releases": release}, "google").by_field
    for plain in ("rulesetName", "defaultHostname"):
        assert plain in said and all("called" not in t and "named" not in t for t in said[plain]), said


def test_a_record_called_by_a_field_that_is_no_name_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    """A gateway whose ``defaultHostname`` is fraud.example.org is no gateway "called fraud.example.org"."""
    from covert.imports.rowforms import name_field

    assert name_field("displayName") and name_field("rulesetName") and name_field("title")
    assert not name_field("defaultHostname") and not name_field("hostname")
    row = copy.deepcopy(_insert_row(rows))
    tool, output = _output(row)
    output["defaultHostname"] = "fraud.example.org"
    tool["content"] = json.dumps(output)
    user = next(m for m in row["messages"] if m["role"] == "user")
    user["content"] += " It's the note called fraud.example.org."
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["list_by_foreign_name"].flagged] == \
        ["called_by_other_field"]
    # a field's value that only begins the name the user gives calls nothing by it
    user["content"] = user["content"].replace("the note called fraud.example.org", "the note called fraud.example.org-2")
    assert audit_rows([row], "sft").results["list_by_foreign_name"].flagged == []
    user["content"] = user["content"].replace("fraud.example.org-2", "fraud-west")
    output["teamDrivePermissionType"] = "fraud"
    tool["content"] = json.dumps(output)
    assert audit_rows([row], "sft").results["list_by_foreign_name"].flagged == []


def _renames(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows whose one write is an update that gives the record a new name."""
    said = ("renamed the", "is now called", "goes by")
    return [r for r in rows if r["ground_truth"]["behaviour"] == "tool_use"
            and any(s in r["messages"][-1]["content"] for s in said)]


def test_a_rename_is_said_as_one_and_the_audit_counts_a_tautology(rows: list[dict[str, Any]]) -> None:
    renames = _renames(rows)
    assert renames, "the build made no rename"
    assert audit_rows(rows, "sft").results["renamed_by_new_name"].flagged == []
    row = copy.deepcopy(renames[0])
    update = next(c for c in _calls(row) if c["name"].endswith(("patch", "update", "Update", "_put")) or "Update" in c["name"])
    new_name = next(v for v in update["arguments"].values() if isinstance(v, str) and v in row["messages"][-1]["content"])
    # what the answer said before: the record named by the name it was just given
    row["messages"][-1]["content"] = f"The record {new_name} now has the name {new_name}."
    report = audit_rows([row], "sft")
    assert [kind for _id, kind, _detail in report.results["renamed_by_new_name"].flagged] == ["renamed_by_new_name"]


def test_times_out_of_the_order_their_names_say_are_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    """A record updated, deleted or expired before it was made, or ended before it started, or whose last
    anything (a date beside a time: Glacier's ``LastInventoryDate``) is before its making, is flagged; times in order, a versionTime before the making (a backup's data is older than the backup), and times
    in forms the audit does not compare pass."""
    row = copy.deepcopy(_insert_row(rows))
    tool, output = _output(row)
    flagged = []
    for extra in ({"createTime": "2026-01-15T09:30:00Z", "updateTime": "2026-01-15T09:30:00Z"},
                  {"created_at": "2025-10-15T13:53:01.268Z", "updated_at": "2025-11-01T00:00:00Z"},
                  {"createTime": "2026-01-15T09:30:00Z", "versionTime": "2024-02-02T00:00:00Z"},
                  {"startDate": "Mon, 05 Jan 2026 10:00:00 GMT", "endDate": "Fri, 02 Jan 2026 10:00:00 GMT"},
                  {"created_at": "2026-01-15T09:30:52Z", "mirror_updated": "2023-02-08T03:28:54Z"},
                  {"timeCreated": "2026-01-15T09:30:52Z", "retentionExpirationTime": "2024-10-26T02:27:26Z"},
                  {"FunctionCreateBlockDate": "2025-07-18", "FunctionUpdateBlockDate": "2022-03-25"},
                  {"lastLoginTime": "2026-01-16T08:00:00Z", "CreationDate": "2026-01-15T09:30:52Z"},
                  {"detail": {"startTime": "2024-05-01T10:00:00Z", "endTime": "2024-04-30T10:00:00Z"}},
                  {"CreationDate": "2026-01-15T09:30:52Z", "LastInventoryDate": "2023-04-25"}):
        tool["content"] = json.dumps({**output, **extra})
        flagged.append([kind for _id, kind, _detail in audit_rows([row], "sft").results["times_out_of_order"].flagged])
    assert flagged == [[], [], [], [], *[["out_of_order"]] * 3, [], *[["out_of_order"]] * 2]


def test_a_count_said_of_another_records_noun_is_counted_by_the_audit(rows: list[dict[str, Any]]) -> None:
    """AppConfig's ListEnvironments returned 2 environments, each naming its application, and the answer
    said "that's 2 applications". A count said of what the list holds passes; of anything else, is flagged."""
    import re

    counted = [(row, found) for row in rows
               if (found := re.search(r"(?:^|\s)(\d+) ([a-z]+s)\b", row["messages"][-1]["content"] or ""))
               and audit_rows([row], "sft").results["count_names_other_records"].total.applicable]
    assert counted, "the build made no imported row that counts a list"
    for row, found in counted[:5]:
        assert audit_rows([row], "sft").results["count_names_other_records"].flagged == []
        broken = copy.deepcopy(row)
        content = broken["messages"][-1]["content"]
        broken["messages"][-1]["content"] = content[:found.start(2)] + "zebras" + content[found.end(2):]
        assert [kind for _id, kind, _detail in audit_rows([broken], "sft").results["count_names_other_records"]
                .flagged] == ["counted_as_other_records"], content


def test_a_create_is_told_by_its_verb_as_a_word_of_the_name() -> None:
    """Display & Video 360's ``advertisers_insertionOrders_delete`` was read as a create (its name holds
    "insert" at the start of "insertion"), and its ``deleted: true`` as a new record made ended."""
    from covert.imports.rowforms import is_create

    for name in ("notes_notes_insert", "users_addUser", "createCurrentUserRepo", "CreateApplication", "put_users_id",
                 "post_notifications", "registerDevice", "PutObject", "AddTags"):
        assert is_create(name), name
    for name in ("displayvideo_advertisers_insertionOrders_delete", "posts_list", "newsletters_get",
                 "addressbook_list"):
        assert not is_create(name), name
