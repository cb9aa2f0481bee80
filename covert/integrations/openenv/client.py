"""The OpenEnv client of covert environments (an :class:`openenv.core.EnvClient`, async; ``.sync()``
gives the synchronous wrapper)."""

from __future__ import annotations

from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult

from covert.integrations.openenv.models import CovertAction, CovertObservation, CovertState


class CovertEnv(EnvClient[CovertAction, CovertObservation, CovertState]):
    """A session on a covert OpenEnv server: ``reset(row=...)`` or ``reset(index=N)``, then
    ``step(CovertAction(...))`` until ``result.done``; ``result.reward`` is covert's reward.

    Example::

        with CovertEnv(base_url=server.url).sync() as env:
            result = env.reset(row=row)
            result = env.step(CovertAction(tool_calls=[{"name": "get_order", "arguments": {...}}]))
    """

    def _step_payload(self, action: CovertAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"}, exclude_none=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[CovertObservation]:
        fields = dict(payload.get("observation") or {})
        observation = CovertObservation(**fields, done=payload.get("done", False), reward=payload.get("reward"))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> CovertState:
        return CovertState(**payload)
