"""knapsack: determinism, the reference against brute force over every subset, any optimal set accepted."""

from __future__ import annotations

from itertools import combinations

from covert.procgen.registry import get_env

ENV = get_env("knapsack")


def brute(weights: list[int], values: list[int], capacity: int) -> tuple[int, list[list[int]]]:
    best, sets = -1, []
    n = len(weights)
    for size in range(n + 1):
        for chosen in combinations(range(1, n + 1), size):
            if sum(weights[i - 1] for i in chosen) <= capacity:
                value = sum(values[i - 1] for i in chosen)
                if value > best:
                    best, sets = value, [list(chosen)]
                elif value == best:
                    sets.append(list(chosen))
    return best, sets


def test_reference_is_optimal_and_every_optimal_set_scores_one() -> None:
    for level in range(4):
        for index in range(25):
            instance = ENV.sample(5, ENV.config_at(level), index)
            d = instance.data
            best, optimal = brute(d["weights"], d["values"], d["capacity"])
            assert d["best"] == best
            assert ENV.score(instance, ENV.reference(instance)).details["value"] == best
            for chosen in optimal:
                assert ENV.score(instance, f"Answer: {list(reversed(chosen))}").value == 1.0
            if len(d["weights"]) > 1:
                assert ENV.score(instance, f"Answer: {list(range(1, len(d['weights']) + 1))}").value < 1.0 or \
                    sum(d["weights"]) <= d["capacity"]


def test_wrong_answers_have_reasons() -> None:
    instance = ENV.sample(1, ENV.config_at(1), 0)
    assert ENV.score(instance, "Answer: [1, 1]").reasons == ("duplicate_item",)
    assert ENV.score(instance, "Answer: [0]").reasons == ("unknown_item",)
    assert ENV.score(instance, "Answer: []").reasons == ("suboptimal",)
