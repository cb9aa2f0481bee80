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
