"""Matrix chain multiplication: the fewest scalar multiplications to multiply a chain of matrices, over all
ways to place the brackets (an interval dynamic program)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_answer


def chain_table(dims: list[int], budget: Budget | None = None) -> tuple[list[list[int]], list[list[int]]]:
    """``cost[i][j]``: the fewest multiplications for matrices ``i..j`` (0-based), and ``split[i][j]``: the
    last multiplication's split point; ``budget`` counts split points tried."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            if budget is not None:
                budget.spend(span)
            cost[i][j], split[i][j] = min((cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                                          for k in range(i, j))
    return cost, split


def brackets(split: list[list[int]], i: int, j: int) -> str:
    """The bracketing of matrices ``i..j`` (named M1, M2, ...) the split table chooses."""
    if i == j:
        return f"M{i + 1}"
    k = split[i][j]
    return f"({brackets(split, i, k)} {brackets(split, k + 1, j)})"


def left_to_right(dims: list[int]) -> int:
    """Multiplications when the chain is multiplied from the left."""
    return sum(dims[0] * dims[k] * dims[k + 1] for k in range(1, len(dims) - 1))


def cheapest_pair_first(dims: list[int]) -> int:
    """Multiplications when the adjacent pair that is cheapest right now is always multiplied first."""
    dims, total = list(dims), 0
    while len(dims) > 2:
        k = min(range(1, len(dims) - 1), key=lambda m: (dims[m - 1] * dims[m] * dims[m + 1], m))
        total += dims[k - 1] * dims[k] * dims[k + 1]
        del dims[k]
    return total


class MatrixChain(ProceduralEnv):
    """A chain of matrix sizes; the answer is the fewest scalar multiplications (one integer)."""

    name = "matrix_chain"
    version = "2"
    description = "fewest scalar multiplications to multiply a chain of matrices (interval dynamic programming)"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("matrices", (3, 4, 5, 6, 8, 10, 12), "matrices in the chain"),
        Knob("size_range", (10, 30, 60), "matrix sides are drawn from 2..size_range"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["matrices"]
        for _ in range(100):  # the order matters: multiplying from the left is not already the best
            dims = [rng.randint(2, config["size_range"]) for _ in range(n + 1)]
            best = chain_table(dims)[0][0][n - 1]
            if best < left_to_right(dims):
                break
        sizes = ", ".join(f"M{i + 1} is {dims[i]}x{dims[i + 1]}" for i in range(n))
        prompt = (f"Multiplying a p x q matrix by a q x r matrix takes p*q*r scalar multiplications. A chain of {n} "
                  f"matrices is to be multiplied in this order: {sizes}.\n\nWhat is the smallest number of scalar "
                  "multiplications needed to compute the product M1 M2 ... M" + str(n) + ", over every way of "
                  "placing the brackets?\nEnd your response with a line 'Answer: ' followed by the number.")
        return Instance(prompt, {"dims": dims, "best": best})

    def reference(self, instance: Instance) -> str:
        """The table over sub-chains, shortest first, and the bracketing that reaches the optimum."""
        dims = instance.data["dims"]
        n = len(dims) - 1
        cost, split = chain_table(dims)
        lines = ["For each run of consecutive matrices Mi..Mj, the cheapest cost is the smallest, over the last "
                 "multiplication's split point k, of cost(Mi..Mk) + cost(Mk+1..Mj) + rows(Mi) * cols(Mk) * cols(Mj). "
                 "I fill these from runs of two matrices up to the whole chain."]
        for span in range(1, n - 1):
            lines.append(f"Runs of {span + 1}: " + ", ".join(f"M{i + 1}..M{i + span + 1} = {cost[i][i + span]}"
                                                            for i in range(n - span)) + ".")
        k = split[0][n - 1]
        lines.append(f"For the whole chain the best last split is after M{k + 1}: {cost[0][k]} + {cost[k + 1][n - 1]} "
                     f"+ {dims[0]}*{dims[k + 1]}*{dims[n]} = {cost[0][n - 1]}.")
        lines.append(f"The bracketing {brackets(split, 0, n - 1)} takes {cost[0][n - 1]} multiplications "
                     f"(from the left it would take {left_to_right(dims)}).")
        return "\n".join(lines) + f"\nAnswer: {cost[0][n - 1]}"

    def score(self, instance: Instance, response: str) -> Score:
        value = int_answer(response)
        if value is None:
            return Score(0.0, ("unparsable",))
        if value != instance.data["best"]:
            return Score(0.0, ("wrong_count",), {"answer": value, "expected": instance.data["best"]})
        return Score(1.0, (), {"answer": value})

    def ladder(self) -> tuple[Rung, ...]:
        """From the left, cheapest adjacent pair first, the table (40 split points)."""
        return (Rung("left_to_right", 1, "passes", lambda i, b: f"Answer: {left_to_right(i.data['dims'])}"),
                Rung("cheapest_pair", 1, "passes", lambda i, b: f"Answer: {cheapest_pair_first(i.data['dims'])}"),
                Rung("dp_40", 40, "splits",
                     lambda i, b: f"Answer: {chain_table(i.data['dims'], b)[0][0][len(i.data['dims']) - 2]}"))

    def statistics(self, instance: Instance) -> dict[str, float]:
        dims = instance.data["dims"]
        return {"matrices": float(len(dims) - 1), "mean_side": sum(dims) / len(dims),
                "largest_side": float(max(dims))}


ENV = MatrixChain()
