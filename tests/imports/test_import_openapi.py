"""OpenAPI importer on small specs written here: flattening, $ref/allOf/oneOf, effects, pagination, bad specs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from covert.cli import main
from covert.imports.model import SpecRejected
from covert.imports.openapi import import_file, import_paths
from covert.imports.store import dump_spec, load_specs, spec_files

LICENSE = {"name": "Apache 2.0", "url": "https://www.apache.org/licenses/LICENSE-2.0"}

PETS = {
    "openapi": "3.0.3",
    "info": {"title": "Pet Store", "version": "1.2", "license": LICENSE, "x-apisguru-categories": ["ecommerce"]},
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets", "summary": "List pets",
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}},
                    {"name": "page_token", "in": "query", "schema": {"type": "string"}},
                    {"name": "status", "in": "query", "schema": {"$ref": "#/components/schemas/Status"}},
                    {"name": "Authorization", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
                        "next_page_token": {"type": "string", "nullable": True}}}}}},
                    "default": {"$ref": "#/components/responses/Error"}},
            },
            "post": {
                "operationId": "createPet",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/NewPet"}}}},
                "responses": {"201": {"description": "made", "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/Pet"}}}}, "409": {"description": "exists"}},
            },
        },
        "/pets/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {"operationId": "getPet", "responses": {"200": {"description": "ok", "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}, "404": {"description": "no"}}},
            "patch": {
                "operationId": "updatePet",
                "parameters": [{"name": "X-Request-Id", "in": "header", "schema": {"type": "string"}}],
                "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
                    "id": {"type": "string"}, "name": {"type": "string"}}}}}},
                "responses": {"200": {"description": "ok"}},
            },
            "delete": {"operationId": "deletePet", "responses": {"204": {"description": "gone"}}},
        },
        "/pets/{id}/photo": {
            "put": {"parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "requestBody": {"content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}},
                    "responses": {"200": {"description": "ok"}}},
        },
        "/broken": {"get": {"operationId": "broken", "responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Nowhere"}}}}}}},
        "/loop": {"get": {"operationId": "loop", "responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}},
        "/silent": {"get": {"operationId": "silent"}},
        "/tree": {"get": {"operationId": "getTree", "responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}}},
    },
    "components": {
        "schemas": {
            "Status": {"type": "string", "enum": ["available", "sold"]},
            "NewPet": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "example": "Rex"},
                "born": {"type": "string", "format": "date"},
                "owner": {"oneOf": [{"type": "string"}, {"$ref": "#/components/schemas/Owner"}]},
                "id": {"type": "string", "readOnly": True}}},
            "Pet": {"allOf": [{"$ref": "#/components/schemas/NewPet"}, {
                "type": "object", "required": ["id"], "properties": {"id": {"type": "string"},
                                                                     "status": {"$ref": "#/components/schemas/Status"}}}]},
            "Owner": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}},
            "A": {"$ref": "#/components/schemas/B"},
            "B": {"allOf": [{"$ref": "#/components/schemas/A"}]},
            "Node": {"type": "object", "properties": {"label": {"type": "string"},
                                                      "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}},
        },
        "responses": {"Error": {"description": "error", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"message": {"type": "string"}}}}}}},
    },
}


def _write(tmp_path: Path, name: str, doc: object) -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def _ops(tmp_path: Path) -> tuple[object, dict[str, object]]:
    spec = import_file(_write(tmp_path, "pets.json", PETS))
    return spec, {op.name: op for op in spec.operations}


def test_operations_are_flattened_resolved_and_classified(tmp_path: Path) -> None:
    spec, ops = _ops(tmp_path)
    assert spec.api == "openapi:pet-store:1.2" and spec.license == "Apache-2.0"
    assert spec.provenance["categories"] == "ecommerce" and spec.provenance["format"] == "openapi 3.0.3"
    assert set(ops) == {"listPets", "createPet", "getPet", "updatePet", "deletePet", "put_pets_id_photo", "getTree"}
    assert dict(spec.skipped) == {"broken": "dangling_ref", "loop": "cyclic_schema", "silent": "no_responses"}
    listing = ops["listPets"]
    assert listing.effect == "read" and listing.http_method == "GET" and listing.path == "/pets"
    props = listing.parameters["properties"]
    assert list(props) == ["limit", "page_token", "status"]  # transport headers are not tool parameters
    assert props["status"] == {"type": "string", "enum": ["available", "sold"], "x-in": "query"}
    assert listing.pagination == {"token_param": "page_token", "limit_param": "limit",
                                  "next_token_field": "next_page_token", "items_field": "items"}
    assert listing.response["properties"]["next_page_token"]["type"] == ["string", "null"]
    assert listing.errors == ("default",)
    pet = listing.response["properties"]["items"]["items"]
    assert pet["required"] == ["name", "id"] and set(pet["properties"]) == {"name", "born", "owner", "id", "status"}
    assert "example" not in pet["properties"]["name"]
    assert pet["properties"]["owner"]["oneOf"][1]["properties"]["email"]["format"] == "email"
    create = ops["createPet"]
    assert create.effect == "write" and create.errors == ("409",)
    assert create.parameters["required"] == ["name"]
    assert set(create.parameters["properties"]) == {"name", "born", "owner"}  # readOnly id stays out
    assert all(p["x-in"] == "body" for p in create.parameters["properties"].values())
    update = ops["updatePet"].parameters["properties"]
    assert update["id"]["x-in"] == "path" and update["body_id"] == {"type": "string", "x-in": "body", "x-name": "id"}
    assert update["X-Request-Id"]["x-in"] == "header"
    assert ops["getPet"].parameters["required"] == ["id"] and ops["getPet"].errors == ("404",)
    assert ops["deletePet"].response is None and ops["deletePet"].hints["success_status"] == "204"
    photo = ops["put_pets_id_photo"].parameters["properties"]
    assert photo["body"] == {"type": "string", "format": "binary", "x-in": "body"}
    tree = ops["getTree"].response
    assert tree["properties"]["children"]["items"] == {"type": "object", "x-recursive": "#/components/schemas/Node"}
    for op in spec.operations:
        jsonschema.Draft202012Validator.check_schema(op.parameters)
        if op.response is not None:
            jsonschema.Draft202012Validator.check_schema(op.response)


def test_same_spec_same_bytes(tmp_path: Path) -> None:
    first = import_file(_write(tmp_path, "a.json", PETS))
    second = import_file(_write(tmp_path, "a.json", PETS))
    assert dump_spec(first) == dump_spec(second)
    assert type(first).from_dict(json.loads(dump_spec(first))) == first


def test_yaml_and_swagger2(tmp_path: Path) -> None:
    yaml_doc = ("openapi: 3.1.0\ninfo: {title: Notes, version: '1', license: {name: MIT, identifier: MIT}}\n"
                "paths:\n  /notes:\n    get:\n      operationId: listNotes\n      responses:\n"
                "        '200': {description: ok, content: {application/json: {schema: {type: array, "
                "items: {type: [string, 'null']}}}}}\n")
    spec = import_file(_write(tmp_path, "notes.yaml", yaml_doc))
    assert spec.license == "MIT" and spec.operations[0].response == {"type": "array", "items": {"type": ["string", "null"]}}
    swagger = {"swagger": "2.0", "info": {"title": "Old", "version": "0", "license": {"name": "MIT"}},
               "paths": {"/things/{id}": {"put": {"operationId": "putThing", "parameters": [
                   {"name": "id", "in": "path", "required": True, "type": "string"},
                   {"name": "body", "in": "body", "required": True, "schema": {"$ref": "#/definitions/Thing"}}],
                   "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Thing"}}}}}},
               "definitions": {"Thing": {"type": "object", "required": ["size"], "properties": {"size": {"type": "integer"}}}}}
    op = import_file(_write(tmp_path, "old.json", swagger)).operations[0]
    assert op.parameters == {"type": "object", "required": ["id", "size"], "properties": {
        "id": {"type": "string", "x-in": "path"}, "size": {"type": "integer", "x-in": "body"}}}
    assert op.response["properties"]["size"] == {"type": "integer"}


@pytest.mark.parametrize(("name", "text", "reason"), [
    ("bad.json", '{"openapi": "3.0.0", "info": ', "invalid_json"),
    ("bad.yaml", "openapi: 3.0.0\ninfo: [unclosed\n", "invalid_yaml"),
    ("list.json", "[1, 2]", "not_openapi"),
    ("nolicense.json", json.dumps({**PETS, "info": {"title": "x", "version": "1"}}), "no_license"),
    ("empty.json", json.dumps({**PETS, "paths": {"/x": {"get": {"operationId": "x"}}}}), "no_operations"),
])
def test_bad_specs_are_rejected_with_a_reason(tmp_path: Path, name: str, text: str, reason: str) -> None:
    with pytest.raises(SpecRejected) as info:
        import_file(_write(tmp_path, name, text))
    assert info.value.reason == reason and info.value.detail


def test_huge_spec_is_bounded(tmp_path: Path) -> None:
    with pytest.raises(SpecRejected, match="too_large"):
        import_file(_write(tmp_path, "big.json", PETS), max_bytes=1000)


def test_a_folder_import_goes_on_past_bad_specs_and_the_cli_fills_the_store(tmp_path: Path, capsys) -> None:
    specs = tmp_path / "specs_in"
    specs.mkdir()
    _write(specs, "pets.json", PETS)
    _write(specs, "bad.json", "{nope")
    _write(specs, "nolicense.json", {**PETS, "info": {"title": "y", "version": "1"}})
    report = import_paths([specs])
    assert report.counts()["rejected_by_reason"] == {"invalid_json": 1, "no_license": 1}
    assert report.counts()["operations_by_effect"] == {"read": 3, "write": 4}
    store = tmp_path / "store"
    assert main(["import", "openapi", str(specs), "--store", str(store), "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert (counts["seen"], counts["imported"], counts["rejected"]) == (3, 1, 2)
    assert [s.api for s in load_specs(store)] == ["openapi:pet-store:1.2"]
    assert main(["import", "openapi", str(specs), "--store", str(store), "--allow-unlicensed"]) == 0
    assert [s.api for s in load_specs(store)] == ["openapi:pet-store:1.2", "openapi:y:1"]
    assert len(spec_files(store)) == 2
    assert main(["import", "openapi", str(specs / "bad.json"), "--store", str(store)]) == 1
    assert "invalid_json" in capsys.readouterr().err
    assert main(["import", "openapi", str(tmp_path / "missing.json")]) == 2


def test_a_path_format_declared_in_words_becomes_the_parameters_pattern(tmp_path: Path) -> None:
    described = "Required. The parent of the vulnerabilities. Format: projects/[project_name]/locations/[location]/scans/[scan_id]"
    doc = {"openapi": "3.0.0", "info": {"title": "Scans", "version": "1", "license": {"name": "Apache-2.0"}},
           "paths": {"/v1/{parent}/vulnerabilities": {"get": {"operationId": "scans.vulnerabilities.list", "parameters": [
               {"name": "parent", "in": "path", "required": True, "schema": {"type": "string"}, "description": described},
               {"name": "filter", "in": "query", "schema": {"type": "string"}, "description": "Format: projects/{p}"}],
               "responses": {"200": {"description": "ok"}}}}}}
    props = import_file(_write(tmp_path, "scans.json", doc)).operations[0].parameters["properties"]
    assert props["parent"]["pattern"] == "^projects/[^/]+/locations/[^/]+/scans/[^/]+$"
    assert "pattern" not in props["filter"]  # only a path parameter is a resource path
