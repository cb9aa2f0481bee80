"""Hostile Google Discovery documents: each is a rejection with its reason, listed by the CLI; a run that
imports nothing says why, whether or not anything was rejected (issue 32: "see the rejections above"
with none listed)."""

from __future__ import annotations

import copy
import json
import random
import zipfile
from pathlib import Path

import pytest

from covert.cli import main
from covert.imports.google import import_discovery_bytes
from covert.imports.model import ApiSpec, SpecRejected

BASE = {"kind": "discovery#restDescription", "discoveryVersion": "v1", "name": "notes", "version": "v1",
        "title": "Notes", "rootUrl": "https://notes.example/", "servicePath": "",
        "schemas": {"Note": {"id": "Note", "type": "object", "properties": {"id": {"type": "string"}}}},
        "resources": {"notes": {"methods": {"get": {
            "id": "notes.notes.get", "httpMethod": "GET", "path": "notes/{id}", "response": {"$ref": "Note"},
            "parameters": {"id": {"type": "string", "location": "path", "required": True}}}}}}}
VALUES = [None, 5, "s", [], {}, [1], {"a": 1}, True, 1e308, {"$ref": "Note"}, {"$ref": "Missing"}]


def mutated(rng: random.Random) -> dict:
    doc = copy.deepcopy(BASE)
    for _ in range(rng.randint(1, 3)):
        node = doc
        for _depth in range(6):
            key = rng.choice(list(node))
            if rng.random() < 0.4 or not isinstance(node[key], dict) or not node[key]:
                node[key] = copy.deepcopy(rng.choice(VALUES))
                break
            node = node[key]
    return doc


def test_malformed_documents_are_rejections_never_crashes() -> None:
    assert isinstance(import_discovery_bytes(json.dumps(BASE).encode(), {}, "base"), ApiSpec)
    rng = random.Random(32)
    reasons = set()
    for _ in range(600):
        try:
            import_discovery_bytes(json.dumps(mutated(rng)).encode(), {}, "doc")
        except SpecRejected as exc:
            reasons.add(exc.reason)
    assert "malformed_document" in reasons


def _wheel(cache: Path, documents: dict[str, bytes]) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(cache / "google_api_python_client-2.202.0-py3-none-any.whl", "w") as archive:
        for name, raw in documents.items():
            archive.writestr(f"googleapiclient/discovery_cache/documents/{name}.json", raw)


def test_the_cli_lists_the_rejections_or_says_nothing_matched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = copy.deepcopy(BASE)
    hostile["resources"]["notes"]["methods"] = "not an object"
    _wheel(tmp_path / "cache", {"notes.v1": json.dumps(hostile).encode(), "junk.v1": b"[1, 2]"})
    common = ["--cache", str(tmp_path / "cache"), "--no-fetch", "--store", str(tmp_path / "store")]
    assert main(["import", "google", *common]) == 1
    err = capsys.readouterr().err.splitlines()
    assert sum(line.startswith("covert: rejected googleapiclient/") for line in err) == 2, err
    assert err[-1] == "covert: error: nothing was imported (see the rejections above)"
    assert main(["import", "google", "nosuchapi", *common]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == ["covert: error: nothing was imported: the source holds no spec named nosuchapi (0 seen); check "
                   "the names or paths"], err
