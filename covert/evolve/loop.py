"""The loop a trainer calls between stages: summary in, next configurations out, buffer kept up to date.

    curriculum = Curriculum(RuleEngineer(failure_knobs=FAILURE_KNOBS))
    configs = start_configs
    for stage in range(stages):
        episodes = train_and_collect(configs)          # the trainer's own work
        summary = stage_summary(env, kind, version, knobs, stage, episodes)
        configs = curriculum.after_stage(summary).configs
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from covert.evolve.buffer import Entry, LearnabilityBuffer
from covert.evolve.engineer import Proposal


@dataclass
class Curriculum:
    """An engineer plus a learnability buffer, with the history of every stage's proposal."""

    engineer: Any
    buffer: LearnabilityBuffer = field(default_factory=LearnabilityBuffer)
    history: list[Proposal] = field(default_factory=list)

    def after_stage(self, summary: dict[str, Any]) -> Proposal:
        """Record the stage's pass rates and return the engineer's proposal for the next stage."""
        self.buffer.update_from_summary(summary)
        proposal = self.engineer.propose(summary)
        self.history.append(proposal)
        return proposal

    def replay(self, n: int, seed: int = 0) -> list[Entry]:
        """``n`` configurations to replay next to the proposal's, most learnable first in expectation."""
        return self.buffer.sample(n, seed)
