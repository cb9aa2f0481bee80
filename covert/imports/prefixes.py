"""How the names of the environments the imports stage provides start: admitted imported APIs and live MCP
servers (their sources are in :mod:`covert.imports.sources`)."""

from __future__ import annotations

ADMITTED_PREFIX = "api."  # api.<id>: an imported API the store admits
LIVE_PREFIX = "mcp."  # mcp.<server>: a real MCP server per episode
