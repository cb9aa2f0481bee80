"""edit_distance: determinism, the DP against a naive recursion over every edit on short words."""

from __future__ import annotations

from covert.procgen.registry import get_env

ENV = get_env("edit_distance")


def naive(a: str, b: str) -> int:
    if not a or not b:
        return len(a) + len(b)
    if a[0] == b[0]:
        return naive(a[1:], b[1:])
    return 1 + min(naive(a[1:], b), naive(a, b[1:]), naive(a[1:], b[1:]))


def test_reference_agrees_with_naive_recursion() -> None:
    for level in range(2):
        for index in range(30):
            instance = ENV.sample(9, ENV.config_at(level), index)
            expected = naive(instance.data["first"], instance.data["second"])
            assert instance.data["distance"] == expected
            assert ENV.score(instance, f"Answer: {expected}").value == 1.0
            assert ENV.score(instance, f"Answer: {expected + 1}").reasons == ("wrong_distance",)


def test_two_numbers_are_not_an_answer() -> None:
    instance = ENV.sample(1, ENV.config_at(0), 0)
    assert ENV.score(instance, f"Answer: {instance.data['distance']} or 7").reasons == ("unparsable",)


def test_no_constant_guess_is_right() -> None:
    for index in range(60):
        instance = ENV.sample(0, ENV.config_at(0), index)
        assert instance.data["distance"] >= 2
