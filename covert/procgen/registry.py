"""Discovery of procedural environments: every module of ``covert.procgen.envs`` that defines ``ENV``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from covert.procgen.contract import ProceduralEnv


class UnknownEnvironmentError(KeyError):
    """A procedural environment name that is not registered."""

    def __str__(self) -> str:
        return str(self.args[0])


ASYMMETRIES = ("reason", "verify")


@cache
def _discover() -> dict[str, ProceduralEnv]:
    from covert.procgen import envs

    found: dict[str, ProceduralEnv] = {}
    for module in sorted(pkgutil.iter_modules(envs.__path__), key=lambda m: m.name):
        if module.ispkg or module.name.startswith("_"):
            continue
        loaded = importlib.import_module(f"covert.procgen.envs.{module.name}")
        env = getattr(loaded, "ENV", None)
        if not isinstance(env, ProceduralEnv):
            raise TypeError(f"covert/procgen/envs/{module.name}.py must define ENV = <ProceduralEnv instance>")
        if env.name != module.name:
            raise ValueError(f"covert/procgen/envs/{module.name}.py: ENV.name is {env.name!r}; it must equal "
                             "the module name")
        if env.asymmetry not in ASYMMETRIES:
            raise ValueError(f"covert/procgen/envs/{module.name}.py: asymmetry is {env.asymmetry!r}; use one of "
                             f"{', '.join(ASYMMETRIES)}")
        found[env.name] = env
    return found


def env_names() -> list[str]:
    """Names of all registered procedural environments, sorted."""
    return list(_discover())


def get_env(name: str) -> ProceduralEnv:
    """The environment called ``name``; raises :class:`UnknownEnvironmentError` naming the known ones."""
    found = _discover()
    if name not in found:
        raise UnknownEnvironmentError(f"unknown procedural environment {name!r}; known: {', '.join(found)} "
                                      "(see `covert list`)")
    return found[name]


def resolve_envs(spec: str | list[str]) -> list[ProceduralEnv]:
    """Environments from ``"all"``, a comma-separated string or a list of names (duplicates dropped)."""
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    if not names:
        raise UnknownEnvironmentError("no environment named; pass --envs all or a comma-separated list")
    if names == ["all"]:
        return list(_discover().values())
    return [get_env(n) for n in names]
