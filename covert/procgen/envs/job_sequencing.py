"""Job sequencing with deadlines: one-hour jobs, each paying if finished by its deadline; choose jobs of the
largest total pay that can all meet their deadlines (the exchange argument: richest first, as late as
possible)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def best_jobs(jobs: list[list[int]], budget: Budget | None = None,
              steps: list[str] | None = None) -> list[int]:
    """Jobs ``[deadline, pay]`` taken richest first, each in the latest free hour by its deadline (an optimal
    choice); ``budget`` counts hours looked at, ``steps`` collects the placements in words."""
    hours: dict[int, int] = {}
    for i in sorted(range(len(jobs)), key=lambda k: (-jobs[k][1], k)):
        deadline, pay = jobs[i]
        for hour in range(deadline, 0, -1):
            if budget is not None:
                budget.spend()
            if hour not in hours:
                hours[hour] = i + 1
                if steps is not None:
                    steps.append(f"job {i + 1} (pays {pay}, due by hour {deadline}) goes in hour {hour}")
                break
        else:
            if steps is not None:
                steps.append(f"job {i + 1} (pays {pay}, due by hour {deadline}): {'hour 1 is' if deadline == 1 else f'hours 1 to {deadline} are'} taken, skip")
    return sorted(hours.values())


def fits(jobs: list[list[int]], chosen: list[int]) -> bool:
    """Whether the chosen jobs can all be done by their deadlines (earliest deadline first)."""
    deadlines = sorted(jobs[i - 1][0] for i in chosen)
    return all(d >= hour for hour, d in enumerate(deadlines, 1))


def earliest_deadline_first(jobs: list[list[int]]) -> list[int]:
    """Jobs by deadline, each taken when it still fits."""
    chosen: list[int] = []
    for i in sorted(range(len(jobs)), key=lambda k: (jobs[k][0], -jobs[k][1], k)):
        if fits(jobs, [*chosen, i + 1]):
            chosen.append(i + 1)
    return sorted(chosen)


def richest_first_in_order(jobs: list[list[int]]) -> list[int]:
    """Jobs richest first, each in the next free hour from the start, taken when that hour meets its deadline."""
    chosen, hour = [], 0
    for i in sorted(range(len(jobs)), key=lambda k: (-jobs[k][1], k)):
        if jobs[i][0] > hour:
            hour += 1
            chosen.append(i + 1)
    return sorted(chosen)


class JobSequencing(ProceduralEnv):
    """One-hour jobs with deadlines and pay; any feasible choice of the largest total pay scores 1."""

    name = "job_sequencing"
    version = "2"
    description = "job sequencing with deadlines: the most pay from one-hour jobs that all meet their deadlines"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("jobs", (6, 8, 10, 12, 14, 18, 24), "number of jobs"),
        Knob("slack", (70, 50, 35), "latest deadline, in percent of the number of jobs (less is tighter)"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["jobs"]
        latest = max(3, n * config["slack"] // 100)
        for _ in range(100):  # taking jobs by deadline is not already the best
            jobs = [[rng.randint(1, latest), rng.randint(1, 50)] for _ in range(n)]
            chosen = best_jobs(jobs)
            best = sum(jobs[i - 1][1] for i in chosen)
            if sum(jobs[i - 1][1] for i in earliest_deadline_first(jobs)) < best and len(chosen) >= 2:
                break
        lines = "\n".join(f"- job {i}: due by the end of hour {d}, pays {p}" for i, (d, p) in enumerate(jobs, 1))
        prompt = (f"A machine does one job per hour, starting at hour 1. Each of these {n} jobs takes one hour and pays "
                  f"only if it is finished by its deadline:\n{lines}\n\nChoose jobs that can all be finished by their "
                  "deadlines, with the largest total pay.\n"
                  "End your response with a line 'Answer: ' followed by the chosen job numbers as a list, e.g. "
                  "Answer: [2, 4].")
        return Instance(prompt, {"jobs": jobs, "best": best})

    def reference(self, instance: Instance) -> str:
        """Richest job first, each in the latest free hour by its deadline."""
        jobs = instance.data["jobs"]
        steps: list[str] = []
        chosen = best_jobs(jobs, steps=steps)
        lines = ["I take the jobs from the best paid down and put each in the latest free hour by its deadline, which "
                 "leaves the early hours for jobs due sooner; a job with no free hour by its deadline is left out."]
        lines += [s[0].upper() + s[1:] + "." for s in steps]
        lines.append(f"Jobs {chosen} all meet their deadlines and pay "
                     f"{' + '.join(str(jobs[i - 1][1]) for i in chosen)} = {instance.data['best']}.")
        return "\n".join(lines) + f"\nAnswer: {chosen}"

    def score(self, instance: Instance, response: str) -> Score:
        jobs, best = instance.data["jobs"], instance.data["best"]
        chosen = int_list_answer(response, limit=len(jobs) + 1)
        if chosen is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= i <= len(jobs) for i in chosen) or len(set(chosen)) != len(chosen):
            return Score(0.0, ("unknown_or_repeated_job",))
        if not fits(jobs, chosen):
            return Score(0.0, ("misses_deadline",))
        pay = sum(jobs[i - 1][1] for i in chosen)
        if pay != best:
            return Score(0.0, ("not_best",), {"pay": pay, "best": best})
        return Score(1.0, (), {"pay": pay})

    def ladder(self) -> tuple[Rung, ...]:
        """Earliest deadline first, richest first in hour order, richest first as late as possible (20 hours)."""
        return (Rung("earliest_deadline", 1, "passes", lambda i, b: f"Answer: {earliest_deadline_first(i.data['jobs'])}"),
                Rung("richest_in_order", 1, "passes", lambda i, b: f"Answer: {richest_first_in_order(i.data['jobs'])}"),
                Rung("latest_slot_20", 20, "hours", lambda i, b: f"Answer: {best_jobs(i.data['jobs'], b)}"))

    def statistics(self, instance: Instance) -> dict[str, float]:
        jobs = instance.data["jobs"]
        return {"jobs": float(len(jobs)), "latest_deadline": float(max(d for d, _ in jobs)),
                "jobs_per_hour": len(jobs) / max(d for d, _ in jobs)}


ENV = JobSequencing()
