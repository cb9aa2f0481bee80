"""Planted vertex cover: place at most k guards at street corners so that every street has a guard at one of its
ends (NP-hard in general; the instance is built around a hidden cover of size k; any cover of size at most k
scores 1)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer
from covert.procgen.trace import SearchTrace, edge_listing, note_to, written_search


def bounded_search(edges: list[list[int]], k: int, budget: Budget | None = None,
                   trace: SearchTrace | None = None) -> list[int] | None:
    """A cover of at most ``k`` corners by the bounded search tree: an unguarded street needs a guard at one of
    its two ends, so try each; ``budget`` counts the branches tried."""

    note = note_to(trace)

    def go(chosen: list[int]) -> list[int] | None:
        open_edge = next(([u, v] for u, v in edges if u not in chosen and v not in chosen), None)
        if open_edge is None:
            return chosen
        if len(chosen) == k:
            note(f"Street {open_edge[0]}-{open_edge[1]} is unguarded with all {k} guards placed: back up.")
            return None
        for corner in open_edge:
            if budget is not None:
                budget.spend()
            note(f"Street {open_edge[0]}-{open_edge[1]} is unguarded: try a guard at {corner}.")
            found = go([*chosen, corner])
            if found is not None:
                return found
        return None

    found = go([])
    return None if found is None else sorted(found)


def busiest_first(n: int, edges: list[list[int]]) -> list[int]:
    """Repeatedly guard the corner on the most unguarded streets (often more than needed)."""
    left = [list(e) for e in edges]
    chosen = []
    while left:
        corner = max(range(1, n + 1), key=lambda c: (sum(c in e for e in left), -c))
        chosen.append(corner)
        left = [e for e in left if corner not in e]
    return sorted(chosen)


def both_ends(edges: list[list[int]]) -> list[int]:
    """Guard both ends of each street no guard covers yet (at most twice the fewest)."""
    chosen: set[int] = set()
    for u, v in edges:
        if u not in chosen and v not in chosen:
            chosen |= {u, v}
    return sorted(chosen)


class VertexCover(ProceduralEnv):
    """Corners and streets with a hidden set of k corners touching every street; any such set of at most k
    corners scores 1."""

    name = "vertex_cover"
    version = "1"
    description = "planted vertex cover: at most k nodes touching every edge"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("corners", (6, 8, 10, 12, 15, 20, 25), "street corners (nodes)"),
        Knob("streets", (100, 150, 200), "streets, in percent of the corners"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["corners"]
        k = max(2, n * 2 // 5)
        for _ in range(200):  # the busiest-corner greedy needs more than k guards
            planted = sorted(rng.sample(range(1, n + 1), k))
            streets: set[tuple[int, int]] = set()
            for _ in range(20 * n):
                if len(streets) >= n * config["streets"] // 100:
                    break
                u = rng.choice(planted)
                v = rng.choice([c for c in range(1, n + 1) if c != u])
                streets.add((min(u, v), max(u, v)))
            edges = [list(e) for e in sorted(streets)]
            if len(busiest_first(n, edges)) > k and len(bounded_search(edges, k - 1) or []) == 0:
                break
        lines = edge_listing(edges)
        prompt = (f"A town has {n} street corners, numbered 1 to {n}, and these streets, each joining two corners: "
                  f"{lines}.\n\nPlace guards on at most {k} corners so that every street has a guard on at least one "
                  "of its two corners.\nEnd your response with a line 'Answer: ' followed by the guarded corners as "
                  "a list, e.g. Answer: [1, 4, 6].")
        return Instance(prompt, {"n": n, "k": k, "edges": edges, "planted": planted})

    def reference(self, instance: Instance) -> str:
        """The bounded search written out: each unguarded street branches on its two ends."""
        d = instance.data
        trace = SearchTrace()
        chosen = bounded_search(d["edges"], d["k"], trace=trace) or d["planted"]
        return written_search(f"Every street needs a guard at one of its two ends, so I take an unguarded street and "
                              f"try a guard at each end in turn, backing up when all {d['k']} guards are placed and a "
                              "street is still unguarded.", trace,
                              f"Check: all {len(d['edges'])} streets touch one of the {len(chosen)} corners {chosen}.",
                              chosen)

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        chosen = int_list_answer(response, limit=d["n"] + 1)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= c <= d["n"] for c in chosen):
            return Score(0.0, ("unknown_corner",))
        picked = set(chosen)
        if len(picked) > d["k"]:
            return Score(0.0, ("too_many_guards",), {"guards": len(picked)})
        open_streets = sum(1 for u, v in d["edges"] if u not in picked and v not in picked)
        if open_streets:
            return Score(0.0, ("unguarded_street",), {"unguarded": open_streets})
        return Score(1.0, (), {"guards": len(picked)})

    def ladder(self) -> tuple[Rung, ...]:
        """Both ends of each open street, the busiest corner first, the bounded search (300 branches)."""
        def search(inst: Instance, budget: Budget) -> str | None:
            found = bounded_search(inst.data["edges"], inst.data["k"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("both_ends", 1, "passes", lambda i, b: f"Answer: {both_ends(i.data['edges'])}"),
                Rung("busiest_first", 1, "passes", lambda i, b: f"Answer: {busiest_first(i.data['n'], i.data['edges'])}"),
                Rung("bounded_search_300", 300, "branches", search))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"corners": float(d["n"]), "streets": float(len(d["edges"])), "guards": float(d["k"])}


ENV = VertexCover()
