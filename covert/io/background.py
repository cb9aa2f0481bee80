"""One background thread that runs a build's file writes in order, off the thread that makes the rows.

Parquet encoding and compression run in Arrow's C++ code with the GIL released, so handing them to
this thread lets them overlap the Python work of making (or receiving) the next rows. Work runs
strictly in submission order, so every file gets the same bytes as when written in the caller's
thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

_STOP = object()


class Background:
    """Runs submitted calls one at a time, in order, on one thread.

    At most ``depth`` calls wait at a time (``submit`` blocks beyond that), so memory stays bounded
    however far the caller runs ahead. The first call that raises stops the rest; its exception is
    raised again in the caller by the next :meth:`submit` or :meth:`drain`. Use it as a context
    manager: leaving the block after an error discards queued calls and waits only for the running
    one, so nothing is written after the block ends.
    """

    def __init__(self, depth: int = 2, name: str = "covert-writer") -> None:
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._discard = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Queue ``fn(*args, **kwargs)``; raises the error of an earlier call, if one failed."""
        self._raise()
        if not self._thread.is_alive():
            raise RuntimeError("the background writer is closed")
        self._queue.put((fn, args, kwargs))

    def drain(self) -> None:
        """Wait until every queued call has run; raises the first error any of them raised."""
        self._queue.join()
        self._raise()

    def close(self, discard: bool = False) -> None:
        """Stop the thread once queued calls have run (``discard=True``: skip those not yet started)."""
        if not self._thread.is_alive():
            return
        self._discard = self._discard or discard
        self._queue.put(_STOP)
        self._thread.join()

    def __enter__(self) -> Background:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(discard=exc_type is not None)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                if self._error is None and not self._discard:
                    fn, args, kwargs = item
                    try:
                        fn(*args, **kwargs)
                    except BaseException as exc:  # handed to the caller's thread
                        self._error = exc
            finally:
                self._queue.task_done()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error
