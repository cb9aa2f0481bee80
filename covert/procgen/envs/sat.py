"""Planted 3-SAT: a formula built to be satisfied by a hidden assignment; any satisfying assignment scores 1."""

from __future__ import annotations

import json
import re
from typing import Any

from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score, instance_rng
from covert.procgen.parse import answer_text, ints, json_value

_PAIR = re.compile(r"(?i)\bx_?(\d{1,4})\s*(?:=|:|is|->)\s*(true|false|t|f|1|0|yes|no)\b")
_TRUE = {"true", "t", "1", "yes"}


def parse_assignment(response: Any, n: int) -> dict[int, bool] | None:
    """An assignment written as ``x1=true, x2=false``, JSON ``{"x1": true}`` or signed integers ``1 -2 3``."""
    text = answer_text(response)
    if not text:
        return None
    value = json_value(text)
    if isinstance(value, dict) and len(value) <= 4 * n:
        out = {}
        for key, val in value.items():
            match = re.fullmatch(r"(?i)x_?(\d{1,4})|(\d{1,4})", str(key).strip())
            if match is None:
                return None
            truth = val if isinstance(val, bool) else str(val).strip().lower() in _TRUE if isinstance(val, (str, int)) \
                else None
            if truth is None:
                return None
            out[int(match.group(1) or match.group(2))] = truth
        return out
    pairs = _PAIR.findall(text[:20 * n + 200])
    if pairs:
        return {int(var): val.lower() in _TRUE for var, val in pairs}
    found = ints(text, limit=2 * n + 1)
    if not found:
        return None
    found = [v for v in found if v != 0]
    return {abs(v): v > 0 for v in found} if len({abs(v) for v in found}) == len(found) else None


class Sat(ProceduralEnv):
    """A 3-CNF formula with a planted satisfying assignment."""

    name = "sat"
    version = "1"
    description = "planted 3-SAT: an assignment of true/false to the variables that satisfies every clause"
    asymmetry = "verify"
    knobs = (
        Knob("variables", (3, 5, 8, 12, 16, 20, 30), "number of variables"),
        Knob("clause_ratio", (20, 35, 42), "clauses per variable, times ten (4.2 is near the hardest)"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["variables"]
        planted = [rng.random() < 0.5 for _ in range(n)]
        clauses = []
        while len(clauses) < max(1, n * config["clause_ratio"] // 10):
            chosen = rng.sample(range(1, n + 1), 3)
            clause = [v if rng.random() < 0.5 else -v for v in chosen]
            if any((lit > 0) == planted[abs(lit) - 1] for lit in clause):
                clauses.append(clause)
        text = "\n".join(" OR ".join(f"x{lit}" if lit > 0 else f"NOT x{-lit}" for lit in clause) for clause in clauses)
        prompt = (f"Find values (true or false) for the variables x1 to x{n} that make every one of these clauses "
                  f"true (each clause is true when at least one of its parts is):\n{text}\n\n"
                  "End your response with a line 'Answer: ' followed by every variable's value, "
                  "e.g. Answer: x1=true, x2=false, x3=true.")
        return Instance(prompt, {"n": n, "clauses": clauses, "planted": [int(v) for v in planted]})

    def reference(self, instance: Instance) -> str:
        values = ", ".join(f"x{i + 1}={'true' if v else 'false'}" for i, v in enumerate(instance.data["planted"]))
        return f"This assignment makes at least one part of every clause true.\nAnswer: {values}"

    def score(self, instance: Instance, response: str) -> Score:
        n, clauses = instance.data["n"], instance.data["clauses"]
        assignment = parse_assignment(response, n)
        if assignment is None:
            return Score(0.0, ("unparsable",))
        if any(not 1 <= var <= n for var in assignment):
            return Score(0.0, ("unknown_variable",))
        if len(assignment) != n:
            return Score(0.0, ("missing_variable",), {"assigned": len(assignment)})
        broken = sum(1 for clause in clauses if not any((lit > 0) == assignment[abs(lit)] for lit in clause))
        if broken:
            return Score(0.0, ("unsatisfied_clause",), {"unsatisfied": broken})
        return Score(1.0, (), {"unsatisfied": 0})


def dimacs(assignment: dict[int, bool]) -> str:
    """An assignment as signed integers (the DIMACS form), for tests and examples."""
    return json.dumps([v if assignment[v] else -v for v in sorted(assignment)])


ENV = Sat()
