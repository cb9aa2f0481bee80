"""Tool graph and blueprint sampling on the retail builder."""

from __future__ import annotations

import itertools
import json

from covert.cli import main
from covert.env import get_builder, item_rng
from covert.synth.blueprint import backward, merge, random_walk, sample_blueprint, user_suppliable
from covert.synth.graph import output_fields, tool_graph
from covert.synth.records import CATEGORIES

RETAIL = get_builder("retail")


def test_output_fields_walk_nested_lists() -> None:
    paths = {f.path: f for f in output_fields(RETAIL.tools["get_user_details"].returns)}
    assert paths["orders[].order_id"].in_list and paths["orders[].order_id"].entity == "order_id"
    assert paths["address.zip"].type == "string" and not paths["address.zip"].in_list
    assert paths["payment_methods[].payment_method_id"].entity == "payment_method_id"


def test_edges_link_entities_by_name_and_type_only() -> None:
    graph = tool_graph(RETAIL)
    edges = {(e.source, e.target, e.param) for e in graph.edges}
    assert ("find_user_id_by_email", "get_user_details", "user_id") in edges
    assert ("get_user_details", "cancel_pending_order", "order_id") in edges
    assert ("get_order_details", "return_delivered_order_items", "item_ids") in edges
    # a new address is a value the user types, not a link, even though outputs carry addresses
    assert not any(e.param in ("address1", "city", "zip", "email") for e in graph.edges)
    assert graph.producers("user_id") == ["find_user_id_by_email", "find_user_id_by_name_zip", "get_order_details"]
    assert "get_order_details" not in graph.producers("order_id")  # it needs an order id itself


def test_backward_sampling_pulls_in_producers_in_order() -> None:
    for seed in range(20):
        steps = backward(RETAIL, "return_delivered_order_items", item_rng("bw", seed))
        assert steps[-1] == "return_delivered_order_items"
        assert {"get_order_details", "get_product_details"} & set(steps)  # producers of item ids
        for i, tool in enumerate(steps):
            for param in RETAIL.tools[tool].parameters["required"]:
                ref = RETAIL.language.references.get(RETAIL.tools[tool].param_entity(param))
                if ref is not None and not ref.user_knows_id:
                    producers = tool_graph(RETAIL).producers(RETAIL.tools[tool].param_entity(param), False)
                    assert any(p in steps[:i] for p in producers), (tool, param, steps)


def test_merge_removes_redundant_lookups() -> None:
    graph = tool_graph(RETAIL)
    first = ["find_user_id_by_email", "get_user_details", "cancel_pending_order"]
    second = ["find_user_id_by_name_zip", "get_user_details", "modify_user_address"]
    merged = merge(first, second, graph)
    assert merged == ["find_user_id_by_email", "get_user_details", "cancel_pending_order", "modify_user_address"]


def test_random_walk_follows_edges_and_starts_user_suppliable() -> None:
    graph = tool_graph(RETAIL)
    for seed in range(30):
        walk = random_walk(RETAIL, item_rng("walk", seed), 4)
        assert user_suppliable(RETAIL, walk[0])
        for a, b in itertools.pairwise(walk):
            assert b in graph.successors(a)


def test_every_category_samples() -> None:
    for category in CATEGORIES:
        blueprint = sample_blueprint(RETAIL, category, item_rng("cat", category))
        assert blueprint.category == category
        if category == "parallel":
            assert len(set(blueprint.steps)) == 1 and len(blueprint.steps) >= 2


def test_graph_cli_exports(tmp_path, capsys) -> None:
    assert main(["graph", "retail", "--format", "json", "--out", str(tmp_path / "g.json")]) == 0
    data = json.loads((tmp_path / "g.json").read_text())
    assert {"nodes", "edges"} <= set(data) and len(data["nodes"]) == len(RETAIL.tools)
    assert main(["graph", "retail", "--format", "dot"]) == 0
    assert capsys.readouterr().out.startswith('digraph "retail"')
    assert main(["graph", "nope"]) == 2
