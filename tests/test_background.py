"""The background writer thread: order, errors, bounded memory, and identical Parquet bytes."""

from __future__ import annotations

import threading

import pytest

from covert.io.background import Background
from covert.io.parquet import ShardWriter, encode_row, sha256_file


def test_calls_run_in_order_on_another_thread() -> None:
    seen: list[tuple[int, int]] = []
    with Background(depth=2) as background:
        for i in range(50):
            background.submit(lambda i=i: seen.append((i, threading.get_ident())))
        background.drain()
        assert [i for i, _ in seen] == list(range(50))
    assert {ident for _, ident in seen} != {threading.get_ident()} and len({ident for _, ident in seen}) == 1


def test_an_error_stops_later_calls_and_reaches_the_caller() -> None:
    ran: list[str] = []

    def fail() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"), Background() as background:
        background.submit(fail)
        background.submit(ran.append, "after")
        background.drain()
    assert ran == []


def test_submit_raises_an_earlier_error() -> None:
    background = Background()
    background.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        background.drain()
    with pytest.raises(ZeroDivisionError):
        background.submit(print, "never")
    background.close()
    with pytest.raises(ZeroDivisionError):
        background.submit(print, "never")


def test_leaving_on_an_error_waits_for_the_running_call_and_discards_the_rest() -> None:
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def running() -> None:
        started.set()
        release.wait()
        ran.append("running")

    with pytest.raises(KeyboardInterrupt), Background(depth=4) as background:
        background.submit(running)
        background.submit(ran.append, "queued")
        started.wait()
        threading.Timer(0.05, release.set).start()
        raise KeyboardInterrupt
    assert ran == ["running"]


def test_the_queue_is_bounded() -> None:
    release = threading.Event()
    background = Background(depth=1)
    background.submit(release.wait)          # running
    background.submit(lambda: None)          # waiting: the queue is now full
    extra = threading.Thread(target=background.submit, args=(lambda: None,))
    extra.start()
    extra.join(timeout=0.2)
    blocked = extra.is_alive()
    release.set()
    extra.join()
    background.close()
    assert blocked, "a third call was accepted while one ran and one waited (depth=1)"


def test_a_closed_background_refuses_work() -> None:
    background = Background()
    background.close()
    background.close()
    with pytest.raises(RuntimeError, match="closed"):
        background.submit(print, "never")


def test_shards_written_in_the_background_are_byte_identical(tmp_path) -> None:
    rows = [encode_row(_row(i), "sft") for i in range(1203)]
    paths = {}
    for mode in ("inline", "background"):
        with Background(depth=2) as background:
            writer = ShardWriter(tmp_path / mode, "sft", "train", 500, background if mode == "background" else None)
            for row in rows:
                writer.add(row)
            paths[mode] = writer.close()
    assert [p.name for p in paths["inline"]] == [p.name for p in paths["background"]]
    assert len(paths["inline"]) == 3
    for inline, background in zip(paths["inline"], paths["background"], strict=True):
        assert sha256_file(inline) == sha256_file(background)


def _row(i: int) -> dict:
    return {
        "task_id": f"t-{i}", "environment": "retail", "builder": "retail", "builder_version": "1",
        "category": "simple", "difficulty": "easy", "num_calls": 1, "augmentations": [], "base_task_id": None,
        "messages": [{"role": "user", "content": f"question {i}"}], "tools": [],
        "initial_state": {"tables": {"users": {str(i % 7): {"name": "x" * (i % 13)}}}},
        "ground_truth": {"calls": [], "n": i}, "pass_rate": None, "calibration": None,
    }
