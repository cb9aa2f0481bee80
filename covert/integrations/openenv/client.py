"""The OpenEnv client of covert environments (an :class:`openenv.core.EnvClient`, async; ``.sync()``
gives the synchronous wrapper)."""

from __future__ import annotations

import asyncio
from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult

from covert.integrations.openenv.models import CovertAction, CovertObservation, CovertState

CONNECT_ATTEMPTS = 5
RETRY_PAUSE_S = 0.5
MAX_RETRY_PAUSE_S = 8.0


class CovertEnv(EnvClient[CovertAction, CovertObservation, CovertState]):
    """A session on a covert OpenEnv server: ``reset(row=...)`` or ``reset(index=N)``, then
    ``step(CovertAction(...))`` until ``result.done``; ``result.reward`` is covert's reward.

    Example::

        with CovertEnv(base_url=server.url).sync() as env:
            result = env.reset(row=row)
            result = env.step(CovertAction(tool_calls=[{"name": "get_order", "arguments": {...}}]))
    """

    def __init__(self, base_url: str, connect_timeout_s: float = 30.0, connect_attempts: int = CONNECT_ATTEMPTS,
                 **kwargs: Any) -> None:
        super().__init__(base_url, connect_timeout_s=connect_timeout_s, **kwargs)
        self._connect_attempts = max(1, int(connect_attempts))

    async def connect(self) -> CovertEnv:
        """Open the session's WebSocket; a handshake that fails or times out (a server busy starting or
        serving many sessions) is tried again, ``connect_attempts`` times in all with a growing pause,
        before the last error is raised with what to change."""
        for attempt in range(1, self._connect_attempts + 1):
            try:
                await super().connect()
                return self
            except ConnectionError as error:
                if attempt == self._connect_attempts:
                    raise ConnectionError(f"{error} (after {attempt} attempts of {self._connect_timeout:.0f} s; "
                                          "give CovertEnv(connect_timeout_s=..., connect_attempts=...) more)") from error
                await asyncio.sleep(min(RETRY_PAUSE_S * 2 ** (attempt - 1), MAX_RETRY_PAUSE_S))
        return self

    def _step_payload(self, action: CovertAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"}, exclude_none=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[CovertObservation]:
        fields = dict(payload.get("observation") or {})
        observation = CovertObservation(**fields, done=payload.get("done", False), reward=payload.get("reward"))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> CovertState:
        return CovertState(**payload)
