"""An environment of one tool whose ``name`` argument carries a schema of the caller's (a pattern, a
format): for the tests, fuzzing and benchmark of bounded argument checks."""

from __future__ import annotations

from typing import Any

from covert.env import Environment, tool


def pattern_environment(schema: dict[str, Any]) -> Environment:
    """A fresh environment whose tool ``create(name)`` checks ``name`` against ``schema`` as well."""

    class Probe(Environment):
        name = "pattern_probe"

        @tool
        def create(self, name: str) -> dict:
            """Create a thing.

            Args:
                name: Its name.
            """
            return {"name": name}

    Probe.tool_specs["create"].parameters["properties"]["name"].update(schema)
    return Probe({"tables": {}})
