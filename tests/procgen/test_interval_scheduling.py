"""interval_scheduling: determinism, the DP against brute force over every subset of requests."""

from __future__ import annotations

from itertools import combinations

from covert.procgen.registry import get_env

ENV = get_env("interval_scheduling")


def compatible(chosen: tuple[int, ...], intervals: list[list[int]]) -> bool:
    return all(intervals[a - 1][1] <= intervals[b - 1][0] or intervals[b - 1][1] <= intervals[a - 1][0]
               for a, b in combinations(chosen, 2))


def test_scorer_agrees_with_brute_force() -> None:
    for level in range(3):
        for index in range(15):
            instance = ENV.sample(8, ENV.config_at(level), index)
            intervals = instance.data["intervals"]
            n = len(intervals)
            sets = [c for size in range(n + 1) for c in combinations(range(1, n + 1), size) if compatible(c, intervals)]
            best = max(sum(intervals[i - 1][2] for i in c) for c in sets)
            assert instance.data["best"] == best
            for chosen in sets:
                value = sum(intervals[i - 1][2] for i in chosen)
                assert (ENV.score(instance, f"Answer: {list(chosen)}").value == 1.0) == (value == best)


def test_overlap_is_refused() -> None:
    instance = ENV.sample(0, ENV.config_at(3), 0)
    intervals = instance.data["intervals"]
    pair = next((a, b) for a, b in combinations(range(1, len(intervals) + 1), 2) if not compatible((a, b), intervals))
    assert ENV.score(instance, f"Answer: {list(pair)}").reasons == ("overlap",)
