"""The environment runtime: tools, state, environments, builders and their registry.

This package is the foundation: it imports nothing from the rest of covert.
"""

from __future__ import annotations

from typing import Any

from covert.env.builder import Builder, item_rng
from covert.env.environment import Environment, error_observation, is_error
from covert.env.language import Intent, Language, Reference
from covert.env.registry import UnknownBuilderError, builder_names, get_builder, resolve_builders
from covert.env.schema import Entity, SchemaError
from covert.env.state import State, StateChange, canonical_bytes, copy_json
from covert.env.tools import ToolError, ToolSpec, tool

__all__ = [
    "Builder",
    "Entity",
    "Environment",
    "Intent",
    "Language",
    "Reference",
    "SchemaError",
    "State",
    "StateChange",
    "ToolError",
    "ToolSpec",
    "UnknownBuilderError",
    "builder_names",
    "canonical_bytes",
    "copy_json",
    "error_observation",
    "from_row",
    "get_builder",
    "is_error",
    "item_rng",
    "resolve_builders",
    "tool",
]


def from_row(row: dict[str, Any]) -> Environment:
    """The environment of a dataset row (SFT or RL), reset to the row's initial state."""
    extra = row.get("extra_info") or {}
    name = row.get("environment") or row.get("builder")
    state = extra.get("initial_state") if isinstance(extra, dict) else None
    if state is None:
        state = row.get("initial_state")
    if not name or state is None:
        raise ValueError("row has no environment name or initial state; pass a covert SFT or RL row")
    if isinstance(state, (str, bytes)):
        return get_builder(name).env(State.from_json(state))
    if isinstance(state, dict):  # rows of one world start from equal states: their snapshot is built once
        return get_builder(name).env(State.recalled(state, copy=True))
    return get_builder(name).env(state)
