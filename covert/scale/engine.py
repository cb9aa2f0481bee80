"""The one seam every corpus-scale command runs its work through: local worker processes or Ray Data.

A command hands :func:`open_pool` a picklable initializer (what each worker sets up once) and then maps
a picklable module-level function over its items with :func:`ordered_map`; the results come back in
the items' order whatever the engine, so the output is the same bytes on one process, on local workers
and on Ray. This module runs what it is handed and imports no command; Ray is imported only when
``engine="ray"`` is asked for.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from covert.errors import UsageError

ENGINES = ("local", "ray")


class Pool(Protocol):
    """What a command maps its items with: ``imap`` in order, then ``close``."""

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], chunksize: int = 16) -> Iterator[Any]: ...

    def close(self) -> None: ...


def _nothing() -> None:
    """The initializer of work that needs no set-up."""


def open_pool(engine: str, workers: int, initializer: Callable[..., None] = _nothing, initargs: tuple[Any, ...] = (),
              ray_address: str | None = None) -> Pool | None:
    """The pool that runs a command's items, or ``None`` to run them here, in this process.

    ``engine="local"``: ``workers`` processes (:class:`covert.scale.parallel.WorkerPool`), each set up with
    ``initializer(*initargs)``; with one worker, ``None``, after running the initializer here.
    ``engine="ray"``: Ray Data tasks on local Ray sized to ``workers`` CPUs, or on the cluster at
    ``ray_address`` (:class:`covert.scale.ray_engine.RayPool`); each Ray worker runs the initializer once.
    """
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    if engine == "ray":
        from covert.scale.ray_engine import RayPool

        return RayPool(workers, initializer, initargs, ray_address)
    if workers > 1:
        from covert.scale.parallel import WorkerPool

        return WorkerPool(workers, initializer, initargs)
    initializer(*initargs)
    return None


def ordered_map(fn: Callable[[Any], Any], items: Iterable[Any], pool: Pool | None, chunksize: int = 16) -> Iterator[Any]:
    """``fn`` over ``items`` in order: on ``pool``, or here when it is ``None``."""
    return pool.imap(fn, items, chunksize=chunksize) if pool is not None else map(fn, items)


def add_engine_arguments(parser: argparse.ArgumentParser, what: str = "items") -> None:
    """Add ``--engine`` and ``--ray-address`` to a command's parser (every corpus-scale command has both)."""
    parser.add_argument("--engine", choices=ENGINES, default="local",
                        help=f"run the {what} on local worker processes, or as Ray Data tasks (same output)")
    parser.add_argument("--ray-address", default=None,
                        help="Ray cluster address for --engine ray (default: local Ray sized to --workers)")
