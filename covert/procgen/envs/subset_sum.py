"""Planted subset-sum: find numbers that add up to a target (hard to solve, trivial to check)."""

from __future__ import annotations

from covert.procgen.contract import (
    Budget,
    BudgetExceeded,
    Instance,
    Knob,
    ProceduralEnv,
    Rung,
    Score,
    instance_rng,
)
from covert.procgen.parse import int_list_answer
from covert.procgen.trace import SearchTrace, note_to

MAX_TRACE = 24
REFERENCE_TRIES = 300_000


def greedy_pick(numbers: list[int], target: int) -> list[int] | None:
    """Largest numbers first, each taken when it still fits under the target (positions, ascending)."""
    left, chosen = target, []
    for i in sorted(range(len(numbers)), key=lambda i: (-numbers[i], i)):
        if numbers[i] <= left:
            chosen.append(i + 1)
            left -= numbers[i]
    return sorted(chosen) if left == 0 else None


def search_pick(numbers: list[int], target: int, budget: Budget | None = None,
                trace: SearchTrace | None = None) -> list[int] | None:
    """Depth-first search, largest numbers first, backing off when the numbers left cannot reach what is
    still missing; ``budget`` counts the numbers tried, ``trace`` collects the steps in words."""
    order = sorted(range(len(numbers)), key=lambda i: (-numbers[i], i))
    rest = [0] * (len(order) + 1)
    for k in range(len(order) - 1, -1, -1):
        rest[k] = rest[k + 1] + numbers[order[k]]
    taken: list[int] = []

    note = note_to(trace)

    def visit(k: int, left: int) -> bool:
        if left == 0:
            return True
        if k == len(order) or rest[k] < left:
            return False
        i = order[k]
        if numbers[i] <= left:
            if budget is not None:
                budget.spend()
            taken.append(i + 1)
            note(f"Take {numbers[i]} (position {i + 1}): {left - numbers[i]} still missing.")
            if visit(k + 1, left - numbers[i]):
                return True
            taken.pop()
            note(f"Drop {numbers[i]} (position {i + 1}) again: the smaller numbers cannot make {left - numbers[i]}.")
        return visit(k + 1, left)

    return sorted(taken) if visit(0, target) else None


def sums_pick(numbers: list[int], target: int, budget: Budget) -> list[int] | None:
    """Every reachable sum up to the target, one number at a time, with a way back to the numbers used;
    ``budget`` counts the sums recorded."""
    came: dict[int, tuple[int, int]] = {0: (-1, -1)}
    for i, x in enumerate(numbers):
        for total in sorted(came, reverse=True):
            new = total + x
            if new <= target and new not in came:
                budget.spend()
                came[new] = (total, i)
        if target in came:
            break
    if target not in came:
        return None
    chosen, total = [], target
    while total:
        total, i = came[total]
        chosen.append(i + 1)
    return sorted(chosen)


class SubsetSum(ProceduralEnv):
    """A list of numbers and a target that a hidden subset sums to; any subset that hits it scores 1."""

    name = "subset_sum"
    version = "2"
    description = "planted subset-sum: pick numbers (by position) that add up exactly to a target"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("count", (6, 10, 14, 18, 24, 30), "how many numbers"),
        Knob("magnitude", (100, 1000, 100000), "numbers are drawn from 1..magnitude"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["count"]
        numbers = [rng.randint(1, config["magnitude"]) for _ in range(n)]
        size = rng.randint(max(2, n // 4), max(2, n // 2))
        planted = sorted(rng.sample(range(1, n + 1), size))
        target = sum(numbers[i - 1] for i in planted)
        listing = "\n".join(f"{i + 1}. {x}" for i, x in enumerate(numbers))
        prompt = (f"Here are {n} numbers, by position:\n{listing}\n\n"
                  f"Choose some of them (each position at most once) whose sum is exactly {target}.\n"
                  "End your response with a line 'Answer: ' followed by the chosen positions as a list, "
                  "e.g. Answer: [2, 5, 7].")
        return Instance(prompt, {"numbers": numbers, "target": target, "planted": planted})

    def reference(self, instance: Instance) -> str:
        """The search from the largest numbers down, written out, then the check."""
        d = instance.data
        trace = SearchTrace(MAX_TRACE)
        try:
            chosen = search_pick(d["numbers"], d["target"], Budget(REFERENCE_TRIES), trace)
        except BudgetExceeded:
            chosen = None
        lines = [f"I need {d['target']}. I go through the numbers from the largest down, taking one when it still "
                 "fits, and drop it again when the smaller numbers cannot make up the rest."]
        if chosen is not None:
            lines += trace.kept
            if trace.more:
                lines.append(f"... ({trace.more} more steps of the same search), until this line works:")
                left = d["target"]
                for i in sorted(chosen, key=lambda i: (-d["numbers"][i - 1], i)):
                    left -= d["numbers"][i - 1]
                    lines.append(f"Take {d['numbers'][i - 1]} (position {i}): {left} still missing.")
        else:  # a search this long is rare: the planted choice is checked instead
            lines.append(f"The search runs past {REFERENCE_TRIES} tries; these numbers work:")
            chosen = d["planted"]
        parts = " + ".join(str(d["numbers"][i - 1]) for i in chosen)
        lines.append(f"Check: {parts} = {d['target']}.")
        return "\n".join(lines) + f"\nAnswer: {chosen}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        n = len(d["numbers"])
        chosen = int_list_answer(response, limit=n + 1)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        if not chosen:
            return Score(0.0, ("empty_choice",))
        if any(not 1 <= i <= n for i in chosen):
            return Score(0.0, ("unknown_position",))
        if len(set(chosen)) != len(chosen):
            return Score(0.0, ("duplicate_position",))
        total = sum(d["numbers"][i - 1] for i in chosen)
        if total != d["target"]:
            return Score(0.0, ("wrong_sum",), {"sum": total, "target": d["target"]})
        return Score(1.0, (), {"sum": total, "target": d["target"]})

    def ladder(self) -> tuple[Rung, ...]:
        """Largest first, depth-first search (60 numbers tried), reachable sums (3,000 recorded)."""
        def greedy(inst: Instance, budget: Budget) -> str | None:
            found = greedy_pick(inst.data["numbers"], inst.data["target"])
            return None if found is None else f"Answer: {found}"

        def dfs(inst: Instance, budget: Budget) -> str | None:
            found = search_pick(inst.data["numbers"], inst.data["target"], budget)
            return None if found is None else f"Answer: {found}"

        def sums(inst: Instance, budget: Budget) -> str | None:
            found = sums_pick(inst.data["numbers"], inst.data["target"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("largest_first", 1, "passes", greedy), Rung("dfs", 60, "tries", dfs),
                Rung("reachable_sums", 3000, "sums", sums))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"count": float(len(d["numbers"])), "target": float(d["target"]),
                "mean_number": sum(d["numbers"]) / len(d["numbers"])}


ENV = SubsetSum()
