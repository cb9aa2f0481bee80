"""RL utilities from AutoForge: environment-level advantage normalisation and masks for rollouts a
simulated user spoiled.

GRPO normalises each rollout's reward by the mean and standard deviation of its prompt's group; with
small groups those estimates are noisy. AutoForge normalises instead over every rollout of the same
environment (builder) in the batch. Rollouts in which the simulated user erred (contradicted or
omitted its scenario) are masked out: they get advantage 0, take no part in the statistics, and
their loss mask is 0.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence


def user_error_mask(spoiled: Sequence[bool]) -> list[bool]:
    """The loss mask of a batch: ``False`` for each rollout the simulated user spoiled."""
    return [not bool(flag) for flag in spoiled]


def environment_advantages(rewards: Sequence[float], environments: Sequence[Hashable],
                           mask: Sequence[bool] | None = None, groups: Sequence[Hashable] | None = None,
                           scale: bool = True, eps: float = 1e-6) -> list[float]:
    """Advantages normalised per environment.

    Args:
        rewards: One reward per rollout.
        environments: The environment (e.g. builder name) of each rollout.
        mask: ``False`` for rollouts to leave out (see :func:`user_error_mask`); they get 0.
        groups: The prompt group of each rollout; when given, each reward is centred on its group's
            mean (GRPO's baseline) and scaled by its environment's standard deviation. Without it,
            both mean and deviation are the environment's.
        scale: Divide by the standard deviation (``False``: only centre).
        eps: Added to the deviation.
    """
    n = len(rewards)
    if len(environments) != n or (mask is not None and len(mask) != n) or (groups is not None and len(groups) != n):
        raise ValueError("rewards, environments, mask and groups must have one entry per rollout")
    keep = [True] * n if mask is None else [bool(m) for m in mask]
    values = [float(r) for r in rewards]
    env_stats = _stats(values, environments, keep)
    centres = _stats(values, groups, keep) if groups is not None else env_stats
    keys = groups if groups is not None else environments
    out = []
    for i in range(n):
        if not keep[i]:
            out.append(0.0)
            continue
        mean = centres[keys[i]][0]
        advantage = values[i] - mean
        if scale:
            advantage /= env_stats[environments[i]][1] + eps
        out.append(advantage)
    return out


def _stats(values: list[float], keys: Sequence[Hashable], keep: list[bool]) -> dict[Hashable, tuple[float, float]]:
    """Mean and (population) standard deviation of the kept values of each key."""
    buckets: dict[Hashable, list[float]] = {}
    for value, key, kept in zip(values, keys, keep):
        if kept:
            buckets.setdefault(key, []).append(value)
    stats = {}
    for key, bucket in buckets.items():
        mean = math.fsum(bucket) / len(bucket)
        variance = math.fsum((v - mean) ** 2 for v in bucket) / len(bucket)
        stats[key] = (mean, math.sqrt(variance))
    return stats
