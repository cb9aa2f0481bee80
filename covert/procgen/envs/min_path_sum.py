"""Cheapest toll route: cross a grid of tolls from the top-left to the bottom-right corner moving right or down,
paying as little as possible (a dynamic program; any cheapest route scores 1)."""

from __future__ import annotations

import re
from typing import Any

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import answer_text

_MOVE = re.compile(r"(?i)\b(right|down|r|d)\b|\b([RD]{2,})\b")


def parse_moves(response: Any, limit: int) -> list[str] | None:
    """Moves ``R``/``D`` written as ``RRDD``, ``R, R, D``, ``right down ...`` or JSON ``["R", "D"]``."""
    text = answer_text(response)[:20 * limit + 200]
    moves: list[str] = []
    for word, run in _MOVE.findall(text):
        moves += list(run) if run else [word[0].upper()]
        if len(moves) > limit:
            return None
    return moves or None


def cheapest_table(tolls: list[list[int]], budget: Budget | None = None) -> list[list[int]]:
    """The least total toll to reach each cell (its own toll included); ``budget`` counts cells."""
    n, m = len(tolls), len(tolls[0])
    best = [[0] * m for _ in range(n)]
    for r in range(n):
        for c in range(m):
            if budget is not None:
                budget.spend()
            before = [best[r - 1][c]] if r else []
            before += [best[r][c - 1]] if c else []
            best[r][c] = tolls[r][c] + (min(before) if before else 0)
    return best


def cheapest_route(tolls: list[list[int]], budget: Budget | None = None) -> list[str]:
    """One cheapest route, read back from the table (coming from above on ties)."""
    best = cheapest_table(tolls, budget)
    r, c, moves = len(tolls) - 1, len(tolls[0]) - 1, []
    while r or c:
        if r and (not c or best[r - 1][c] <= best[r][c - 1]):
            moves.append("D")
            r -= 1
        else:
            moves.append("R")
            c -= 1
    return moves[::-1]


def greedy_route(tolls: list[list[int]]) -> list[str]:
    """Always step to the cheaper of the two next cells."""
    n, m = len(tolls), len(tolls[0])
    r = c = 0
    moves = []
    while r < n - 1 or c < m - 1:
        down = tolls[r + 1][c] if r < n - 1 else None
        right = tolls[r][c + 1] if c < m - 1 else None
        if right is None or (down is not None and down < right):
            moves.append("D")
            r += 1
        else:
            moves.append("R")
            c += 1
    return moves


def route_cost(tolls: list[list[int]], moves: list[str]) -> int | None:
    """The total toll of a route, or ``None`` if it leaves the grid or ends elsewhere."""
    r = c = 0
    total = tolls[0][0]
    for move in moves:
        r, c = (r + 1, c) if move == "D" else (r, c + 1)
        if r >= len(tolls) or c >= len(tolls[0]):
            return None
        total += tolls[r][c]
    return total if (r, c) == (len(tolls) - 1, len(tolls[0]) - 1) else None


class MinPathSum(ProceduralEnv):
    """A grid of tolls; any right/down route between the corners with the least total scores 1."""

    name = "min_path_sum"
    version = "1"
    description = "cheapest right/down route across a grid of costs (dynamic programming)"
    asymmetry = "reason"
    hidden_fields = ("best",)
    knobs = (
        Knob("size", (3, 4, 5, 6, 7, 8, 10), "rows and columns of the grid"),
        Knob("toll_range", (9, 30, 99), "tolls are drawn from 1..toll_range"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["size"]
        for _ in range(100):  # stepping to the cheaper neighbour is not already the cheapest route
            tolls = [[rng.randint(1, config["toll_range"]) for _ in range(n)] for _ in range(n)]
            best = cheapest_table(tolls)[-1][-1]
            if route_cost(tolls, greedy_route(tolls)) != best:
                break
        grid = "\n".join(" ".join(f"{v:>2}" for v in row) for row in tolls)
        prompt = (f"Each cell of this {n}x{n} grid charges a toll:\n{grid}\n\nA traveller starts on the top-left cell "
                  "and must reach the bottom-right cell, moving one cell right (R) or down (D) at a time, and pays the "
                  "toll of every cell visited, the first and last included. Find a route with the smallest total.\n"
                  "End your response with a line 'Answer: ' followed by the moves, e.g. Answer: RRDD.")
        return Instance(prompt, {"tolls": tolls, "best": best})

    def reference(self, instance: Instance) -> str:
        """The least total to reach each cell, row by row, and the route read back."""
        tolls = instance.data["tolls"]
        table = cheapest_table(tolls)
        moves = cheapest_route(tolls)
        lines = ["The least total to reach a cell is its toll plus the smaller of the least totals of the cell above "
                 "and the cell to the left. Row by row:"]
        lines += [f"row {r + 1}: {' '.join(map(str, row))}" for r, row in enumerate(table)]
        lines.append(f"Tracing back from the corner ({table[-1][-1]}), each time to the neighbour with the smaller total, "
                     f"gives the route {''.join(moves)}.")
        return "\n".join(lines) + f"\nAnswer: {''.join(moves)}"

    def score(self, instance: Instance, response: str) -> Score:
        tolls = instance.data["tolls"]
        moves = parse_moves(response, 2 * len(tolls))
        if moves is None:
            return Score(0.0, ("unparsable",))
        cost = route_cost(tolls, moves)
        if cost is None:
            return Score(0.0, ("wrong_route",))
        if cost != instance.data["best"]:
            return Score(0.0, ("too_costly",), {"cost": cost, "best": instance.data["best"]})
        return Score(1.0, (), {"cost": cost})

    def ladder(self) -> tuple[Rung, ...]:
        """Cheaper next cell, along the top then down the side, the table (50 cells)."""
        def edge(inst: Instance, budget: Budget) -> str:
            n = len(inst.data["tolls"])
            return "Answer: " + "R" * (n - 1) + "D" * (n - 1)

        return (Rung("cheaper_next", 1, "passes", lambda i, b: "Answer: " + "".join(greedy_route(i.data["tolls"]))),
                Rung("along_the_edge", 1, "passes", edge),
                Rung("dp_50", 50, "cells", lambda i, b: "Answer: " + "".join(cheapest_route(i.data["tolls"], b))))

    def statistics(self, instance: Instance) -> dict[str, float]:
        tolls = instance.data["tolls"]
        flat = [v for row in tolls for v in row]
        return {"size": float(len(tolls)), "mean_toll": sum(flat) / len(flat), "best": float(instance.data["best"])}


ENV = MinPathSum()
