"""Engineering and evolving procedural environments (``covert.procgen``): episodes from a policy, and
configuration mutants kept only when the reference still solves them and their difficulty, measured by the
environment's solver ladder on fresh instances (or an LLM's pass@k), is higher than their parent's.

:class:`ProceduralTrainee` (a scripted policy whose failure probability is a logistic of the knobs) is a
test double for the engineer's mechanics: it fails more on raised knobs by construction, so it never
decides what is harder."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from covert.evolve.evolution import Lineage
from covert.evolve.summary import Episode
from covert.procgen.contract import ConfigError, Instance, ProceduralEnv, config_key
from covert.procgen.ladder import DEFAULT_MARGIN, FRESH_SEED_OFFSET, Difficulty, LLMSolver, measure

Policy = Callable[[Instance, int], str]  # (instance, attempt) -> response text

#: Default mapping of evolution directions to knob names (an environment may declare ``directions``); a knob
#: no name here matches belongs to ``constraints``.
DEFAULT_DIRECTIONS: dict[str, tuple[str, ...]] = {
    "horizon": ("size", "grid", "grid_size", "n", "items", "nodes", "length", "steps", "agents", "count", "tasks",
                "requests", "variables", "amount", "numbers", "cells", "rows", "depth", "rounds", "jobs", "words",
                "digits", "terms", "places", "towns", "people", "boxes", "moves", "pegs", "width", "stations",
                "vans", "parcels_per_van", "workers", "villages", "islands", "matrices", "buildings", "corners"),
    "observations": ("noise", "distractors"),
}


def directions_of(env: ProceduralEnv) -> dict[str, tuple[str, ...]]:
    """The environment's evolution directions: its own ``directions`` or, by default, size-like knobs as
    ``horizon``, ``noise``/``distractors`` as ``observations`` and every other knob as ``constraints``."""
    own = getattr(env, "directions", None)
    names = [k.name for k in env.knobs]
    if own:
        out = {d: tuple(n for n in knobs if n in names) for d, knobs in own.items()}
    else:
        out = {d: tuple(n for n in names if n in knobs) for d, knobs in DEFAULT_DIRECTIONS.items()}
        placed = {n for knobs in out.values() for n in knobs}
        out["constraints"] = tuple(n for n in names if n not in placed)
    return {d: knobs for d, knobs in out.items() if knobs}


def _corrupt(reference: str, rng: random.Random) -> str:
    """A plausible wrong answer: the reference with one number or word changed, or cut short."""
    tokens = reference.split()
    if not tokens:
        return "I am not sure."
    i = rng.randrange(len(tokens))
    token = tokens[i]
    digits = "".join(ch for ch in token if ch.isdigit())
    tokens[i] = token.replace(digits, str(int(digits) + 1), 1) if digits else token[::-1] + "x"
    return " ".join(tokens if rng.random() < 0.7 else tokens[: max(1, len(tokens) // 2)])


@dataclass
class ProceduralTrainee:
    """A scripted policy of known skill on a procedural environment: it answers with the reference,
    except with a failure probability that rises (logistically) with the configuration's difficulty,
    the weighted sum of its knobs' levels minus the skill. A wrong answer comes from the environment's
    own ``perturb(instance, reference, rng)`` when it has one (MAPF: a colliding or unfinished plan),
    else a corrupted reference. ``learn`` raises the skill by the learnable material trained on."""

    env: ProceduralEnv
    skill: float = 1.0
    weights: Mapping[str, float] = field(default_factory=dict)
    seed: int = 0
    sharpness: float = 1.5
    learning_rate: float = 2.0

    def difficulty(self, config: Mapping[str, Any]) -> float:
        """The weighted sum of knob levels (rank 0 = easiest)."""
        return sum(self.weights.get(k.name, 1.0) * k.level_of(config[k.name]) for k in self.env.knobs)

    def failure_probability(self, config: Mapping[str, Any]) -> float:
        """The chance an attempt on ``config`` goes wrong."""
        return 1.0 / (1.0 + math.exp(-self.sharpness * (self.difficulty(config) - self.skill)))

    def answer(self, instance: Instance, config: Mapping[str, Any], attempt: int) -> str:
        """The trainee's response to one instance."""
        rng = random.Random(f"trainee:{self.seed}:{round(self.skill, 6)}:{config_key(dict(config))}:{instance.prompt}:{attempt}")
        reference = self.env.reference(instance)
        if rng.random() >= self.failure_probability(config):
            return reference
        perturb = getattr(self.env, "perturb", None)
        return perturb(instance, reference, rng) if perturb is not None else _corrupt(reference, rng)

    def learn(self, trained: Sequence[tuple[float, int]]) -> None:
        """Improve on what was trained on: ``(pass_rate, episodes)`` per configuration."""
        episodes = sum(n for _, n in trained)
        if episodes:
            self.skill += self.learning_rate * sum(p * (1 - p) * n for p, n in trained) / episodes


def problem_text(instance: Instance, limit: int = 1500) -> str:
    """The problem of a failed attempt as the policy saw it: the prompt up to its answer instructions
    (a MAPF map with its agents' starts and goals), trimmed."""
    text = instance.prompt
    for cut in ("\nEnd your response", "\nCoordinates are"):
        if cut in text:
            text = text[:text.index(cut)]
    return text[:limit]


def failures_of(score: Any) -> tuple[str, ...]:
    """Failure categories of a scored answer: the scorer's reason codes (``hole``, ``vertex_conflict``...)."""
    return tuple(dict.fromkeys(str(r).split(":", 1)[0] for r in score.reasons)) or (("wrong_answer",) if score.value < 1 else ())


def procedural_episodes(env: ProceduralEnv, config: dict[str, Any], answer: Callable[[Instance, int], str],
                        seed: int, n: int, k: int = 1) -> list[Episode]:
    """Score ``k`` answers on each of ``n`` instances of ``config``; the episodes for a stage summary."""
    config = env.check_config(config)
    statistics = getattr(env, "statistics", None)
    episodes = []
    for index in range(n):
        instance = env.sample(seed, config, index)
        stats = {k_: float(v) for k_, v in (statistics(instance) if statistics else {}).items()}
        for attempt in range(k):
            response = answer(instance, attempt)
            score = env.score(instance, response)
            passed = score.value >= 1.0
            details = score.details or {}
            episodes.append(Episode(config, passed, () if passed else failures_of(score),
                                    valid=details.get("valid") if isinstance(details.get("valid"), bool) else None,
                                    optimal=details.get("optimal") if isinstance(details.get("optimal"), bool) else None,
                                    statistics=stats, trajectory=response[:1500],
                                    instance="" if passed else problem_text(instance)))
    return episodes


@dataclass(frozen=True)
class ConfigMember:
    """One configuration of one generation, with its measured difficulty.

    ``pass_rate`` is what the lineage compares: the LLM's pass@k when one was asked, else the ladder's mean
    solve rate."""

    config: dict[str, Any]
    generation: int
    pass_rate: float
    parent: str | None = None
    direction: str | None = None
    difficulty: Difficulty | None = None


ConfigLineage = Lineage
"""Generations of configurations with counts of what was tried, kept and rejected (the tool lineage's type)."""


def evolve_configs(env: ProceduralEnv, start: Sequence[dict[str, Any]], generations: int, seed: int = 0,
                   instances: int = 32, margin: float = DEFAULT_MARGIN, llm: LLMSolver | None = None,
                   k: int = 4, max_stride: int = 2) -> ConfigLineage:
    """Evolve configurations: each member of generation ``g`` tries each knob of each direction one level
    harder (directions in a seeded order, knobs in the direction's order), then, when none of those is
    harder, each knob up to ``max_stride`` levels harder; the first mutant that the reference still solves (every measured
    instance) and that is harder than its parent (:meth:`~covert.procgen.ladder.Difficulty.harder_than`:
    the ladder's mean solve rate, or ``llm``'s pass@k, lower by at least ``margin`` and by more than the
    instances' spread explains) is generation ``g + 1``'s member."""
    from covert.evolve.evolution import raised

    if generations < 1:
        raise ValueError("generations must be at least 1")
    if not env.ladder():
        raise ValueError(f"{env.name} has no solver ladder: its difficulty cannot be measured")
    directions = directions_of(env)

    def judged(config: dict[str, Any]) -> Difficulty:
        return measure(env, config, seed=seed, instances=instances, llm=llm, k=k)

    def rate_of(difficulty: Difficulty) -> float:
        return difficulty.llm_pass_at_k if difficulty.llm_pass_at_k is not None else difficulty.solve_rate

    def solvable(config: dict[str, Any]) -> bool:
        return all(env.score(inst, env.reference(inst)).value >= 1.0
                   for inst in (env.sample(seed + FRESH_SEED_OFFSET, config, i) for i in range(instances)))

    lineage = ConfigLineage()
    first = []
    for config in start:
        config = env.check_config(config)
        found = judged(config)
        first.append(ConfigMember(config, 0, rate_of(found), difficulty=found))
    lineage.generations.append(first)
    for g in range(1, generations):
        nxt = []
        for member in lineage.generations[-1]:
            order = sorted(directions)
            random.Random(f"evolve:{seed}:{config_key(member.config)}:{g}").shuffle(order)
            child = None
            steps = ((d, n, stride) for stride in range(1, max_stride + 1) for d in order for n in directions[d])
            for direction, knob, stride in steps:
                mutant = member.config
                for _ in range(stride):
                    mutant = raised(env.knobs, mutant, (knob,)) if mutant is not None else None
                if mutant is None:
                    continue
                lineage.tried[direction] += 1
                try:
                    mutant = env.check_config(mutant)
                    if not solvable(mutant):
                        lineage.rejected["reference_fails"] += 1
                        continue
                    found = judged(mutant)
                except (ConfigError, RuntimeError):
                    lineage.rejected["not_sampleable"] += 1
                    continue
                if member.difficulty is None or not found.harder_than(member.difficulty, margin):
                    lineage.rejected["not_harder"] += 1
                    continue
                lineage.kept[direction] += 1
                child = ConfigMember(mutant, g, rate_of(found), f"{config_key(member.config)}@g{member.generation}",
                                     direction, found)
                break
            if child is not None:
                nxt.append(child)
        lineage.generations.append(nxt)
    return lineage
