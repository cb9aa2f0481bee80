"""Graph colouring with a planted colouring: any proper colouring with the allowed colours scores 1."""

from __future__ import annotations

import re
from typing import Any

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import answer_text, int_list_answer, json_value
from covert.procgen.trace import SearchTrace, edge_listing, note_to, written_search

_PAIR = re.compile(r"(\d{1,4})\s*(?::|=|->)\s*(\d{1,4})")
MAX_TRACE = 30


def parse_colouring(response: Any, n: int) -> list[int] | None:
    """Colours of nodes 1..n: a list in node order, ``1: 2, 2: 1`` pairs or JSON ``{"1": 2}``."""
    text = answer_text(response)
    value = json_value(text) if text else None
    if isinstance(value, dict):
        try:
            pairs = {int(str(k).strip().lower().removeprefix("node").strip()): int(v)
                     for k, v in value.items() if not isinstance(v, bool)}
        except (TypeError, ValueError):
            return None
        return [pairs[i] for i in range(1, n + 1)] if sorted(pairs) == list(range(1, n + 1)) else None
    found = _PAIR.findall(text[:20 * n + 200])
    if len(found) == n:
        pairs = {int(k): int(v) for k, v in found}
        return [pairs[i] for i in range(1, n + 1)] if sorted(pairs) == list(range(1, n + 1)) else None
    return int_list_answer(response, limit=n + 1)


def neighbours_of(n: int, edges: list[list[int]]) -> list[set[int]]:
    """Neighbour sets of nodes 1..n at indices 1..n (index 0 unused)."""
    near: list[set[int]] = [set() for _ in range(n + 1)]
    for u, v in edges:
        near[u].add(v)
        near[v].add(u)
    return near


def greedy_colouring(n: int, k: int, edges: list[list[int]]) -> list[int] | None:
    """Nodes in number order, each the smallest colour no coloured neighbour has (``None`` if one needs more)."""
    near = neighbours_of(n, edges)
    colour = [0] * (n + 1)
    for node in range(1, n + 1):
        free = [c for c in range(1, k + 1) if all(colour[m] != c for m in near[node])]
        if not free:
            return None
        colour[node] = free[0]
    return colour[1:]


def dsatur(n: int, k: int, edges: list[list[int]], budget: Budget | None = None, backtrack: bool = True,
           trace: SearchTrace | None = None) -> list[int] | None:
    """Colour the node whose neighbours already use the most colours first (then most neighbours, then the
    lowest number), trying colours in order; with ``backtrack``, undo a choice that leaves a node no colour.
    ``budget`` counts colour choices; ``trace`` collects the steps in words."""
    near = neighbours_of(n, edges)
    colour = [0] * (n + 1)

    note = note_to(trace)

    def pick() -> int:
        open_nodes = [v for v in range(1, n + 1) if not colour[v]]
        return min(open_nodes, key=lambda v: (-len({colour[m] for m in near[v] if colour[m]}), -len(near[v]), v))

    def search(left: int) -> bool:
        if not left:
            return True
        node = pick()
        used = sorted({colour[m] for m in near[node] if colour[m]})
        options = [c for c in range(1, k + 1) if c not in used]
        if not options:
            note(f"Node {node}: its neighbours already use every colour 1 to {k}, a dead end.")
            return False
        for c in options if backtrack else options[:1]:
            if budget is not None:
                budget.spend()
            seen = f"neighbours use {', '.join(map(str, used))}" if used else "no neighbour is coloured yet"
            note(f"Node {node} ({seen}) gets colour {c}.")
            colour[node] = c
            if search(left - 1):
                return True
            colour[node] = 0
            if backtrack:
                note(f"Undo colour {c} on node {node}.")
        return False

    return colour[1:] if search(n) else None


class GraphColoring(ProceduralEnv):
    """Nodes and edges built around a hidden colouring with k colours."""

    name = "graph_coloring"
    version = "3"
    description = "colour a graph's nodes with k colours so that no edge joins two nodes of one colour"
    asymmetry = "verify"
    hidden_fields = ("planted",)
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
        for _ in range(100):  # at least one edge per two nodes: a graph without edges takes any colouring
            edges = [[u, v] for u in range(1, n + 1) for v in range(u + 1, n + 1)
                     if hidden[u - 1] != hidden[v - 1] and rng.randrange(100) < config["density"]]
            if len(edges) >= n // 2:
                break
        lines = edge_listing(edges) or "(none)"
        prompt = (f"A graph has {n} nodes, numbered 1 to {n}, and these edges: {lines}.\n\n"
                  f"Give each node one of the colours 1 to {k} so that no edge joins two nodes of the same colour.\n"
                  "End your response with a line 'Answer: ' followed by the colours of nodes 1 to "
                  f"{n} in order, e.g. Answer: [1, 2, 1, ...].")
        return Instance(prompt, {"n": n, "k": k, "edges": edges, "planted": hidden})

    def reference(self, instance: Instance) -> str:
        """The colouring search written out: the most constrained node first, undoing dead ends."""
        n, k, edges = instance.data["n"], instance.data["k"], instance.data["edges"]
        trace = SearchTrace(MAX_TRACE)
        found = dsatur(n, k, edges, trace=trace)
        if found is None:  # pragma: no cover - the planted colouring exists
            raise ValueError("this graph has no colouring with the allowed colours")
        return written_search("I colour one node at a time, always the node whose neighbours already use the most "
                              "colours (then the one with most neighbours), giving it the lowest colour none of them "
                              "uses, and undo a choice that leaves some node without a colour.", trace,
                              f"Check: none of the {len(edges)} edges joins two nodes of the same colour.", found)

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

    def ladder(self) -> tuple[Rung, ...]:
        """Greedy in node order, DSatur without backtracking, DSatur with backtracking (40 choices)."""
        def run(inst: Instance, budget: Budget, how: str) -> str | None:
            d = inst.data
            if how == "greedy":
                found = greedy_colouring(d["n"], d["k"], d["edges"])
            else:
                found = dsatur(d["n"], d["k"], d["edges"], budget, backtrack=how == "backtrack")
            return None if found is None else f"Answer: {found}"

        return (Rung("greedy", 1, "passes", lambda i, b: run(i, b, "greedy")),
                Rung("dsatur", 1000, "choices", lambda i, b: run(i, b, "dsatur")),
                Rung("dsatur_backtrack", 40, "choices", lambda i, b: run(i, b, "backtrack")))

    def statistics(self, instance: Instance) -> dict[str, float]:
        n, edges = instance.data["n"], instance.data["edges"]
        return {"nodes": float(n), "edges": float(len(edges)), "colours": float(instance.data["k"]),
                "mean_degree": 2 * len(edges) / n}


ENV = GraphColoring()
