"""sudoku: determinism, a backtracking solver's completions all accepted, rule breaks and changed givens refused."""

from __future__ import annotations

from covert.procgen.envs.sudoku import BOXES, render
from covert.procgen.registry import get_env

ENV = get_env("sudoku")


def solutions(puzzle: list[list[int]], size: int, limit: int = 20) -> list[list[list[int]]]:
    br, bc = BOXES[size]
    grid = [row[:] for row in puzzle]
    out: list[list[list[int]]] = []

    def fits(r: int, c: int, v: int) -> bool:
        top, left = r - r % br, c - c % bc
        return (v not in grid[r] and all(grid[i][c] != v for i in range(size))
                and all(grid[i][j] != v for i in range(top, top + br) for j in range(left, left + bc)))

    def solve(cell: int) -> None:
        if len(out) >= limit:
            return
        if cell == size * size:
            out.append([row[:] for row in grid])
            return
        r, c = divmod(cell, size)
        if grid[r][c]:
            solve(cell + 1)
            return
        for v in range(1, size + 1):
            if fits(r, c, v):
                grid[r][c] = v
                solve(cell + 1)
                grid[r][c] = 0

    solve(0)
    return out


def test_every_completion_a_solver_finds_is_accepted() -> None:
    several = 0
    for blanks in (45, 65):
        for index in range(10):
            instance = ENV.sample(2, {"size": 4, "blanks": blanks}, index)
            found = solutions(instance.data["puzzle"], 4)
            assert instance.data["solution"] in found
            several += len(found) > 1
            for grid in found:
                assert ENV.score(instance, f"Answer:\n{render(grid)}").value == 1.0
    assert several, "no puzzle with more than one completion was tried"


def test_flat_digits_and_broken_grids() -> None:
    instance = ENV.sample(0, {"size": 6, "blanks": 45}, 0)
    solution = instance.data["solution"]
    assert ENV.score(instance, "Answer: " + "".join(str(v) for row in solution for v in row)).value == 1.0
    swapped = [row[:] for row in solution]
    swapped[0][0], swapped[0][1] = swapped[0][1], swapped[0][0]
    assert ENV.score(instance, f"Answer:\n{render(swapped)}").value == 0.0
    latin = [[(r + c) % 6 + 1 for c in range(6)] for r in range(6)]
    assert ENV.score(instance, f"Answer:\n{render(latin)}").value == 0.0


def _seen(grid: list[list[int]], size: int, r: int, c: int) -> set[int]:
    br, bc = BOXES[size]
    top, left = r - r % br, c - c % bc
    return ({v for v in grid[r]} | {grid[i][c] for i in range(size)}
            | {grid[i][j] for i in range(top, top + br) for j in range(left, left + bc)}) - {0}


def test_each_forced_cell_says_why_and_the_reason_holds() -> None:
    """Replaying the reasoning on the puzzle: a cell said to be forced has exactly the named digits in its row,
    column and box; a digit said to fit one cell of a unit fits no other empty cell of it; guesses are named."""
    import re

    forced = hidden = 0
    for level in range(len(ENV.knobs[0].levels) * 2):
        for index in range(4):
            instance = ENV.sample(5, ENV.config_at(level), index)
            size, grid = instance.data["size"], [row[:] for row in instance.data["puzzle"]]
            text = ENV.reference(instance)
            if "guess" in text or "..." in text:
                continue  # a guessed branch may be undone; the straight-line ones are replayed
            for line in text.splitlines():
                if m := re.fullmatch(r"Row (\d+), column (\d+) must be (\d+): ([\d, ]+) are already in its row, "
                                     r"column or box\.", line):
                    r, c, d = int(m[1]) - 1, int(m[2]) - 1, int(m[3])
                    named = {int(v) for v in m[4].split(", ")}
                    assert grid[r][c] == 0 and _seen(grid, size, r, c) == named == set(range(1, size + 1)) - {d}
                    grid[r][c], forced = d, forced + 1
                elif m := re.fullmatch(r"(.+) still needs a (\d+), and row (\d+), column (\d+) is its only empty cell "
                                       r"whose row, column and box have no \d+ yet: it is \d+\.", line):
                    d, r, c = int(m[2]), int(m[3]) - 1, int(m[4]) - 1
                    unit = m[1].lower()
                    if unit.startswith("row"):
                        cells = [(r, j) for j in range(size)]
                    elif unit.startswith("column"):
                        cells = [(i, c) for i in range(size)]
                    else:
                        rows, cols = (tuple(int(x) - 1 for x in part.split("-"))
                                      for part in re.findall(r"\d+-\d+", unit))
                        assert rows[0] <= r <= rows[1] and cols[0] <= c <= cols[1], line
                        cells = [(i, j) for i in range(rows[0], rows[1] + 1) for j in range(cols[0], cols[1] + 1)]
                    assert all(grid[i][j] != d for i, j in cells) and grid[r][c] == 0
                    others = [(i, j) for i, j in cells if not grid[i][j] and (i, j) != (r, c)]
                    assert all(d in _seen(grid, size, i, j) for i, j in others), line
                    assert d not in _seen(grid, size, r, c)
                    grid[r][c], hidden = d, hidden + 1
            assert render(grid) == text.split("Answer:\n")[1], text
    assert forced > 50 and hidden > 5, (forced, hidden)
