"""One English plural implementation (covert.language.plurals), used by the spoken counts, the answers
and the imported APIs' resource names alike."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from covert.imports.model import ApiSpec, Operation
from covert.imports.resources import infer
from covert.language.plurals import plural, singular
from covert.language.spoken import say_count

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("one", "many"), [
    ("order", "orders"), ("policy", "policies"), ("address", "addresses"), ("box", "boxes"),
    ("branch", "branches"), ("day", "days"), ("analysis", "analyses"), ("person", "people"),
    ("child", "children"), ("reply", "replies"), ("company", "companies"), ("metadata", "metadata"),
    ("billing info", "billing info"), ("open ticket", "open tickets"), ("status", "statuses"),
    ("matrix", "matrixes"), ("bookshelf", "bookshelves"), ("knife", "knives"),
])
def test_plural(one: str, many: str) -> None:
    assert plural(one) == many


@pytest.mark.parametrize(("many", "one"), [
    ("orders", "order"), ("policies", "policy"), ("addresses", "address"), ("statuses", "status"),
    ("buses", "bus"), ("analyses", "analysis"), ("people", "person"), ("children", "child"),
    ("ids", "id"), ("test matrices", "test matrix"), ("caches", "cache"), ("status", "status"),
    ("open tickets", "open ticket"), ("replies", "reply"), ("bookshelves", "bookshelf"), ("valves", "valve"),
    ("olives", "olive"), ("archives", "archive"),
])
def test_singular(many: str, one: str) -> None:
    assert singular(many) == one


def test_counts_and_imported_names_speak_the_same_plurals() -> None:
    assert say_count(2, "person") == "2 people"
    assert say_count(0, "analysis") == "no analyses"
    person = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    ops = (Operation("getPerson", "getPerson", "Retrieve a person.",
                     {"type": "object", "properties": {"person": {"type": "string", "x-in": "path"}},
                      "required": ["person"]}, person, "read", "GET", "/v1/persons/{person}"),)
    spec = ApiSpec("openapi", "openapi:people.example:1.0", "People", "1.0", "People.", "MIT", None,
                   {"file": "people.json", "sha256": "0" * 64}, ops)
    resources, _ = infer(spec)
    assert [(r.table, r.plural) for r in resources.values()] == [("people", "people")]


def test_no_other_module_defines_plural_rules() -> None:
    """The rules live in one module: no other function named plural/singular anywhere in covert/ or builders/."""
    home = ROOT / "covert" / "language" / "plurals.py"
    others = []
    for path in [*(ROOT / "covert").rglob("*.py"), *(ROOT / "builders").rglob("*.py")]:
        if path == home:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in ("plural", "singular"):
                others.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert others == []
