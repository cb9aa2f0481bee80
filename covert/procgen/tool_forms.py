"""Tool-call forms of procedural environments, served as builders named ``procgen.<env>``.

A procedural environment with a tool form (MAPF-FrozenLake's ``look``/``move``/``wait``,
:mod:`covert.procgen.mapf_tools`) is not a fixed database: each instance brings its own initial state (the
map and the agents). Its rows carry that state in ``extra_info.initial_state`` like every tool row, and the
environment class comes from a :class:`~covert.env.Builder` that :func:`covert.env.get_builder` resolves for
the name ``procgen.<env>`` (so the reward's replay, ``covert validate``, TRL's environment classes and verl's
tools find it). These builders are not in :func:`covert.env.builder_names`: nothing draws from them unless a
row names them.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from covert.env import Builder
from covert.env.language import Language
from covert.procgen.contract import ProceduralEnv
from covert.procgen.registry import UnknownEnvironmentError, get_env
from covert.procgen.tool_form import PREFIX, ToolForm


def _forms() -> dict[str, ToolForm]:
    from covert.procgen.mapf_tools import TOOL_FORM

    return {TOOL_FORM.env: TOOL_FORM}


def tool_form_names() -> list[str]:
    """The procedural environments that have a tool form, sorted."""
    return sorted(_forms())


def get_tool_form(env: str) -> ToolForm | None:
    """The tool form of procedural environment ``env``, or ``None`` when it has none."""
    return _forms().get(env)


@cache
def tool_builder(name: str) -> Builder | None:
    """The builder ``procgen.<env>`` of a tool form, or ``None`` when ``name`` names none."""
    if not isinstance(name, str) or not name.startswith(PREFIX):
        return None
    form = get_tool_form(name[len(PREFIX):])
    if form is None:
        return None
    try:
        env = get_env(form.env)
    except UnknownEnvironmentError:
        return None

    def make_state(rng: random.Random, scale: int) -> dict[str, Any]:
        # an instance of the environment's default configuration, drawn from the rng's seed
        instance = env.sample(rng.getrandbits(32), env.default_config(), 0)
        return form.initial_state(instance.data)

    return Builder(
        name=form.builder_name, version=builder_version(env, form), description=f"{env.description} (tool form)",
        environment=form.environment, make_state=make_state,
        language=Language(scope=env.description, intents={}, references={}, entity_tables={}, values={}),
        system_prompt=form.system_prompt, license=env.license,
        sources=(f"covert procedural environment {env.name} {env.version}; all values are synthetic.",),
        confirm_writes=False,
    )


def builder_version(env: ProceduralEnv, form: ToolForm) -> str:
    """The builder version of a tool form: the environment's version and the form's."""
    return f"{env.version}.{form.version}"

