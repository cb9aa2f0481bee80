"""Off-policy environment evolution: harder variants of tasks along named directions, generation by generation.

Directions (from the multi-turn objective): ``horizon`` (more dependent calls, deeper chains: a longer task
of the same builder), ``constraints`` (success harder to reach: a value the user holds back, an indirect
request, a call that fails and must be retried or reported) and ``observations`` (harder to read:
distractor tools, noisy outputs), the augmentations stacking generation over generation. A mutant is kept
only when (1) its reference still solves it (the augmented row validates: replay holds) and (2) the
structural measures of its direction rose over its parent's (:func:`covert.evolve.tools.structure`: calls
and turns; user turns, failed calls, indirection; distractor tools, output characters, stacked
augmentations); with an LLM (``pass_rate``), also (3) its pass@k is not above its parent's. Generation
``g + 1`` holds the kept mutants of generation ``g``; tasks no direction makes harder leave the line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from covert.env import item_rng
from covert.evolve.tools import DIRECTION_MEASURES, EVOLVE_KNOBS, calls_level, config_rows, structure
from covert.procgen.contract import Knob

DIRECTIONS: dict[str, tuple[str, ...]] = {
    "horizon": ("calls",),
    "constraints": ("ambiguity", "indirect", "errors"),
    "observations": ("distractors", "noise"),
}


def raised(knobs: Sequence[Knob], config: dict[str, Any], names: Sequence[str]) -> dict[str, Any] | None:
    """``config`` with the first of ``names`` that can go one level harder raised; ``None`` if none can."""
    for name in names:
        knob = next((k for k in knobs if k.name == name), None)
        if knob is None:
            continue
        rank = knob.level_of(config[name])
        if rank + 1 < len(knob.levels):
            return {**config, name: knob.levels[rank + 1]}
    return None


@dataclass(frozen=True)
class Member:
    """One task of one generation, with its structural measures (and an LLM's pass@k when one was asked)."""

    pair: Any  # RowPair
    config: dict[str, Any]
    generation: int
    pass_rate: float | None
    parent: str | None = None  # the parent's task id and config, for provenance
    direction: str | None = None
    measures: dict[str, float] = field(default_factory=dict)


@dataclass
class Lineage:
    """Every generation, and what happened to the mutants."""

    generations: list[list[Any]] = field(default_factory=list)  # Member (tasks) or ConfigMember (configurations)
    tried: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)

    def pass_rates(self) -> list[float | None]:
        """The measured mean pass rate per generation (``None`` where none was measured)."""
        out: list[float | None] = []
        for g in self.generations:
            rates = [m.pass_rate for m in g if m.pass_rate is not None]
            out.append(round(sum(rates) / len(rates), 4) if rates else None)
        return out

    def measures(self) -> list[dict[str, float]]:
        """The mean structural measures of each generation's tasks (empty for configurations)."""
        out = []
        for g in self.generations:
            names = sorted({n for m in g for n in getattr(m, "measures", {})})
            out.append({n: round(sum(m.measures.get(n, 0.0) for m in g) / len(g), 4) for n in names} if g else {})
        return out


def base_config(pair: Any) -> dict[str, Any]:
    """The configuration of an un-augmented base task."""
    return {"calls": calls_level(pair.sft["num_calls"]), "distractors": "none", "noise": "none", "ambiguity": False,
            "indirect": False, "errors": "none"}


def rose(direction: str, parent: dict[str, float], child: dict[str, float]) -> bool:
    """Whether ``child`` is structurally harder than ``parent`` along ``direction``: none of the direction's
    measures fell and at least one rose."""
    names = DIRECTION_MEASURES[direction]
    return all(child[n] >= parent[n] for n in names) and any(child[n] > parent[n] for n in names)


def evolve_tool_tasks(pairs: Sequence[Any], generations: int, seed: int = 0, tasks: int | None = None,
                      pass_rate: Callable[[Any], float] | None = None) -> Lineage:
    """Evolve base tool tasks for ``generations`` generations (generation 0 = the base tasks).

    Args:
        pairs: Base (sft, rl) row pairs (``covert.augment.registry.RowPair``).
        generations: How many generations to write, at least 1.
        seed: Seeds the augmentations and the order in which directions are tried.
        tasks: Use at most this many base tasks with at least one call.
        pass_rate: An LLM's pass@k on one pair; when given, a mutant it passes more often than its parent is
            not kept.
    """
    if generations < 1:
        raise ValueError("--generations must be at least 1")
    usable = [p for p in pairs if p.sft["num_calls"] > 0 and not p.sft.get("augmentations")]
    usable = usable[:tasks] if tasks is not None else usable
    by_level: dict[tuple[str, int], list[Any]] = {}
    for p in usable:
        by_level.setdefault((p.sft["builder"], calls_level(p.sft["num_calls"])), []).append(p)
    base_of = {p.sft["task_id"]: p for p in usable}
    lineage = Lineage()
    lineage.generations.append([Member(p, base_config(p), 0, pass_rate(p) if pass_rate else None,
                                       measures=structure(p.sft)) for p in usable])
    for g in range(1, generations):
        nxt: list[Member] = []
        made: set[str] = set()  # task ids of this generation: two lines may reach the same longer task
        for member in lineage.generations[-1]:
            child = _mutate(member, g, seed, base_of, by_level, pass_rate, lineage, made)
            if child is not None:
                made.add(child.pair.sft["task_id"])
                nxt.append(child)
        lineage.generations.append(nxt)
    return lineage


def _mutate(member: Member, g: int, seed: int, base_of: dict[str, Any], by_level: dict[tuple[str, int], list[Any]],
            pass_rate: Callable[[Any], float] | None, lineage: Lineage, taken: set[str] = frozenset()) -> Member | None:
    base_id = member.pair.sft.get("base_task_id") or member.pair.sft["task_id"]
    order = sorted(DIRECTIONS)
    item_rng("evolve", seed, base_id, g).shuffle(order)
    for direction, knob in ((d, k) for d in order for k in DIRECTIONS[d]):
        config = raised(EVOLVE_KNOBS, member.config, (knob,))
        if config is None:
            continue
        lineage.tried[direction] += 1
        base = base_of[base_id]
        if direction == "horizon":  # a longer task of the same builder
            longer = by_level.get((base.sft["builder"], config["calls"]), [])
            if not longer:
                lineage.rejected["no_longer_task"] += 1
                continue
            base = longer[item_rng("evolve-horizon", seed, base_id, g).randrange(len(longer))]
        made = config_rows([base], config, seed=seed)
        if not made.pairs:
            lineage.rejected.update(made.left_out or Counter(["not_applicable"]))
            continue
        candidate = made.pairs[0]
        if candidate.sft["task_id"] in taken:
            lineage.rejected["same_task_in_generation"] += 1
            continue
        measures = structure(candidate.sft)
        if not rose(direction, member.measures, measures):
            lineage.rejected["no_structural_change"] += 1
            continue
        rate = pass_rate(candidate) if pass_rate is not None else None
        if rate is not None and member.pass_rate is not None and rate > member.pass_rate:
            lineage.rejected["llm_passes_more"] += 1
            continue
        lineage.kept[direction] += 1
        parent = f"{member.pair.sft['task_id']}@g{member.generation}"
        return Member(candidate, config, g, rate, parent, direction, measures)
    return None
