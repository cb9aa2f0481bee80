"""Edit distance: the fewest insertions, deletions and substitutions turning one word into another."""

from __future__ import annotations

from typing import Any

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_answer

LETTERS = "abcdefgh"


def table(a: str, b: str, budget: Budget | None = None) -> list[list[int]]:
    """The full table of distances between prefixes of ``a`` and ``b``; ``budget`` counts cells."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        if budget is not None:
            budget.spend(len(b))
        row = [i]
        for j, y in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y)))
        rows.append(row)
    return rows


def distance(a: str, b: str) -> int:
    """Levenshtein distance by dynamic programming."""
    return table(a, b)[-1][-1]


def alignment(a: str, b: str) -> list[str]:
    """One cheapest way to edit ``a`` into ``b``, read back from the table, in words and in order."""
    rows = table(a, b)
    i, j, steps = len(a), len(b), []
    while i or j:
        if i and j and rows[i][j] == rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]):
            steps.append(f"keep '{a[i - 1]}'" if a[i - 1] == b[j - 1] else f"change '{a[i - 1]}' to '{b[j - 1]}'")
            i, j = i - 1, j - 1
        elif i and rows[i][j] == rows[i - 1][j] + 1:
            steps.append(f"delete '{a[i - 1]}'")
            i -= 1
        else:
            steps.append(f"insert '{b[j - 1]}'")
            j -= 1
    return steps[::-1]


def trimmed_guess(a: str, b: str) -> int:
    """Strip the common prefix and suffix, then count the longer rest (right when the rest differs
    everywhere, too high otherwise)."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return max(len(a) - start - end, len(b) - start - end)


class EditDistance(ProceduralEnv):
    """Two words; the answer is their Levenshtein distance (one integer)."""

    name = "edit_distance"
    version = "2"
    description = "Levenshtein distance between two words (dynamic programming)"
    asymmetry = "reason"
    hidden_fields = ("distance",)
    knobs = (
        Knob("length", (3, 5, 7, 9, 12, 16, 20), "length of the first word"),
        Knob("alphabet", (2, 3, 4, 6, 8), "letters the words are made of"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        letters = LETTERS[:config["alphabet"]]
        first = "".join(rng.choice(letters) for _ in range(config["length"]))
        for _ in range(50):  # at least two edits apart, so no constant guess is right at the easiest level
            word = self._edited(first, letters, rng)
            if distance(first, word) >= 2:
                break
        else:  # pragma: no cover - two appended letters are exactly two edits
            word = first + rng.choice(letters) + rng.choice(letters)
        prompt = (f"What is the edit distance between the words \"{first}\" and \"{word}\"? The edit distance is the "
                  "smallest number of single-letter insertions, deletions and substitutions that turn the first word "
                  "into the second.\nEnd your response with a line 'Answer: ' followed by the number.")
        return Instance(prompt, {"first": first, "second": word, "distance": distance(first, word)})

    @staticmethod
    def _edited(first: str, letters: str, rng: Any) -> str:
        second = list(first)
        for _ in range(rng.randint(2, max(2, len(first) // 2 + 1))):
            op = rng.randrange(3)
            if op == 0 and second:
                second[rng.randrange(len(second))] = rng.choice(letters)
            elif op == 1 and len(second) > 1:
                del second[rng.randrange(len(second))]
            else:
                second.insert(rng.randrange(len(second) + 1), rng.choice(letters))
        return "".join(second)

    def reference(self, instance: Instance) -> str:
        """The table of prefix distances, its last row, and one cheapest edit read back from it."""
        d = instance.data
        a, b = d["first"], d["second"]
        rows = table(a, b)
        steps = alignment(a, b)
        edits = [s for s in steps if not s.startswith("keep")]
        lines = [f"I fill the table D[i][j] = the distance between the first i letters of \"{a}\" and the first j "
                 f"letters of \"{b}\": D[i][0] = i, D[0][j] = j, and D[i][j] is the smallest of D[i-1][j] + 1 "
                 "(delete), D[i][j-1] + 1 (insert) and D[i-1][j-1] + (0 if the letters match, else 1).",
                 f"Its last row is {rows[-1]}, so D[{len(a)}][{len(b)}] = {d['distance']}.",
                 "Reading the table back gives one cheapest way: " + ", ".join(steps) + ".",
                 f"That is {len(edits)} edit{'s' if len(edits) != 1 else ''}: {', '.join(edits)}."]
        return "\n".join(lines) + f"\nAnswer: {d['distance']}"

    def score(self, instance: Instance, response: str) -> Score:
        value = int_answer(response)
        if value is None:
            return Score(0.0, ("unparsable",))
        expected = instance.data["distance"]
        if value != expected:
            return Score(0.0, ("wrong_distance",), {"answer": value, "expected": expected})
        return Score(1.0, (), {"answer": value})

    def ladder(self) -> tuple[Rung, ...]:
        """Trim and count, the table with 60 cells, the table with 300 cells."""
        def guess(inst: Instance, budget: Budget) -> str:
            return f"Answer: {trimmed_guess(inst.data['first'], inst.data['second'])}"

        def dp(inst: Instance, budget: Budget) -> str:
            return f"Answer: {table(inst.data['first'], inst.data['second'], budget)[-1][-1]}"

        return (Rung("trim_and_count", 1, "passes", guess), Rung("dp_60", 60, "cells", dp),
                Rung("dp_300", 300, "cells", dp))

    def statistics(self, instance: Instance) -> dict[str, float]:
        a, b = instance.data["first"], instance.data["second"]
        return {"first_length": float(len(a)), "second_length": float(len(b)),
                "letters": float(len(set(a + b))), "distance": float(instance.data["distance"])}


ENV = EditDistance()
