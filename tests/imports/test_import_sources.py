"""Google Discovery, botocore and BFCL importers on small documents written here, and the CLI around them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from covert.cli import main
from covert.imports.bfcl import import_bfcl_file
from covert.imports.botocore import effect_of, import_service_bytes
from covert.imports.google import import_discovery_bytes
from covert.imports.model import SpecRejected
from covert.imports.store import load_specs

DISCOVERY = {
    "kind": "discovery#restDescription", "name": "notes", "version": "v1", "title": "Notes API",
    "description": "Keeps notes.", "revision": "20260101",
    "parameters": {"alt": {"type": "string", "location": "query"}},
    "schemas": {
        "Note": {"id": "Note", "type": "object", "properties": {
            "name": {"type": "string", "readOnly": True}, "title": {"type": "string"},
            "createTime": {"type": "string", "format": "google-datetime", "description": "Output only. When made."},
            "labels": {"type": "array", "items": {"$ref": "Label"}}, "parent": {"$ref": "Note"}}},
        "Label": {"type": "object", "properties": {"color": {"type": "string", "enum": ["RED", "BLUE"]}}},
        "ListNotesResponse": {"type": "object", "properties": {
            "notes": {"type": "array", "items": {"$ref": "Note"}}, "nextPageToken": {"type": "string"}}},
        "Bad": {"$ref": "Missing"},
    },
    "resources": {"notes": {"methods": {
        "list": {"id": "notes.notes.list", "httpMethod": "GET", "path": "v1/notes", "parameters": {
            "pageSize": {"type": "integer", "location": "query", "format": "int32", "minimum": "1", "maximum": "100"},
            "pageToken": {"type": "string", "location": "query"},
            "filter": {"type": "string", "location": "query", "repeated": True}},
            "response": {"$ref": "ListNotesResponse"}},
        "insert": {"id": "notes.notes.insert", "httpMethod": "POST", "path": "v1/notes",
                   "request": {"$ref": "Note"}, "response": {"$ref": "Note"}},
        "archive": {"id": "notes.notes.archive", "httpMethod": "POST", "path": "v1/{+name}:archive",
                    "parameterOrder": ["name"], "parameters": {"name": {"type": "string", "location": "path",
                                                                        "required": True}},
                    "response": {"$ref": "Bad"}},
    }, "resources": {"attachments": {"methods": {
        "delete": {"id": "notes.notes.attachments.delete", "httpMethod": "DELETE", "path": "v1/{+name}",
                   "parameters": {"name": {"type": "string", "location": "path", "required": True}}}}}}}},
}

BOTO = {
    "metadata": {"apiVersion": "2020-01-01", "protocol": "rest-json", "serviceFullName": "Amazon Notes"},
    "documentation": "<p>Keeps <b>notes</b>.</p>",
    "operations": {
        "ListNotes": {"name": "ListNotes", "http": {"method": "GET", "requestUri": "/notes"},
                      "input": {"shape": "ListNotesRequest"}, "output": {"shape": "ListNotesResponse"}},
        "DescribeNote": {"name": "DescribeNote", "http": {"method": "POST", "requestUri": "/describe"},
                         "input": {"shape": "NoteId"}, "output": {"shape": "Note"},
                         "errors": [{"shape": "NotFound"}]},
        "CreateNote": {"name": "CreateNote", "http": {"method": "POST", "requestUri": "/notes/{Folder}"},
                       "input": {"shape": "CreateNoteRequest"}, "output": {"shape": "Note"},
                       "documentation": "<p>Creates a note &amp; returns it.</p>"},
        "Broken": {"name": "Broken", "http": {"method": "POST", "requestUri": "/"}, "input": {"shape": "Nope"}},
    },
    "shapes": {
        "ListNotesRequest": {"type": "structure", "members": {
            "MaxResults": {"shape": "Limit", "location": "querystring", "locationName": "max"},
            "NextToken": {"shape": "String", "location": "querystring"}}},
        "ListNotesResponse": {"type": "structure", "members": {"Notes": {"shape": "NoteList"},
                                                               "NextToken": {"shape": "String"}}},
        "NoteList": {"type": "list", "member": {"shape": "Note"}},
        "Note": {"type": "structure", "required": ["Id"], "members": {
            "Id": {"shape": "String"}, "Created": {"shape": "Time"}, "Size": {"shape": "Long"},
            "Tags": {"shape": "TagMap"}, "Replies": {"shape": "NoteList"},
            "Kind": {"shape": "Kind"}}},
        "NoteId": {"type": "structure", "required": ["Id"], "members": {"Id": {"shape": "String"}}},
        "CreateNoteRequest": {"type": "structure", "required": ["Folder", "Text"], "members": {
            "Folder": {"shape": "String", "location": "uri", "locationName": "Folder"},
            "Text": {"shape": "String", "documentation": "<p>The text.</p>"},
            "Token": {"shape": "String", "location": "header", "locationName": "x-token"}}},
        "TagMap": {"type": "map", "key": {"shape": "String"}, "value": {"shape": "String"}},
        "Limit": {"type": "integer", "min": 1, "max": 50},
        "Long": {"type": "long"}, "String": {"type": "string"},
        "Time": {"type": "timestamp"}, "Kind": {"type": "string", "enum": ["TEXT", "LIST"]},
        "NotFound": {"type": "structure", "members": {}, "exception": True},
    },
}
PAGERS = {"pagination": {"ListNotes": {"input_token": "NextToken", "output_token": "NextToken",
                                       "limit_key": "MaxResults", "result_key": "Notes"}}}


def _check(spec) -> None:  # noqa: ANN001
    for op in spec.operations:
        jsonschema.Draft202012Validator.check_schema(op.parameters)
        assert op.parameters["type"] == "object"
        if op.response is not None:
            jsonschema.Draft202012Validator.check_schema(op.response)


def test_discovery_document() -> None:
    raw = json.dumps(DISCOVERY).encode()
    spec = import_discovery_bytes(raw, {"package": "test"})
    _check(spec)
    assert spec.api == "google:notes:v1" and spec.license == "Apache-2.0" and "license_basis" in spec.provenance
    ops = {op.op_id: op for op in spec.operations}
    assert dict(spec.skipped) == {"notes.notes.archive": "dangling_ref"}
    listing = ops["notes.notes.list"]
    assert listing.name == "notes_notes_list" and listing.effect == "read" and listing.hints == {"standard_method": "list"}
    assert listing.parameters["properties"]["pageSize"] == {"type": "integer", "format": "int32", "minimum": 1,
                                                            "maximum": 100, "x-in": "query"}
    assert listing.parameters["properties"]["filter"]["type"] == "array"
    assert "alt" not in listing.parameters["properties"]
    assert listing.pagination == {"token_param": "pageToken", "limit_param": "pageSize",
                                  "next_token_field": "nextPageToken", "items_field": "notes"}
    note = listing.response["properties"]["notes"]["items"]
    assert note["properties"]["parent"] == {"type": "object", "x-recursive": "Note"}
    assert note["properties"]["labels"]["items"]["properties"]["color"]["enum"] == ["RED", "BLUE"]
    insert = ops["notes.notes.insert"]
    assert insert.effect == "write" and insert.hints["standard_method"] == "create"
    assert set(insert.parameters["properties"]) == {"title", "labels", "parent"}  # readOnly, output-only dropped
    assert insert.response["properties"]["createTime"]["format"] == "google-datetime"
    delete = ops["notes.notes.attachments.delete"]
    assert delete.effect == "write" and delete.http_method == "DELETE" and delete.response is None
    assert delete.parameters["required"] == ["name"] and delete.hints["standard_method"] == "delete"
    with pytest.raises(SpecRejected, match="invalid_json"):
        import_discovery_bytes(b"{", {})
    with pytest.raises(SpecRejected, match="not_discovery"):
        import_discovery_bytes(b"{}", {})


def test_botocore_model() -> None:
    spec = import_service_bytes(json.dumps(BOTO).encode(), "notes", json.dumps(PAGERS).encode(), {"package": "t"})
    _check(spec)
    assert spec.api == "botocore:notes:2020-01-01" and spec.title == "Amazon Notes" and spec.description == "Keeps notes."
    ops = {op.name: op for op in spec.operations}
    assert dict(spec.skipped) == {"Broken": "dangling_ref"}
    assert ops["ListNotes"].effect == "read" and ops["DescribeNote"].effect == "read"
    assert ops["CreateNote"].effect == "write" and ops["DescribeNote"].errors == ("NotFound",)
    assert ops["ListNotes"].pagination == {"token_param": "NextToken", "next_token_field": "NextToken",
                                           "limit_param": "MaxResults", "items_field": "Notes"}
    props = ops["ListNotes"].parameters["properties"]
    assert props["MaxResults"] == {"type": "integer", "minimum": 1, "maximum": 50, "x-in": "query"}
    create = ops["CreateNote"]
    assert create.description == "Creates a note & returns it."
    assert create.parameters["required"] == ["Folder", "Text"]
    assert {k: v["x-in"] for k, v in create.parameters["properties"].items()} == {
        "Folder": "path", "Text": "body", "Token": "header"}
    note = create.response
    assert note["required"] == ["Id"] and note["properties"]["Created"] == {"type": "string", "format": "date-time"}
    assert note["properties"]["Tags"]["additionalProperties"] == {"type": "string"}
    reply = note["properties"]["Replies"]["items"]
    assert reply["properties"]["Replies"] == {"type": "array", "x-recursive": "NoteList"}
    assert effect_of("Getaway", "POST") == "write" and effect_of("GetThing", "POST") == "read"
    assert effect_of("Frobnicate", "GET") == "read"


def test_bfcl_file_is_an_evaluation_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {"id": "simple_0", "function": [{"name": "math.hypot", "description": "Hypotenuse.", "parameters": {
            "type": "dict", "properties": {"x": {"type": "float"}, "y": {"type": "float"},
                                           "dims": {"type": "tuple", "items": {"type": "integer"}}},
            "required": ["x", "y"]}}]},
        {"id": "simple_1", "function": [{"name": "math.hypot", "description": "Hypotenuse.", "parameters": {
            "type": "dict", "properties": {"x": {"type": "float"}, "y": {"type": "float"},
                                           "dims": {"type": "tuple", "items": {"type": "integer"}}},
            "required": ["x", "y"]}}, {"name": "get_weather", "parameters": {"type": "dict", "properties": {
                "city": {"type": "String"}, "extra": {"type": "any"}}}}]},
    ]
    path = tmp_path / "BFCL_v4_simple_test.json"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n")
    spec = import_bfcl_file(path, license="Apache-2.0")
    _check(spec)
    assert spec.evaluation_source is True and spec.api == "bfcl:BFCL_v4_simple_test" and spec.source == "bfcl"
    assert [op.name for op in spec.operations] == ["math_hypot", "get_weather"]
    hypot = spec.operations[0]
    assert hypot.op_id == "math.hypot" and hypot.effect == "unknown" and hypot.parameters["required"] == ["x", "y"]
    assert hypot.parameters["properties"]["x"] == {"type": "number", "x-in": "argument"}
    assert hypot.parameters["properties"]["dims"]["type"] == "array"
    assert spec.operations[1].parameters["properties"]["extra"] == {"x-in": "argument"}
    assert spec.skipped == (("line 3", "invalid_json"),)
    with pytest.raises(SpecRejected, match="no_license"):
        import_bfcl_file(path)
    store = tmp_path / "store"
    assert main(["import", "bfcl", str(path), "--store", str(store), "--license", "Apache-2.0"]) == 2
    assert "--allow-eval-sources" in capsys.readouterr().err
    assert main(["import", "bfcl", str(path), "--store", str(store), "--license", "Apache-2.0",
                 "--allow-eval-sources"]) == 0
    (stored,) = list(load_specs(store))
    assert stored == spec


def test_a_long_tool_name_keeps_its_service_and_verb() -> None:
    from covert.imports.common import shortened, tool_name

    taken: set[str] = set()
    made = [tool_name(f"analyticsadmin_properties_dataStreams_measurementProtocolSecrets_{verb}", taken)
            for verb in ("create", "delete", "get", "list", "patch")]
    assert made == [f"analyticsadmin_dataStreams_measurementProtocolSecrets_{verb}"
                    for verb in ("create", "delete", "get", "list", "patch")]
    assert all(len(name) <= 64 for name in made)
    # two operations whose short names clash are told apart by a number, still ending in the verb's word
    again = tool_name("analyticsadmin_accounts_dataStreams_measurementProtocolSecrets_create", taken)
    assert again == "analyticsadmin_dataStreams_measurementProtocolSecrets_create_2"
    assert shortened("x" * 70, 64) == "x" * 64 and shortened("a_b", 64) == "a_b"
