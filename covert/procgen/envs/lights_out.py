"""Lights Out: pressing a light toggles it and its four neighbours; find presses that switch every light off
(built from hidden presses; checked by playing the presses; any winning set scores 1)."""

from __future__ import annotations

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_pairs_answer


def press_all(lit: list[list[int]], presses: list[tuple[int, int]]) -> list[list[int]]:
    """The board after the presses (1-based row, column)."""
    board = [row[:] for row in lit]
    n = len(board)
    for r, c in presses:
        for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r - 1 + dr, c - 1 + dc
            if 0 <= rr < n and 0 <= cc < n:
                board[rr][cc] ^= 1
    return board


def chase(lit: list[list[int]], first_row: list[tuple[int, int]] = ()) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """Press ``first_row``, then, row by row, press the cell under every light still on: every row but the
    last ends dark. Returns the presses and the board after them."""
    n = len(lit)
    presses = list(first_row)
    board = press_all(lit, presses)
    for r in range(1, n):
        below = [(r + 1, c + 1) for c in range(n) if board[r - 1][c]]
        board = press_all(board, below)
        presses += below
    return presses, board


def chase_and_search(lit: list[list[int]], budget: Budget) -> list[tuple[int, int]] | None:
    """Chase the lights down for every choice of presses in the top row (2^n choices); ``budget`` counts
    choices tried."""
    n = len(lit)
    for mask in range(2 ** n):
        budget.spend()
        top = [(1, c + 1) for c in range(n) if mask >> c & 1]
        presses, board = chase(lit, top)
        if not any(board[-1]):
            return presses
    return None


def solve_gf2(lit: list[list[int]], budget: Budget | None = None) -> list[tuple[int, int]] | None:
    """Presses by Gaussian elimination over GF(2) on the n^2 x n^2 system (free cells unpressed); ``budget``
    counts row operations."""
    n = len(lit)
    size = n * n
    rows = []
    for r in range(n):
        for c in range(n):
            mask = 0
            for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < n and 0 <= cc < n:
                    mask |= 1 << (rr * n + cc)
            rows.append([mask, lit[r][c]])
    pivots = []
    rank = 0
    for col in range(size):
        pivot = next((i for i in range(rank, size) if rows[i][0] >> col & 1), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(size):
            if i != rank and rows[i][0] >> col & 1:
                if budget is not None:
                    budget.spend()
                rows[i] = [rows[i][0] ^ rows[rank][0], rows[i][1] ^ rows[rank][1]]
        pivots.append(col)
        rank += 1
    if any(mask == 0 and value for mask, value in rows[rank:]):
        return None
    pressed = [0] * size
    for i, col in enumerate(pivots):
        pressed[col] = rows[i][1]
    return [(k // n + 1, k % n + 1) for k in range(size) if pressed[k]]


def render(board: list[list[int]]) -> str:
    """The board as rows of 1 (on) and 0 (off)."""
    return "\n".join(" ".join(map(str, row)) for row in board)


class LightsOut(ProceduralEnv):
    """A board of lights from hidden presses; any presses that switch everything off score 1."""

    name = "lights_out"
    version = "1"
    description = "Lights Out: presses that switch every light off (a linear system over GF(2))"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("size", (3, 5, 6, 7, 8), "side of the square board (not 4: every solvable 4x4 board is won by chasing from an untouched top row)"),
        Knob("presses", (15, 30, 50), "percent of the cells pressed to make the puzzle"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["size"]
        for _ in range(100):  # chasing the lights down from an untouched top row does not already win
            cells = [(r, c) for r in range(1, n + 1) for c in range(1, n + 1)]
            planted = sorted(rng.sample(cells, max(2, n * n * config["presses"] // 100)))
            lit = press_all([[0] * n for _ in range(n)], planted)
            if any(map(any, lit)) and any(chase(lit)[1][-1]):
                break
        prompt = (f"This {n}x{n} board shows which lights are on (1) and off (0):\n{render(lit)}\n\n"
                  "Pressing a light toggles it and the lights directly above, below, left and right of it. Find "
                  "presses that switch every light off (pressing a light twice is the same as not pressing it).\n"
                  f"End your response with a line 'Answer: ' followed by the lights to press as [row, column] pairs, "
                  f"rows and columns numbered 1 to {n} from the top left, e.g. Answer: [[1, 2], [3, 3]].")
        return Instance(prompt, {"lit": lit, "planted": [list(p) for p in planted]})

    def reference(self, instance: Instance) -> str:
        """Chasing the lights down, and the top-row presses that make the chase end dark."""
        lit = instance.data["lit"]
        n = len(lit)
        presses = chase_and_search(lit, Budget(2 ** n + 1)) or [tuple(p) for p in instance.data["planted"]]
        top = [p for p in presses if p[0] == 1]
        _, plain = chase(lit)
        lines = ["Pressing the light below each light that is on switches a row off without touching the rows above, "
                 "so 'chasing' the lights down leaves only the bottom row to worry about; what the top row is pressed "
                 "with decides how the bottom row ends.",
                 f"Chasing with nothing pressed in the top row leaves the bottom row at {plain[-1]}"
                 + (", already dark." if not any(plain[-1]) else ", not dark."),
                 f"Pressing {', '.join(f'column {c}' for _, c in top) or 'nothing'} in the top row first and then "
                 "chasing switches everything off.",
                 f"All together that is {len(presses)} presses; played on the board they leave every light off."]
        return "\n".join(lines) + f"\nAnswer: {[list(p) for p in presses]}"

    def score(self, instance: Instance, response: str) -> Score:
        lit = instance.data["lit"]
        n = len(lit)
        presses = int_pairs_answer(response, limit=4 * n * n)
        if presses is None:
            return Score(0.0, ("unparsable",))
        if any(not (1 <= r <= n and 1 <= c <= n) for r, c in presses):
            return Score(0.0, ("off_the_board",))
        on = sum(map(sum, press_all(lit, presses)))
        if on:
            return Score(0.0, ("lights_still_on",), {"on": on})
        return Score(1.0, (), {"presses": len(presses)})

    def ladder(self) -> tuple[Rung, ...]:
        """Chase from an untouched top row, chase with every top row (20 tries), elimination (2,000 row operations)."""
        def plain(inst: Instance, budget: Budget) -> str:
            return f"Answer: {[list(p) for p in chase(inst.data['lit'])[0]]}"

        def search(inst: Instance, budget: Budget) -> str | None:
            found = chase_and_search(inst.data["lit"], budget)
            return None if found is None else f"Answer: {[list(p) for p in found]}"

        def eliminate(inst: Instance, budget: Budget) -> str | None:
            found = solve_gf2(inst.data["lit"], budget)
            return None if found is None else f"Answer: {[list(p) for p in found]}"

        return (Rung("chase", 1, "passes", plain), Rung("chase_top_rows_20", 20, "tries", search),
                Rung("gf2_2000", 2000, "row_operations", eliminate))

    def statistics(self, instance: Instance) -> dict[str, float]:
        lit = instance.data["lit"]
        return {"size": float(len(lit)), "lights_on": float(sum(map(sum, lit))),
                "hidden_presses": float(len(instance.data["planted"]))}


ENV = LightsOut()
