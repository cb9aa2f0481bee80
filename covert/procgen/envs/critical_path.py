"""Critical path: the shortest time to finish a project whose tasks take given days and wait for their
prerequisites, with as many workers as needed (the longest path through a DAG)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_answer


def finish_times(days: list[int], after: list[list[int]], budget: Budget | None = None) -> list[int]:
    """The earliest finishing day of each task (tasks are numbered so that prerequisites come first);
    ``budget`` counts prerequisites looked at."""
    finish: list[int] = []
    for task, wait in enumerate(after):
        if budget is not None:
            budget.spend(len(wait) + 1)
        finish.append(days[task] + max((finish[p] for p in wait), default=0))
    return finish


def heaviest_chain(days: list[int], after: list[list[int]]) -> int:
    """From the longest task with no prerequisites, follow each time the longest task that waits for the
    current one (a greedy guess at the longest chain)."""
    waits_for = [[t for t, wait in enumerate(after) if p in wait] for p in range(len(days))]
    starts = [t for t, wait in enumerate(after) if not wait]
    task = max(starts, key=lambda t: (days[t], -t))
    total = days[task]
    while waits_for[task]:
        task = max(waits_for[task], key=lambda t: (days[t], -t))
        total += days[task]
    return total


class CriticalPath(ProceduralEnv):
    """Tasks with durations and prerequisites; the answer is the earliest day the project can be finished."""

    name = "critical_path"
    version = "1"
    description = "project completion time: the longest chain of prerequisites through a task graph"
    asymmetry = "reason"
    hidden_fields = ("finish",)
    knobs = (
        Knob("tasks", (4, 6, 8, 10, 12, 16, 20), "number of tasks"),
        Knob("links", (20, 35, 50), "percent chance that a task waits for a given earlier task"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["tasks"]
        for _ in range(100):  # following the longest next task is not already the answer
            days = [rng.randint(1, 9) for _ in range(n)]
            after = [sorted(p for p in range(t) if rng.randrange(100) < config["links"]) for t in range(n)]
            finish = max(finish_times(days, after))
            if heaviest_chain(days, after) != finish and sum(map(len, after)) >= n // 2:
                break
        names = list(range(1, n + 1))
        rng.shuffle(names)  # task names do not give away the order
        lines = "\n".join(f"- task {names[t]}: {days[t]} day{'s' if days[t] != 1 else ''}"
                          + (f", after task{'s' if len(after[t]) > 1 else ''} "
                             f"{', '.join(str(names[p]) for p in after[t])}" if after[t] else ", can start at once")
                          for t in sorted(range(n), key=lambda t: names[t]))
        prompt = (f"A project has {n} tasks. Each takes some days and can only start once the tasks it comes after are "
                  f"all finished:\n{lines}\n\nWith enough workers to do any number of tasks at once, what is the "
                  "earliest day by which the whole project can be finished (counting from day 0)?\n"
                  "End your response with a line 'Answer: ' followed by the number of days.")
        return Instance(prompt, {"days": days, "after": after, "names": names, "finish": finish})

    def reference(self, instance: Instance) -> str:
        """Earliest finish of each task, prerequisites first, and the chain that sets the total."""
        d = instance.data
        days, after, names = d["days"], d["after"], d["names"]
        finish = finish_times(days, after)
        lines = ["A task finishes at its own days plus the latest finish among the tasks it waits for. Going through "
                 "the tasks so that every prerequisite comes first:"]
        for t in range(len(days)):
            wait = ", ".join(f"{names[p]} ({finish[p]})" for p in after[t])
            lines.append(f"task {names[t]}: " + (f"after {wait}, finishes at {max(finish[p] for p in after[t])} + "
                                                 f"{days[t]} = {finish[t]}" if after[t] else f"finishes at {days[t]}"))
        last = max(range(len(days)), key=lambda t: (finish[t], -t))
        chain = [last]
        while after[chain[-1]]:
            chain.append(max(after[chain[-1]], key=lambda p: (finish[p], -p)))
        path = " -> ".join(str(names[t]) for t in reversed(chain))
        lines.append(f"The longest chain is {path}, which finishes at day {d['finish']}.")
        return "\n".join(lines) + f"\nAnswer: {d['finish']}"

    def score(self, instance: Instance, response: str) -> Score:
        value = int_answer(response)
        if value is None:
            return Score(0.0, ("unparsable",))
        if value != instance.data["finish"]:
            return Score(0.0, ("wrong_time",), {"answer": value, "expected": instance.data["finish"]})
        return Score(1.0, (), {"answer": value})

    def ladder(self) -> tuple[Rung, ...]:
        """All tasks one after another, the longest next task each time, finish times (60 looks)."""
        return (Rung("one_after_another", 1, "passes", lambda i, b: f"Answer: {sum(i.data['days'])}"),
                Rung("heaviest_chain", 1, "passes",
                     lambda i, b: f"Answer: {heaviest_chain(i.data['days'], i.data['after'])}"),
                Rung("finish_times_60", 60, "looks",
                     lambda i, b: f"Answer: {max(finish_times(i.data['days'], i.data['after'], b))}"))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"tasks": float(len(d["days"])), "links": float(sum(map(len, d["after"]))),
                "total_days": float(sum(d["days"]))}


ENV = CriticalPath()
