"""Coin change: pay an amount with as few coins as possible (a DP; taking the largest coin first often fails)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def fewest_table(coins: list[int], amount: int, budget: Budget | None = None) -> tuple[list[int], list[int]]:
    """For every value 0..amount, the fewest coins that pay it (``amount + 1`` where none does) and the last
    coin of one such payment; ``budget`` counts (value, coin) cells."""
    inf = amount + 1
    count = [0] + [inf] * amount
    last = [0] * (amount + 1)
    for value in range(1, amount + 1):
        if budget is not None:
            budget.spend(len(coins))
        for coin in coins:
            if coin <= value and count[value - coin] + 1 < count[value]:
                count[value], last[value] = count[value - coin] + 1, coin
    return count, last


def fewest_coins(coins: list[int], amount: int, budget: Budget | None = None) -> list[int] | None:
    """One way to pay ``amount`` with the fewest coins (largest first), or ``None`` if it cannot be paid."""
    count, last = fewest_table(coins, amount, budget)
    if count[amount] > amount:
        return None
    out, value = [], amount
    while value:
        out.append(last[value])
        value -= last[value]
    return sorted(out, reverse=True)


def largest_first(coins: list[int], amount: int) -> list[int] | None:
    """As many of the largest coin as fit, then the next (``None`` when something is left over)."""
    out, left = [], amount
    for coin in sorted(coins, reverse=True):
        out += [coin] * (left // coin)
        left %= coin
    return out if left == 0 else None


class CoinChange(ProceduralEnv):
    """Coin values and an amount; any payment with the fewest coins is accepted."""

    name = "coin_change"
    version = "3"
    description = "pay an amount with the fewest coins of given values (dynamic programming)"
    asymmetry = "reason"
    hidden_fields = ("fewest",)
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
            found = fewest_coins(coins, amount)
            if found is not None and len(found) >= 2:  # one coin worth the amount is no problem to solve
                break
        else:  # pragma: no cover - no configuration gets here; a coin of 1 pays any amount
            coins = [1, *coins[1:]]
        prompt = (f"You have an unlimited supply of coins worth {', '.join(map(str, coins))}. Pay exactly {amount} "
                  "using as few coins as possible.\nEnd your response with a line 'Answer: ' followed by the coins "
                  "you use as a list, e.g. Answer: [5, 5, 2].")
        best = fewest_coins(coins, amount)
        return Instance(prompt, {"coins": coins, "amount": amount, "fewest": len(best or [])})

    def reference(self, instance: Instance) -> str:
        """Largest coin first as a first try, then the table of fewest coins per value, read back."""
        d = instance.data
        coins, amount = d["coins"], d["amount"]
        pay = fewest_coins(coins, amount) or []
        count, _ = fewest_table(coins, amount)
        greedy = largest_first(coins, amount)
        lines = []
        if greedy is None:
            lines.append("Taking the largest coin as often as it fits leaves a remainder that no coin pays, so that "
                         "does not work here.")
        else:
            lines.append(f"Taking the largest coin as often as it fits gives {' + '.join(map(str, greedy))}: "
                         f"{len(greedy)} coins.")
        lines.append(f"To find the fewest, I work out f(v), the fewest coins that pay v, for v = 1 to {amount}: "
                     f"f(v) = 1 + the smallest f(v - c) over the coins c <= v.")
        steps, value = [], amount
        for coin in pay:
            steps.append(f"f({value}) = 1 + f({value - coin}) = {count[value]} (coin {coin})")
            value -= coin
        lines.append("Reading the table back from the amount: " + "; ".join(steps) + ".")
        verdict = "the same as" if greedy is not None and len(greedy) == len(pay) else "fewer than"
        lines.append(f"So {amount} = {' + '.join(map(str, pay))} takes {len(pay)} coins, {verdict} the first try."
                     if greedy is not None else f"So {amount} = {' + '.join(map(str, pay))} takes {len(pay)} coins.")
        return "\n".join(lines) + f"\nAnswer: {pay}"

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

    def ladder(self) -> tuple[Rung, ...]:
        """Largest coin first, the fewest-coins table with 120 and with 600 cells."""
        def greedy(inst: Instance, budget: Budget) -> str | None:
            found = largest_first(inst.data["coins"], inst.data["amount"])
            return None if found is None else f"Answer: {found}"

        def table(inst: Instance, budget: Budget) -> str | None:
            found = fewest_coins(inst.data["coins"], inst.data["amount"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("largest_first", 1, "passes", greedy), Rung("dp_120", 120, "cells", table),
                Rung("dp_600", 600, "cells", table))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"amount": float(d["amount"]), "coin_types": float(len(d["coins"])),
                "table_cells": float(d["amount"] * len(d["coins"]))}


ENV = CoinChange()
