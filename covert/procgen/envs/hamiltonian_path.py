"""Planted Hamiltonian path: a tour that visits every island exactly once along the ferry lines (NP-hard in
general; the map is built around a hidden tour; any such tour scores 1)."""

from __future__ import annotations

from itertools import pairwise

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer
from covert.procgen.trace import SearchTrace, edge_listing, note_to


def neighbours(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Ferry lines from each island 1..n (index 0 unused), sorted."""
    near: list[list[int]] = [[] for _ in range(n + 1)]
    for u, v in edges:
        near[u].append(v)
        near[v].append(u)
    return [sorted(x) for x in near]


def find_tour(n: int, edges: list[list[int]], budget: Budget | None = None,
              trace: SearchTrace | None = None) -> list[int] | None:
    """A path through every island once: depth-first from the islands with fewest lines, going next to the
    unvisited neighbour with fewest unvisited neighbours (Warnsdorff's order), backing up at dead ends;
    ``budget`` counts islands visited."""
    near = neighbours(n, edges)

    note = note_to(trace)

    def free_degree(island: int, seen: set[int]) -> int:
        return sum(1 for x in near[island] if x not in seen)

    def go(path: list[int], seen: set[int]) -> list[int] | None:
        if len(path) == n:
            return path
        options = sorted((x for x in near[path[-1]] if x not in seen), key=lambda x: (free_degree(x, seen), x))
        if not options:
            note(f"From {path[-1]} every line leads to a visited island, with {n - len(path)} islands left: back up.")
        for x in options:
            if budget is not None:
                budget.spend()
            note(f"{path[-1]} -> {x} ({free_degree(x, seen | {x})} unvisited neighbour"
                 f"{'s' if free_degree(x, seen | {x}) != 1 else ''} left).")
            found = go([*path, x], seen | {x})
            if found is not None:
                return found
        return None

    for start in sorted(range(1, n + 1), key=lambda x: (len(near[x]), x)):
        note(f"Start at island {start} ({len(near[start])} line{'s' if len(near[start]) != 1 else ''}).")
        found = go([start], {start})
        if found is not None:
            return found
    return None


def nearest_walk(n: int, edges: list[list[int]]) -> list[int]:
    """From island 1, always to the lowest-numbered unvisited neighbour, until stuck."""
    near = neighbours(n, edges)
    path, seen = [1], {1}
    while True:
        nxt = next((x for x in near[path[-1]] if x not in seen), None)
        if nxt is None:
            return path
        path.append(nxt)
        seen.add(nxt)


class HamiltonianPath(ProceduralEnv):
    """Islands and ferry lines around a hidden path through all of them; any such path scores 1."""

    name = "hamiltonian_path"
    version = "2"
    description = "planted Hamiltonian path: visit every node exactly once along the edges"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("islands", (5, 6, 8, 10, 12, 15, 20), "islands (nodes)"),
        Knob("extra_lines", (30, 60, 100), "ferry lines beyond the hidden path, in percent of the islands"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["islands"]
        for _ in range(100):  # walking to the lowest-numbered neighbour does not already visit every island
            planted = list(range(1, n + 1))
            rng.shuffle(planted)
            lines = {(min(a, b), max(a, b)) for a, b in pairwise(planted)}
            for _ in range(20 * n):
                if len(lines) >= n - 1 + n * config["extra_lines"] // 100 or len(lines) == n * (n - 1) // 2:
                    break
                u, v = sorted(rng.sample(range(1, n + 1), 2))
                lines.add((u, v))
            edges = [list(e) for e in sorted(lines)]
            if len(nearest_walk(n, edges)) < n:
                break
        listing = edge_listing(edges)
        prompt = (f"An archipelago has {n} islands, numbered 1 to {n}, and these two-way ferry lines: {listing}.\n\n"
                  "Plan a trip that starts on any island and visits every island exactly once, each step taking one "
                  "ferry line.\nEnd your response with a line 'Answer: ' followed by the islands in the order "
                  "visited, e.g. Answer: [3, 1, 4, 2].")
        return Instance(prompt, {"n": n, "edges": edges, "planted": planted})

    def reference(self, instance: Instance) -> str:
        """The depth-first search written out, then the check of every step."""
        d = instance.data
        trace = SearchTrace()
        tour = find_tour(d["n"], d["edges"], trace=trace) or d["planted"]
        lines = ["I start from an island with few lines (it must be near an end of the trip) and keep going to the "
                 "unvisited neighbour with the fewest unvisited neighbours of its own, backing up at a dead end."]
        lines += trace.lines()
        lines.append(f"Check: {' - '.join(map(str, tour))} uses only ferry lines and visits all {d['n']} islands once.")
        return "\n".join(lines) + f"\nAnswer: {tour}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        tour = int_list_answer(response, limit=d["n"] + 1)
        if tour is None:
            return Score(0.0, ("unparsable",))
        if sorted(tour) != list(range(1, d["n"] + 1)):
            return Score(0.0, ("not_every_island_once",), {"length": len(tour)})
        lines = {(min(u, v), max(u, v)) for u, v in d["edges"]}
        missing = sum(1 for a, b in pairwise(tour) if (min(a, b), max(a, b)) not in lines)
        if missing:
            return Score(0.0, ("no_ferry_line",), {"missing": missing})
        return Score(1.0, (), {"length": len(tour)})

    def ladder(self) -> tuple[Rung, ...]:
        """Lowest-numbered neighbour from island 1, depth-first with Warnsdorff's order (8 and 80 visits)."""
        def search(inst: Instance, budget: Budget) -> str | None:
            found = find_tour(inst.data["n"], inst.data["edges"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("nearest_walk", 1, "passes", lambda i, b: f"Answer: {nearest_walk(i.data['n'], i.data['edges'])}"),
                Rung("dfs_8", 8, "visits", search), Rung("dfs_80", 80, "visits", search))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"islands": float(d["n"]), "lines": float(len(d["edges"])), "lines_per_island": len(d["edges"]) / d["n"]}


ENV = HamiltonianPath()
