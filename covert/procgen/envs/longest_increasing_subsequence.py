"""Longest increasing subsequence: the longest run of numbers, in order but not necessarily adjacent, that
strictly increases (a dynamic program; any longest one scores 1)."""

from __future__ import annotations

from itertools import pairwise

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def lengths(numbers: list[int], budget: Budget | None = None) -> list[int]:
    """``L[i]``: the longest strictly increasing subsequence ending at position ``i``; ``budget`` counts
    comparisons."""
    out = []
    for i, x in enumerate(numbers):
        if budget is not None:
            budget.spend(i)
        out.append(1 + max((out[j] for j in range(i) if numbers[j] < x), default=0))
    return out


def longest(numbers: list[int], budget: Budget | None = None) -> list[int]:
    """One longest strictly increasing subsequence (values), read back from :func:`lengths`: the last
    position of greatest length, then each time the latest earlier position one shorter with a smaller
    value."""
    table = lengths(numbers, budget)
    if not table:
        return []
    i = max(range(len(table)), key=lambda k: (table[k], k))
    picked = [i]
    while table[picked[-1]] > 1:
        here = picked[-1]
        picked.append(max(j for j in range(here) if table[j] == table[here] - 1 and numbers[j] < numbers[here]))
    return [numbers[k] for k in reversed(picked)]


def greedy_run(numbers: list[int]) -> list[int]:
    """From the first number, take every number larger than the last one taken."""
    out: list[int] = []
    for x in numbers:
        if not out or x > out[-1]:
            out.append(x)
    return out


def longest_adjacent_run(numbers: list[int]) -> list[int]:
    """The longest run of adjacent numbers that strictly increases."""
    best: list[int] = []
    run: list[int] = []
    for x in numbers:
        run = [*run, x] if run and x > run[-1] else [x]
        if len(run) > len(best):
            best = run
    return best


def is_subsequence(values: list[int], numbers: list[int]) -> bool:
    """Whether ``values`` occur in ``numbers`` in this order."""
    it = iter(numbers)
    return all(any(v == x for x in it) for v in values)


class LongestIncreasingSubsequence(ProceduralEnv):
    """A list of numbers; any strictly increasing subsequence of the greatest length scores 1."""

    name = "longest_increasing_subsequence"
    version = "1"
    description = "the longest strictly increasing subsequence of a list of numbers (dynamic programming)"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("length", (6, 8, 10, 14, 18, 24, 30), "how many numbers"),
        Knob("spread", (20, 50, 200), "numbers are drawn from 1..spread"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        for _ in range(100):  # the answer takes at least three numbers: no one- or two-number guess is right
            numbers = [rng.randint(1, config["spread"]) for _ in range(config["length"])]
            best = max(lengths(numbers))
            if best >= 3:
                break
        prompt = (f"Here is a list of {len(numbers)} numbers: {', '.join(map(str, numbers))}.\n\n"
                  "Find a longest subsequence whose numbers strictly increase: keep some of the numbers in their "
                  "order (not necessarily next to each other), each larger than the one before.\n"
                  "End your response with a line 'Answer: ' followed by the numbers of the subsequence as a list, "
                  "e.g. Answer: [3, 8, 11].")
        return Instance(prompt, {"numbers": numbers, "best": best})

    def reference(self, instance: Instance) -> str:
        """The table of longest runs ending at each number, then one longest run read back from it."""
        numbers = instance.data["numbers"]
        table = lengths(numbers)
        picked = longest(numbers)
        lines = ["For each number I work out L, the length of the longest increasing subsequence ending at it: one "
                 "more than the largest L of an earlier, smaller number (1 if there is none).",
                 "L = " + ", ".join(f"{x}:{n}" for x, n in zip(numbers, table)) + ".",
                 f"The largest L is {max(table)}. Going back from a number with that L, each time to an earlier, "
                 f"smaller number whose L is one less, gives {picked}.",
                 f"Check: {' < '.join(map(str, picked))}, and these numbers appear in this order in the list."]
        return "\n".join(lines) + f"\nAnswer: {picked}"

    def score(self, instance: Instance, response: str) -> Score:
        numbers, best = instance.data["numbers"], instance.data["best"]
        picked = int_list_answer(response, limit=len(numbers) + 1)
        if picked is None:
            return Score(0.0, ("unparsable",))
        if any(a >= b for a, b in pairwise(picked)):
            return Score(0.0, ("not_increasing",))
        if not is_subsequence(picked, numbers):
            return Score(0.0, ("not_a_subsequence",))
        if len(picked) != best:
            return Score(0.0, ("too_short",), {"length": len(picked), "best": best})
        return Score(1.0, (), {"length": len(picked)})

    def ladder(self) -> tuple[Rung, ...]:
        """Take every larger number, the longest adjacent run, the table of lengths (120 comparisons)."""
        def run(inst: Instance, budget: Budget) -> str:
            return f"Answer: {greedy_run(inst.data['numbers'])}"

        def adjacent(inst: Instance, budget: Budget) -> str:
            return f"Answer: {longest_adjacent_run(inst.data['numbers'])}"

        def table(inst: Instance, budget: Budget) -> str:
            return f"Answer: {longest(inst.data['numbers'], budget)}"

        return (Rung("take_larger", 1, "passes", run), Rung("adjacent_run", 1, "passes", adjacent),
                Rung("dp_120", 120, "comparisons", table))

    def statistics(self, instance: Instance) -> dict[str, float]:
        numbers = instance.data["numbers"]
        return {"length": float(len(numbers)), "distinct": float(len(set(numbers))),
                "largest": float(max(numbers)), "best": float(instance.data["best"])}


ENV = LongestIncreasingSubsequence()
