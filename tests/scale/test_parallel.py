"""The worker pool: ordered results, lazy reading, clean shutdown, and no hang when a worker dies."""

from __future__ import annotations

import os
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from covert.scale.parallel import CHUNKS_PER_WORKER, WorkerPool

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
    with WorkerPool(2, _set_offset, (100,)) as pool:
        results = list(pool.imap(_shift, range(200), chunksize=7))
    assert [value for value, _ in results] == list(range(100, 300))
    assert os.getpid() not in {pid for _, pid in results}


def test_items_are_read_as_results_are_consumed() -> None:
    read = []

    def items():
        for i in range(10_000):
            read.append(i)
            yield i

    with WorkerPool(2, _set_offset, (0,)) as pool:
        results = pool.imap(_shift, items(), chunksize=4)
        first = [next(results)[0] for _ in range(3)]
        results.close()
    assert first == [0, 1, 2]
    assert len(read) <= (CHUNKS_PER_WORKER * 2 + 1) * 4


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_leaving_early_stops_the_workers_every_time() -> None:
    """Breaking out of the results and leaving the block ends the workers (``multiprocessing.Pool``'s
    terminate hung here about once in 65 such exits)."""
    for _ in range(20):
        with WorkerPool(2, _set_offset, (1,)) as pool:
            pids = set()
            for value, pid in pool.imap(_shift, range(500), chunksize=16):
                pids.add(pid)
                if value == 40:
                    break
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not any(_alive(pid) for pid in pids)


def test_a_dead_worker_raises_instead_of_hanging() -> None:
    with WorkerPool(2, _set_offset, (0,)) as pool, pytest.raises(BrokenProcessPool):
        list(pool.imap(_die, range(20), chunksize=2))


def _covert_setting(_: int) -> str | None:
    return os.environ.get("COVERT_TEST_SETTING")


def test_workers_see_the_callers_covert_settings_of_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fork server starts once; a later pool's workers still get the caller's current COVERT_* values."""
    with WorkerPool(1, _set_offset, (0,)) as first:
        assert list(first.imap(_covert_setting, [0])) == [None]
    monkeypatch.setenv("COVERT_TEST_SETTING", "store-a")
    with WorkerPool(1, _set_offset, (0,)) as pool:
        assert list(pool.imap(_covert_setting, [0, 1])) == ["store-a", "store-a"]
    monkeypatch.delenv("COVERT_TEST_SETTING")
    with WorkerPool(1, _set_offset, (0,)) as pool:
        assert list(pool.imap(_covert_setting, [0])) == [None]
