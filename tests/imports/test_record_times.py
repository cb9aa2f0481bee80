"""A written record's creation and last-change times are now (covert.imports.record_times), in the form
its field has, from the binder's create and update as a build runs them."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from covert.env import is_error
from covert.imports.bind import bind
from covert.imports.model import ApiSpec, Operation
from covert.imports.record_times import NOW, stamp_written


def test_each_form_of_a_time_is_kept_and_other_fields_are_left_alone() -> None:
    record = {"CreatedAt": "2022-08-16T21:11:06Z", "LastUpdated": "2023-03-01T09:28:48.123Z",
              "creationDate": "2024-02-02", "date_updated": "Tue, 05 Mar 2024 10:00:00 +0000",
              "createdDate": 1657956052, "lastModifiedMs": 1657956052000, "update_time": "2023-01-19 19:12:14",
              "LastUpdatedBy": "jim66@mail.example.com", "softwareSetUpdateSchedule": "APPLY_IMMEDIATELY",
              "updateCount": 4, "startTime": "2023-05-05T00:00:00Z",
              "metadata": {"creationTimestamp": "2021-01-01T00:00:00+01:00"}}
    stamp_written(record, created=True, n=2)
    seconds = int(NOW.timestamp()) + 26
    assert record == {"CreatedAt": "2026-01-15T09:30:26Z", "LastUpdated": "2026-01-15T09:30:26.000Z",
                      "creationDate": "2026-01-15", "date_updated": "Thu, 15 Jan 2026 09:30:26 +0000",
                      "createdDate": seconds, "lastModifiedMs": seconds * 1000, "update_time": "2026-01-15 09:30:26",
                      "LastUpdatedBy": "jim66@mail.example.com", "softwareSetUpdateSchedule": "APPLY_IMMEDIATELY",
                      "updateCount": 4, "startTime": "2023-05-05T00:00:00Z",
                      "metadata": {"creationTimestamp": "2026-01-15T09:30:26+00:00"}}
    release = {"releaseTime": "2024-08-09T10:00:00Z", "publishTime": "2023-01-01T00:00:00Z",
               "releaseNotes": "2024-08-09", "expireTime": "2022-11-24T13:20:40Z", "expirationDate": "2023-01-01"}
    stamp_written(release, created=True)  # a release made now was released now, and runs out after now
    assert release == {"releaseTime": "2026-01-15T09:30:00Z", "publishTime": "2026-01-15T09:30:00Z",
                       "releaseNotes": "2024-08-09", "expireTime": "2026-02-14T09:30:00Z",
                       "expirationDate": "2026-02-14"}
    changed = {"createTime": "2022-01-01T00:00:00Z", "updateTime": "2022-02-01T00:00:00Z",
               "releaseTime": "2022-01-01T00:00:00Z", "expireTime": "2022-03-01T00:00:00Z"}
    stamp_written(changed, created=False)
    assert changed == {"createTime": "2022-01-01T00:00:00Z", "updateTime": "2026-01-15T09:30:00Z",
                       "releaseTime": "2022-01-01T00:00:00Z", "expireTime": "2022-03-01T00:00:00Z"}


def _params(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def _queues() -> ApiSpec:
    queue = {"type": "object", "properties": {
        "QueueId": {"type": "string"}, "Name": {"type": "string"}, "Description": {"type": "string"},
        "CreatedAt": {"type": "string", "format": "date-time"}, "LastUpdated": {"type": "string", "format": "date-time"}}}
    name = {"Name": {"type": "string", "x-in": "body"}}
    key = {"QueueId": {"type": "string", "x-in": "path"}}
    ops = (
        Operation("CreateQueue", "CreateQueue", "Creates a queue.", _params(name, ["Name"]), queue, "write", "POST",
                  "/queues"),
        Operation("ListQueues", "ListQueues", "Lists queues.", _params({}, []),
                  {"type": "object", "properties": {"Queues": {"type": "array", "items": queue}}}, "read", "GET",
                  "/queues"),
        Operation("GetQueue", "GetQueue", "Gets a queue.", _params(key, ["QueueId"]), queue, "read", "GET",
                  "/queues/{QueueId}"),
        Operation("UpdateQueue", "UpdateQueue", "Updates a queue.",
                  _params({**key, "Description": {"type": "string", "x-in": "body"}}, ["QueueId"]), queue, "write",
                  "PUT", "/queues/{QueueId}"),
    )
    return ApiSpec("botocore", "botocore:queues:2024-01-01", "Queues", "2024-01-01", "Queues.", "Apache-2.0", None,
                   {"package": "botocore"}, ops)


def test_a_created_queue_was_made_now_and_an_updated_one_changed_now() -> None:
    """CreateQueue said ``"CreatedAt": "2022-08-16T21:11:06Z", "LastUpdated": "2023-03-01T09:28:48Z"`` for
    the queue it had just made."""
    api = bind(_queues())
    state = api.make_state(random.Random(4))
    seeded = state["tables"]["queues"]
    assert seeded and all(r["CreatedAt"] < "2026" and r["LastUpdated"] < "2026" for r in seeded.values())
    env = api.environment(state)
    first = env.call("CreateQueue", {"Name": "billing-jobs"})
    second = env.call("CreateQueue", {"Name": "email-jobs"})
    assert not is_error(first) and not is_error(second)
    assert first["CreatedAt"] == first["LastUpdated"] and first["CreatedAt"].startswith("2026-01-15T09:")
    assert first["CreatedAt"] < second["CreatedAt"] == second["LastUpdated"]  # made in the order they were asked
    key = next(iter(sorted(seeded)))
    before = dict(seeded[key])
    updated = env.call("UpdateQueue", {"QueueId": key, "Description": "Nightly exports."})
    assert updated["Description"] == "Nightly exports." and updated["CreatedAt"] == before["CreatedAt"]
    assert updated["LastUpdated"] == "2026-01-15T09:30:00Z" != before["LastUpdated"]


def test_a_record_made_now_finished_being_made_just_after_now() -> None:
    """A glossary submitted in the task said ``"submitTime": "2026-01-15T09:31:05Z", "endTime":
    "2022-10-08T19:52:22Z"``: the making of a record made now ends just after now, in the field's form."""
    glossary = {"name": "glossaries/terms", "submitTime": "2023-04-01T10:00:00Z", "endTime": "2022-10-08T19:52:22Z",
                "completedAt": 1650000000, "endpoint": "https://translate.example.com"}
    stamp_written(glossary, created=True)
    assert glossary["submitTime"] == "2026-01-15T09:30:00Z" and glossary["endTime"] == "2026-01-15T09:32:00Z"
    assert glossary["completedAt"] == 1768469520 and glossary["endpoint"] == "https://translate.example.com"
    changed = {"updateTime": "2023-04-01T10:00:00Z", "endTime": "2022-10-08T19:52:22Z"}
    stamp_written(changed, created=False)  # an update does not end the making of the record again
    assert changed == {"updateTime": "2026-01-15T09:30:00Z", "endTime": "2022-10-08T19:52:22Z"}


def test_a_listed_record_holds_what_the_list_requires_of_it() -> None:
    """Kendra's DescribeIndex leaves ``CreatedAt`` and ``Status`` optional and untyped by enum; its list's
    summaries require them and name the statuses. A seeded record fits every output that shows it."""
    from covert.imports.resources import fits_every_output, infer

    own = {"type": "object", "properties": {"QueueId": {"type": "string"}, "Name": {"type": "string"},
                                            "Status": {"type": "string"},
                                            "CreatedAt": {"type": "string", "format": "date-time"}}}
    summary = {"type": "object", "required": ["QueueId", "Status", "CreatedAt"], "properties": {
        "QueueId": {"type": "string", "minLength": 6}, "Status": {"type": "string", "enum": ["ACTIVE", "FAILED"]},
        "CreatedAt": {"type": "string"}}}
    merged = fits_every_output(own, [own, summary])
    assert merged["required"] == ["QueueId", "Status", "CreatedAt"]
    assert merged["properties"]["Status"] == {"type": "string", "enum": ["ACTIVE", "FAILED"]}
    assert merged["properties"]["QueueId"] == {"type": "string", "minLength": 6} and "properties" in own
    assert fits_every_output(own, [own]) is own and "required" not in own  # nothing to add: the record's own
    spec = _queues()
    ops = tuple(op if op.name != "ListQueues" else
                Operation("ListQueues", "ListQueues", "Lists queues.", _params({}, []),
                          {"type": "object", "properties": {"Queues": {"type": "array", "items": summary}}}, "read",
                          "GET", "/queues") for op in spec.operations)
    ops = tuple(op if op.name != "GetQueue" else replace(op, response=own) for op in ops)
    spec = ApiSpec(spec.source, spec.api, spec.title, spec.version, spec.description, spec.license, None,
                   spec.provenance, ops)
    resources, _roles = infer(spec)
    assert resources["queues"].schema["properties"]["Status"]["enum"] == ["ACTIVE", "FAILED"]
    api = bind(spec)
    for seed in range(5):
        listed = api.environment(api.make_state(random.Random(seed))).call("ListQueues", {})
        assert listed["Queues"] and all(r["Status"] in ("ACTIVE", "FAILED") and r["CreatedAt"] for r in listed["Queues"])


def test_nothing_of_a_record_made_now_changed_or_ran_out_before_it_was_made() -> None:
    """A Gitea repository created in the task said ``"mirror_updated": "2023-02-08T03:28:54Z"`` and a Cloud
    Storage object ``"retentionExpirationTime": "2024-10-26T02:27:26Z"``: a field whose name says a change
    or an end anywhere, or what the record did last (Glacier's ``LastInventoryDate`` 2023-04-25 on a vault
    just made), holds no time before the making; later times and other fields are left alone."""
    repo = {"created_at": "2022-01-01T00:00:00Z", "mirror_updated": "2023-02-08T03:28:54Z",
            "timeStorageClassUpdated": "2027-03-01T00:00:00Z", "retentionExpirationTime": "2024-10-26T02:27:26Z",
            "FunctionUpdateBlockDate": "2022-03-25", "versionTime": "2024-02-02T00:00:00Z", "pushedAt": 1650000000,
            "softDeleteExpiryTime": "2026-01-25T00:00:00Z", "LastInventoryDate": "2023-04-25", "lastName": "Ruiz"}
    stamp_written(repo, created=True)
    assert repo == {"created_at": "2026-01-15T09:30:00Z", "mirror_updated": "2026-01-15T09:30:00Z",
                    "timeStorageClassUpdated": "2027-03-01T00:00:00Z",
                    "retentionExpirationTime": "2026-02-14T09:30:00Z", "FunctionUpdateBlockDate": "2026-01-15",
                    "versionTime": "2024-02-02T00:00:00Z", "pushedAt": 1650000000,
                    "softDeleteExpiryTime": "2026-01-25T00:00:00Z",  # after the making already: kept
                    "LastInventoryDate": "2026-01-15", "lastName": "Ruiz"}  # a vault made now was last inventoried no earlier
    listed = {"mirror_updated": "2023-02-08T03:28:54Z"}
    stamp_written(listed, created=False)  # a record changed now was made long ago: nothing to move
    assert listed == {"mirror_updated": "2023-02-08T03:28:54Z"}


def test_a_seeded_record_keeps_its_times_and_dates_in_order_and_is_not_deleted() -> None:
    """Lambda's runtimes said ``FunctionCreateBlockDate`` 2025-07-18 beside ``FunctionUpdateBlockDate``
    2022-03-25 (dates, not timestamps), GitHub's teams ``created_at`` with milliseconds after an
    ``updated_at`` without, and a live Cloud Storage object had a ``timeDeleted``."""
    from covert.imports.statefactory import record

    schema = {"type": "object", "required": ["FunctionCreateBlockDate", "FunctionUpdateBlockDate", "created_at",
                                             "updated_at"],
              "properties": {"FunctionCreateBlockDate": {"type": "string", "format": "date"},
                             "FunctionUpdateBlockDate": {"type": "string", "format": "date"},
                             "created_at": {"type": "string", "format": "date-time",
                                            "example": "2025-10-15T13:53:01.268Z"},
                             "updated_at": {"type": "string", "format": "date-time"},
                             "timeDeleted": {"type": "string", "format": "date-time"},
                             "startTime": {"type": "string", "format": "date-time"},
                             "stopTime": {"type": "string", "format": "date-time"}}}
    for seed in range(40):
        made = record(schema, random.Random(seed))
        assert "timeDeleted" not in made
        assert made["FunctionCreateBlockDate"] <= made["FunctionUpdateBlockDate"], made
        assert made["created_at"][:19] <= made["updated_at"][:19], made
        if "startTime" in made and "stopTime" in made:  # an Omics run stopped in 2022 that started in 2025
            assert made["startTime"] <= made["stopTime"], made


def test_a_records_own_arn_ends_in_its_name_or_else_its_id() -> None:
    """KMS keys made in a task read ``"Arn": "arn:aws:kms:...:key/CUSTOMER"`` (their ``KeyManager``, a person
    by its word) beside ``"KeyId": "key-6ef5a53b7703"``: a record with no name has an ARN ending in its id;
    one with a name, in its name; another resource's ARN stays as it is."""
    from covert.imports.statefactory import arn_names_its_record

    key = {"KeyId": "1234abcd-12ab-34cd-56ef-1234567890ab", "KeyManager": "CUSTOMER",
           "Arn": "arn:aws:kms:us-east-1:486231162704:key/9f0e", "RoleArn": "arn:aws:iam::486231162704:role/etl"}
    assert arn_names_its_record(key, "key", "KeyId") is None
    assert key["Arn"] == "arn:aws:kms:us-east-1:486231162704:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    assert key["RoleArn"] == "arn:aws:iam::486231162704:role/etl"
    vault = {"VaultName": "video-vault", "Owner": "Ana Lopez", "VaultARN": "arn:aws:glacier:us-east-1:1:vaults/v-1"}
    assert arn_names_its_record(vault, "vault", "") == "video-vault"
    assert vault["VaultARN"] == "arn:aws:glacier:us-east-1:1:vaults/video-vault"
