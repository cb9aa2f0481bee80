"""Rod cutting: cut a rod into pieces whose prices add up to the most (a dynamic program; any best set of
pieces scores 1)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def revenue_table(prices: list[int], length: int, budget: Budget | None = None) -> tuple[list[int], list[int]]:
    """``best[n]``: the most a rod of length ``n`` sells for, and ``first[n]``: the first piece of one best
    cut; ``budget`` counts (length, piece) pairs."""
    best, first = [0] * (length + 1), [0] * (length + 1)
    for n in range(1, length + 1):
        if budget is not None:
            budget.spend(min(n, len(prices)))
        best[n], first[n] = max((prices[p - 1] + best[n - p], p) for p in range(1, min(n, len(prices)) + 1))
    return best, first


def best_cut(prices: list[int], length: int, budget: Budget | None = None) -> list[int]:
    """One best set of pieces (longest first), read back from the table."""
    _, first = revenue_table(prices, length, budget)
    pieces, n = [], length
    while n:
        pieces.append(first[n])
        n -= first[n]
    return sorted(pieces, reverse=True)


def best_ratio_cut(prices: list[int], length: int) -> list[int]:
    """As many pieces as fit of the best price per unit of length, then the same for what is left."""
    pieces, left = [], length
    while left:
        p = max(range(1, min(left, len(prices)) + 1), key=lambda q: (prices[q - 1] / q, q))
        pieces += [p] * (left // p)
        left %= p
    return sorted(pieces, reverse=True)


def longest_pieces(prices: list[int], length: int) -> list[int]:
    """The longest piece that has a price, as often as it fits, then the rest the same way."""
    pieces, left = [], length
    while left:
        p = min(left, len(prices))
        pieces += [p] * (left // p)
        left %= p
    return pieces


class RodCutting(ProceduralEnv):
    """A rod and a price list per piece length; any cut into pieces of the largest total price scores 1."""

    name = "rod_cutting"
    version = "1"
    description = "cut a rod into pieces of the largest total price (unbounded knapsack dynamic programming)"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("length", (10, 12, 15, 20, 25, 30, 40), "length of the rod"),
        Knob("price_lengths", (4, 6, 8, 10), "piece lengths that have a price (1 up to this)"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        length, kinds = config["length"], min(config["price_lengths"], config["length"])
        for _ in range(100):  # the best price per unit, repeated, is not already the best cut
            prices, price = [], 0
            for p in range(1, kinds + 1):
                price += rng.randint(1, 9)
                prices.append(price + rng.randint(0, p))
            best = revenue_table(prices, length)[0][length]
            if sum(prices[p - 1] for p in best_ratio_cut(prices, length)) < best:
                break
        listing = ", ".join(f"length {p}: {v}" for p, v in enumerate(prices, 1))
        prompt = (f"A rod of length {length} is to be cut into pieces of whole lengths and sold. Pieces sell at "
                  f"these prices: {listing} (no longer piece can be sold).\n\nCut the whole rod so that the "
                  "pieces' prices add up to as much as possible.\n"
                  "End your response with a line 'Answer: ' followed by the piece lengths as a list, e.g. "
                  "Answer: [3, 2, 2].")
        return Instance(prompt, {"prices": prices, "length": length, "best": best})

    def reference(self, instance: Instance) -> str:
        """The best price for every shorter rod, then the cut read back."""
        d = instance.data
        prices, length = d["prices"], d["length"]
        best, first = revenue_table(prices, length)
        pieces = best_cut(prices, length)
        lines = ["Let r(n) be the most a rod of length n sells for: r(0) = 0 and r(n) is the largest, over a first "
                 "piece p (with a price), of price(p) + r(n - p).",
                 "r(1..{}) = {}.".format(length, ", ".join(map(str, best[1:]))),
                 f"Reading back from r({length}): "
                 + "; ".join(f"r({n}) takes a piece of {first[n]}" for n in _chain(first, length)) + ".",
                 f"So the pieces {pieces} sell for {' + '.join(str(prices[p - 1]) for p in pieces)} = {d['best']}."]
        return "\n".join(lines) + f"\nAnswer: {pieces}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        pieces = int_list_answer(response, limit=d["length"] + 1)
        if pieces is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= p <= len(d["prices"]) for p in pieces):
            return Score(0.0, ("unpriced_piece",))
        if sum(pieces) != d["length"]:
            return Score(0.0, ("wrong_total_length",), {"length": sum(pieces)})
        total = sum(d["prices"][p - 1] for p in pieces)
        if total != d["best"]:
            return Score(0.0, ("not_best",), {"price": total, "best": d["best"]})
        return Score(1.0, (), {"price": total})

    def ladder(self) -> tuple[Rung, ...]:
        """Longest pieces, best price per unit, the table (120 pairs)."""
        return (Rung("longest_pieces", 1, "passes",
                     lambda i, b: f"Answer: {longest_pieces(i.data['prices'], i.data['length'])}"),
                Rung("best_ratio", 1, "passes",
                     lambda i, b: f"Answer: {best_ratio_cut(i.data['prices'], i.data['length'])}"),
                Rung("dp_120", 120, "pairs", lambda i, b: f"Answer: {best_cut(i.data['prices'], i.data['length'], b)}"))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"length": float(d["length"]), "priced_lengths": float(len(d["prices"])),
                "table_pairs": float(sum(min(n, len(d["prices"])) for n in range(1, d["length"] + 1)))}


def _chain(first: list[int], n: int) -> list[int]:
    out = []
    while n:
        out.append(n)
        n -= first[n]
    return out


ENV = RodCutting()
