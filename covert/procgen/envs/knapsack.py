"""0/1 knapsack: choose items of the largest total value within a weight limit (a dynamic program)."""

from __future__ import annotations

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import int_list_answer


def best_value(weights: list[int], values: list[int], capacity: int) -> int:
    """The optimum by dynamic programming over capacities."""
    table = [0] * (capacity + 1)
    for weight, value in zip(weights, values):
        for room in range(capacity, weight - 1, -1):
            table[room] = max(table[room], table[room - weight] + value)
    return table[capacity]


def best_items(weights: list[int], values: list[int], capacity: int) -> list[int]:
    """One optimal choice (1-based item numbers, ascending), reconstructed from the DP table."""
    n = len(weights)
    table = [[0] * (capacity + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
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


class Knapsack(ProceduralEnv):
    """Items with weights and values, a capacity; any optimal set of items is accepted."""

    name = "knapsack"
    version = "1"
    description = "0/1 knapsack: the most valuable set of items within a weight limit"
    asymmetry = "reason"
    knobs = (
        Knob("items", (4, 6, 8, 10, 12, 15, 20), "number of items"),
        Knob("weight_range", (10, 30, 100), "weights and values are drawn from 1..weight_range"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n, top = config["items"], config["weight_range"]
        weights = [rng.randint(1, top) for _ in range(n)]
        values = [rng.randint(1, top) for _ in range(n)]
        capacity = max(1, sum(weights) * rng.randint(35, 60) // 100)
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
        d = instance.data
        chosen = best_items(d["weights"], d["values"], d["capacity"])
        weight = sum(d["weights"][i - 1] for i in chosen)
        value = sum(d["values"][i - 1] for i in chosen)
        return (f"Taking items {chosen} gives total weight {weight} (limit {d['capacity']}) and total value {value}, "
                f"the largest any feasible set reaches.\nAnswer: {chosen}")

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


ENV = Knapsack()
