"""A builder: one domain's environment class, seeded state factory and language resources."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from covert.env.environment import Environment
from covert.env.language import Language
from covert.env.state import State, canonical_bytes

StateFactory = Callable[[random.Random, int], dict[str, Any]]


def item_rng(*parts: object) -> random.Random:
    """A generator seeded from its parts (e.g. builder, seed, index), the same in every process."""
    return random.Random(":".join(str(p) for p in parts))


@dataclass(frozen=True, eq=False)
class Builder:
    """One domain. Register it by defining ``BUILDER = Builder(...)`` in ``builders/<name>/__init__.py``.

    Attributes:
        name: Short name, equal to the builder's folder name.
        version: Bump it whenever the output for a given seed would change.
        description: One line on what the domain is.
        environment: The :class:`Environment` subclass holding the tools.
        make_state: ``(rng, scale) -> {"tables": ..., "counters": ...}``; ``scale=1`` is a small
            per-task state, larger scales multiply the number of records.
        language: How users talk to the tools.
        system_prompt: The domain policy the assistant follows (short).
        license: License of the builder's content; datasets built from it carry it.
        sources: Where the builder's content comes from (cited in dataset cards).
        confirm_writes: Whether the domain policy asks the assistant to confirm before changing state
            (multi-turn conversations then include a confirmation turn before each write).
        tasks_per_state: At most this many tasks of a build share one seeded initial state (``None``: as
            many as the build's ``tasks_per_state``). An imported API's state holds one project and
            region, so sharing it over many tasks would have their requests name the same scope again
            and again.
    """

    name: str
    version: str
    description: str
    environment: type[Environment]
    make_state: StateFactory
    language: Language
    system_prompt: str
    license: str = "Apache-2.0"
    sources: tuple[str, ...] = ("Written for covert; all values are synthetic.",)
    confirm_writes: bool = True
    tasks_per_state: int | None = None

    def state(self, seed: int, index: int, scale: int = 1) -> State:
        """The seeded initial state of item ``index`` of run ``seed``."""
        return State.from_dict(self.make_state(item_rng(self.name, seed, index), scale), copy=False)

    def env(self, state: State | dict[str, Any] | None = None) -> Environment:
        """A fresh environment, optionally reset to ``state``."""
        return self.environment(state)

    @property
    def tools(self) -> dict[str, Any]:
        """Tool specs by name."""
        return self.environment.tool_specs

    def summary(self) -> dict[str, Any]:
        """What ``covert list`` prints for this builder."""
        specs = list(self.tools.values())
        writes = sum(1 for s in specs if s.writes)
        return {
            "name": self.name,
            "version": self.version,
            "description": self.description,
            "tools": len(specs),
            "read_tools": len(specs) - writes,
            "write_tools": writes,
            "license": self.license,
        }

    def fingerprint(self, samples: int = 3) -> str:
        """Hash of what the builder produces: tool specs and the states of a few seeds."""
        digest = hashlib.sha256()
        for spec in self.tools.values():
            digest.update(canonical_bytes([spec.openai(), spec.metadata()]))
        for index in range(samples):
            digest.update(self.state(0, index).hash().encode())
        return digest.hexdigest()[:16]
