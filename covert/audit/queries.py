"""Measures of a dataset's queries as a whole, per group of rows: duplicated first turns, distinct-2 over an
equal sample, and the share of queries carrying a politeness formula.

distinct-2 depends on how many queries it is taken over, so it is always taken over the same number: the
mean over :data:`~covert.audit.distribution.SAMPLES` seeded samples of
:data:`~covert.audit.distribution.SAMPLE` queries, read against a reference measured the same way (BFCL v4's
live simple and live multiple user queries: 0.69; a group with fewer queries than one sample has none).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from covert.audit.distribution import SAMPLE, distinct_2

POLITE = re.compile(
    r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening|day)|greetings|dear \w+)\b|"
    r"\b(?:thanks|thank you|thx|cheers|grateful|appreciate(?:d)?|much appreciated|many thanks)\b|"
    r"\bi hope (?:you can help|you're well|this is easy|that's okay)\b|\bif you (?:don't|do not) mind\b|"
    r"\b(?:please )?let me know\b|\bkindly\b|\bwould be (?:great|lovely|wonderful)\b|\bsorry to bother\b",
    re.IGNORECASE)


def politeness_formula(query: str) -> bool:
    """Whether a query carries a politeness formula (a greeting, a thank-you, "I hope you can help",
    "please let me know", "if you don't mind", ...). A bare "please" inside a request is no formula."""
    return bool(POLITE.search(query))


@dataclass
class QueryStats:
    """The first user turns of one group of rows."""

    queries: list[str] = field(default_factory=list)

    def add(self, query: str) -> None:
        """Count one row's first user turn."""
        self.queries.append(query)

    def to_dict(self) -> dict[str, Any]:
        """The group's measures: rows, duplicated first turns, distinct-2, politeness."""
        counts = Counter(self.queries)
        total = len(self.queries)
        duplicated = sum(n for n in counts.values() if n > 1)
        d2 = distinct_2(self.queries)
        return {"rows": total,
                "duplicate_first_turns": round(duplicated / total, 4) if total else None,
                "distinct_2": round(d2, 4) if d2 is not None else None,
                "distinct_2_sample": SAMPLE,
                "polite": round(sum(politeness_formula(q) for q in self.queries) / total, 4) if total else None}
