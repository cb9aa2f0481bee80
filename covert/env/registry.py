"""Discovery of builders: every sub-package of ``builders`` that defines ``BUILDER``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

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


def builder_names() -> list[str]:
    """Names of all registered builders, sorted."""
    return list(_discover())


def get_builder(name: str) -> Builder:
    """The builder called ``name``; raises :class:`UnknownBuilderError` naming the known ones."""
    found = _discover()
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
    return [get_builder(n) for n in names]
