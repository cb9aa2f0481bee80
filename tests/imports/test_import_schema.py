"""Schema resolution bounds: depth truncation, node budget, cycles, caching that does not change results."""

from __future__ import annotations

import json

import pytest

from covert.imports.model import SpecRejected
from covert.imports.openapi import parse_document
from covert.imports.schema import Normalizer, json_pointer, merge_all_of


def _norm(defs: dict, **kw) -> Normalizer:  # noqa: ANN003
    return Normalizer(lambda ref: json_pointer({"defs": defs}, ref), **kw)


def test_deep_nesting_is_truncated_and_the_budget_holds() -> None:
    defs = {f"L{i}": {"type": "object", "properties": {"next": {"$ref": f"#/defs/L{i + 1}"}}} for i in range(20)}
    defs["L20"] = {"type": "string"}
    out = _norm(defs, max_depth=3).normalize({"$ref": "#/defs/L0"})
    node, depth = out, 0
    while "properties" in node:
        node, depth = node["properties"]["next"], depth + 1
    assert node == {"type": "object", "x-truncated": True} and depth == 4
    wide = {"type": "object", "properties": {f"p{i}": {"$ref": "#/defs/W"} for i in range(50)}}
    defs["W"] = {"type": "object", "properties": {f"q{i}": {"type": "string"} for i in range(50)}}
    norm = _norm(defs, max_nodes=1000)
    norm.budget()
    cut = norm.normalize(wide)
    assert norm.exhausted and cut["properties"]["p0"] == fresh(defs)["properties"]["p0"]
    assert cut["properties"]["p49"] == {"type": "object", "x-truncated": True}
    whole = [p for p in cut["properties"].values() if p == cut["properties"]["p0"]]
    assert len(whole) == (1000 - 1) // 51  # then one cut part-way, then the rest truncated
    norm.budget()
    assert not norm.exhausted and norm.normalize(defs["W"]) == fresh(defs)["properties"]["p0"]


def fresh(defs: dict) -> dict:
    return _norm(defs).normalize({"type": "object", "properties": {"p0": {"$ref": "#/defs/W"}}})


def test_cached_references_give_the_same_schema_as_fresh_ones() -> None:
    defs = {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/defs/Node"}},
                                                      "tag": {"$ref": "#/defs/Tag"}}},
            "Tag": {"type": "string", "enum": ["a", "b"], "nullable": True},
            "Both": {"type": "object", "properties": {"x": {"$ref": "#/defs/Node"}, "y": {"$ref": "#/defs/Node"}}}}
    shared = _norm(defs)
    first = shared.normalize({"$ref": "#/defs/Both"})
    again = shared.normalize({"$ref": "#/defs/Both"})
    fresh = _norm(defs).normalize({"$ref": "#/defs/Both"})
    assert first == again == fresh
    assert first["properties"]["x"] == first["properties"]["y"]
    assert first["properties"]["x"]["properties"]["tag"] == {"type": ["string", "null"], "enum": ["a", "b"]}
    assert first["properties"]["x"]["properties"]["kids"]["items"] == {"type": "object", "x-recursive": "#/defs/Node"}


def test_cycles_and_bad_nodes() -> None:
    with pytest.raises(SpecRejected, match="cyclic_schema"):
        _norm({"A": {"$ref": "#/defs/A"}}).normalize({"$ref": "#/defs/A"})
    with pytest.raises(SpecRejected, match="cyclic_schema"):
        _norm({"A": {"oneOf": [{"$ref": "#/defs/A"}, {"type": "string"}]}}).normalize({"$ref": "#/defs/A"})
    with pytest.raises(SpecRejected, match="dangling_ref"):
        _norm({}).normalize({"$ref": "#/defs/None"})
    with pytest.raises(SpecRejected, match="invalid_schema"):
        _norm({}).normalize({"type": "object", "properties": {"a": 3}})
    assert merge_all_of([{"type": "object", "properties": {"a": {}}, "required": ["a"]},
                         {"properties": {"a": {"type": "string"}, "b": {}}, "required": ["b", "a"]}]) == {
        "type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"]}


def test_deeply_nested_documents_are_rejected_not_raised() -> None:
    deep = ("[" * 100_000) + ("]" * 100_000)
    with pytest.raises(SpecRejected, match="invalid_json"):
        parse_document(json.dumps({"a": 1}).replace("1", deep).encode(), "deep.json")


def test_patterns_python_cannot_compile_and_draft4_bounds_are_rewritten() -> None:
    out = _norm({}).normalize({"type": "object", "properties": {
        "tag": {"type": "string", "pattern": "^[\\p{L}]+$"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "n": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 9, "exclusiveMaximum": False}}})
    assert out["properties"]["tag"] == {"type": "string", "x-pattern": "^[\\p{L}]+$"}
    assert out["properties"]["code"]["pattern"] == "^[A-Z]{3}$"
    assert out["properties"]["n"] == {"type": "number", "exclusiveMinimum": 0, "maximum": 9}
