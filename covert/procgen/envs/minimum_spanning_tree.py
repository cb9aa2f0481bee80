"""Minimum spanning tree: the cheapest set of cables joining every building (Kruskal; any cheapest tree
scores 1)."""

from __future__ import annotations

import heapq

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_pairs_answer


class _Groups:
    """Union-find over nodes 0..n-1."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[max(ra, rb)] = min(ra, rb)
        return True


def kruskal(n: int, edges: list[list[int]], budget: Budget | None = None,
            steps: list[str] | None = None) -> list[list[int]]:
    """The tree Kruskal's algorithm builds (cheapest edges first, ties by endpoints): ``[[u, v, w]]``;
    ``budget`` counts edges looked at, ``steps`` collects them in words."""
    groups = _Groups(n)
    tree = []
    for u, v, w in sorted(edges, key=lambda e: (e[2], e[0], e[1])):
        if budget is not None:
            budget.spend()
        if groups.join(u, v):
            tree.append([u, v, w])
            if steps is not None:
                steps.append(f"{u}-{v} ({w}): joins two separate groups, take it")
            if len(tree) == n - 1:
                break
        elif steps is not None:
            steps.append(f"{u}-{v} ({w}): both ends already connected, skip")
    return tree


def prim(n: int, edges: list[list[int]], budget: Budget) -> list[list[int]]:
    """Prim's algorithm from building 0; ``budget`` counts edges pushed."""
    near: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u, v, w in edges:
        near[u].append((v, w))
        near[v].append((u, w))
    seen, tree = {0}, []
    heap = [(w, 0, v) for v, w in near[0]]
    heapq.heapify(heap)
    while heap and len(seen) < n:
        w, u, v = heapq.heappop(heap)
        if v in seen:
            continue
        seen.add(v)
        tree.append([min(u, v), max(u, v), w])
        for x, wx in near[v]:
            budget.spend()
            if x not in seen:
                heapq.heappush(heap, (wx, v, x))
    return tree


def cheapest_per_building(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Each building's cheapest cable, once each (right only when they happen to form a tree)."""
    best: dict[int, list[int]] = {}
    for u, v, w in edges:
        for x in (u, v):
            if x not in best or (w, u, v) < (best[x][2], best[x][0], best[x][1]):
                best[x] = [u, v, w]
    return sorted({tuple(e): e for e in best.values()}.values())


class MinimumSpanningTree(ProceduralEnv):
    """Buildings and possible cables with costs; any set of cables joining all buildings at least cost scores 1."""

    name = "minimum_spanning_tree"
    version = "1"
    description = "the cheapest set of edges connecting every node of a weighted graph (minimum spanning tree)"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("buildings", (4, 5, 6, 8, 10, 12, 15), "number of buildings (nodes)"),
        Knob("extra_cables", (50, 100, 200), "possible cables beyond a tree, in percent of the buildings"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["buildings"]
        costs: dict[tuple[int, int], int] = {}
        order = list(range(n))
        rng.shuffle(order)
        for i in range(1, n):
            u, v = order[i], order[rng.randrange(i)]
            costs[(min(u, v), max(u, v))] = rng.randint(1, 30)
        extra = n * config["extra_cables"] // 100
        for _ in range(100 * extra):
            if len(costs) >= n - 1 + extra or len(costs) == n * (n - 1) // 2:
                break
            u, v = sorted(rng.sample(range(n), 2))
            costs.setdefault((u, v), rng.randint(1, 30))
        edges = [[u, v, w] for (u, v), w in sorted(costs.items())]
        lines = "\n".join(f"- {u} -- {v}: cost {w}" for u, v, w in edges)
        prompt = (f"A campus has {n} buildings, numbered 0 to {n - 1}. These cables could be laid, each joining two "
                  f"buildings at a cost:\n{lines}\n\nChoose cables so that every building is connected to every "
                  "other (directly or through others) at the smallest total cost.\n"
                  "End your response with a line 'Answer: ' followed by the chosen cables as a list of building "
                  "pairs, e.g. Answer: [[0, 2], [1, 2]].")
        return Instance(prompt, {"n": n, "edges": edges, "best": sum(w for _, _, w in kruskal(n, edges))})

    def reference(self, instance: Instance) -> str:
        """Kruskal's algorithm written out: cables cheapest first, each taken when it joins two groups."""
        d = instance.data
        steps: list[str] = []
        tree = kruskal(d["n"], d["edges"], steps=steps)
        lines = ["I go through the cables from cheapest to dearest and take a cable whenever it joins two groups of "
                 "buildings that are not yet connected (Kruskal's algorithm), until all buildings form one group."]
        lines += [s[0].upper() + s[1:] + "." for s in steps]
        lines.append(f"The {len(tree)} cables connect all {d['n']} buildings at total cost "
                     f"{' + '.join(str(w) for _, _, w in tree)} = {d['best']}.")
        return "\n".join(lines) + f"\nAnswer: {[[u, v] for u, v, _ in tree]}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        n = d["n"]
        chosen = int_pairs_answer(response, limit=n * n)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        cost = {(u, v): w for u, v, w in d["edges"]}
        keys = [(min(u, v), max(u, v)) for u, v in chosen]
        if any(k not in cost for k in keys):
            return Score(0.0, ("no_such_cable",))
        if len(set(keys)) != len(keys) or len(keys) != n - 1:
            return Score(0.0, ("not_a_tree",), {"cables": len(keys)})
        groups = _Groups(n)
        if not all(groups.join(u, v) for u, v in keys):
            return Score(0.0, ("not_a_tree",))
        total = sum(cost[k] for k in keys)
        if total != d["best"]:
            return Score(0.0, ("too_expensive",), {"cost": total, "best": d["best"]})
        return Score(1.0, (), {"cost": total})

    def ladder(self) -> tuple[Rung, ...]:
        """Each building's cheapest cable, Prim's algorithm (40 cables pushed), Kruskal's (30 cables looked at)."""
        def pairs(tree: list[list[int]]) -> str:
            return f"Answer: {[[u, v] for u, v, _ in tree]}"

        return (Rung("cheapest_each", 1, "passes", lambda i, b: pairs(cheapest_per_building(i.data["n"], i.data["edges"]))),
                Rung("prim_40", 40, "cables", lambda i, b: pairs(prim(i.data["n"], i.data["edges"], b))),
                Rung("kruskal_30", 30, "cables", lambda i, b: pairs(kruskal(i.data["n"], i.data["edges"], b))))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"buildings": float(d["n"]), "cables": float(len(d["edges"])),
                "cables_per_building": len(d["edges"]) / d["n"]}


ENV = MinimumSpanningTree()
