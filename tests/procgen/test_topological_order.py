"""topological_order: determinism, every valid order accepted and every invalid one refused (brute force
over all permutations of small graphs)."""

from __future__ import annotations

from itertools import permutations

from covert.procgen.registry import get_env

ENV = get_env("topological_order")


def valid(order: tuple[int, ...], edges: list[list[int]]) -> bool:
    return all(order.index(u) < order.index(v) for u, v in edges)


def test_scorer_agrees_with_brute_force_on_every_permutation() -> None:
    for level in range(2):  # 4 and 6 tasks: every permutation
        for index in range(12):
            instance = ENV.sample(2, ENV.config_at(level), index)
            n, edges = instance.data["n"], instance.data["edges"]
            orders = list(permutations(range(n)))
            good = [o for o in orders if valid(o, edges)]
            assert good, "the graph must be acyclic"
            assert tuple(ENV.score(instance, ENV.reference(instance)).value for _ in [0]) == (1.0,)
            for order in orders:
                assert (ENV.score(instance, f"Answer: {list(order)}").value == 1.0) == valid(order, edges)


def test_wrong_answers_have_reasons() -> None:
    instance = ENV.sample(1, ENV.config_at(2), 0)
    assert ENV.score(instance, "Answer: [0, 1]").reasons == ("not_a_permutation",)
