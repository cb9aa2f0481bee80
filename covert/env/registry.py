"""Discovery of builders: every sub-package of ``builders`` that defines ``BUILDER``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from covert.env.builder import Builder


class UnknownBuilderError(KeyError):
    """A builder name that is not registered."""

    def __str__(self) -> str:
        return str(self.args[0])


@cache
def _discover() -> dict[str, Builder]:
    import builders

    found: dict[str, Builder] = {}
    for module in sorted(pkgutil.iter_modules(builders.__path__), key=lambda m: m.name):
        if not module.ispkg or module.name.startswith("_"):
            continue
        package = importlib.import_module(f"builders.{module.name}")
        builder = getattr(package, "BUILDER", None)
        if not isinstance(builder, Builder):
            raise TypeError(f"builders/{module.name} must define BUILDER = Builder(...)")
        if builder.name != module.name:
            raise ValueError(f"builders/{module.name}: BUILDER.name is {builder.name!r}; it must equal the folder name")
        found[builder.name] = builder
    return found


IMPORTED_PREFIX = "api."  # environments imported from API specs and admitted to the store (covert.imports.envs)
LIVE_PREFIX = "mcp."  # live MCP environments: a real server per episode (covert.imports.live_mcp)


PROCGEN_PREFIX = "procgen."  # tool forms of procedural environments (covert.procgen.tool_forms)


def _imported() -> Any:
    from covert.imports import envs  # imported only when an imported environment is asked for

    return envs


def builder_names() -> list[str]:
    """Names of all registered (hand-written) builders, sorted. Imported environments are named apart
    (:func:`admitted_names`): nothing draws from them (distractors, trainer tool lists) unless asked."""
    return list(_discover())


def admitted_names() -> list[str]:
    """Names of the imported environments the store admits (``api.<id>``), sorted."""
    return list(_imported().admitted_names())


def get_builder(name: str) -> Builder:
    """The builder called ``name``; raises :class:`UnknownBuilderError` naming the known ones. ``api.<id>``
    names an admitted imported environment, ``procgen.<env>`` a procedural environment's tool form, ``mcp.<server>``
    a live MCP environment."""
    found = _discover()
    builder = found.get(name) if isinstance(name, str) else None
    if builder is not None:
        return builder  # a hand-written builder (their names never start with a prefix below)
    if isinstance(name, str) and name.startswith(IMPORTED_PREFIX):
        imported = _imported().admitted_builder(name)
        if imported is None:
            raise UnknownBuilderError(f"unknown environment {name!r}: the store does not admit it "
                                      "(see `covert envs list`; run `covert envs verify`)")
        return imported
    if isinstance(name, str) and name.startswith(PROCGEN_PREFIX):
        from covert.procgen.tool_forms import tool_builder, tool_form_names  # only when one is asked for

        procedural = tool_builder(name)
        if procedural is None:
            raise UnknownBuilderError(f"unknown environment {name!r}; tool forms: "
                                      f"{', '.join(PROCGEN_PREFIX + n for n in tool_form_names())}")
        return procedural
    if isinstance(name, str) and name.startswith(LIVE_PREFIX):
        from covert.imports.live_mcp import live_builder  # imported only when a live environment is asked for

        return live_builder(name)
    if name not in found:
        raise UnknownBuilderError(f"unknown builder {name!r}; known builders: {', '.join(found)} (see `covert list`)")
    return found[name]


def resolve_builders(spec: str | list[str]) -> list[Builder]:
    """Builders from ``"all"``, a comma-separated string or a list of names."""
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise UnknownBuilderError("no builder named; pass --builders all or a comma-separated list")
    if names == ["all"]:
        return list(_discover().values())
    out: list[Builder] = []
    for n in names:
        if n == IMPORTED_PREFIX + "*":  # every admitted imported environment
            out.extend(get_builder(m) for m in admitted_names())
        else:
            out.append(get_builder(n))
    return out
