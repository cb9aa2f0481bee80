"""N-queens completion: some queens stand on the board already; place one queen in every other row so that no
two queens attack each other (NP-complete as a completion problem; built around a hidden solution; any
solution keeping the given queens scores 1)."""

from __future__ import annotations

import random

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer
from covert.procgen.trace import SearchTrace, note_to


def safe(columns: list[int | None], row: int, col: int) -> bool:
    """Whether a queen at (row, col) is attacked by no queen placed in ``columns`` (row -> column)."""
    return all(c is None or (c != col and abs(c - col) != abs(r - row)) for r, c in enumerate(columns) if r != row)


def complete(n: int, given: list[int | None], budget: Budget | None = None, trace: SearchTrace | None = None,
             rng: random.Random | None = None) -> list[int] | None:
    """Columns (1-based) of a full solution keeping ``given``: rows top to bottom, columns tried in order (or in
    ``rng``'s order), backing up at a row with no safe column; ``budget`` counts queens placed."""
    cols: list[int | None] = list(given)

    note = note_to(trace)

    def go(row: int) -> bool:
        if row == n:
            return True
        if given[row] is not None:
            return go(row + 1)
        options = list(range(1, n + 1))
        if rng is not None:
            rng.shuffle(options)
        options = [c for c in options if safe(cols, row, c)]
        if not options:
            note(f"Row {row + 1}: every column is attacked, back up.")
        for c in options:
            if budget is not None:
                budget.spend()
            cols[row] = c
            note(f"Row {row + 1}: column {c} is safe, place a queen.")
            if go(row + 1):
                return True
            cols[row] = None
        if options:
            note(f"Row {row + 1}: no other column is safe, back up.")
        return False

    if any(c is not None and not safe(given, r, c) for r, c in enumerate(given)):
        return None
    return [int(c) for c in cols] if go(0) else None  # type: ignore[arg-type]


def first_safe(n: int, given: list[int | None]) -> list[int]:
    """Each empty row the first safe column, without backing up (0 where none is safe)."""
    cols = list(given)
    for row in range(n):
        if cols[row] is None:
            cols[row] = next((c for c in range(1, n + 1) if safe(cols, row, c)), 0)
    return [int(c or 0) for c in cols]


def attacks(cols: list[int]) -> int:
    """Pairs of queens that attack each other."""
    return sum(1 for i in range(len(cols)) for j in range(i + 1, len(cols))
               if cols[i] == cols[j] or abs(cols[i] - cols[j]) == j - i)


class NQueens(ProceduralEnv):
    """An n x n board with some queens given; any placement of n mutually safe queens keeping them scores 1."""

    name = "n_queens"
    version = "2"
    description = "n-queens completion: place the remaining queens so that none attack each other"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("size", (7, 8, 9, 10, 11, 12, 14), "board side n"),
        Knob("given", (50, 35, 20), "percent of rows whose queen is given (fewer is harder)"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["size"]
        planted = complete(n, [None] * n, rng=rng) or []
        for _ in range(100):  # the first safe column in each row does not already solve it
            shown = set(rng.sample(range(n), max(1, n * config["given"] // 100)))
            given = [planted[r] if r in shown else None for r in range(n)]
            if attacks(first_safe(n, given)) or 0 in first_safe(n, given):
                break
        board = "\n".join(" ".join("Q" if given[r] == c else "." for c in range(1, n + 1)) for r in range(n))
        prompt = (f"On this {n}x{n} board, Q marks a queen already placed ('.' is empty); rows and columns are "
                  f"numbered 1 to {n} from the top left:\n{board}\n\nPlace a queen in every row that has none, so "
                  "that no two queens share a column or a diagonal, keeping the queens already placed.\n"
                  f"End your response with a line 'Answer: ' followed by the column of the queen in each row, rows 1 "
                  f"to {n} in order, e.g. Answer: [2, 4, 1, 3].")
        return Instance(prompt, {"n": n, "given": given, "planted": planted})

    def reference(self, instance: Instance) -> str:
        """Row by row, the first safe column, backing up at a dead end."""
        d = instance.data
        trace = SearchTrace()
        cols = complete(d["n"], d["given"], trace=trace) or d["planted"]
        lines = ["Going down the rows that have no queen, I place a queen in the leftmost column no placed queen "
                 "attacks (same column or diagonal), and move the previous queen on when a row has no safe column."]
        lines += trace.lines()
        lines.append(f"Check: columns {cols} are all different, no two queens share a diagonal, and the given queens "
                     "stay where they are.")
        return "\n".join(lines) + f"\nAnswer: {cols}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        cols = int_list_answer(response, limit=d["n"] + 1)
        if cols is None:
            return Score(0.0, ("unparsable",))
        if len(cols) != d["n"] or any(not 1 <= c <= d["n"] for c in cols):
            return Score(0.0, ("not_one_per_row",), {"length": len(cols)})
        if any(g is not None and g != c for g, c in zip(d["given"], cols)):
            return Score(0.0, ("moved_given_queen",))
        clashes = attacks(cols)
        if clashes:
            return Score(0.0, ("queens_attack",), {"attacks": clashes})
        return Score(1.0, (), {"attacks": 0})

    def ladder(self) -> tuple[Rung, ...]:
        """First safe column without backing up, backtracking with 15 and 150 queens placed."""
        def search(inst: Instance, budget: Budget) -> str | None:
            found = complete(inst.data["n"], inst.data["given"], budget)
            return None if found is None else f"Answer: {found}"

        return (Rung("first_safe", 1, "passes", lambda i, b: f"Answer: {first_safe(i.data['n'], i.data['given'])}"),
                Rung("backtrack_15", 15, "queens", search), Rung("backtrack_150", 150, "queens", search))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        given = sum(1 for g in d["given"] if g is not None)
        return {"size": float(d["n"]), "given": float(given), "empty_rows": float(d["n"] - given)}


ENV = NQueens()
