"""Coin change: pay an amount with as few coins as possible (a DP; taking the largest coin first often fails)."""

from __future__ import annotations

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import int_list_answer


def fewest_coins(coins: list[int], amount: int) -> list[int] | None:
    """One way to pay ``amount`` with the fewest coins (largest first), or ``None`` if it cannot be paid."""
    inf = amount + 1
    count = [0] + [inf] * amount
    last = [0] * (amount + 1)
    for value in range(1, amount + 1):
        for coin in coins:
            if coin <= value and count[value - coin] + 1 < count[value]:
                count[value], last[value] = count[value - coin] + 1, coin
    if count[amount] >= inf:
        return None
    out, value = [], amount
    while value:
        out.append(last[value])
        value -= last[value]
    return sorted(out, reverse=True)


class CoinChange(ProceduralEnv):
    """Coin values and an amount; any payment with the fewest coins is accepted."""

    name = "coin_change"
    version = "1"
    description = "pay an amount with the fewest coins of given values (dynamic programming)"
    asymmetry = "reason"
    knobs = (
        Knob("amount", (10, 20, 40, 70, 100, 150, 250), "amount to pay (at most)"),
        Knob("coin_types", (2, 3, 4, 5), "number of coin values"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        top = config["amount"]
        for _ in range(1000):
            coins = sorted(rng.sample(range(2, max(config["coin_types"] + 3, top // 2 + 1)), config["coin_types"]))
            amount = rng.randint(top // 2, top)
            if fewest_coins(coins, amount) is not None:
                break
        else:  # pragma: no cover - no configuration gets here; a coin of 1 pays any amount
            coins = [1, *coins[1:]]
        prompt = (f"You have an unlimited supply of coins worth {', '.join(map(str, coins))}. Pay exactly {amount} "
                  "using as few coins as possible.\nEnd your response with a line 'Answer: ' followed by the coins "
                  "you use as a list, e.g. Answer: [5, 5, 2].")
        best = fewest_coins(coins, amount)
        return Instance(prompt, {"coins": coins, "amount": amount, "fewest": len(best or [])})

    def reference(self, instance: Instance) -> str:
        d = instance.data
        pay = fewest_coins(d["coins"], d["amount"]) or []
        return f"The fewest coins that make {d['amount']} number {len(pay)}: {' + '.join(map(str, pay))}.\nAnswer: {pay}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        pay = int_list_answer(response, limit=d["amount"] + 1)
        if pay is None:
            return Score(0.0, ("unparsable",))
        if any(coin not in d["coins"] for coin in pay):
            return Score(0.0, ("unknown_coin",))
        if sum(pay) != d["amount"]:
            return Score(0.0, ("wrong_total",), {"total": sum(pay)})
        if len(pay) != d["fewest"]:
            return Score(0.0, ("too_many_coins",), {"coins": len(pay), "fewest": d["fewest"]})
        return Score(1.0, (), {"coins": len(pay)})


ENV = CoinChange()
