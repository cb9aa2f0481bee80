"""The worker pool: ordered results, lazy reading, clean shutdown, and no hang when a worker dies."""

from __future__ import annotations

import os
from concurrent.futures.process import BrokenProcessPool

import pytest

from covert.parallel import CHUNKS_PER_WORKER, worker_pool

_OFFSET = {"value": 0}


def _set_offset(value: int) -> None:
    _OFFSET["value"] = value


def _shift(item: int) -> tuple[int, int]:
    return item + _OFFSET["value"], os.getpid()


def _die(item: int) -> int:
    if item == 5:
        os._exit(3)
    return item


def test_results_in_order_from_initialized_workers() -> None:
    with worker_pool(2, _set_offset, (100,)) as pool:
        results = list(pool.imap(_shift, range(200), chunksize=7))
    assert [value for value, _ in results] == list(range(100, 300))
    assert os.getpid() not in {pid for _, pid in results}


def test_items_are_read_as_results_are_consumed() -> None:
    read = []

    def items():
        for i in range(10_000):
            read.append(i)
            yield i

    with worker_pool(2, _set_offset, (0,)) as pool:
        results = pool.imap(_shift, items(), chunksize=4)
        first = [next(results)[0] for _ in range(3)]
        results.close()
    assert first == [0, 1, 2]
    assert len(read) <= (CHUNKS_PER_WORKER * 2 + 1) * 4


def test_leaving_early_shuts_down_many_times_without_hanging() -> None:
    for _ in range(30):
        with worker_pool(2, _set_offset, (1,)) as pool:
            for value, _ in pool.imap(_shift, range(500), chunksize=16):
                if value == 40:
                    break


def test_a_dead_worker_raises_instead_of_hanging() -> None:
    with worker_pool(2, _set_offset, (0,)) as pool, pytest.raises(BrokenProcessPool):
        list(pool.imap(_die, range(20), chunksize=2))
