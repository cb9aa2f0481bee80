"""The registry of environments: every source of environments plugs in through one mechanism, the entry-point
group ``covert.environments``, and the registry knows none of them.

An entry point names either a :class:`~covert.env.Builder` (one environment; the entry point's name is the
builder's name) or a :class:`~covert.env.source.Source` (a family resolved by name). A user's package adds
its own in its ``pyproject.toml``::

    [project.entry-points."covert.environments"]
    myenv = "mypkg.env:BUILDER"

covert's own sources (the hand-written ``builders`` package, admitted imported APIs ``api.``, procedural tool
forms ``procgen.``, live MCP servers ``mcp.``) are declared in :data:`FIRST_PARTY` the same way and loaded by
the same code: an editable install's metadata would not show entry points added after it was made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from covert.env.builder import Builder
from covert.env.source import Source

GROUP = "covert.environments"

# covert's own environment sources, as ``(name, "module:attribute")`` entry points of GROUP
FIRST_PARTY = (
    ("builders", "builders:SOURCE"),
    ("api", "covert.imports.sources:ADMITTED"),
    ("procgen", "covert.procgen.sources:TOOL_FORMS"),
    ("mcp", "covert.imports.sources:LIVE"),
)


class UnknownBuilderError(KeyError):
    """A builder name that is not registered."""

    def __str__(self) -> str:
        return str(self.args[0])


class PluginError(UnknownBuilderError):
    """An environment plugin that does not load or does not register an environment (one line, naming it)."""


@dataclass(frozen=True)
class _Plugin:
    """One entry point of the group: its name, its ``module:attribute`` and the distribution declaring it."""

    name: str
    value: str
    distribution: str

    def __str__(self) -> str:
        return f"environment plugin {self.name!r} ({self.value}, from {self.distribution})"

    def load(self) -> Any:
        import importlib.metadata

        try:
            return importlib.metadata.EntryPoint(self.name, self.value, GROUP).load()
        except Exception as exc:  # anything a broken plugin raises on import is reported as that plugin's fault
            detail = str(exc).splitlines()[0] if str(exc) else ""
            raise PluginError(f"{self} does not load: {type(exc).__name__}"
                              f"{': ' + detail if detail else ''}") from exc


def _plugins() -> list[_Plugin]:
    """covert's own sources, then every installed distribution's entry points of the group (sorted)."""
    import importlib.metadata

    found = [_Plugin(name, value, "covert") for name, value in FIRST_PARTY]
    seen = {p.value for p in found}
    installed = sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: (e.name, e.value))
    for entry in installed:
        if entry.value not in seen:  # covert's own, declared again by an installed covert
            seen.add(entry.value)
            found.append(_Plugin(entry.name, entry.value, entry.dist.name if entry.dist else "an unknown distribution"))
    return found


@dataclass(frozen=True)
class _Registry:
    pooled: dict[str, Builder]  # plainly named environments, sorted by name
    sources: dict[str, Source]  # families by prefix, in plugin order


def _checked(plugin: _Plugin, builder: Any, name: str) -> Builder:
    if not isinstance(builder, Builder):
        raise PluginError(f"{plugin} gave a {type(builder).__name__} for {name!r}, not a covert.env.Builder")
    if builder.name != name:
        raise PluginError(f"{plugin}: its Builder is named {builder.name!r}; it must be named {name!r}")
    return builder


@cache
def _registry() -> _Registry:
    pooled: dict[str, tuple[Builder, _Plugin]] = {}
    sources: dict[str, tuple[Source, _Plugin]] = {}
    plain: list[tuple[Builder, _Plugin]] = []
    for plugin in _plugins():
        registered = plugin.load()
        if isinstance(registered, Builder):
            plain.append((_checked(plugin, registered, plugin.name), plugin))
        elif isinstance(registered, Source) and registered.prefix:
            if registered.prefix in sources:
                raise PluginError(f"{plugin} registers names starting {registered.prefix!r}, as "
                                  f"{sources[registered.prefix][1]} does; uninstall one of them")
            sources[registered.prefix] = (registered, plugin)
        elif isinstance(registered, Source):
            plain.extend((_checked(plugin, registered.builder(name), name), plugin) for name in registered.names())
        else:
            raise PluginError(f"{plugin} is a {type(registered).__name__}, not a covert.env.Builder or "
                              "covert.env.source.Source")
    for builder, plugin in plain:
        clash = pooled.get(builder.name)
        if clash is not None:
            raise PluginError(f"{plugin} registers {builder.name!r}, as {clash[1]} does; uninstall one of them")
        prefixed = next((p for p in sources if builder.name.startswith(p)), None)
        if prefixed is not None:
            raise PluginError(f"{plugin} registers {builder.name!r}, a name in {sources[prefixed][1]}'s "
                              f"{prefixed!r} family; rename it")
        pooled[builder.name] = (builder, plugin)
    return _Registry(pooled={name: pooled[name][0] for name in sorted(pooled)},
                     sources={prefix: source for prefix, (source, _) in sources.items()})


def _source_of(name: str) -> Source | None:
    sources = _registry().sources
    return next((sources[p] for p in sorted(sources, key=len, reverse=True) if name.startswith(p)), None)


def builder_names() -> list[str]:
    """Names of the pooled environments (hand-written builders and every plainly named plugin), sorted: what
    ``--builders all``, distractor tools and trainer tool lists draw from. Prefixed families (imported
    ``api.`` environments, ...) are named apart (:func:`source_names`): nothing draws from them unless asked."""
    return list(_registry().pooled)


def source_names(prefix: str | None = None) -> list[str]:
    """The names the prefixed sources list (all of them, or the one whose prefix is ``prefix``), in
    registration order, each source's sorted."""
    sources = _registry().sources
    chosen: Iterable[Source] = sources.values() if prefix is None else [s for p, s in sources.items() if p == prefix]
    return [name for source in chosen for name in sorted(source.names())]


def get_builder(name: str) -> Builder:
    """The environment called ``name``; raises :class:`UnknownBuilderError` naming the known ones. A prefixed
    name (``api.<id>``, ``procgen.<env>``, ``mcp.<server>``, a plugin's own) is resolved by its source."""
    registry = _registry()
    builder = registry.pooled.get(name) if isinstance(name, str) else None
    if builder is not None:
        return builder
    source = _source_of(name) if isinstance(name, str) else None
    if source is not None:
        builder = source.builder(name)
        if builder is None:
            raise UnknownBuilderError(f"unknown environment {name!r}{'; ' + source.hint if source.hint else ''}")
        return builder
    raise UnknownBuilderError(f"unknown builder {name!r}; known builders: {', '.join(registry.pooled)} "
                              "(see `covert list`)")


def resolve_builders(spec: str | list[str]) -> list[Builder]:
    """Builders from ``"all"``, a comma-separated string or a list of names; ``<prefix>*`` (``api.*``) names every
    environment that source lists."""
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise UnknownBuilderError("no builder named; pass --builders all or a comma-separated list")
    if names == ["all"]:
        return list(_registry().pooled.values())
    out: list[Builder] = []
    for n in names:
        if n.endswith("*") and n[:-1] in _registry().sources:  # every environment one family lists
            out.extend(get_builder(m) for m in source_names(n[:-1]))
        else:
            out.append(get_builder(n))
    return out
