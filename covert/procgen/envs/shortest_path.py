"""Shortest path in a weighted undirected graph: any path of minimum total weight is accepted."""

from __future__ import annotations

import heapq
from itertools import pairwise

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import int_list_answer


def dijkstra(n: int, edges: list[list[int]], source: int) -> tuple[list[float], list[int]]:
    """Distances from ``source`` and predecessors (smallest predecessor among ties)."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacent[u].append((v, w))
        adjacent[v].append((u, w))
    dist = [float("inf")] * n
    parent = [-1] * n
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, w in sorted(adjacent[u]):
            if d + w < dist[v]:
                dist[v], parent[v] = d + w, u
                heapq.heappush(heap, (d + w, v))
    return dist, parent


class ShortestPath(ProceduralEnv):
    """A road map with lengths; the answer is a route from one town to another of least total length."""

    name = "shortest_path"
    version = "1"
    description = "least-weight path between two nodes of a weighted undirected graph (Dijkstra)"
    asymmetry = "reason"
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
        source, target = rng.sample(range(n), 2)
        dist, _ = dijkstra(n, edges, source)
        lines = "\n".join(f"- {u} -- {v}: length {w}" for u, v, w in edges)
        prompt = (f"A map has {n} towns, numbered 0 to {n - 1}, joined by two-way roads:\n{lines}\n\n"
                  f"Find a route from town {source} to town {target} whose total length is as small as possible.\n"
                  "End your response with a line 'Answer: ' followed by the towns on the route in order, from "
                  f"{source} to {target}, e.g. Answer: [{source}, 3, {target}].")
        return Instance(prompt, {"n": n, "edges": edges, "source": source, "target": target,
                                 "best": int(dist[target])})

    def reference(self, instance: Instance) -> str:
        d = instance.data
        _, parent = dijkstra(d["n"], d["edges"], d["source"])
        path = [d["target"]]
        while path[-1] != d["source"]:
            path.append(parent[path[-1]])
        path.reverse()
        return f"Dijkstra's algorithm from town {d['source']} gives length {d['best']}.\nAnswer: {path}"

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


ENV = ShortestPath()
