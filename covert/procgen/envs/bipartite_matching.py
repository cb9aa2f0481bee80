"""Bipartite matching: give as many workers as possible a job each that they can do, no job twice (augmenting
paths; any largest matching scores 1)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_pairs_answer


def max_matching(can: list[list[int]], budget: Budget | None = None,
                 steps: list[str] | None = None) -> dict[int, int]:
    """A largest matching, worker -> job (workers and jobs numbered from 1), by augmenting paths tried for each
    worker in turn (a free job first, else a chain of moves); ``budget`` counts edges followed, ``steps`` collects
    the changes in words."""
    job_of: dict[int, int] = {}
    worker_of: dict[int, int] = {}

    def augment(worker: int, seen: set[int]) -> bool:
        for job in can[worker - 1]:  # a free job first: the shortest chain
            if budget is not None:
                budget.spend()
            if job not in worker_of and job not in seen:
                seen.add(job)
                job_of[worker], worker_of[job] = job, worker
                return True
        for job in can[worker - 1]:
            if budget is not None:
                budget.spend()
            if job in seen:
                continue
            seen.add(job)
            if job not in worker_of or augment(worker_of[job], seen):
                job_of[worker], worker_of[job] = job, worker
                return True
        return False

    for worker in range(1, len(can) + 1):
        before = dict(job_of)
        if augment(worker, set()):
            if steps is not None:
                moved = [f"worker {w} moves to job {job_of[w]}" for w in before if before[w] != job_of[w]]
                steps.append(f"worker {worker} takes job {job_of[worker]}" + (f" ({'; '.join(moved)})" if moved else ""))
        elif steps is not None:
            steps.append(f"worker {worker}: every job they can do is taken and no chain of moves frees one")
    return job_of


def greedy_matching(can: list[list[int]], order: list[int]) -> dict[int, int]:
    """Workers in ``order``, each the lowest-numbered free job they can do."""
    taken: set[int] = set()
    out = {}
    for worker in order:
        job = next((j for j in can[worker - 1] if j not in taken), None)
        if job is not None:
            out[worker] = job
            taken.add(job)
    return out


def _pairs(matching: dict[int, int]) -> str:
    return f"Answer: {[[w, j] for w, j in sorted(matching.items())]}"


class BipartiteMatching(ProceduralEnv):
    """Workers, jobs and who can do what; any assignment of the largest size scores 1."""

    name = "bipartite_matching"
    version = "2"
    description = "maximum bipartite matching: as many worker-job pairs as possible (augmenting paths)"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("workers", (3, 4, 5, 6, 8, 10, 12), "workers, and as many jobs"),
        Knob("skills", (30, 45, 60), "percent chance that a worker can do a job"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["workers"]
        for _ in range(100):  # greedy in worker order is not already a largest matching
            can = [sorted(j for j in range(1, n + 1) if rng.randrange(100) < config["skills"]) or [rng.randint(1, n)]
                   for _ in range(n)]
            best = len(max_matching(can))
            if len(greedy_matching(can, list(range(1, n + 1)))) < best:
                break
        lines = "\n".join(f"- worker {w}: jobs {', '.join(map(str, jobs))}" for w, jobs in enumerate(can, 1))
        prompt = (f"There are {n} workers and {n} jobs, both numbered 1 to {n}. Each worker can do only these "
                  f"jobs:\n{lines}\n\nAssign jobs to as many workers as possible: each worker gets at most one job "
                  "they can do, and no job goes to two workers.\n"
                  "End your response with a line 'Answer: ' followed by the assignment as a list of [worker, job] "
                  "pairs, e.g. Answer: [[1, 3], [2, 1]].")
        return Instance(prompt, {"can": can, "best": best})

    def reference(self, instance: Instance) -> str:
        """Workers one at a time, each taking a free job or freeing one by moving others along a chain."""
        can = instance.data["can"]
        steps: list[str] = []
        matching = max_matching(can, steps=steps)
        lines = ["I go through the workers in order. Each takes a job they can do that is free; if none is free, I "
                 "look for a chain: a worker holding one of their jobs moves to another job they can do, and so on, "
                 "until a job is freed (an augmenting path)."]
        lines += [s[0].upper() + s[1:] + "." for s in steps]
        lines.append(f"{len(matching)} workers get a job; no chain of moves frees a job for another worker, so this is "
                     "the most possible.")
        return "\n".join(lines) + "\n" + _pairs(matching)

    def score(self, instance: Instance, response: str) -> Score:
        can, best = instance.data["can"], instance.data["best"]
        n = len(can)
        pairs = int_pairs_answer(response, limit=n * n)
        if pairs is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= w <= n or j not in can[w - 1] for w, j in pairs):
            return Score(0.0, ("cannot_do_job",))
        if len({w for w, _ in pairs}) != len(pairs) or len({j for _, j in pairs}) != len(pairs):
            return Score(0.0, ("used_twice",))
        if len(pairs) != best:
            return Score(0.0, ("too_few",), {"pairs": len(pairs), "best": best})
        return Score(1.0, (), {"pairs": len(pairs)})

    def ladder(self) -> tuple[Rung, ...]:
        """Greedy in worker order, greedy fewest skills first, augmenting paths (25 edges followed)."""
        def in_order(inst: Instance, budget: Budget) -> str:
            can = inst.data["can"]
            return _pairs(greedy_matching(can, list(range(1, len(can) + 1))))

        def fewest_first(inst: Instance, budget: Budget) -> str:
            can = inst.data["can"]
            return _pairs(greedy_matching(can, sorted(range(1, len(can) + 1), key=lambda w: (len(can[w - 1]), w))))

        return (Rung("greedy", 1, "passes", in_order), Rung("fewest_skills_first", 1, "passes", fewest_first),
                Rung("augmenting_25", 25, "edges", lambda i, b: _pairs(max_matching(i.data["can"], b))))

    def statistics(self, instance: Instance) -> dict[str, float]:
        can = instance.data["can"]
        return {"workers": float(len(can)), "skills": float(sum(map(len, can))),
                "skills_per_worker": sum(map(len, can)) / len(can)}


ENV = BipartiteMatching()
