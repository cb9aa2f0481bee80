"""Planted subset-sum: find numbers that add up to a target (hard to solve, trivial to check)."""

from __future__ import annotations

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import int_list_answer


class SubsetSum(ProceduralEnv):
    """A list of numbers and a target that a hidden subset sums to; any subset that hits it scores 1."""

    name = "subset_sum"
    version = "1"
    description = "planted subset-sum: pick numbers (by position) that add up exactly to a target"
    asymmetry = "verify"
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
        d = instance.data
        parts = " + ".join(str(d["numbers"][i - 1]) for i in d["planted"])
        return f"{parts} = {d['target']}.\nAnswer: {d['planted']}"

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


ENV = SubsetSum()
