"""A learnability buffer: which environment configurations to train on next.

Each entry is scored by ``p * (1 - p)`` of the trainee's pass rate ``p`` (largest at 0.5, zero for what is
always or never solved). Replay follows prioritized level replay: a rank-based distribution over the
scores, mixed with a staleness term that favours entries not seen for many stages, so an estimate that
has gone out of date is measured again. Everything is deterministic for a given seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from covert.procgen.contract import config_key


@dataclass
class Entry:
    """One environment configuration in the buffer."""

    environment: str
    config: dict[str, Any]
    pass_rate: float
    episodes: int
    last_seen: int

    @property
    def learnability(self) -> float:
        """``p * (1 - p)``."""
        return self.pass_rate * (1.0 - self.pass_rate)

    @property
    def key(self) -> str:
        """The entry's identity."""
        return f"{self.environment}|{config_key(self.config)}"


class LearnabilityBuffer:
    """Configurations with their latest pass rates, replayed by learnability and staleness.

    Args:
        capacity: The most entries kept; the least learnable (then the stalest) are evicted.
        temperature: PLR's beta: lower values concentrate replay on the top-ranked entries.
        staleness_weight: PLR's rho: the share of the replay distribution given to staleness.
    """

    def __init__(self, capacity: int = 256, temperature: float = 0.3, staleness_weight: float = 0.1) -> None:
        if capacity < 1 or temperature <= 0 or not 0.0 <= staleness_weight <= 1.0:
            raise ValueError("capacity >= 1, temperature > 0 and staleness_weight in [0, 1] are required")
        self.capacity = capacity
        self.temperature = temperature
        self.staleness_weight = staleness_weight
        self.entries: dict[str, Entry] = {}
        self.stage = 0

    def update(self, environment: str, config: dict[str, Any], pass_rate: float, episodes: int, stage: int) -> None:
        """Record a measured pass rate (``episodes`` attempts) at ``stage``."""
        if not 0.0 <= pass_rate <= 1.0:
            raise ValueError(f"a pass rate lies in [0, 1], got {pass_rate}")
        entry = Entry(environment, dict(config), pass_rate, episodes, stage)
        self.entries[entry.key] = entry
        self.stage = max(self.stage, stage)
        if len(self.entries) > self.capacity:
            worst = min(self.entries.values(), key=lambda e: (e.learnability, e.last_seen, e.key))
            del self.entries[worst.key]

    def update_from_summary(self, summary: dict[str, Any]) -> None:
        """Record every configuration of a stage summary."""
        for entry in summary["configs"]:
            if entry["pass_rate"] is not None and entry["episodes"]:
                self.update(summary["environment"], entry["config"], entry["pass_rate"], entry["episodes"], summary["stage"])

    def probabilities(self) -> dict[str, float]:
        """The replay distribution over entry keys (sums to 1)."""
        entries = sorted(self.entries.values(), key=lambda e: e.key)
        if not entries:
            return {}
        ranked = sorted(entries, key=lambda e: (-e.learnability, e.key))
        score = {e.key: (1.0 / (rank + 1)) ** (1.0 / self.temperature) for rank, e in enumerate(ranked)}
        total = sum(score.values())
        stale = {e.key: float(self.stage - e.last_seen) for e in entries}
        stale_total = sum(stale.values())
        rho = self.staleness_weight if stale_total > 0 else 0.0
        return {e.key: (1 - rho) * score[e.key] / total + (rho * stale[e.key] / stale_total if rho else 0.0)
                for e in entries}

    def sample(self, n: int, seed: int = 0) -> list[Entry]:
        """``n`` entries drawn (with replacement) from the replay distribution; deterministic per seed."""
        probs = self.probabilities()
        if not probs or n <= 0:
            return []
        keys = sorted(probs)
        rng = random.Random(f"buffer:{seed}:{self.stage}")
        return [self.entries[k] for k in rng.choices(keys, weights=[probs[k] for k in keys], k=n)]

    def learnable(self, low: float = 0.2, high: float = 0.8) -> list[Entry]:
        """Entries whose pass rate lies in ``[low, high]``, most learnable first."""
        return sorted((e for e in self.entries.values() if low <= e.pass_rate <= high),
                      key=lambda e: (-e.learnability, e.key))
