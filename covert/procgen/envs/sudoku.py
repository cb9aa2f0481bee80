"""Sudoku with a planted solution: any completed grid that keeps the givens and breaks no rule scores 1."""

from __future__ import annotations

import re
from typing import Any

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import answer_text

BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3)}  # size -> (box rows, box columns)


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


def render(grid: list[list[int]]) -> str:
    """A grid as lines of space-separated digits (0 for an empty cell shown as ``.``)."""
    return "\n".join(" ".join(str(v) if v else "." for v in row) for row in grid)


class Sudoku(ProceduralEnv):
    """A shuffled Latin-square sudoku with cells removed; the checker accepts every valid completion."""

    name = "sudoku"
    version = "1"
    description = "fill a 4x4, 6x6 or 9x9 sudoku so every row, column and box holds each digit once"
    asymmetry = "verify"
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
        return f"Filling each empty cell with the digit its row, column and box still lack:\nAnswer:\n" \
               f"{render(instance.data['solution'])}"

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


ENV = Sudoku()
