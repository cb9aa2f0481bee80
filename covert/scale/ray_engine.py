"""The Ray engine: a build's items as Ray Data tasks, on local Ray or on a cluster.

The engine runs the work it is handed: every item is a pure function of its spec (a build hands
:func:`covert.build.work_item` bound to its seed and split ratios), so where it runs does not matter; the writer only needs the outcomes back in spec order, which Ray Data keeps
when ``preserve_order`` is set. Specs and outcomes travel as pickled bytes, so Arrow never has to
infer a schema for the nested rows.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable, Iterator, Sequence
from typing import Any

BLOCKS_PER_WORKER = 2


def ensure_ray(workers: int, address: str | None = None) -> Any:
    """Connect to the cluster at ``address``, or start local Ray with ``workers`` CPUs; returns ``ray``.

    Does nothing when Ray is already initialised in this process (a caller's own ``ray.init`` wins).
    """
    try:
        import ray
    except ImportError:
        raise ImportError("the ray engine needs Ray: pip install 'covert[ray]' (or 'ray[data]')") from None
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


def _run_batch(batch: dict[str, Any], work: Callable[[Any], tuple]) -> dict[str, list[Any]]:
    """One Ray task: run ``work`` on every item of a batch (on a Ray worker). The outcomes come back as one
    row, one pickle for the whole batch: the driver's cost per Ray row is far above its cost per item."""
    outcomes = [work(pickle.loads(blob)) for blob in batch["spec"]]
    return {"first": [int(batch["index"][0])], "outcomes": [pickle.dumps(outcomes, protocol=pickle.HIGHEST_PROTOCOL)]}


def blocks(items: int, workers: int) -> int:
    """How many blocks (one Ray task each) a round is cut into: two per worker, which balances the load
    while keeping Ray Data's per-block overhead small."""
    return max(1, min(items, max(1, workers) * BLOCKS_PER_WORKER))


def ray_outcomes(work: Callable[[Any], tuple], specs: Sequence[Any], workers: int,
                 ray_address: str | None = None) -> Iterator[tuple]:
    """Yield ``work(spec)`` for every spec, in order, as Ray Data tasks. ``work`` is the work it is handed (a
    picklable callable, such as a :func:`functools.partial` of :func:`covert.build.work_item`): the engine
    knows nothing of what an item is.

    ``workers`` bounds how many tasks run at once (and sizes local Ray); ``ray_address`` selects a
    cluster (``"auto"``, ``"ray://head:10001"``, ...) instead of local Ray.
    """
    if not specs:
        return
    ray = ensure_ray(workers, ray_address)
    items = [{"index": i, "spec": pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)} for i, spec in enumerate(specs)]
    count = blocks(len(specs), workers)
    dataset = ray.data.from_items(items, override_num_blocks=count).map_batches(
        _run_batch, batch_size=-(-len(specs) // count), fn_kwargs={"work": work}, **_task_pool(ray, workers))
    expected = 0
    for row in dataset.iter_rows():
        if row["first"] != expected:
            raise RuntimeError(f"Ray returned item {row['first']} where item {expected} was due; order was not kept")
        outcomes = pickle.loads(row["outcomes"])
        expected += len(outcomes)
        yield from outcomes
    if expected != len(specs):
        raise RuntimeError(f"Ray returned {expected} of {len(specs)} items")


def _task_pool(ray: Any, workers: int) -> dict[str, Any]:
    """``map_batches`` keywords that cap concurrent tasks at ``workers`` on any supported Ray version."""
    strategy = getattr(ray.data, "TaskPoolStrategy", None)
    if strategy is not None:
        try:
            return {"compute": strategy(size=max(1, workers))}
        except TypeError:
            pass
    return {"concurrency": max(1, workers)}
