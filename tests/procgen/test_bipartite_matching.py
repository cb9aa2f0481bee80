"""bipartite_matching: the largest matching against brute force, and reasoning that does what it says (a worker
with a free job takes it; a chain of moves only when none is free)."""

from __future__ import annotations

import itertools
import random
import re

from covert.procgen.envs.bipartite_matching import max_matching
from covert.procgen.registry import get_env

ENV = get_env("bipartite_matching")


def test_the_matching_is_largest() -> None:
    rng = random.Random(1)
    for _ in range(300):
        jobs = rng.randint(1, 6)
        can = [sorted(rng.sample(range(1, jobs + 1), rng.randint(1, jobs))) for _ in range(rng.randint(1, 6))]
        found = max_matching(can)
        best = max(len(used) for pick in itertools.product(*[[0, *c] for c in can])
                   if len(used := [j for j in pick if j]) == len(set(used)))
        assert len(found) == best and len(set(found.values())) == len(found)
        assert all(job in can[worker - 1] for worker, job in found.items())


def test_a_worker_with_a_free_job_takes_it_without_moving_anyone() -> None:
    chains = 0
    for level in range(3):
        for index in range(20):
            instance = ENV.sample(4, ENV.config_at(level), index)
            can, job_of = instance.data["can"], {}
            for line in ENV.reference(instance).splitlines():
                m = re.fullmatch(r"Worker (\d+) takes job (\d+)(?: \((.*)\))?\.", line)
                if not m:
                    continue
                worker, job, moves = int(m[1]), int(m[2]), m[3]
                free = [j for j in can[worker - 1] if j not in job_of.values()]
                assert (moves is None) == bool(free), (line, free)
                for w, j in re.findall(r"worker (\d+) moves to job (\d+)", moves or ""):
                    job_of[int(w)] = int(j)
                    chains += 1
                job_of[worker] = job
                assert len(set(job_of.values())) == len(job_of), line
    assert chains > 0
