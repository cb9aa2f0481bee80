"""Longest common subsequence of two playlists: the longest run of songs both play in the same order (a
dynamic program over prefixes; any longest one scores 1)."""

from __future__ import annotations

from collections.abc import Callable

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer


def prefix_table(a: list[int], b: list[int], budget: Budget | None = None) -> list[list[int]]:
    """``T[i][j]``: the longest common subsequence of the first ``i`` of ``a`` and the first ``j`` of ``b``;
    ``budget`` counts cells."""
    rows = [[0] * (len(b) + 1)]
    for x in a:
        if budget is not None:
            budget.spend(len(b))
        row = [0]
        for j, y in enumerate(b, 1):
            row.append(rows[-1][j - 1] + 1 if x == y else max(rows[-1][j], row[j - 1]))
        rows.append(row)
    return rows


def common(a: list[int], b: list[int], budget: Budget | None = None) -> list[int]:
    """One longest common subsequence, read back from the table."""
    rows = prefix_table(a, b, budget)
    i, j, out = len(a), len(b), []
    while i and j:
        if a[i - 1] == b[j - 1]:
            out.append(a[i - 1])
            i, j = i - 1, j - 1
        elif rows[i - 1][j] >= rows[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return out[::-1]


def greedy_common(a: list[int], b: list[int]) -> list[int]:
    """Through ``a`` in order, take a song when it appears in ``b`` after the last one taken."""
    out, start = [], 0
    for x in a:
        if x in b[start:]:
            start = b.index(x, start) + 1
            out.append(x)
    return out


def is_subsequence(values: list[int], sequence: list[int]) -> bool:
    """Whether ``values`` occur in ``sequence`` in this order."""
    it = iter(sequence)
    return all(any(v == x for x in it) for v in values)


class LongestCommonSubsequence(ProceduralEnv):
    """Two playlists of song numbers; any common subsequence of the greatest length scores 1."""

    name = "longest_common_subsequence"
    version = "1"
    description = "the longest common subsequence of two sequences of numbers (dynamic programming)"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("length", (5, 6, 8, 10, 12, 15, 20), "songs in each playlist"),
        Knob("catalogue", (4, 6, 9, 14), "distinct songs the playlists draw from"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n, songs = config["length"], config["catalogue"]
        for _ in range(100):  # at least three songs in common, and not simply the first playlist in order
            a = [rng.randint(1, songs) for _ in range(n)]
            b = [rng.randint(1, songs) for _ in range(n)]
            best = prefix_table(a, b)[-1][-1]
            if best >= 3 and greedy_common(b, a) != common(a, b):
                break
        prompt = (f"Two radio stations played these songs (by catalogue number), in this order:\n"
                  f"Station A: {', '.join(map(str, a))}\nStation B: {', '.join(map(str, b))}\n\n"
                  "Find a longest list of songs that both stations played in this same order (each station may "
                  "have played other songs in between).\n"
                  "End your response with a line 'Answer: ' followed by the songs as a list, e.g. Answer: [4, 1, 3].")
        return Instance(prompt, {"a": a, "b": b, "best": best})

    def reference(self, instance: Instance) -> str:
        """The table over prefixes, its last row, and one longest list read back."""
        a, b = instance.data["a"], instance.data["b"]
        rows = prefix_table(a, b)
        picked = common(a, b)
        lines = ["I fill T[i][j], the longest common list of A's first i songs and B's first j songs: when the i-th "
                 "song of A equals the j-th of B, T[i][j] = T[i-1][j-1] + 1, else the larger of T[i-1][j] and "
                 "T[i][j-1].",
                 f"The last row is {rows[-1]}, so the longest common list has {rows[-1][-1]} songs.",
                 "Walking back from the last cell (taking a song where the two match, else moving to the neighbour "
                 f"with the larger value) gives {picked}.",
                 f"Check: {picked} appears in order in A and in B."]
        return "\n".join(lines) + f"\nAnswer: {picked}"

    def score(self, instance: Instance, response: str) -> Score:
        a, b, best = instance.data["a"], instance.data["b"], instance.data["best"]
        picked = int_list_answer(response, limit=len(a) + 1)
        if picked is None:
            return Score(0.0, ("unparsable",))
        if not is_subsequence(picked, a) or not is_subsequence(picked, b):
            return Score(0.0, ("not_common",))
        if len(picked) != best:
            return Score(0.0, ("too_short",), {"length": len(picked), "best": best})
        return Score(1.0, (), {"length": len(picked)})

    def ladder(self) -> tuple[Rung, ...]:
        """Greedy through A, greedy through B, the table (150 cells)."""
        def through(first: str) -> Callable[[Instance, Budget], str]:
            def solve(inst: Instance, budget: Budget) -> str:
                a, b = inst.data["a"], inst.data["b"]
                return f"Answer: {greedy_common(a, b) if first == 'a' else greedy_common(b, a)}"
            return solve

        def table(inst: Instance, budget: Budget) -> str:
            return f"Answer: {common(inst.data['a'], inst.data['b'], budget)}"

        return (Rung("greedy_a", 1, "passes", through("a")), Rung("greedy_b", 1, "passes", through("b")),
                Rung("dp_150", 150, "cells", table))

    def statistics(self, instance: Instance) -> dict[str, float]:
        a, b = instance.data["a"], instance.data["b"]
        return {"length": float(len(a)), "distinct": float(len(set(a) | set(b))),
                "best": float(instance.data["best"])}


ENV = LongestCommonSubsequence()
