"""coin_change: determinism, the fewest coins against a breadth-first search, any fewest payment accepted."""

from __future__ import annotations

from collections import Counter

from covert.procgen.registry import get_env

ENV = get_env("coin_change")


def bfs_fewest(coins: list[int], amount: int) -> int:
    frontier, seen, depth = {0}, {0}, 0
    while frontier:
        if amount in frontier:
            return depth
        frontier = {v + c for v in frontier for c in coins if v + c <= amount} - seen
        seen |= frontier
        depth += 1
    return -1


def test_fewest_agrees_with_bfs_and_any_order_is_accepted() -> None:
    for level in range(4):
        for index in range(20):
            instance = ENV.sample(2, ENV.config_at(level), index)
            d = instance.data
            assert d["fewest"] == bfs_fewest(d["coins"], d["amount"]) > 0
            pay = [int(v) for v in ENV.reference(instance).rsplit("[", 1)[1].rstrip("]").split(",")]
            assert Counter(pay) and sum(pay) == d["amount"]
            assert ENV.score(instance, f"Answer: {list(reversed(pay))}").value == 1.0
            smallest = d["coins"][0]
            if d["amount"] % smallest == 0 and d["amount"] // smallest != d["fewest"]:
                assert ENV.score(instance, f"Answer: {[smallest] * (d['amount'] // smallest)}").reasons == \
                    ("too_many_coins",)


def test_no_instance_is_paid_by_one_coin() -> None:
    """An amount that is itself a coin is no problem to solve: every level (level 0 had them) needs two coins
    or more."""
    for level in range(len(ENV.knobs[0].levels)):
        fewest = [ENV.sample(0, ENV.config_at(level), index).data["fewest"] for index in range(200)]
        assert min(fewest) >= 2, (level, fewest.count(1))
