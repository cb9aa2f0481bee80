"""The tool server of one verifiers 0.4 rollout: the row's own tools, on a session of its own.

verifiers launches it per rollout (``python -m covert.integrations.verifiers.toolset``) and hands it
the rollout's task data; it lists the row's tools with the row's own JSON schemas and runs each call on
a fresh :class:`~covert.rewards.session.Session` of the row's initial state (with the failures the row
records), as the reward replays them. A call's result is the environment's JSON, an error observation
included (an unknown tool, bad arguments), never a server error.
"""

from __future__ import annotations

from typing import Any

import verifiers.v1 as vf
from mcp.types import CallToolResult, TextContent, Tool

from covert.integrations.verifiers.calls import MAX_CALLS_PER_TURN, row_session, run_call, too_many_calls
from covert.rewards.session import Session

MAX_CALLS_PER_ROLLOUT = 30 * MAX_CALLS_PER_TURN
"""Calls one rollout may run; later ones get the ``too_many_calls`` observation."""


class CovertToolset(vf.Toolset[vf.ToolsetConfig]):
    """One rollout's covert tools (advertised under their own names, without a server prefix)."""

    TOOL_PREFIX = None

    def __init__(self, config: vf.ToolsetConfig) -> None:
        super().__init__(config)
        self.session: Session | None = None
        self.tools: list[dict[str, Any]] = []
        self.calls = 0

    async def setup_task(self, task: Any) -> None:
        """Start the rollout's session on the row the task data holds."""
        self.session, self.tools = row_session(task.row)
        self.calls = 0

    def register(self, mcp: Any) -> None:
        # the row decides the tool list, so the server answers list and call requests itself
        mcp.list_tools = self.list_tools
        mcp.call_tool = self.call_tool

    async def list_tools(self) -> list[Tool]:
        """The row's tools with their own schemas."""
        return [Tool(name=t["name"], description=t["description"] or None, input_schema=t["parameters"])
                for t in self.tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        """Run one call on the rollout's session."""
        self.calls += 1
        text = run_call(self.session, name, arguments) if self.calls <= MAX_CALLS_PER_ROLLOUT else too_many_calls()
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=False)


if __name__ == "__main__":
    CovertToolset.run()
