"""The Ray engine: a command's items as Ray Data tasks, on local Ray or on a cluster.

:class:`RayPool` has the ``imap`` of :class:`covert.scale.parallel.WorkerPool`: it maps a picklable function
over items and yields the results in the items' order (Ray Data keeps it when ``preserve_order`` is
set, and every batch carries the position of its first chunk, checked on arrival). It knows no command:
the function and the per-worker initializer are what it is handed. Items and results travel as pickled
bytes, so Arrow never has to infer a schema for nested rows.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

BLOCKS_PER_WORKER = 2
CHUNKS_PER_BLOCK = 16

_applied: bytes | None = None  # in a Ray worker: the set-up (environment, initializer, arguments) it ran last


def ensure_ray(workers: int, address: str | None = None) -> Any:
    """Connect to the cluster at ``address``, or start local Ray with ``workers`` CPUs; returns ``ray``.

    Does nothing when Ray is already initialised in this process (a caller's own ``ray.init`` wins).
    Without Ray installed: :class:`covert.errors.EngineUnavailable` (one line; exit 2 in the CLI).
    """
    try:
        import ray
        import ray.data  # noqa: F401 - the 'data' extra of ray
    except ImportError:
        from covert.errors import EngineUnavailable

        raise EngineUnavailable("--engine ray needs Ray Data, which is not installed: pip install 'covert[ray]' "
                                "(or use --engine local)") from None
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=max(1, workers), **options)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    return ray


def _prepare(setup: bytes) -> None:
    """Run a pool's set-up in this Ray worker, once: a worker process serves many tasks (and, in one Ray
    session, many pools), so it runs a set-up again only when it is another one than it ran last."""
    global _applied
    if _applied != setup:
        from covert.scale.parallel import apply_environment

        environment, initializer, initargs = pickle.loads(setup)
        apply_environment(environment)
        initializer(*initargs)
        _applied = setup


def _run_chunks(batch: dict[str, Any], setup: bytes, fn: Callable[[Any], Any]) -> dict[str, list[Any]]:
    """One Ray task: ``fn`` over every item of every chunk of a batch (runs on a Ray worker). An exception
    travels back pickled, so the caller sees the one the local engine would raise."""
    _prepare(setup)
    results = []
    for blob in batch["chunk"]:
        try:
            out: Any = ("ok", [fn(item) for item in pickle.loads(blob)])
        except Exception as exc:  # noqa: BLE001 - re-raised by the driver, as it was raised here
            out = ("raised", exc)
        results.append(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    return {"index": [int(i) for i in batch["index"]], "results": results}


def blocks(items: int, workers: int) -> int:
    """How many blocks (one Ray task each) a window of ``items`` chunks is cut into: two per worker, which
    balances the load while keeping Ray Data's per-block overhead small."""
    return max(1, min(items, max(1, workers) * BLOCKS_PER_WORKER))


class RayPool:
    """Ray Data tasks with the ``imap``/``close`` of :class:`covert.scale.parallel.WorkerPool`.

    ``workers`` bounds how many tasks run at once (and sizes local Ray); ``address`` selects a cluster
    (``"auto"``, ``"ray://head:10001"``, ...) instead of local Ray. Each Ray worker runs
    ``initializer(*initargs)`` once, with the caller's ``COVERT_*`` environment variables, before the
    first item it is given. Ray stays up after :meth:`close` (starting it again costs seconds); shut it
    down with ``ray.shutdown()``.
    """

    def __init__(self, workers: int, initializer: Callable[..., None], initargs: tuple[Any, ...],
                 address: str | None = None) -> None:
        from covert.scale.parallel import covert_environment

        self.workers = max(1, workers)
        self._ray = ensure_ray(self.workers, address)
        self._setup = pickle.dumps((covert_environment(), initializer, initargs), protocol=pickle.HIGHEST_PROTOCOL)

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], chunksize: int = 16) -> Iterator[Any]:
        """``fn`` over ``items`` in order, ``chunksize`` items per chunk; ``items`` is read a window at a
        time (one Ray Data dataset each), so a long ``items`` is never all in memory."""
        source = iter(items)
        window = self.workers * BLOCKS_PER_WORKER * CHUNKS_PER_BLOCK
        while True:
            chunks = []
            for _ in range(window):
                chunk = list(islice(source, max(1, chunksize)))
                if not chunk:
                    break
                chunks.append(pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL))
            if not chunks:
                return
            yield from self._window(fn, chunks)
            if len(chunks) < window:
                return

    def _window(self, fn: Callable[[Any], Any], chunks: list[bytes]) -> Iterator[Any]:
        count = blocks(len(chunks), self.workers)
        dataset = self._ray.data.from_items([{"index": i, "chunk": c} for i, c in enumerate(chunks)],
                                            override_num_blocks=count)
        dataset = dataset.map_batches(_run_chunks, batch_size=-(-len(chunks) // count),
                                      fn_kwargs={"setup": self._setup, "fn": fn}, **_task_pool(self._ray, self.workers))
        expected = 0
        for row in dataset.iter_rows():
            if row["index"] != expected:
                raise RuntimeError(f"Ray returned chunk {row['index']} where chunk {expected} was due; order was not kept")
            expected += 1
            status, value = pickle.loads(row["results"])
            if status == "raised":
                raise value
            yield from value
        if expected != len(chunks):
            raise RuntimeError(f"Ray returned {expected} of {len(chunks)} chunks")

    def close(self) -> None:
        """Nothing to stop: a window's tasks end with it, and Ray stays up for the next pool."""

    def __enter__(self) -> RayPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _task_pool(ray: Any, workers: int) -> dict[str, Any]:
    """``map_batches`` keywords that cap concurrent tasks at ``workers`` on any supported Ray version."""
    strategy = getattr(ray.data, "TaskPoolStrategy", None)
    if strategy is not None:
        try:
            return {"compute": strategy(size=max(1, workers))}
        except TypeError:
            pass
    return {"concurrency": max(1, workers)}
