"""A reference written out for a person to follow: the steps of its search (the first few kept, the rest
counted: a search may take millions of steps; the trace never holds more than it shows), graph edges listed,
and the whole text from the opening line to the answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

MAX_TRACE = 30


class SearchTrace:
    """Steps of a search in words: the first ``keep`` are kept, every later one only counted.

    Attributes:
        keep: How many steps are kept.
        kept: The steps kept, in order.
        steps: How many steps were noted in all.
    """

    def __init__(self, keep: int = MAX_TRACE) -> None:
        self.keep = keep
        self.kept: list[str] = []
        self.steps = 0

    def note(self, text: str) -> None:
        """Record one step (kept only while fewer than ``keep`` are)."""
        self.steps += 1
        if len(self.kept) < self.keep:
            self.kept.append(text)

    @property
    def more(self) -> int:
        """How many steps were noted beyond those kept."""
        return self.steps - len(self.kept)

    def lines(self) -> list[str]:
        """The kept steps, and a line saying how many more the search took when it took more."""
        return [*self.kept, *([f"... ({self.more} more steps of the same search) ..."] if self.more else [])]


def _drop(text: str) -> None:
    """Note nothing (a search run without a trace)."""


def note_to(trace: SearchTrace | None) -> Callable[[str], None]:
    """What a search calls to note a step: ``trace.note``, or a function that drops it when there is no trace."""
    return trace.note if trace is not None else _drop


def edge_listing(edges: Sequence[Sequence[int]]) -> str:
    """Edges as a person lists them: ``1-2, 1-4, 3-4``."""
    return ", ".join(f"{u}-{v}" for u, v in edges)


def written_search(opening: str, trace: SearchTrace, closing: str, answer: object) -> str:
    """A reference that tells how the search goes, its steps, a closing check and the ``Answer:`` line."""
    return "\n".join([opening, *trace.lines(), closing]) + f"\nAnswer: {answer}"
