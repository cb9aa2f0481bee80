"""Shortest path in a weighted undirected graph: any path of minimum total weight is accepted."""

from __future__ import annotations

import heapq
from itertools import pairwise

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def adjacency(n: int, edges: list[list[int]]) -> list[list[tuple[int, int]]]:
    """Each node's (neighbour, length) pairs, sorted."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacent[u].append((v, w))
        adjacent[v].append((u, w))
    return [sorted(a) for a in adjacent]


def dijkstra(n: int, edges: list[list[int]], source: int, budget: Budget | None = None,
             settled: list[int] | None = None, stop: int | None = None) -> tuple[list[float], list[int]]:
    """Distances from ``source`` and predecessors (smallest predecessor among ties); ``budget`` counts edge
    relaxations, ``settled`` collects the nodes in the order their distance becomes final, and the search
    ends once ``stop`` is settled."""
    adjacent = adjacency(n, edges)
    dist = [float("inf")] * n
    parent = [-1] * n
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        if settled is not None:
            settled.append(u)
        if u == stop:
            break
        for v, w in adjacent[u]:
            if budget is not None:
                budget.spend()
            if d + w < dist[v]:
                dist[v], parent[v] = d + w, u
                heapq.heappush(heap, (d + w, v))
    return dist, parent


def route_to(parent: list[int], source: int, target: int) -> list[int]:
    """The route from ``source`` to ``target`` along predecessors."""
    path = [target]
    while path[-1] != source:
        path.append(parent[path[-1]])
    return path[::-1]


def nearest_step_walk(n: int, edges: list[list[int]], source: int, target: int) -> list[int] | None:
    """From the source, always take the shortest road to a town not yet visited (the target at once when a
    road leads there); ``None`` at a dead end."""
    adjacent = adjacency(n, edges)
    path, seen = [source], {source}
    while path[-1] != target:
        options = [(w, v) for v, w in adjacent[path[-1]] if v not in seen]
        if not options:
            return None
        direct = [o for o in options if o[1] == target]
        _, nxt = min(direct or options)
        path.append(nxt)
        seen.add(nxt)
    return path


def fewest_roads(n: int, edges: list[list[int]], source: int, target: int) -> list[int]:
    """A route with the fewest roads (breadth-first, lengths ignored)."""
    adjacent = adjacency(n, edges)
    parent = {source: source}
    frontier = [source]
    while frontier and target not in parent:
        nxt = []
        for u in frontier:
            for v, _ in adjacent[u]:
                if v not in parent:
                    parent[v] = u
                    nxt.append(v)
        frontier = nxt
    return route_to([parent.get(v, -1) for v in range(n)], source, target)


class ShortestPath(ProceduralEnv):
    """A road map with lengths; the answer is a route from one town to another of least total length."""

    name = "shortest_path"
    version = "2"
    description = "least-weight path between two nodes of a weighted undirected graph (Dijkstra)"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("nodes", (4, 6, 8, 12, 16, 20, 30), "number of nodes"),
        Knob("extra_edges", (20, 40, 70), "edges beyond the spanning tree, in percent of twice the node count"),
        Knob("weight_range", (9, 30, 100), "edge weights are drawn from 1..weight_range"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["nodes"]
        weights: dict[tuple[int, int], int] = {}
        order = list(range(n))
        rng.shuffle(order)
        for i in range(1, n):
            u, v = order[i], order[rng.randrange(i)]
            weights[(min(u, v), max(u, v))] = rng.randint(1, config["weight_range"])
        for _ in range(n * config["extra_edges"] * 2 // 100):
            u, v = rng.sample(range(n), 2)
            weights.setdefault((min(u, v), max(u, v)), rng.randint(1, config["weight_range"]))
        edges = [[u, v, w] for (u, v), w in sorted(weights.items())]
        for _ in range(50):  # the best route takes at least two roads: a direct road is no search
            source, target = rng.sample(range(n), 2)
            dist, parent = dijkstra(n, edges, source)
            if parent[target] != source:
                break
        lines = "\n".join(f"- {u} -- {v}: length {w}" for u, v, w in edges)
        prompt = (f"A map has {n} towns, numbered 0 to {n - 1}, joined by two-way roads:\n{lines}\n\n"
                  f"Find a route from town {source} to town {target} whose total length is as small as possible.\n"
                  "End your response with a line 'Answer: ' followed by the towns on the route in order, from "
                  f"{source} to {target}, e.g. Answer: [{source}, 3, {target}].")
        return Instance(prompt, {"n": n, "edges": edges, "source": source, "target": target,
                                 "best": int(dist[target])})

    def reference(self, instance: Instance) -> str:
        """Towns settled in order of distance from the source (Dijkstra) until the target, then the route."""
        d = instance.data
        order: list[int] = []
        dist, parent = dijkstra(d["n"], d["edges"], d["source"], settled=order)
        order = order[:order.index(d["target"]) + 1]
        path = route_to(parent, d["source"], d["target"])
        lengths = {(u, v): w for u, v, w in d["edges"]} | {(v, u): w for u, v, w in d["edges"]}
        settled = ", ".join(f"{u} at {int(dist[u])}" + (f" (via {parent[u]})" if parent[u] >= 0 else "")
                            for u in order)
        lines = [f"I settle towns in order of their distance from town {d['source']}, each time taking the "
                 "unsettled town with the smallest known distance and updating its neighbours (Dijkstra).",
                 f"Settled in order: {settled}.",
                 f"Following the 'via' towns back from {d['target']} gives the route {path}: "
                 + " + ".join(str(lengths[(u, v)]) for u, v in pairwise(path)) + f" = {d['best']}."]
        return "\n".join(lines) + f"\nAnswer: {path}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        path = int_list_answer(response, limit=4 * d["n"])
        if path is None or not path:
            return Score(0.0, ("unparsable",))
        if path[0] != d["source"] or path[-1] != d["target"]:
            return Score(0.0, ("wrong_endpoints",))
        lengths = {(u, v): w for u, v, w in d["edges"]} | {(v, u): w for u, v, w in d["edges"]}
        total = 0
        for u, v in pairwise(path):
            if (u, v) not in lengths:
                return Score(0.0, ("not_a_road",), {"from": u, "to": v})
            total += lengths[(u, v)]
        if total != d["best"]:
            return Score(0.0, ("not_shortest",), {"length": total, "best": d["best"]})
        return Score(1.0, (), {"length": total})

    def ladder(self) -> tuple[Rung, ...]:
        """Nearest next town, fewest roads, Dijkstra stopped at the target with 50 relaxations."""
        def walk(inst: Instance, budget: Budget) -> str | None:
            d = inst.data
            found = nearest_step_walk(d["n"], d["edges"], d["source"], d["target"])
            return None if found is None else f"Answer: {found}"

        def hops(inst: Instance, budget: Budget) -> str:
            d = inst.data
            return f"Answer: {fewest_roads(d['n'], d['edges'], d['source'], d['target'])}"

        def exact(inst: Instance, budget: Budget) -> str:
            d = inst.data
            _, parent = dijkstra(d["n"], d["edges"], d["source"], budget, stop=d["target"])
            return f"Answer: {route_to(parent, d['source'], d['target'])}"

        return (Rung("nearest_next", 1, "passes", walk), Rung("fewest_roads", 1, "passes", hops),
                Rung("dijkstra_50", 50, "relaxations", exact))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"nodes": float(d["n"]), "edges": float(len(d["edges"])),
                "mean_length": sum(w for _, _, w in d["edges"]) / len(d["edges"]),
                "route_roads": float(len(fewest_roads(d["n"], d["edges"], d["source"], d["target"])) - 1)}


ENV = ShortestPath()
