"""Worker processes for one machine."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable
from typing import Any


def worker_pool(workers: int, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> Any:
    """A process pool that is safe to start from any host process.

    Workers are started by a fork server (Linux) or spawned, never forked from the caller: a caller
    that already runs threads (torch, Ray, an HTTP client: a notebook or a trainer) can deadlock or
    crash forked children. Everything a worker needs arrives through ``initargs``.
    """
    method = "forkserver" if sys.platform.startswith("linux") else "spawn"
    return multiprocessing.get_context(method).Pool(workers, initializer=initializer, initargs=initargs)
