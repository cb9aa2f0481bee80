"""Cryptarithm: each letter stands for a different digit; find digits that make the letter sum a true addition
(built from hidden numbers; any assignment that makes it true scores 1)."""

from __future__ import annotations

import re
from itertools import permutations
from typing import Any

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import answer_text, json_value
from covert.procgen.trace import SearchTrace, note_to

_PAIR = re.compile(r"\b([A-Z])\s*(?:=|:|->|IS)\s*(\d)\b")
LETTERS = "ABCDEFGHJKLMNPRSTUVWXY"


def parse_digits(response: Any) -> dict[str, int] | None:
    """Letters' digits as ``A=1, B=2``, ``A: 1`` or JSON ``{"A": 1}``."""
    text = answer_text(response)
    if not text:
        return None
    value = json_value(text)
    if isinstance(value, dict):
        out = {}
        for key, digit in value.items():
            if not (isinstance(key, str) and len(key.strip()) == 1 and isinstance(digit, int)
                    and not isinstance(digit, bool) and 0 <= digit <= 9):
                return None
            out[key.strip().upper()] = digit
        return out
    out = {}
    for letter, digit in _PAIR.findall(text[:2000].upper()):
        if out.setdefault(letter, int(digit)) != int(digit):
            return None  # one letter given two digits
    return out or None


def holds(words: list[str], total: str, digits: dict[str, int]) -> bool:
    """Whether ``digits`` (distinct, no leading zero) make ``sum(words) == total``."""
    letters = set("".join(words) + total)
    if set(digits) != letters or len(set(digits.values())) != len(digits):
        return False
    if any(digits[w[0]] == 0 for w in [*words, total] if len(w) > 1):
        return False
    def value(word: str) -> int:
        return int("".join(str(digits[ch]) for ch in word))
    return sum(map(value, words)) == value(total)


def column_search(words: list[str], total: str, budget: Budget | None = None,
                  trace: SearchTrace | None = None) -> dict[str, int] | None:
    """Digits column by column from the right, carrying, each new letter trying the digits not yet used and
    backing up when a column's last digit does not match; ``budget`` counts digits tried."""
    width = len(total)
    columns = [[w[-1 - i] for w in words if i < len(w)] for i in range(width)]
    leading = {w[0] for w in [*words, total] if len(w) > 1}
    digits: dict[str, int] = {}

    note = note_to(trace)

    def assign(letters: list[str], column: int, carry: int) -> bool:
        if letters:
            letter, rest = letters[0], letters[1:]
            if letter in digits:
                return assign(rest, column, carry)
            for d in range(10):
                if d in digits.values() or (d == 0 and letter in leading):
                    continue
                if budget is not None:
                    budget.spend()
                digits[letter] = d
                if assign(rest, column, carry):
                    return True
                del digits[letter]
            return False
        if column == width:
            if carry:
                note(f"A carry of {carry} is left after the last column: undo.")
            return carry == 0
        total_here = sum(digits[ch] for ch in columns[column]) + carry
        target = total[-1 - column]
        want = total_here % 10
        said = column_text(columns[column], digits, carry, column)
        if target in digits:
            if digits[target] != want:
                note(f"{said}, which ends in {want}, but {target} is already {digits[target]}: undo.")
                return False
            note(f"{said}, which ends in {want} = {target}, carry {total_here // 10}.")
            return step(column + 1, total_here // 10)
        if want in digits.values() or (want == 0 and target in leading):
            note(f"{said}, so {target} would be {want}, but "
                 + ("a number cannot start with 0" if want == 0 and target in leading else f"{want} is taken")
                 + ": undo.")
            return False
        digits[target] = want
        note(f"{said}, so {target} = {want}, carry {total_here // 10}.")
        if step(column + 1, total_here // 10):
            return True
        del digits[target]
        return False

    def step(column: int, carry: int) -> bool:
        letters = columns[column] if column < width else []
        return assign(list(dict.fromkeys(letters)), column, carry)

    return dict(digits) if step(0, 0) else None


def column_text(letters: list[str], digits: dict[str, int], carry: int, column: int) -> str:
    """One column of the written addition in words: its letters, their digits and the carry summed."""
    total = sum(digits[ch] for ch in letters) + carry
    return (f"Column {column + 1} from the right: {' + '.join(letters) or '0'} + carry {carry} = "
            f"{' + '.join(str(digits[ch]) for ch in letters) or '0'} + {carry} = {total}")


def brute_force(words: list[str], total: str, budget: Budget) -> dict[str, int] | None:
    """Every assignment of distinct digits in turn; ``budget`` counts assignments."""
    letters = sorted(set("".join(words) + total))
    for choice in permutations(range(10), len(letters)):
        budget.spend()
        digits = dict(zip(letters, choice))
        if holds(words, total, digits):
            return digits
    return None


def _text(digits: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(digits.items()))


class Cryptarithm(ProceduralEnv):
    """A letter addition with a hidden digit for each letter; any assignment making it true scores 1."""

    name = "cryptarithm"
    version = "2"
    description = "cryptarithm: distinct digits for letters that make a letter addition true"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("digits", (2, 3, 4, 5, 6), "digits of each number added"),
        Knob("terms", (2, 3, 4), "numbers added"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        width = config["digits"]
        for _ in range(200):  # at least four letters, repeated ones among them
            numbers = [rng.randrange(10 ** (width - 1), 10 ** width) for _ in range(config["terms"])]
            total = sum(numbers)
            used = sorted(set("".join(map(str, [*numbers, total]))))
            if len(used) >= 4 and len(used) < len("".join(map(str, [*numbers, total]))):
                break
        names = rng.sample(LETTERS, len(used))
        letter_of = dict(zip(used, names))
        words = ["".join(letter_of[ch] for ch in str(x)) for x in numbers]
        result = "".join(letter_of[ch] for ch in str(total))
        sum_text = " + ".join(words) + f" = {result}"
        prompt = (f"In this addition each letter stands for a digit; different letters are different digits, and no "
                  f"number starts with 0:\n{sum_text}\n\nFind a digit for every letter that makes the addition true.\n"
                  "End your response with a line 'Answer: ' followed by each letter's digit, e.g. Answer: A=1, B=7.")
        return Instance(prompt, {"words": words, "total": result,
                                 "planted": {letter_of[d]: int(d) for d in used}})

    def reference(self, instance: Instance) -> str:
        """Column by column from the right with carries, backing up where a column does not fit."""
        d = instance.data
        words, total = d["words"], d["total"]
        trace = SearchTrace()
        digits = column_search(words, total, trace=trace) or d["planted"]
        lines = ["I work column by column from the right, like a written addition: I try digits for the letters not "
                 "yet fixed, the column's last digit fixes (or must match) the letter below, and the rest carries; a "
                 "digit that leads to a contradiction is undone."]
        lines += trace.lines()
        columns = [[w[-1 - i] for w in words if i < len(w)] for i in range(len(total))]
        lines.append("The digits that work, column by column:")
        carry = 0
        for i, letters in enumerate(columns):
            lines.append(f"{column_text(letters, digits, carry, i)}: {total[-1 - i]} = "
                         f"{(sum(digits[ch] for ch in letters) + carry) % 10}.")
            carry = (sum(digits[ch] for ch in letters) + carry) // 10

        def value(word: str) -> str:
            return "".join(str(digits[ch]) for ch in word)

        lines.append(f"Check: {' + '.join(value(w) for w in words)} = {value(total)}, every letter a different digit.")
        return "\n".join(lines) + f"\nAnswer: {_text(digits)}"

    def score(self, instance: Instance, response: str) -> Score:
        words, total = instance.data["words"], instance.data["total"]
        digits = parse_digits(response)
        if digits is None:
            return Score(0.0, ("unparsable",))
        if set(digits) != set("".join(words) + total):
            return Score(0.0, ("wrong_letters",))
        if not holds(words, total, digits):
            return Score(0.0, ("addition_false",))
        return Score(1.0, (), {"letters": len(digits)})

    def ladder(self) -> tuple[Rung, ...]:
        """Every assignment (5,000 tried), column by column with 100 and 2,000 digits tried."""
        def brute(inst: Instance, budget: Budget) -> str | None:
            found = brute_force(inst.data["words"], inst.data["total"], budget)
            return None if found is None else f"Answer: {_text(found)}"

        def columns(inst: Instance, budget: Budget) -> str | None:
            found = column_search(inst.data["words"], inst.data["total"], budget)
            return None if found is None else f"Answer: {_text(found)}"

        return (Rung("brute_5000", 5000, "assignments", brute), Rung("columns_100", 100, "digits", columns),
                Rung("columns_2000", 2000, "digits", columns))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"letters": float(len(set("".join(d["words"]) + d["total"]))), "terms": float(len(d["words"])),
                "width": float(len(d["total"]))}


ENV = Cryptarithm()
