"""Domain builders. Each sub-package defines ``BUILDER = covert.env.Builder(...)``; :data:`SOURCE` registers
them all with covert's environment registry (as a user's package registers its own)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from covert.env.builder import Builder
from covert.env.source import Source


@cache
def _found() -> dict[str, Builder]:
    found: dict[str, Builder] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module.ispkg or module.name.startswith("_"):
            continue
        package = importlib.import_module(f"{__name__}.{module.name}")
        builder = getattr(package, "BUILDER", None)
        if not isinstance(builder, Builder):
            raise TypeError(f"builders/{module.name} must define BUILDER = Builder(...)")
        if builder.name != module.name:
            raise ValueError(f"builders/{module.name}: BUILDER.name is {builder.name!r}; it must equal the folder name")
        found[builder.name] = builder
    return found


SOURCE = Source(prefix="", builder=lambda name: _found().get(name), names=lambda: list(_found()))
