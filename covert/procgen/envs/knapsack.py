"""0/1 knapsack: choose items of the largest total value within a weight limit (a dynamic program)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def best_value(weights: list[int], values: list[int], capacity: int) -> int:
    """The optimum by dynamic programming over capacities."""
    table = [0] * (capacity + 1)
    for weight, value in zip(weights, values):
        for room in range(capacity, weight - 1, -1):
            table[room] = max(table[room], table[room - weight] + value)
    return table[capacity]


def best_items(weights: list[int], values: list[int], capacity: int, budget: Budget | None = None) -> list[int]:
    """One optimal choice (1-based item numbers, ascending), reconstructed from the DP table; ``budget``
    counts table cells."""
    n = len(weights)
    table = [[0] * (capacity + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        if budget is not None:
            budget.spend(capacity + 1)
        w, v = weights[i - 1], values[i - 1]
        for room in range(capacity + 1):
            table[i][room] = table[i - 1][room]
            if w <= room and table[i - 1][room - w] + v > table[i][room]:
                table[i][room] = table[i - 1][room - w] + v
    chosen, room = [], capacity
    for i in range(n, 0, -1):
        if table[i][room] != table[i - 1][room]:
            chosen.append(i)
            room -= weights[i - 1]
    return sorted(chosen)


def by_ratio(weights: list[int], values: list[int]) -> list[int]:
    """Item numbers by value per unit of weight, best first (lower number first on ties)."""
    return sorted(range(1, len(weights) + 1), key=lambda i: (-values[i - 1] / weights[i - 1], i))


def greedy_items(weights: list[int], values: list[int], capacity: int) -> list[int]:
    """Items taken best ratio first while they fit (ascending numbers)."""
    room, chosen = capacity, []
    for i in by_ratio(weights, values):
        if weights[i - 1] <= room:
            chosen.append(i)
            room -= weights[i - 1]
    return sorted(chosen)


def branch_and_bound(weights: list[int], values: list[int], capacity: int, budget: Budget) -> list[int]:
    """Depth-first search over items in ratio order, pruned by the fractional bound; ``budget`` counts nodes."""
    order = by_ratio(weights, values)
    best: list[int] = []
    best_value_found = -1

    def bound(k: int, room: int, value: int) -> float:
        for i in order[k:]:
            if weights[i - 1] <= room:
                room -= weights[i - 1]
                value += values[i - 1]
            else:
                return value + values[i - 1] * room / weights[i - 1]
        return value

    def visit(k: int, room: int, value: int, taken: list[int]) -> None:
        nonlocal best, best_value_found
        budget.spend()
        if value > best_value_found:
            best, best_value_found = list(taken), value
        if k == len(order) or bound(k, room, value) <= best_value_found:
            return
        i = order[k]
        if weights[i - 1] <= room:
            taken.append(i)
            visit(k + 1, room - weights[i - 1], value + values[i - 1], taken)
            taken.pop()
        visit(k + 1, room, value, taken)

    visit(0, capacity, 0, [])
    return sorted(best)


def _answer(chosen: list[int]) -> str:
    return f"Answer: {chosen}"


class Knapsack(ProceduralEnv):
    """Items with weights and values, a capacity; any optimal set of items is accepted."""

    name = "knapsack"
    version = "2"
    description = "0/1 knapsack: the most valuable set of items within a weight limit"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("items", (4, 6, 8, 10, 12, 15, 20), "number of items"),
        Knob("weight_range", (10, 30, 100), "weights and values are drawn from 1..weight_range"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n, top = config["items"], config["weight_range"]
        for _ in range(100):  # no instance where one item alone is the best choice (a guess would do)
            weights = [rng.randint(1, top) for _ in range(n)]
            values = [rng.randint(1, top) for _ in range(n)]
            capacity = max(1, sum(weights) * rng.randint(35, 60) // 100)
            single = max((v for w, v in zip(weights, values) if w <= capacity), default=0)
            if best_value(weights, values, capacity) > single:
                break
        lines = "\n".join(f"- item {i + 1}: weight {w}, value {v}" for i, (w, v) in enumerate(zip(weights, values)))
        prompt = (f"There are {n} items, numbered 1 to {n}:\n{lines}\n\n"
                  f"A knapsack holds a total weight of at most {capacity}. Choose a set of items (each at most once) "
                  "whose total weight is at most the limit and whose total value is as large as possible.\n"
                  "End your response with a line 'Answer: ' followed by the chosen item numbers as a list, "
                  "e.g. Answer: [1, 4, 5].")
        data = {"weights": weights, "values": values, "capacity": capacity,
                "best": best_value(weights, values, capacity)}
        return Instance(prompt, data)

    def reference(self, instance: Instance) -> str:
        """Greedy by value per weight first, then the dynamic program that settles the optimum."""
        d = instance.data
        w, v, cap = d["weights"], d["values"], d["capacity"]
        ratios = ", ".join(f"{i} ({v[i - 1]}/{w[i - 1]})" for i in by_ratio(w, v))
        greedy = greedy_items(w, v, cap)
        g_weight, g_value = sum(w[i - 1] for i in greedy), sum(v[i - 1] for i in greedy)
        chosen = best_items(w, v, cap)
        weight, value = sum(w[i - 1] for i in chosen), sum(v[i - 1] for i in chosen)
        lines = [f"Items by value per unit of weight, best first: {ratios}.",
                 f"Taking them in that order while they fit gives items {greedy}: weight {g_weight}, value {g_value}."]
        if g_value == value:
            lines.append(f"To be sure nothing beats it, I work out the best value for every weight limit from 0 to "
                         f"{cap}, adding one item at a time (each item either left out or put in on top of the best "
                         f"for the remaining room): the best for {cap} is {value}, the same.")
        else:
            lines.append(f"That is not the best. Working out the best value for every weight limit from 0 to {cap}, "
                         "adding one item at a time (each item either left out or put in on top of the best for the "
                         f"remaining room), the best for {cap} is {value}, reached by items {chosen}.")
        lines.append(f"Check: items {chosen} weigh {' + '.join(str(w[i - 1]) for i in chosen) or '0'} = {weight} "
                     f"<= {cap} and are worth {' + '.join(str(v[i - 1]) for i in chosen) or '0'} = {value}.")
        return "\n".join(lines) + "\n" + _answer(chosen)

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        n = len(d["weights"])
        chosen = int_list_answer(response, limit=n + 1)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= i <= n for i in chosen):
            return Score(0.0, ("unknown_item",))
        if len(set(chosen)) != len(chosen):
            return Score(0.0, ("duplicate_item",))
        weight = sum(d["weights"][i - 1] for i in chosen)
        value = sum(d["values"][i - 1] for i in chosen)
        details = {"weight": weight, "value": value, "best": d["best"]}
        if weight > d["capacity"]:
            return Score(0.0, ("over_capacity",), details)
        if value < d["best"]:
            return Score(0.0, ("suboptimal",), details)
        return Score(1.0, (), details)

    def ladder(self) -> tuple[Rung, ...]:
        """Greedy by ratio, the DP table (up to 1,500 cells), branch and bound (up to 40 nodes)."""
        def greedy(inst: Instance, budget: Budget) -> str:
            d = inst.data
            return _answer(greedy_items(d["weights"], d["values"], d["capacity"]))

        def bnb(inst: Instance, budget: Budget) -> str:
            d = inst.data
            return _answer(branch_and_bound(d["weights"], d["values"], d["capacity"], budget))

        def dp(inst: Instance, budget: Budget) -> str:
            d = inst.data
            return _answer(best_items(d["weights"], d["values"], d["capacity"], budget))

        return (Rung("greedy_ratio", 1, "passes", greedy), Rung("dp", 1500, "cells", dp),
                Rung("branch_and_bound", 40, "nodes", bnb))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"items": float(len(d["weights"])), "capacity": float(d["capacity"]),
                "table_cells": float(len(d["weights"]) * (d["capacity"] + 1))}


ENV = Knapsack()
