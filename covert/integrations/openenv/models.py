"""The action, observation and state of a covert episode on OpenEnv (pydantic models)."""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class CovertAction(Action):
    """One assistant message: text and/or tool calls.

    ``tool_calls`` are OpenAI-style (``{"id", "type", "function": {"name", "arguments"}}``) or flat
    ``{"name", "arguments"}`` objects; ``arguments`` is an object or its JSON text. Calls written in the
    text (hermes ``<tool_call>`` blocks, a python-style or JSON call list) are read too, so a model's
    raw output can be sent as ``content``. A message without calls goes to the simulated user (rows
    with a user scenario) or is the final answer. The fields are checked by the environment, not by
    the schema, so a malformed message gets an error observation rather than a protocol error.
    """

    content: Any = Field(default="", description="The assistant's text (may hold tool-call blocks)")
    tool_calls: Any = Field(default=None, description="OpenAI-style tool calls")


class CovertObservation(Observation):
    """What the agent sees after a reset or a step.

    ``messages`` are the new messages: on reset the row's prompt, after a step the tool results (one
    ``role: "tool"`` message per call) or the simulated user's reply. ``reward`` is set when ``done``.
    """

    messages: list[dict[str, Any]] = Field(default_factory=list, description="New messages, in order")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The row's tools (on reset)")
    task_id: str = Field(default="", description="The row's task id")
    error: str | None = Field(default=None, description="Why the action could not be (fully) read")
    stop: str | None = Field(default=None, description="Why the episode ended (done, no_user, turn_limit, ...)")
    components: dict[str, float] = Field(default_factory=dict, description="Reward components (when done)")
    reasons: list[str] = Field(default_factory=list, description="Why the reward is below 1 (when done)")


class CovertState(State):
    """The server-side state of an episode (``GET /state`` / the ``state`` message)."""

    task_id: str = Field(default="", description="The row's task id")
    builder: str = Field(default="", description="The row's builder")
    state_hash: str = Field(default="", description="Hash of the environment state now")
    calls: int = Field(default=0, ge=0, description="Tool calls run so far")
    done: bool = Field(default=False, description="Whether the episode has ended")
    reward: float | None = Field(default=None, description="The episode's reward, once done")
