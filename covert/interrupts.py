"""Ctrl-C and SIGTERM that are never lost.

Python turns SIGINT into ``KeyboardInterrupt`` wherever the interpreter happens to be; when that is a
finalizer or a garbage-collection callback the exception is printed as "ignored" and the run goes on.
The CLI therefore also records each signal, and long loops call :func:`check` between units of work,
so a signal stops the run at the next boundary even if its first ``KeyboardInterrupt`` was swallowed.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_received: list[int] = []


def _handler(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


@contextmanager
def handled() -> Iterator[None]:
    """Within the block SIGINT and SIGTERM raise ``KeyboardInterrupt`` and are remembered; handlers
    are restored afterwards. A signal the caller ignores (a background job's SIGINT) stays ignored."""
    _received.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig, old in previous.items():
        if old is not signal.SIG_IGN:
            signal.signal(sig, _handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        _received.clear()  # what arrived here is handled here; later work in this process is not stopped


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a signal arrived inside :func:`handled` (call it between units of
    work; outside the block it never raises)."""
    if _received:
        raise KeyboardInterrupt


def exit_status() -> int:
    """The conventional exit status for the signal received inside :func:`handled` (ask before the block
    ends): 128 + its number, 130 for Ctrl-C."""
    return 128 + (_received[0] if _received else signal.SIGINT)
