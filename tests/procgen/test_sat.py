"""sat: determinism, the scorer against brute force over every assignment, the answer forms of SAT."""

from __future__ import annotations

from itertools import product

from covert.procgen.envs.sat import dimacs
from covert.procgen.registry import get_env

ENV = get_env("sat")


def satisfies(values: tuple[bool, ...], clauses: list[list[int]]) -> bool:
    return all(any((lit > 0) == values[abs(lit) - 1] for lit in clause) for clause in clauses)


def test_scorer_agrees_with_brute_force_over_every_assignment() -> None:
    for level in range(3):
        for index in range(10):
            instance = ENV.sample(1, ENV.config_at(level), index)
            n, clauses = instance.data["n"], instance.data["clauses"]
            found = 0
            for values in product((False, True), repeat=n):
                ok = satisfies(values, clauses)
                found += ok
                text = ", ".join(f"x{i + 1}={'true' if v else 'false'}" for i, v in enumerate(values))
                assert (ENV.score(instance, f"Answer: {text}").value == 1.0) == ok
            assert found >= 1


def test_other_forms_of_an_assignment() -> None:
    instance = ENV.sample(0, ENV.config_at(1), 0)
    planted = {i + 1: bool(v) for i, v in enumerate(instance.data["planted"])}
    for text in (f"Answer: {dimacs(planted)}", "Answer: " + " ".join(f"{v if planted[v] else -v}" for v in planted) + " 0",
                 "Answer: {" + ", ".join(f'"x{v}": {str(planted[v]).lower()}' for v in planted) + "}",
                 "Answer: " + ", ".join(f"x{v}: {'T' if planted[v] else 'F'}" for v in planted)):
        assert ENV.score(instance, text).value == 1.0, text
    partial = ", ".join(f"x{v}=true" for v in list(planted)[:-1])
    assert ENV.score(instance, f"Answer: {partial}").reasons == ("missing_variable",)
