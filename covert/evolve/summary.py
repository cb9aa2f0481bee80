"""Stage summaries: what a policy did on each environment configuration during one stage.

A summary is plain JSON (``schemas/stage_summary.schema.json``), so the same document feeds the
rule-based engineer, an LLM engineer and a person reading it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from covert.procgen.contract import Knob, config_key

SCHEMA_ID = "covert/stage-summary@1"
MAX_EXAMPLES = 3
MAX_TRAJECTORY_CHARS = 1500

#: Failure categories of tool environments, in the order summaries list them.
TOOL_FAILURES = ("wrong_tool", "wrong_argument", "missing_argument", "missing_call", "extra_call", "state_mismatch",
                 "wrong_answer_facts", "unhandled_error", "wrong_behaviour")

_REWARD_CODES = {  # covert.rewards reason codes -> tool failure categories
    "calls:wrong_function": "wrong_tool", "calls:wrong_value": "wrong_argument", "calls:missing_argument":
    "missing_argument", "calls:extra_argument": "wrong_argument", "calls:missing_call": "missing_call",
    "calls:wrong_count": "missing_call", "calls:extra_call": "extra_call", "calls:too_many_calls": "extra_call",
    "calls:out_of_order": "wrong_argument", "state:mismatch": "state_mismatch", "facts:missing": "wrong_answer_facts",
}


@dataclass(frozen=True)
class Episode:
    """One scored attempt of a policy on one instance or task.

    Attributes:
        config: The environment configuration the instance came from.
        passed: Whether the attempt counts as solved (reward 1, or valid for planning tasks).
        failures: Failure categories of this attempt (empty when it passed).
        valid: For planning environments, whether the answer was a valid solution (else ``None``).
        optimal: For planning environments, whether it was optimal (else ``None``).
        statistics: Numeric facts about the instance (``optimal_makespan``, ``crossings``...), averaged
            per configuration in the summary.
        trajectory: The attempt as text, for the examples (trimmed).
        instance: What the attempt was on, as the policy saw it (a MAPF map, a task's query; trimmed), so an
            engineer reads a failure next to its problem.
    """

    config: dict[str, Any]
    passed: bool
    failures: tuple[str, ...] = ()
    valid: bool | None = None
    optimal: bool | None = None
    statistics: dict[str, float] = field(default_factory=dict)
    trajectory: str = ""
    instance: str = ""


def tool_failures(reasons: Iterable[str]) -> tuple[str, ...]:
    """Failure categories of a tool rollout from its reward's reasons (``"calls:wrong_value: ..."``)."""
    found: list[str] = []
    for reason in reasons:
        head = ":".join(str(reason).split(":", 2)[:2]).strip()
        category = _REWARD_CODES.get(head)
        if category is None:
            if head.startswith("behaviour"):
                category = "wrong_behaviour"
            elif "error" in head:
                category = "unhandled_error"
            else:
                continue
        if category not in found:
            found.append(category)
    return tuple(found)


def _rate(values: Sequence[bool | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 4) if known else None


def stage_summary(environment: str, kind: str, version: str, knobs: Sequence[Knob], stage: int,
                  episodes: Sequence[Episode], failure_order: Sequence[str] = TOOL_FAILURES) -> dict[str, Any]:
    """The summary document of one environment after one stage (validated before it is returned)."""
    by_config: dict[str, list[Episode]] = {}
    configs: dict[str, dict[str, Any]] = {}
    for episode in episodes:
        key = config_key(episode.config)
        by_config.setdefault(key, []).append(episode)
        configs.setdefault(key, episode.config)
    order = {name: i for i, name in enumerate(failure_order)}
    total: Counter[str] = Counter()
    entries = []
    for key in sorted(by_config):
        group = by_config[key]
        failures: Counter[str] = Counter(f for e in group for f in e.failures)
        total.update(failures)
        stats: dict[str, float] = {}
        for name in sorted({s for e in group for s in e.statistics}):
            values = [e.statistics[name] for e in group if name in e.statistics]
            stats[name] = round(sum(values) / len(values), 4)
        entries.append({
            "config": configs[key], "episodes": len(group), "pass_rate": _rate([e.passed for e in group]),
            "valid_rate": _rate([e.valid for e in group]), "optimal_rate": _rate([e.optimal for e in group]),
            "failures": dict(sorted(failures.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))),
            "statistics": stats,
        })
    examples = [{"config": e.config, "failures": list(e.failures), "trajectory": e.trajectory[:MAX_TRAJECTORY_CHARS],
                 **({"instance": e.instance[:MAX_TRAJECTORY_CHARS]} if e.instance else {})}
                for e in episodes if not e.passed][:MAX_EXAMPLES]
    doc = {
        "schema": SCHEMA_ID, "environment": environment, "kind": kind, "version": version, "stage": stage,
        "knobs": [{"name": k.name, "levels": list(k.levels), "description": k.description} for k in knobs],
        "configs": entries,
        "failures": dict(sorted(total.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))),
        "examples": examples,
    }
    check_summary(doc)
    return doc


def knobs_of(summary: dict[str, Any]) -> tuple[Knob, ...]:
    """The knobs a summary declares."""
    return tuple(Knob(k["name"], tuple(k["levels"]), k.get("description", "")) for k in summary["knobs"])


def check_summary(doc: Any) -> None:
    """Raise ``ValueError`` (one line naming the first problem) unless ``doc`` is a valid stage summary."""
    from covert.schemas import SchemaViolation, validator

    try:
        validator("stage_summary")(doc)
    except SchemaViolation as exc:
        raise ValueError(f"not a stage summary: {str(exc).splitlines()[0][:200]}") from None
