"""Counting grid paths: how many ways a robot can go from the top-left to the bottom-right corner moving only
right and down around blocked cells (a dynamic program over cells)."""

from __future__ import annotations

from math import comb

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_answer


def count_table(rows: list[str], budget: Budget | None = None) -> list[list[int]]:
    """Ways to reach each cell (``#`` is blocked); ``budget`` counts cells."""
    n, m = len(rows), len(rows[0])
    ways = [[0] * m for _ in range(n)]
    for r in range(n):
        for c in range(m):
            if budget is not None:
                budget.spend()
            if rows[r][c] == "#":
                continue
            ways[r][c] = 1 if r == c == 0 else (ways[r - 1][c] if r else 0) + (ways[r][c - 1] if c else 0)
    return ways


def walk_count(rows: list[str], budget: Budget) -> int:
    """Every path walked one by one (depth first); ``budget`` counts the steps taken."""
    n, m = len(rows), len(rows[0])

    def go(r: int, c: int) -> int:
        budget.spend()
        if r >= n or c >= m or rows[r][c] == "#":
            return 0
        if (r, c) == (n - 1, m - 1):
            return 1
        return go(r + 1, c) + go(r, c + 1)

    return go(0, 0)


class GridPaths(ProceduralEnv):
    """A grid with blocked cells; the answer is the number of right/down paths between the corners."""

    name = "grid_paths"
    version = "1"
    description = "count monotone (right/down) paths across a grid with blocked cells (dynamic programming)"
    asymmetry = "reason"
    hidden_fields = ("ways",)
    knobs = (
        Knob("size", (4, 5, 6, 7, 8, 10, 12), "rows and columns of the grid"),
        Knob("blocked", (10, 20, 35), "percent of the other cells that are blocked"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["size"]
        for _ in range(200):  # at least two paths, and the blocks matter
            rows = ["".join("#" if (r, c) not in ((0, 0), (n - 1, n - 1)) and rng.randrange(100) < config["blocked"]
                            else "." for c in range(n)) for r in range(n)]
            ways = count_table(rows)[-1][-1]
            if 2 <= ways < comb(2 * n - 2, n - 1):
                break
        grid = "\n".join(" ".join(row) for row in rows)
        prompt = (f"A robot stands on the top-left cell of this {n}x{n} grid ('.' is open, '#' is blocked):\n{grid}\n\n"
                  "It moves one cell at a time, only right or down, and never onto a blocked cell. In how many "
                  "different ways can it reach the bottom-right cell?\n"
                  "End your response with a line 'Answer: ' followed by the number.")
        return Instance(prompt, {"rows": rows, "ways": ways})

    def reference(self, instance: Instance) -> str:
        """The number of ways into each cell, row by row."""
        rows = instance.data["rows"]
        table = count_table(rows)
        lines = ["The ways to reach a cell are the ways to reach the cell above it plus the ways to reach the cell to "
                 "its left (0 for a blocked cell; 1 for the start). Row by row:"]
        lines += [f"row {r + 1}: {' '.join(map(str, row))}" for r, row in enumerate(table)]
        lines.append(f"The bottom-right cell can be reached in {table[-1][-1]} ways.")
        return "\n".join(lines) + f"\nAnswer: {table[-1][-1]}"

    def score(self, instance: Instance, response: str) -> Score:
        value = int_answer(response)
        if value is None:
            return Score(0.0, ("unparsable",))
        if value != instance.data["ways"]:
            return Score(0.0, ("wrong_count",), {"answer": value, "expected": instance.data["ways"]})
        return Score(1.0, (), {"answer": value})

    def ladder(self) -> tuple[Rung, ...]:
        """The open-grid formula (blocks ignored), every path walked (300 steps), the table (60 cells)."""
        def formula(inst: Instance, budget: Budget) -> str:
            n = len(inst.data["rows"])
            return f"Answer: {comb(2 * n - 2, n - 1)}"

        return (Rung("open_grid_formula", 1, "passes", formula),
                Rung("walk_300", 300, "steps", lambda i, b: f"Answer: {walk_count(i.data['rows'], b)}"),
                Rung("dp_60", 60, "cells", lambda i, b: f"Answer: {count_table(i.data['rows'], b)[-1][-1]}"))

    def statistics(self, instance: Instance) -> dict[str, float]:
        rows = instance.data["rows"]
        return {"size": float(len(rows)), "blocked": float(sum(row.count("#") for row in rows)),
                "blocked_share": sum(row.count("#") for row in rows) / (len(rows) ** 2 - 2)}


ENV = GridPaths()
