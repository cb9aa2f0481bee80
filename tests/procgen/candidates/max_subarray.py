"""A well-behaved candidate: the largest sum of a contiguous run of numbers (hard by hand, trivial as code)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_answer


class MaxSubarray(ProceduralEnv):
    name = "max_subarray"
    version = "1"
    description = "largest sum of a contiguous run of a list of integers"
    asymmetry = "reason"
    knobs = (Knob("length", (8, 16, 32), "how many numbers"), Knob("spread", (20, 100), "numbers in -spread..spread"))

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        numbers = [rng.randint(-config["spread"], config["spread"]) for _ in range(config["length"])]
        numbers[rng.randrange(len(numbers))] = config["spread"] + rng.randint(5, 50)
        prompt = ("Numbers: " + ", ".join(str(x) for x in numbers) + "\nWhat is the largest sum of a contiguous "
                  "run of these numbers? End with 'Answer: N'.")
        return Instance(prompt, {"numbers": numbers})

    def reference(self, instance: Instance) -> str:
        best = run = instance.data["numbers"][0]
        for x in instance.data["numbers"][1:]:
            run = max(x, run + x)
            best = max(best, run)
        return f"Kadane's scan gives the best run.\nAnswer: {best}"

    def score(self, instance: Instance, response: str) -> Score:
        value = int_answer(response)
        if value is None:
            return Score(0.0, ("unparsable",))
        best = int(self.reference(instance).rsplit(" ", 1)[1])
        return Score(1.0) if value == best else Score(0.0, ("wrong_sum",))

    def ladder(self) -> tuple[Rung, ...]:
        def largest(inst: Instance, budget: Budget) -> str:
            return f"Answer: {max(inst.data['numbers'])}"

        def kadane(inst: Instance, budget: Budget) -> str:
            best = run = inst.data["numbers"][0]
            for x in inst.data["numbers"][1:]:
                budget.spend()
                run = max(x, run + x)
                best = max(best, run)
            return f"Answer: {best}"

        return (Rung("largest_number", 1, "passes", largest), Rung("kadane_20", 20, "steps", kadane))


ENV = MaxSubarray()
