"""The environment sources the imports stage registers: admitted imported APIs (``api.<id>``) and live MCP
servers (``mcp.<server>``). Each module behind them is imported only when one of its names is asked for."""

from __future__ import annotations

from collections.abc import Iterable

from covert.env.builder import Builder
from covert.env.source import Source
from covert.imports.prefixes import ADMITTED_PREFIX, LIVE_PREFIX


def _admitted_builder(name: str) -> Builder | None:
    from covert.imports.envs import admitted_builder

    return admitted_builder(name)


def _admitted_names() -> Iterable[str]:
    from covert.imports.envs import admitted_names

    return admitted_names()


def _live_builder(name: str) -> Builder:
    from covert.imports.live_mcp import live_builder

    return live_builder(name)


ADMITTED = Source(prefix=ADMITTED_PREFIX, builder=_admitted_builder, names=_admitted_names,
                  hint="the store does not admit it (see `covert envs list`; run `covert envs verify`)")
LIVE = Source(prefix=LIVE_PREFIX, builder=_live_builder)
