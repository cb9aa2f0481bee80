"""Broken: defines an environment class but no ENV."""

from __future__ import annotations

from covert.procgen.contract import ProceduralEnv


class Nothing(ProceduralEnv):
    name = "nothing"
