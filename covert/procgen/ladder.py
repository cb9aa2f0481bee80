"""Measured difficulty: an environment's solver ladder (and, optionally, an LLM) on fresh instances.

The difficulty of a configuration is what its solvers achieve on instances they have not seen: for each
rung of :meth:`~covert.procgen.contract.ProceduralEnv.ladder`, the share of instances it solves (a valid
answer: ``details["valid"]`` where the scorer reports it, else a score of 1) and the share it solves
optimally (``details["optimal"]``, else a score of 1), under its work budget. A rung that runs out of
budget, raises or returns nothing has given up on that instance. The configuration's ``solve_rate`` is
the mean of the rungs' solve rates, so a configuration is harder when fewer rungs, or weaker ones, still
solve its instances.

Evolution keeps a mutant only when :meth:`Difficulty.harder_than` its parent; admission's L5 checks the
ladder's rate against a band (:mod:`covert.procgen.admission`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from covert.procgen.contract import Budget, BudgetExceeded, Instance, ProceduralEnv, Rung, Score

#: Instances are drawn from this seed offset, apart from the ones a dataset of the same seed writes.
FRESH_SEED_OFFSET = 1_000_003
#: Least drop of the ladder's mean solve rate (or an LLM's pass@k) that counts as harder.
DEFAULT_MARGIN = 0.05

LLMSolver = Callable[[Sequence[Instance], int], list[list[str]]]  # (instances, k) -> k responses each


@dataclass(frozen=True)
class RungResult:
    """What one rung achieved on a configuration's instances."""

    name: str
    budget: int
    unit: str
    solve_rate: float
    optimal_rate: float
    gave_up_rate: float

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {"name": self.name, "budget": self.budget, "unit": self.unit, "solve_rate": self.solve_rate,
                "optimal_rate": self.optimal_rate, "gave_up_rate": self.gave_up_rate}


@dataclass(frozen=True)
class Difficulty:
    """The measured difficulty of one configuration.

    Attributes:
        config: The configuration.
        instances: Fresh instances measured.
        rungs: Each rung's rates, weakest first.
        solve_rate: Mean of the rungs' solve rates (1.0: every rung solves every instance).
        optimal_rate: Mean of the rungs' optimal rates.
        solve_error: Standard error of ``solve_rate`` over the instances (each instance's share of rungs
            that solve it varies; the error says how much the mean would move on other instances).
        llm_pass_at_k: Share of instances an LLM solved in at least one of ``k`` samples (``None``
            without an LLM).
        llm_k: The ``k`` of ``llm_pass_at_k``.
    """

    config: dict[str, Any]
    instances: int
    rungs: tuple[RungResult, ...]
    solve_rate: float
    optimal_rate: float
    solve_error: float = 0.0
    llm_pass_at_k: float | None = None
    llm_k: int = 0

    def harder_than(self, parent: Difficulty, margin: float = DEFAULT_MARGIN) -> bool:
        """Whether this configuration is harder than ``parent``: with an LLM's pass@k on both, that rate is
        lower by at least ``margin``; else the ladder's mean solve rate is lower by at least ``margin`` and
        by at least twice the standard error of the difference (a drop the instances' spread explains is
        no evidence)."""
        if self.llm_pass_at_k is not None and parent.llm_pass_at_k is not None:
            return self.llm_pass_at_k <= parent.llm_pass_at_k - margin
        drop = parent.solve_rate - self.solve_rate
        return drop >= margin and drop >= 2 * math.hypot(self.solve_error, parent.solve_error)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what cards and manifests record)."""
        out: dict[str, Any] = {"config": dict(self.config), "instances": self.instances,
                               "solve_rate": self.solve_rate, "optimal_rate": self.optimal_rate,
                               "solve_error": self.solve_error,
                               "rungs": [r.to_dict() for r in self.rungs]}
        if self.llm_pass_at_k is not None:
            out["llm_pass_at_k"] = self.llm_pass_at_k
            out["llm_k"] = self.llm_k
        return out


@dataclass
class _Tally:
    solved: int = 0
    optimal: int = 0
    gave_up: int = 0


def outcome(score: Score) -> tuple[bool, bool]:
    """``(solved, optimal)`` of a scored answer: the scorer's ``valid``/``optimal`` details where it
    reports them (a planner's valid but longer plan is solved, not optimal), else a score of 1."""
    details = score.details or {}
    full = score.value >= 1.0
    valid = details.get("valid")
    optimal = details.get("optimal")
    solved = valid if isinstance(valid, bool) else full
    return solved, (optimal if isinstance(optimal, bool) else full) and solved


def run_rung(env: ProceduralEnv, rung: Rung, instance: Instance) -> tuple[bool, bool, bool]:
    """``(solved, optimal, gave_up)`` of one rung on one instance; the rung sees only the solver's view
    and its response is judged by the environment's own scorer."""
    budget = Budget(rung.budget)
    try:
        response = rung.solve(env.solver_view(instance), budget)
    except BudgetExceeded:
        return False, False, True
    except Exception:  # noqa: BLE001 - a solver that fails on an instance has given up on it
        return False, False, True
    if response is None:
        return False, False, True
    solved, optimal = outcome(env.score(instance, response))
    return solved, optimal, False


def measure(env: ProceduralEnv, config: dict[str, Any], seed: int = 0, instances: int = 24,
            llm: LLMSolver | None = None, k: int = 4) -> Difficulty:
    """The difficulty of ``config``: every rung of ``env``'s ladder (and ``llm``, ``k`` samples each) on
    ``instances`` fresh instances (indices ``0..instances-1`` of seed ``seed + FRESH_SEED_OFFSET``)."""
    rungs = env.ladder()
    if not rungs:
        raise ValueError(f"{env.name} has no solver ladder: define ladder() to measure its difficulty")
    if instances < 1:
        raise ValueError("instances must be at least 1")
    config = env.check_config(config)
    sampled = [env.sample(seed + FRESH_SEED_OFFSET, config, index) for index in range(instances)]
    tallies = [_Tally() for _ in rungs]
    per_instance = []
    for instance in sampled:
        solved_here = 0
        for rung, tally in zip(rungs, tallies):
            solved, optimal, gave_up = run_rung(env, rung, instance)
            tally.solved += solved
            tally.optimal += optimal
            tally.gave_up += gave_up
            solved_here += solved
        per_instance.append(solved_here / len(rungs))
    error = statistics.stdev(per_instance) / math.sqrt(instances) if instances > 1 else 0.0
    results = tuple(RungResult(r.name, r.budget, r.unit, round(t.solved / instances, 4),
                               round(t.optimal / instances, 4), round(t.gave_up / instances, 4))
                    for r, t in zip(rungs, tallies))
    pass_at_k = None
    if llm is not None:
        answers = llm(sampled, k)
        hits = sum(any(outcome(env.score(inst, text))[0] for text in texts[:k])
                   for inst, texts in zip(sampled, answers))
        pass_at_k = round(hits / instances, 4)
    return Difficulty(config, instances, results,
                      round(sum(r.solve_rate for r in results) / len(results), 4),
                      round(sum(r.optimal_rate for r in results) / len(results), 4),
                      round(error, 4), pass_at_k, k if llm is not None else 0)


def backend_solver(backend: Any, *, temperature: float = 1.0, max_tokens: int = 2048, seed: int = 0) -> LLMSolver:
    """An LLM solver behind covert's backend seam: ``k`` sampled completions of each instance's prompt."""

    def solve(instances: Sequence[Instance], k: int) -> list[list[str]]:
        from covert.llm.base import ChatRequest, SamplingParams

        requests = [ChatRequest([{"role": "user", "content": inst.prompt}],
                                sampling=SamplingParams(temperature=temperature, max_tokens=max_tokens, seed=seed + j))
                    for inst in instances for j in range(k)]
        texts = [c.text if c.ok else "" for c in backend.generate(requests)]
        return [texts[i * k:(i + 1) * k] for i in range(len(instances))]

    return solve
