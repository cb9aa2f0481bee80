"""covert environments for verifiers (``pip install "covert[verifiers]"``; the classic
``verifiers`` API, 0.3.x): ``verifiers.load_environment("covert.integrations.verifiers",
dataset="data/covert-tools")`` or :func:`load_environment` itself.

Each example is a covert RL row: its ``prompt``, its own tools (``info["tool_defs"]``, so every
rollout is shown the row's tools and no others) and the row itself (``info["covert_row"]``, JSON).
A rollout runs on a fresh :class:`~covert.rewards.session.Session` of the row's initial state (with
the failures the row records); a message without tool calls goes to covert's template user on rows
with a user scenario, and ends the rollout otherwise. The rubric is ``covert.rewards.score``.
"""

from __future__ import annotations

from covert.errors import missing_extra

try:
    from covert.integrations.verifiers.environment import (
        CovertMultiTurnEnv,
        covert_reward,
        load_environment,
        verifiers_dataset,
    )
except ImportError as exc:
    raise missing_extra(exc, "covert.integrations.verifiers", "verifiers") from None

__all__ = ["CovertMultiTurnEnv", "covert_reward", "load_environment", "verifiers_dataset"]
