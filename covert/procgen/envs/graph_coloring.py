"""Graph colouring with a planted colouring: any proper colouring with the allowed colours scores 1."""

from __future__ import annotations

import re
from typing import Any

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import answer_text, int_list_answer, json_value

_PAIR = re.compile(r"(\d{1,4})\s*(?::|=|->)\s*(\d{1,4})")


def parse_colouring(response: Any, n: int) -> list[int] | None:
    """Colours of nodes 1..n: a list in node order, ``1: 2, 2: 1`` pairs or JSON ``{"1": 2}``."""
    text = answer_text(response)
    value = json_value(text) if text else None
    if isinstance(value, dict):
        try:
            pairs = {int(str(k).strip()): int(v) for k, v in value.items() if not isinstance(v, bool)}
        except (TypeError, ValueError):
            return None
        return [pairs[i] for i in range(1, n + 1)] if sorted(pairs) == list(range(1, n + 1)) else None
    found = _PAIR.findall(text[:20 * n + 200])
    if len(found) == n:
        pairs = {int(k): int(v) for k, v in found}
        return [pairs[i] for i in range(1, n + 1)] if sorted(pairs) == list(range(1, n + 1)) else None
    return int_list_answer(response, limit=n + 1)


class GraphColoring(ProceduralEnv):
    """Nodes and edges built around a hidden colouring with k colours."""

    name = "graph_coloring"
    version = "1"
    description = "colour a graph's nodes with k colours so that no edge joins two nodes of one colour"
    asymmetry = "verify"
    knobs = (
        Knob("nodes", (4, 6, 8, 10, 14, 18, 25), "number of nodes"),
        Knob("colours", (4, 3), "colours allowed (fewer is harder)"),
        Knob("density", (30, 45, 60), "percent chance that two nodes of different hidden colours are joined"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n, k = config["nodes"], config["colours"]
        hidden = [i % k + 1 for i in range(n)]
        rng.shuffle(hidden)
        edges = [[u, v] for u in range(1, n + 1) for v in range(u + 1, n + 1)
                 if hidden[u - 1] != hidden[v - 1] and rng.randrange(100) < config["density"]]
        lines = ", ".join(f"{u}-{v}" for u, v in edges) or "(none)"
        prompt = (f"A graph has {n} nodes, numbered 1 to {n}, and these edges: {lines}.\n\n"
                  f"Give each node one of the colours 1 to {k} so that no edge joins two nodes of the same colour.\n"
                  "End your response with a line 'Answer: ' followed by the colours of nodes 1 to "
                  f"{n} in order, e.g. Answer: [1, 2, 1, ...].")
        return Instance(prompt, {"n": n, "k": k, "edges": edges, "planted": hidden})

    def reference(self, instance: Instance) -> str:
        return f"No edge joins two nodes of one colour in this colouring.\nAnswer: {instance.data['planted']}"

    def score(self, instance: Instance, response: str) -> Score:
        n, k = instance.data["n"], instance.data["k"]
        colours = parse_colouring(response, n)
        if colours is None:
            return Score(0.0, ("unparsable",))
        if len(colours) != n:
            return Score(0.0, ("wrong_length",), {"length": len(colours)})
        if any(not 1 <= c <= k for c in colours):
            return Score(0.0, ("unknown_colour",))
        clashes = sum(1 for u, v in instance.data["edges"] if colours[u - 1] == colours[v - 1])
        if clashes:
            return Score(0.0, ("same_colour_edge",), {"clashes": clashes})
        return Score(1.0, (), {"clashes": 0})


ENV = GraphColoring()
