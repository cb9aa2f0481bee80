"""Topological order of a directed acyclic graph: any order that respects every edge is accepted."""

from __future__ import annotations

import heapq

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def smallest_first_order(n: int, edges: list[list[int]], budget: Budget | None = None,
                         steps: list[str] | None = None) -> list[int]:
    """Kahn's algorithm, taking the smallest ready task first (``[]`` if there is a cycle); ``budget`` counts
    the constraints crossed off, ``steps`` collects the steps in words."""
    successors: list[list[int]] = [[] for _ in range(n)]
    indegree = [0] * n
    for u, v in edges:
        successors[u].append(v)
        indegree[v] += 1
    ready = [v for v in range(n) if indegree[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        if steps is not None:
            steps.append(f"ready: {sorted(ready)}; do task {ready[0]}")
        u = heapq.heappop(ready)
        order.append(u)
        for v in successors[u]:
            if budget is not None:
                budget.spend()
            indegree[v] -= 1
            if indegree[v] == 0:
                heapq.heappush(ready, v)
    return order if len(order) == n else []


def depth_order(n: int, edges: list[list[int]], budget: Budget) -> list[int]:
    """Tasks by the length of the longest chain of prerequisites before them (then by number); ``budget``
    counts the constraints looked at."""
    depth = [0] * n
    changed = True
    while changed:
        changed = False
        for u, v in edges:
            budget.spend()
            if depth[v] < depth[u] + 1:
                depth[v] = depth[u] + 1
                changed = True
    return sorted(range(n), key=lambda t: (depth[t], t))


class TopologicalOrder(ProceduralEnv):
    """Tasks with "must come before" constraints; any valid order scores 1."""

    name = "topological_order"
    version = "2"
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
        for _ in range(100):  # at least one constraint per two tasks: without constraints any order is right
            edges = sorted([hidden[i], hidden[j]] for i in range(n) for j in range(i + 1, n)
                           if rng.randrange(100) < config["density"])
            if len(edges) >= n // 2:
                break
        lines = "\n".join(f"- task {u} must be done before task {v}" for u, v in edges) or "- (no constraints)"
        prompt = (f"There are {n} tasks, numbered 0 to {n - 1}, with these constraints:\n{lines}\n\n"
                  "Give an order in which to do all the tasks, each exactly once, that satisfies every constraint.\n"
                  "End your response with a line 'Answer: ' followed by the task numbers in order, "
                  "e.g. Answer: [2, 0, 1].")
        return Instance(prompt, {"n": n, "edges": edges})

    def reference(self, instance: Instance) -> str:
        """Kahn's algorithm written out: the ready tasks at each step and the one taken."""
        steps: list[str] = []
        order = smallest_first_order(instance.data["n"], instance.data["edges"], steps=steps)
        lines = ["I repeatedly do the lowest-numbered task whose prerequisites are all done, then cross off the "
                 "constraints it settles."]
        lines += [s[0].upper() + s[1:] + "." for s in steps]
        lines.append("Every task is done once, and each one comes after all the tasks it must follow.")
        return "\n".join(lines) + f"\nAnswer: {order}"

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

    def ladder(self) -> tuple[Rung, ...]:
        """Tasks in number order, by depth of prerequisites (150 looks), Kahn's algorithm (80 cross-offs)."""
        def numeric(inst: Instance, budget: Budget) -> str:
            return f"Answer: {list(range(inst.data['n']))}"

        def depth(inst: Instance, budget: Budget) -> str:
            return f"Answer: {depth_order(inst.data['n'], inst.data['edges'], budget)}"

        def kahn(inst: Instance, budget: Budget) -> str:
            return f"Answer: {smallest_first_order(inst.data['n'], inst.data['edges'], budget)}"

        return (Rung("number_order", 1, "passes", numeric), Rung("depth_150", 150, "looks", depth),
                Rung("kahn_80", 80, "cross_offs", kahn))

    def statistics(self, instance: Instance) -> dict[str, float]:
        n, edges = instance.data["n"], instance.data["edges"]
        return {"tasks": float(n), "constraints": float(len(edges)),
                "out_of_number_order": float(sum(1 for u, v in edges if u > v))}


ENV = TopologicalOrder()
