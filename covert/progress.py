"""Progress bars for the commands that can take a while: one place decides when one is drawn.

A bar is drawn on standard error, and only when it is a terminal: ``--quiet``, a pipe, a log file or
a CI runner gets none, so nothing but the command's own output ends up there.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["bar", "shown", "tracked"]

T = TypeVar("T")


def shown(enabled: bool = True) -> bool:
    """Whether a bar would be drawn: ``enabled`` (no ``--quiet``) and standard error is a terminal."""
    try:
        return enabled and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def bar(total: int | None = None, unit: str = "row", desc: str | None = None, enabled: bool = True) -> Any:
    """A tqdm bar on standard error (disabled unless :func:`shown`); use it as a context manager or close it."""
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, disable=not shown(enabled), file=sys.stderr, dynamic_ncols=True,
                leave=False)


def tracked(items: Iterable[T], total: int | None = None, unit: str = "row", desc: str | None = None,
            enabled: bool = True) -> Iterator[T]:
    """``items``, one by one, counted on a bar (see :func:`bar`)."""
    with bar(total, unit, desc, enabled) as progress:
        for item in items:
            yield item
            progress.update(1)
