"""What kind of dataset a folder holds, so that a command that does not apply to it says so in one line.

covert writes three kinds of dataset folder, all in the same Hub layout:

- ``tools``: tool-use tasks of ``covert build`` (configs ``sft``, ``rl``, and what ``--multi-turn``,
  ``covert augment``, ``covert evolve`` and ``covert calibrate`` add to them);
- ``procgen``: instances of procedural environments (``covert procgen``, ``covert mapf-benchmark``,
  ``covert evolve-procgen``; configs ``sft-procgen``/``rl-procgen``, their ``-tools`` form and ``-gN``
  generations);
- ``live-mcp``: tasks on a live MCP server (``covert live-mcp git``; configs ``sft``, ``rl``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from covert.io.features import base_config

__all__ = ["KINDS", "dataset_kind", "does_not_apply", "row_labels", "text_config"]

KINDS = {
    "tools": "a tool dataset (covert build)",
    "procgen": "a procedural dataset (covert procgen)",
    "live-mcp": "a live-MCP dataset (covert live-mcp)",
}


def dataset_kind(manifest: dict[str, Any]) -> str:
    """``"tools"``, ``"procgen"`` or ``"live-mcp"``: which command family wrote the manifest's dataset."""
    if manifest.get("kind") == "procgen":
        return "procgen"
    if "config" not in manifest and str(manifest.get("environment", "")).startswith("mcp."):
        return "live-mcp"
    return "tools"


def text_config(config: str) -> bool:
    """Whether a config's rows are procedural text tasks (prompt and answer; no tools, no oracle calls)."""
    return base_config(config) in ("sft-procgen", "rl-procgen")


def does_not_apply(command: str, root: str | Path, manifest: dict[str, Any], applies_to: str,
                   instead: str = "") -> str:
    """The one line a command prints when a dataset is of a kind it does not work on: what the dataset
    is, what the command works on, and (``instead``) what to run for this one."""
    configs = sorted({key.split("/", 1)[0] for key in manifest.get("rows", {})})
    line = (f"`covert {command}` does not apply to {root}: it is {KINDS[dataset_kind(manifest)]}, with configs "
            f"{', '.join(configs) or 'none'}; {command} works on {applies_to}")
    return f"{line}; {instead}" if instead else line


def row_labels(row: dict[str, Any]) -> tuple[str, str]:
    """``(builder, category)`` of any row: a procedural row's environment and ``level N`` stand in for
    the builder and category it does not have."""
    builder = row.get("builder") or row.get("environment") or ""
    category = row.get("category") or (f"level {row['level']}" if row.get("level") is not None else "")
    return str(builder), str(category)
