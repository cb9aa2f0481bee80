"""The contract of a procedural environment: a program that samples instances, solves and scores them.

A procedural environment (EvoEnv's "environment as an executable object") is one module in
``covert/procgen/envs/`` that defines ``ENV = <ProceduralEnv subclass instance>``. It has:

- a ``name`` (equal to the module name) and a ``version`` (bump it whenever any output changes);
- ``knobs``: the configuration attributes, each with *ordered* difficulty levels (easiest first);
  a configuration is a mapping knob name -> one of that knob's levels;
- three pure functions: :meth:`ProceduralEnv.sample`, :meth:`ProceduralEnv.reference` and
  :meth:`ProceduralEnv.score`;
- a solver ladder, :meth:`ProceduralEnv.ladder`: independent solvers of increasing strength, each with a
  work budget, whose responses the environment's own ``score`` judges. They read the instance as a
  solver sees it (``hidden_fields``, the data that holds the answer, removed), so the difficulty of a
  configuration is measured (:mod:`covert.procgen.ladder`), not assumed;
- :meth:`ProceduralEnv.statistics`: numeric facts of an instance (sizes, counts) that stage summaries
  average and the knob tests compare.

Everything is deterministic per (name, version, seed, config, index) in any process: sampling draws only
from :func:`instance_rng`, never from global state, hash randomisation or the clock.

``reference`` and ``score`` read only ``instance.data``: a dataset row stores the data as ground truth,
and rewards (``covert.rewards.score``, verl's ``compute_score``) rebuild the instance from it with an
empty prompt. Instance data holds JSON values only (no floats: loaders read them back imprecisely).
Registration, datasets, validation and admission: :mod:`covert.procgen.registry`,
:mod:`covert.procgen.dataset`, :mod:`covert.procgen.validate`, :mod:`covert.procgen.admission`.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

JSONValue = Any


class ConfigError(ValueError):
    """A configuration that names an unknown knob or a value outside a knob's levels."""


@dataclass(frozen=True)
class Knob:
    """One configuration attribute.

    Attributes:
        name: The knob's name (snake_case).
        levels: The values it may take, ordered from easiest to hardest (JSON scalars).
        description: What the knob changes, in one line.
    """

    name: str
    levels: tuple[JSONValue, ...]
    description: str = ""

    def level_of(self, value: JSONValue) -> int:
        """The difficulty rank of ``value`` (0 = easiest); :class:`ConfigError` if it is not a level."""
        for rank, level in enumerate(self.levels):
            if level == value and type(level) is type(value):
                return rank
        raise ConfigError(f"knob {self.name!r} takes one of {list(self.levels)}, not {value!r}")


@dataclass(frozen=True)
class Instance:
    """One sampled problem.

    Attributes:
        prompt: The text shown to the model.
        data: Hidden data the reference and the scorer need (JSON-serialisable; stored as ground truth).
    """

    prompt: str
    data: dict[str, JSONValue]


@dataclass(frozen=True)
class Score:
    """A scored response.

    Attributes:
        value: In [0, 1]; 1 means fully correct.
        reasons: Short snake_case codes saying why the score is below 1 (``unparsable``, ``wrong_total``...);
            empty for a correct response.
        details: Further named results (``{"valid": True, "optimal": False, "makespan": 7}``).
    """

    value: float
    reasons: tuple[str, ...] = ()
    details: dict[str, JSONValue] = field(default_factory=dict)


class BudgetExceeded(RuntimeError):
    """A ladder solver spent more work than its budget allows (it gives up on the instance)."""


@dataclass
class Budget:
    """The work a ladder solver may do on one instance, in the rung's unit (nodes, flips, table cells).

    Attributes:
        limit: Units allowed.
        spent: Units spent so far.
    """

    limit: int
    spent: int = 0

    def spend(self, units: int = 1) -> None:
        """Count ``units`` of work; raise :class:`BudgetExceeded` once more than ``limit`` is spent."""
        self.spent += units
        if self.spent > self.limit:
            raise BudgetExceeded(f"spent more than {self.limit} units")


@dataclass(frozen=True)
class Rung:
    """One solver of an environment's ladder.

    Attributes:
        name: Short name (``greedy``, ``dp``, ``cbs_400``).
        budget: Work units it may spend per instance.
        unit: What a unit counts (``nodes``, ``flips``, ``cells``, ``steps``).
        solve: ``solve(instance, budget) -> response text``, or ``None`` when it finds no answer. It reads
            only the solver's view of the instance (no ``hidden_fields``) and calls ``budget.spend``
            as it works; running out raises :class:`BudgetExceeded`, which counts as giving up.
    """

    name: str
    budget: int
    unit: str
    solve: Callable[[Instance, Budget], str | None]


class ProceduralEnv:
    """Base class of procedural environments. Subclasses set the class attributes and the three methods.

    Attributes:
        name: Equal to the module name in ``covert/procgen/envs``.
        version: Bump on any change to sampling, reference or scoring.
        description: One line.
        knobs: The configuration attributes with their ordered levels.
        asymmetry: ``"reason"`` (hard to reason through, trivial as code) or ``"verify"`` (hard to solve,
            easy to verify).
        license: License of the environment's content.
        hidden_fields: Keys of ``instance.data`` that hold the answer (the optimum, a planted solution):
            ladder solvers never see them.
    """

    name: ClassVar[str]
    version: ClassVar[str]
    description: ClassVar[str]
    knobs: ClassVar[tuple[Knob, ...]]
    asymmetry: ClassVar[str]
    license: ClassVar[str] = "Apache-2.0"
    hidden_fields: ClassVar[tuple[str, ...]] = ()

    # -- the three pure functions -------------------------------------------------------------------

    def sample(self, seed: int, config: dict[str, JSONValue], index: int) -> Instance:
        """Instance ``index`` of run ``seed`` under ``config``. Draw randomness only from
        ``instance_rng(self, seed, config, index)``."""
        raise NotImplementedError

    def reference(self, instance: Instance) -> str:
        """A correct response to ``instance``, written as a model should write it (scores 1)."""
        raise NotImplementedError

    def score(self, instance: Instance, response: str) -> Score:
        """Score any text: accept every correct answer (not only the reference), parse the forms models
        write answers in, and never raise, whatever the text (empty, garbage, megabytes)."""
        raise NotImplementedError

    # -- measured difficulty ---------------------------------------------------------------------------

    def ladder(self) -> tuple[Rung, ...]:
        """Independent, non-LLM solvers of increasing strength, weakest first (none by default)."""
        return ()

    def statistics(self, instance: Instance) -> dict[str, float]:
        """Numeric facts of ``instance`` (sizes, counts), averaged per configuration by stage summaries."""
        return {}

    def solver_view(self, instance: Instance) -> Instance:
        """``instance`` as a ladder solver sees it: the data without :attr:`hidden_fields`."""
        return Instance(instance.prompt, {k: v for k, v in instance.data.items() if k not in self.hidden_fields})

    # -- configurations ------------------------------------------------------------------------------

    def knob(self, name: str) -> Knob:
        """The knob called ``name``."""
        for knob in self.knobs:
            if knob.name == name:
                return knob
        raise ConfigError(f"{self.name} has no knob {name!r}; knobs: {', '.join(k.name for k in self.knobs)}")

    def config_at(self, level: int) -> dict[str, JSONValue]:
        """The configuration with every knob at difficulty ``level`` (clamped to each knob's range)."""
        return {k.name: k.levels[max(0, min(level, len(k.levels) - 1))] for k in self.knobs}

    def default_config(self) -> dict[str, JSONValue]:
        """The easiest configuration."""
        return self.config_at(0)

    def check_config(self, config: dict[str, JSONValue]) -> dict[str, JSONValue]:
        """``config`` completed with defaults and checked against the knobs' levels; raises ConfigError."""
        names = {k.name for k in self.knobs}
        unknown = sorted(set(config) - names)
        if unknown:
            raise ConfigError(f"{self.name} has no knob {unknown[0]!r}; knobs: {', '.join(sorted(names))}")
        full = {**self.default_config(), **config}
        for knob in self.knobs:
            knob.level_of(full[knob.name])
        return {k.name: full[k.name] for k in self.knobs}

    def config_schema(self) -> dict[str, Any]:
        """The configuration as a JSON Schema (each knob an enum of its levels, easiest first)."""
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {k.name: {"enum": list(k.levels), "description": k.description} for k in self.knobs},
        }

    def summary(self) -> dict[str, Any]:
        """What ``covert list`` prints for this environment."""
        return {"name": self.name, "version": self.version, "kind": "procedural", "description": self.description,
                "knobs": len(self.knobs), "asymmetry": self.asymmetry, "license": self.license}


def config_key(config: dict[str, JSONValue]) -> str:
    """A canonical text of a configuration (sorted keys, compact)."""
    return json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def instance_rng(env: ProceduralEnv, seed: int, config: dict[str, JSONValue], index: int) -> random.Random:
    """The only source of randomness for sampling: the same in every process for the same inputs."""
    key = f"{env.name}:{env.version}:{seed}:{config_key(config)}:{index}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:16], "big"))
