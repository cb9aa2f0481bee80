"""subset_sum: determinism, the planted subset hits the target, and every subset a brute force finds is accepted."""

from __future__ import annotations

from itertools import combinations

from covert.procgen.registry import get_env

ENV = get_env("subset_sum")


def test_scorer_agrees_with_brute_force_over_all_subsets() -> None:
    for index in range(20):
        instance = ENV.sample(4, ENV.config_at(0), index)
        numbers, target = instance.data["numbers"], instance.data["target"]
        n = len(numbers)
        hits = 0
        for size in range(1, n + 1):
            for chosen in combinations(range(1, n + 1), size):
                ok = sum(numbers[i - 1] for i in chosen) == target
                hits += ok
                assert (ENV.score(instance, f"Answer: {list(chosen)}").value == 1.0) == ok
        assert hits >= 1
        assert sum(numbers[i - 1] for i in instance.data["planted"]) == target


def test_wrong_answers_have_reasons() -> None:
    instance = ENV.sample(1, ENV.config_at(1), 0)
    assert ENV.score(instance, "Answer: []").reasons == ("empty_choice",)
    assert ENV.score(instance, "Answer: [1, 1]").reasons == ("duplicate_position",)
