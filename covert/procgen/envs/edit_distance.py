"""Edit distance: the fewest insertions, deletions and substitutions turning one word into another."""

from __future__ import annotations

from typing import Any

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import int_answer

LETTERS = "abcdefgh"


def distance(a: str, b: str) -> int:
    """Levenshtein distance by dynamic programming (two rows)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


class EditDistance(ProceduralEnv):
    """Two words; the answer is their Levenshtein distance (one integer)."""

    name = "edit_distance"
    version = "1"
    description = "Levenshtein distance between two words (dynamic programming)"
    asymmetry = "reason"
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
        d = instance.data
        return (f"Filling the table of distances between prefixes of \"{d['first']}\" and \"{d['second']}\" "
                f"gives {d['distance']} in the last cell.\nAnswer: {d['distance']}")

    def score(self, instance: Instance, response: str) -> Score:
        value = int_answer(response)
        if value is None:
            return Score(0.0, ("unparsable",))
        expected = instance.data["distance"]
        if value != expected:
            return Score(0.0, ("wrong_distance",), {"answer": value, "expected": expected})
        return Score(1.0, (), {"answer": value})


ENV = EditDistance()
