"""What a tool form of a procedural environment is: the tools, prompts and oracle that play it through tool
calls (each one is registered in :mod:`covert.procgen.tool_forms`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from covert.env import Environment, State
from covert.procgen.contract import Instance

PREFIX = "procgen."
"""Builder names of tool forms: ``procgen.<env>``."""


@dataclass(frozen=True)
class ToolForm:
    """How one procedural environment is played through tools.

    Attributes:
        env: The procedural environment's name.
        version: Version of the tool form (tools, state layout, prompts); the builder's version is
            ``<env version>.<this>``.
        environment: The :class:`Environment` subclass holding the tools.
        system_prompt: The system message of every row.
        initial_state: ``instance data -> {"tables": ..., "counters": ...}``.
        expected_state: ``instance data -> State`` an optimal play leaves.
        prompt: ``instance data -> user message``.
        oracle: ``instance -> groups of calls`` (one group per assistant turn) that reach the expected state.
        answer: ``instance data -> final assistant message`` of the SFT row.
        max_calls: The most oracle calls a row may hold (the scorer's bound on oracle calls).
    """

    env: str
    version: str
    environment: type[Environment]
    system_prompt: str
    initial_state: Callable[[dict[str, Any]], dict[str, Any]]
    expected_state: Callable[[dict[str, Any]], State]
    prompt: Callable[[dict[str, Any]], str]
    oracle: Callable[[Instance], list[list[dict[str, Any]]]]
    answer: Callable[[dict[str, Any]], str]
    max_calls: int = 256

    @property
    def builder_name(self) -> str:
        """``procgen.<env>``."""
        return PREFIX + self.env
