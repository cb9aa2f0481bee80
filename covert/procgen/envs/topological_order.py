"""Topological order of a directed acyclic graph: any order that respects every edge is accepted."""

from __future__ import annotations

import heapq

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import int_list_answer


def smallest_first_order(n: int, edges: list[list[int]]) -> list[int]:
    """Kahn's algorithm, taking the smallest ready task first (``[]`` if there is a cycle)."""
    successors: list[list[int]] = [[] for _ in range(n)]
    indegree = [0] * n
    for u, v in edges:
        successors[u].append(v)
        indegree[v] += 1
    ready = [v for v in range(n) if indegree[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = heapq.heappop(ready)
        order.append(u)
        for v in successors[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                heapq.heappush(ready, v)
    return order if len(order) == n else []


class TopologicalOrder(ProceduralEnv):
    """Tasks with "must come before" constraints; any valid order scores 1."""

    name = "topological_order"
    version = "1"
    description = "order tasks so that every prerequisite comes first (topological sort of a DAG)"
    asymmetry = "reason"
    knobs = (
        Knob("tasks", (4, 6, 8, 10, 14, 18, 24), "number of tasks (nodes)"),
        Knob("density", (20, 35, 50), "percent chance that a pair of tasks is constrained"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["tasks"]
        hidden = list(range(n))
        rng.shuffle(hidden)
        edges = sorted([hidden[i], hidden[j]] for i in range(n) for j in range(i + 1, n)
                       if rng.randrange(100) < config["density"])
        lines = "\n".join(f"- task {u} must be done before task {v}" for u, v in edges) or "- (no constraints)"
        prompt = (f"There are {n} tasks, numbered 0 to {n - 1}, with these constraints:\n{lines}\n\n"
                  "Give an order in which to do all the tasks, each exactly once, that satisfies every constraint.\n"
                  "End your response with a line 'Answer: ' followed by the task numbers in order, "
                  "e.g. Answer: [2, 0, 1].")
        return Instance(prompt, {"n": n, "edges": edges})

    def reference(self, instance: Instance) -> str:
        order = smallest_first_order(instance.data["n"], instance.data["edges"])
        return ("Repeatedly take the lowest-numbered task whose prerequisites are all done.\n"
                f"Answer: {order}")

    def score(self, instance: Instance, response: str) -> Score:
        n, edges = instance.data["n"], instance.data["edges"]
        order = int_list_answer(response, limit=n + 1)
        if order is None:
            return Score(0.0, ("unparsable",))
        if sorted(order) != list(range(n)):
            return Score(0.0, ("not_a_permutation",), {"length": len(order)})
        position = {task: i for i, task in enumerate(order)}
        broken = sum(1 for u, v in edges if position[u] > position[v])
        if broken:
            return Score(0.0, ("violates_constraint",), {"violated": broken})
        return Score(1.0, (), {"violated": 0})


ENV = TopologicalOrder()
