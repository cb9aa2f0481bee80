"""The steps of a reference's search, written out for a person to follow: the first few kept, the rest counted
(a search may take millions of steps; the trace never holds more than it shows)."""

from __future__ import annotations

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

    def lines(self) -> list[str]:
        """The kept steps, and a line saying how many more the search took when it took more."""
        more = self.steps - len(self.kept)
        return [*self.kept, *([f"... ({more} more steps of the same search) ..."] if more else [])]
