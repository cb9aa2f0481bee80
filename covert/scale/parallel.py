"""Worker processes for one machine."""

from __future__ import annotations

import multiprocessing
import os
import select
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from typing import Any

from covert.io.staging import pid_alive

CHUNKS_PER_WORKER = 4
PARENT_POLL_S = 0.5


def _run_chunk(fn: Callable[[Any], Any], chunk: list[Any]) -> list[Any]:
    return [fn(item) for item in chunk]


def _die_with(owner: int) -> None:
    """Make this worker end as soon as ``owner`` (the process that made the pool) ends, however it ends.

    A worker blocks reading its task queue, whose write end it holds itself, so nothing it reads ever
    tells it that a parent killed with SIGKILL is gone. The kernel's parent-death signal does not help
    either: a worker's parent is the fork server, which every worker keeps alive (each holds the pipe
    whose end-of-file would stop it). So a daemon thread waits on a pidfd of the owner (Linux 5.3+),
    which becomes readable the moment the owner exits, or else checks every ``PARENT_POLL_S``; then the
    worker exits at once. It holds nothing to clean up: the owner writes every file.
    """
    parent = os.getppid()

    def orphaned() -> bool:
        return os.getppid() != parent or not pid_alive(owner)

    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(owner)
        except OSError:  # an old kernel, or the owner is already gone
            pidfd = None
    if orphaned():
        os._exit(1)

    def watch() -> None:
        if pidfd is not None:
            select.select([pidfd], [], [])
        else:
            while not orphaned():
                time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="covert-owner-watch", daemon=True).start()


def covert_environment() -> dict[str, str]:
    """The caller's ``COVERT_*`` variables (the environment store, the corpora cache, ...)."""
    return {k: v for k, v in os.environ.items() if k.startswith("COVERT_")}


def apply_environment(environment: dict[str, str]) -> None:
    """Make this process's ``COVERT_*`` variables exactly ``environment`` (a worker started earlier, by a
    fork server or by Ray, keeps the environment of the moment it started)."""
    for key in [k for k in os.environ if k.startswith("COVERT_") and k not in environment]:
        del os.environ[key]
    os.environ.update(environment)


def _start_worker(owner: int, environment: dict[str, str], initializer: Callable[..., None],
                  initargs: tuple[Any, ...]) -> None:
    _die_with(owner)
    apply_environment(environment)
    initializer(*initargs)


class WorkerPool:
    """A process pool that is safe to start from any host process and always shuts down.

    Workers are started by a fork server (Linux) or spawned, never forked from the caller: a caller
    that already runs threads (torch, Ray, an HTTP client: a notebook or a trainer) can deadlock or
    crash forked children. Everything a worker needs arrives through ``initargs``, and the caller's
    ``COVERT_*`` environment variables are set in each worker as they are when the pool starts.

    Built on :class:`concurrent.futures.ProcessPoolExecutor` rather than ``multiprocessing.Pool``:
    ``Pool.terminate()`` can hang for good when it races its result-handler thread (seen here about once
    in 65 builds), and a worker that dies leaves ``Pool.imap`` waiting forever, where the executor raises
    ``BrokenProcessPool``. Always :meth:`close` it (or use it as a context manager): closing cancels what
    has not started.

    Workers die with the process that made the pool, even one killed with SIGKILL (see
    :func:`_die_with`): no worker outlives a killed build.
    """

    def __init__(self, workers: int, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
        method = "forkserver" if sys.platform.startswith("linux") else "spawn"
        self.workers = workers
        self._executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                                             initializer=_start_worker,
                                             initargs=(os.getpid(), covert_environment(), initializer, initargs))

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], chunksize: int = 16) -> Iterator[Any]:
        """``fn`` over ``items`` in order, ``chunksize`` items per task, a bounded number of tasks in flight
        (so a long or endless ``items`` is read as the results are consumed, not all at once)."""
        source = iter(items)
        window = CHUNKS_PER_WORKER * self.workers
        pending: deque[Future] = deque()
        try:
            while True:
                while len(pending) < window:
                    chunk = list(islice(source, chunksize))
                    if not chunk:
                        break
                    pending.append(self._executor.submit(_run_chunk, fn, chunk))
                if not pending:
                    return
                yield from pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()

    def close(self) -> None:
        """Cancel queued work, let running chunks finish, and stop the workers."""
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

