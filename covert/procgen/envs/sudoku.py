"""Sudoku with a planted solution: any completed grid that keeps the givens and breaks no rule scores 1."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import answer_text

BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3)}  # size -> (box rows, box columns)
MAX_TRACE = 120


def parse_grid(response: Any, size: int) -> list[list[int]] | None:
    """A ``size`` x ``size`` grid of digits: ``size`` lines of digits (spaces, commas or brackets between
    them), or ``size * size`` digits in a row."""
    text = answer_text(response, lines=size)
    digits = [int(c) for c in re.findall(r"\d", text[:50 * size * size])]
    if len(digits) == size * size:
        return [digits[r * size:(r + 1) * size] for r in range(size)]
    rows = [[int(c) for c in re.findall(r"\d", line)] for line in text.splitlines()[-4 * size:]]
    rows = [row for row in rows if len(row) == size]
    return rows[-size:] if len(rows) >= size else None


def grid_problems(grid: list[list[int]], size: int) -> int:
    """How many rows, columns and boxes do not hold each digit 1..size exactly once."""
    br, bc = BOXES[size]
    want = list(range(1, size + 1))
    units = [row for row in grid] + [[grid[r][c] for r in range(size)] for c in range(size)]
    units += [[grid[r][c] for r in range(top, top + br) for c in range(left, left + bc)]
              for top in range(0, size, br) for left in range(0, size, bc)]
    return sum(1 for unit in units if sorted(unit) != want)


def units_of(size: int) -> list[list[tuple[int, int]]]:
    """The rows, columns and boxes of a grid as lists of cells."""
    br, bc = BOXES[size]
    units = [[(r, c) for c in range(size)] for r in range(size)]
    units += [[(r, c) for r in range(size)] for c in range(size)]
    units += [[(r, c) for r in range(top, top + br) for c in range(left, left + bc)]
              for top in range(0, size, br) for left in range(0, size, bc)]
    return units


def candidates(grid: list[list[int]], size: int, r: int, c: int) -> list[int]:
    """Digits that cell (r, c) may still take."""
    br, bc = BOXES[size]
    seen = set(grid[r]) | {grid[i][c] for i in range(size)}
    top, left = r - r % br, c - c % bc
    seen |= {grid[i][j] for i in range(top, top + br) for j in range(left, left + bc)}
    return [d for d in range(1, size + 1) if d not in seen]


def fill_singles(grid: list[list[int]], size: int, hidden: bool, budget: Budget | None = None,
                 trace: list[str] | None = None) -> bool:
    """Fill cells that can take one digit only (and, with ``hidden``, digits that fit one cell of a unit
    only) until none is left; ``False`` when some empty cell can take no digit. ``budget`` counts cells
    looked at; ``trace`` collects the placements in words."""
    units = units_of(size) if hidden else []
    while True:
        placed = False
        for r in range(size):
            for c in range(size):
                if grid[r][c]:
                    continue
                if budget is not None:
                    budget.spend()
                options = candidates(grid, size, r, c)
                if not options:
                    return False
                if len(options) == 1:
                    grid[r][c] = options[0]
                    placed = True
                    if trace is not None:
                        others = ", ".join(str(d) for d in range(1, size + 1) if d != options[0])
                        trace.append(f"Row {r + 1}, column {c + 1} must be {options[0]}: {others} are already in its "
                                     "row, column or box.")
        for unit in units:
            for digit in range(1, size + 1):
                if any(grid[r][c] == digit for r, c in unit):
                    continue
                spots = [(r, c) for r, c in unit if not grid[r][c] and digit in candidates(grid, size, r, c)]
                if budget is not None:
                    budget.spend()
                if len(spots) == 1:
                    r, c = spots[0]
                    grid[r][c] = digit
                    placed = True
                    if trace is not None:
                        trace.append(f"{_unit_name(unit, r, c).capitalize()} still needs a {digit}, and row {r + 1}, "
                                     f"column {c + 1} is its only empty cell whose row, column and box have no "
                                     f"{digit} yet: it is {digit}.")
        if not placed:
            return True


def _unit_name(unit: list[tuple[int, int]], r: int, c: int) -> str:
    """The unit holding cell (r, c) in words: ``row 3``, ``column 2`` or ``the box of rows 1-2, columns 3-4``."""
    rows = sorted({i for i, _ in unit})
    cols = sorted({j for _, j in unit})
    if len(rows) == 1:
        return f"row {r + 1}"
    if len(cols) == 1:
        return f"column {c + 1}"
    return f"the box of rows {rows[0] + 1}-{rows[-1] + 1}, columns {cols[0] + 1}-{cols[-1] + 1}"


def solve_grid(puzzle: list[list[int]], size: int, budget: Budget | None = None,
               trace: list[str] | None = None) -> list[list[int]] | None:
    """Singles (both kinds) first, then a guess in the cell with fewest options, undone when it leads to a
    dead end; ``budget`` counts cells looked at and guesses."""
    grid = [list(row) for row in puzzle]
    if not fill_singles(grid, size, True, budget, trace):
        return None
    empty = [(len(candidates(grid, size, r, c)), r, c) for r in range(size) for c in range(size) if not grid[r][c]]
    if not empty:
        return grid
    _, r, c = min(empty)
    for digit in candidates(grid, size, r, c):
        if budget is not None:
            budget.spend()
        if trace is not None:
            trace.append(f"No cell is forced now; guess {digit} in row {r + 1}, column {c + 1}.")
        grid[r][c] = digit
        found = solve_grid(grid, size, budget, trace)
        if found is not None:
            return found
        if trace is not None:
            trace.append(f"Guessing {digit} in row {r + 1}, column {c + 1} leads to a cell with no digit left; undo "
                         "it and every cell filled since.")
        grid[r][c] = 0
    return None


def render(grid: list[list[int]]) -> str:
    """A grid as lines of space-separated digits (0 for an empty cell shown as ``.``)."""
    return "\n".join(" ".join(str(v) if v else "." for v in row) for row in grid)


class Sudoku(ProceduralEnv):
    """A shuffled Latin-square sudoku with cells removed; the checker accepts every valid completion."""

    name = "sudoku"
    version = "3"
    description = "fill a 4x4, 6x6 or 9x9 sudoku so every row, column and box holds each digit once"
    asymmetry = "verify"
    hidden_fields = ("solution",)
    knobs = (
        Knob("size", (4, 6, 9), "grid size"),
        Knob("blanks", (30, 45, 55, 65), "percent of cells left empty"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        size = config["size"]
        br, bc = BOXES[size]
        bands = rng.sample(range(size // br), size // br)
        rows = [band * br + r for band in bands for r in rng.sample(range(br), br)]
        stacks = rng.sample(range(size // bc), size // bc)
        cols = [stack * bc + c for stack in stacks for c in rng.sample(range(bc), bc)]
        digits = rng.sample(range(1, size + 1), size)
        solution = [[digits[(bc * (r % br) + r // br + c) % size] for c in cols] for r in rows]
        cells = [(r, c) for r in range(size) for c in range(size)]
        blank = set(rng.sample(range(len(cells)), len(cells) * config["blanks"] // 100))
        puzzle = [[0 if r * size + c in blank else solution[r][c] for c in range(size)] for r in range(size)]
        prompt = (f"Solve this {size}x{size} sudoku (boxes of {br} rows by {bc} columns; '.' is an empty cell). "
                  f"Every row, column and box must hold each digit 1 to {size} exactly once.\n\n{render(puzzle)}\n\n"
                  f"End your response with 'Answer:' followed by the completed grid, {size} lines of {size} digits.")
        return Instance(prompt, {"size": size, "puzzle": puzzle, "solution": solution})

    def reference(self, instance: Instance) -> str:
        """The placements as a person makes them (forced cells, digits with one place, guesses undone)."""
        size, puzzle = instance.data["size"], instance.data["puzzle"]
        trace: list[str] = []
        grid = solve_grid(puzzle, size, trace=trace)
        if grid is None:  # pragma: no cover - every puzzle has its planted solution
            raise ValueError("this sudoku has no solution")
        lines = ["I look for cells that can hold only one digit (the others are already in its row, column or "
                 "box) and digits that fit only one cell of a row, column or box, and fill those first."]
        lines += trace[:MAX_TRACE]
        if len(trace) > MAX_TRACE:
            lines.append(f"... ({len(trace) - MAX_TRACE} more cells filled the same way) ...")
        lines.append("Every row, column and box now holds each digit once.")
        return "\n".join(lines) + f"\nAnswer:\n{render(grid)}"

    def score(self, instance: Instance, response: str) -> Score:
        size, puzzle = instance.data["size"], instance.data["puzzle"]
        grid = parse_grid(response, size)
        if grid is None:
            return Score(0.0, ("unparsable",))
        changed = sum(1 for r in range(size) for c in range(size) if puzzle[r][c] and puzzle[r][c] != grid[r][c])
        if changed:
            return Score(0.0, ("changes_given",), {"changed": changed})
        problems = grid_problems(grid, size)
        if problems:
            return Score(0.0, ("breaks_rule",), {"bad_units": problems})
        return Score(1.0, (), {"bad_units": 0})

    def ladder(self) -> tuple[Rung, ...]:
        """Forced cells only, forced cells and single places, both plus guessing (400 looks)."""
        def singles(hidden: bool) -> Callable[[Instance, Budget], str | None]:
            def solve(inst: Instance, budget: Budget) -> str | None:
                grid = [list(row) for row in inst.data["puzzle"]]
                done = fill_singles(grid, inst.data["size"], hidden, budget) and all(all(row) for row in grid)
                return f"Answer:\n{render(grid)}" if done else None
            return solve

        def search(inst: Instance, budget: Budget) -> str | None:
            grid = solve_grid(inst.data["puzzle"], inst.data["size"], budget)
            return None if grid is None else f"Answer:\n{render(grid)}"

        return (Rung("forced_cells", 100_000, "looks", singles(False)),
                Rung("single_places", 100_000, "looks", singles(True)), Rung("guessing_400", 400, "looks", search))

    def statistics(self, instance: Instance) -> dict[str, float]:
        size, puzzle = instance.data["size"], instance.data["puzzle"]
        blanks = sum(1 for row in puzzle for v in row if not v)
        return {"size": float(size), "blanks": float(blanks), "blank_share": blanks / (size * size)}


ENV = Sudoku()
