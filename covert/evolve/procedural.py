"""Engineering and evolving procedural environments (``covert.procgen``): episodes from a policy, a scripted
trainee of known skill, and configuration mutants kept only when the reference solver still solves them
and a fixed reference policy passes them less often than their parent."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from covert.evolve.evolution import Lineage
from covert.evolve.summary import Episode
from covert.procgen.contract import Instance, ProceduralEnv, config_key

Policy = Callable[[Instance, int], str]  # (instance, attempt) -> response text

#: Default mapping of evolution directions to knob names (an environment may declare ``directions``).
DEFAULT_DIRECTIONS: dict[str, tuple[str, ...]] = {
    "horizon": ("size", "grid", "n", "items", "nodes", "length", "steps", "agents"),
    "constraints": ("holes", "hole_ratio", "conflict_density", "density", "constraints", "clauses", "capacity"),
    "observations": ("noise", "distractors"),
}


def directions_of(env: ProceduralEnv) -> dict[str, tuple[str, ...]]:
    """The environment's evolution directions: its own ``directions`` or the default names its knobs match."""
    own = getattr(env, "directions", None)
    names = {k.name for k in env.knobs}
    source = own if own else DEFAULT_DIRECTIONS
    out = {d: tuple(n for n in knobs if n in names) for d, knobs in source.items()}
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
                                    statistics=stats, trajectory=response[:1500]))
    return episodes


@dataclass(frozen=True)
class ConfigMember:
    """One configuration of one generation."""

    config: dict[str, Any]
    generation: int
    pass_rate: float
    parent: str | None = None
    direction: str | None = None


ConfigLineage = Lineage
"""Generations of configurations with counts of what was tried, kept and rejected (the tool lineage's type)."""


def evolve_configs(env: ProceduralEnv, start: Sequence[dict[str, Any]], generations: int,
                   reference_policy: Callable[[Instance, dict[str, Any], int], str], seed: int = 0,
                   instances: int = 12, k: int = 2) -> ConfigLineage:
    """Evolve configurations: each member of generation ``g`` tries one knob one level harder along each
    direction (in a seeded order); the first mutant whose instances the reference still solves (all
    ``instances``) and on which ``reference_policy`` passes less often than on its parent is generation
    ``g + 1``'s member."""
    from covert.evolve.evolution import raised

    if generations < 1:
        raise ValueError("generations must be at least 1")
    directions = directions_of(env)

    def rate(config: dict[str, Any]) -> float:
        eps = procedural_episodes(env, config, lambda inst, j: reference_policy(inst, config, j), seed, instances, k)
        return sum(e.passed for e in eps) / len(eps)

    def solvable(config: dict[str, Any]) -> bool:
        return all(env.score(inst, env.reference(inst)).value >= 1.0
                   for inst in (env.sample(seed, config, i) for i in range(instances)))

    lineage = ConfigLineage()
    lineage.generations.append([ConfigMember(env.check_config(c), 0, rate(env.check_config(c))) for c in start])
    for g in range(1, generations):
        nxt = []
        for member in lineage.generations[-1]:
            order = sorted(directions)
            random.Random(f"evolve:{seed}:{config_key(member.config)}:{g}").shuffle(order)
            for direction in order:
                mutant = raised(env.knobs, member.config, directions[direction])
                if mutant is None:
                    continue
                lineage.tried[direction] += 1
                if not solvable(mutant):
                    lineage.rejected["reference_fails"] += 1
                    continue
                r = rate(mutant)
                if r >= member.pass_rate:
                    lineage.rejected["not_harder"] += 1
                    continue
                lineage.kept[direction] += 1
                nxt.append(ConfigMember(mutant, g, r, f"{config_key(member.config)}@g{member.generation}", direction))
                break
        lineage.generations.append(nxt)
    return lineage
