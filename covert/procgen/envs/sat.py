"""Planted 3-SAT: a formula built to be satisfied by a hidden assignment; any satisfying assignment scores 1."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import answer_text, ints, json_value
from covert.procgen.trace import SearchTrace, note_to, written_search

_PAIR = re.compile(r"(?i)\bx_?(\d{1,4})\s*(?:=|:|is|->)\s*(true|false|t|f|1|0|yes|no)\b")
_TRUE = {"true", "t", "1", "yes"}
MAX_TRACE = 30  # search steps the reference writes out


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


def literal(lit: int) -> str:
    """A literal as the prompt writes it."""
    return f"x{lit}" if lit > 0 else f"NOT x{-lit}"


def clause_text(clause: list[int]) -> str:
    """A clause as the prompt writes it."""
    return " OR ".join(literal(lit) for lit in clause)


def dpll(n: int, clauses: list[list[int]], budget: Budget | None = None,
         trace: SearchTrace | None = None) -> dict[int, bool] | None:
    """A satisfying assignment by DPLL (unit propagation, then the variable in most open clauses, the value
    that satisfies more of them first), or ``None``. ``budget`` counts decisions and forced values; ``trace``
    collects the steps in words."""

    note = note_to(trace)

    def propagate(assign: dict[int, bool]) -> bool:
        changed = True
        while changed:
            changed = False
            for clause in clauses:
                if any(assign.get(abs(lit)) == (lit > 0) for lit in clause):
                    continue
                open_lits = [lit for lit in clause if abs(lit) not in assign]
                if not open_lits:
                    note(f"Clause ({clause_text(clause)}) now has no true part: a dead end.")
                    return False
                if len(open_lits) == 1:
                    lit = open_lits[0]
                    if budget is not None:
                        budget.spend()
                    assign[abs(lit)] = lit > 0
                    note(f"Clause ({clause_text(clause)}) forces x{abs(lit)} = {str(lit > 0).lower()}.")
                    changed = True
        return True

    def search(assign: dict[int, bool]) -> dict[int, bool] | None:
        if not propagate(assign):
            return None
        open_clauses = [c for c in clauses if not any(assign.get(abs(lit)) == (lit > 0) for lit in c)]
        if not open_clauses:
            return assign
        counts: dict[int, list[int]] = {}
        for clause in open_clauses:
            for lit in clause:
                if abs(lit) not in assign:
                    counts.setdefault(abs(lit), [0, 0])[lit > 0] += 1
        var = min(counts, key=lambda v: (-sum(counts[v]), v))
        first = counts[var][1] >= counts[var][0]
        for value in (first, not first):
            if budget is not None:
                budget.spend()
            note(f"Try x{var} = {str(value).lower()}.")
            found = search({**assign, var: value})
            if found is not None:
                return found
            note(f"x{var} = {str(value).lower()} fails; undo it.")
        return None

    found = search({})
    return None if found is None else {v: found.get(v, False) for v in range(1, n + 1)}


def walksat(n: int, clauses: list[list[int]], budget: Budget, noise: float = 0.5) -> dict[int, bool] | None:
    """WalkSAT from a seeded random start: flip a variable of a broken clause (a random one with
    probability ``noise``, else the one that breaks fewest others); ``budget`` counts flips."""
    rng = random.Random(json.dumps(clauses))
    assign = {v: rng.random() < 0.5 for v in range(1, n + 1)}
    while True:
        broken = [c for c in clauses if not any(assign[abs(lit)] == (lit > 0) for lit in c)]
        if not broken:
            return assign
        budget.spend()
        clause = rng.choice(broken)
        if rng.random() < noise:
            var = abs(rng.choice(clause))
        else:
            def breaks(v: int) -> int:
                assign[v] = not assign[v]
                count = sum(1 for c in clauses if not any(assign[abs(lit)] == (lit > 0) for lit in c))
                assign[v] = not assign[v]
                return count
            var = min((abs(lit) for lit in clause), key=lambda v: (breaks(v), v))
        assign[var] = not assign[var]


def assignment_text(assign: dict[int, bool]) -> str:
    """``x1=true, x2=false, ...``."""
    return ", ".join(f"x{v}={'true' if assign[v] else 'false'}" for v in sorted(assign))


class Sat(ProceduralEnv):
    """A 3-CNF formula with a planted satisfying assignment; its clauses are distinct."""

    name = "sat"
    version = "2"
    description = "planted 3-SAT: an assignment of true/false to the variables that satisfies every clause"
    asymmetry = "verify"
    hidden_fields = ("planted",)
    knobs = (
        Knob("variables", (4, 6, 8, 12, 16, 20, 30), "number of variables"),
        Knob("clause_ratio", (20, 35, 42), "clauses per variable, times ten (4.2 is near the hardest); at most the "
                                           "number of distinct clauses the hidden assignment satisfies"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        n = config["variables"]
        planted = [rng.random() < 0.5 for _ in range(n)]
        possible = n * (n - 1) * (n - 2) // 6 * 7  # distinct 3-clauses the planted assignment satisfies
        wanted = min(possible, max(1, n * config["clause_ratio"] // 10))
        clauses: list[list[int]] = []
        seen: set[tuple[int, ...]] = set()
        while len(clauses) < wanted:
            chosen = rng.sample(range(1, n + 1), 3)
            clause = [v if rng.random() < 0.5 else -v for v in chosen]
            key = tuple(sorted(clause))
            if key not in seen and any((lit > 0) == planted[abs(lit) - 1] for lit in clause):
                seen.add(key)
                clauses.append(clause)
        text = "\n".join(clause_text(clause) for clause in clauses)
        prompt = (f"Find values (true or false) for the variables x1 to x{n} that make every one of these clauses "
                  f"true (each clause is true when at least one of its parts is):\n{text}\n\n"
                  "End your response with a line 'Answer: ' followed by every variable's value, "
                  "e.g. Answer: x1=true, x2=false, x3=true.")
        return Instance(prompt, {"n": n, "clauses": clauses, "planted": [int(v) for v in planted]})

    def reference(self, instance: Instance) -> str:
        """The DPLL search written out (forced values, tries, dead ends), then the check."""
        n, clauses = instance.data["n"], instance.data["clauses"]
        trace = SearchTrace(MAX_TRACE)
        found = dpll(n, clauses, trace=trace)
        if found is None:  # pragma: no cover - every formula is satisfied by its planted assignment
            raise ValueError("this formula has no satisfying assignment")
        return written_search("I set variables one at a time, first any value a clause forces (all its other parts "
                              "are false), otherwise trying the variable that occurs in most open clauses, and undo a "
                              "try that leaves some clause with no true part.", trace,
                              "Every clause now has at least one true part, and the variables no step needed are set "
                              "to false.", assignment_text(found))

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

    def ladder(self) -> tuple[Rung, ...]:
        """WalkSAT with 20 and 200 flips, DPLL with 60 decisions and forced values."""
        def walk(inst: Instance, budget: Budget) -> str | None:
            found = walksat(inst.data["n"], inst.data["clauses"], budget)
            return None if found is None else f"Answer: {assignment_text(found)}"

        def search(inst: Instance, budget: Budget) -> str | None:
            found = dpll(inst.data["n"], inst.data["clauses"], budget)
            return None if found is None else f"Answer: {assignment_text(found)}"

        return (Rung("walksat_20", 20, "flips", walk), Rung("walksat_200", 200, "flips", walk),
                Rung("dpll", 60, "steps", search))

    def statistics(self, instance: Instance) -> dict[str, float]:
        n, clauses = instance.data["n"], instance.data["clauses"]
        return {"variables": float(n), "clauses": float(len(clauses)), "clauses_per_variable": len(clauses) / n}


def dimacs(assignment: dict[int, bool]) -> str:
    """An assignment as signed integers (the DIMACS form), for tests and examples."""
    return json.dumps([v if assignment[v] else -v for v in sorted(assignment)])


ENV = Sat()
