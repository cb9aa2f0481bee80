"""Measures of a whole config rather than of one row: how varied the queries are, how often they carry a
politeness formula, how often one identification frame recurs, how often plans repeat one fixed line,
and how confirmations are answered.

Each is a plain function over texts, so a benchmark script and the report compute the same figure.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from collections.abc import Iterable

from covert.audit.checks import GREETING

# a greeting or a courtesy word: "Hi,", "please", "thanks", "kindly", "cheers", "I appreciate it"
POLITENESS = re.compile(r"\b(please|pls|thank|thanks|thx|ty|kindly|appreciate[ds]?|appreciated|cheers|ta)\b",
                        re.IGNORECASE)
# the stock self-identification of a query: "My email is ana@example.com."
EMAIL_IS = re.compile(r"\bmy email is \S+@\S+", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+")
SAMPLE = 200  # queries per distinct-2 sample (equal samples: the ratio falls as a sample grows)
SAMPLES = 5
FIXED_LINE_ROWS = 10  # a plan said word for word in this many rows or more is a fixed line
# what a user says to agree outright; anything else (a question, a change) answers a confirmation otherwise
AGREE = re.compile(r"^(?:yes|yep|yeah|sure|ok(?:ay)?|alright|all right|got it|perfect|fine|sounds good|go ahead|"
                   r"please do|do it)\b[^?]*$", re.IGNORECASE)
# how an assistant asks for a go-ahead ("Shall I go ahead?", "Do you want me to proceed?", "Okay to go ahead?")
PROPOSAL = re.compile(r"\b(shall i(?: go ahead)?|should i (?:go ahead|proceed)|want me to proceed|okay to go ahead)\?\s*$",
                      re.IGNORECASE)


def polite(query: str) -> bool:
    """Whether a query opens with a greeting or holds a courtesy word."""
    return bool(GREETING.match(query) or POLITENESS.search(query))


def distinct_2(queries: list[str], sample: int = SAMPLE, samples: int = SAMPLES, seed: int = 0) -> float | None:
    """Distinct bigrams over all bigrams of lower-cased words, averaged over ``samples`` seeded samples of
    ``sample`` queries (``None`` for fewer queries than one sample)."""
    if len(queries) < sample:
        return None
    ratios = []
    for k in range(samples):
        grams: list[tuple[str, str]] = []
        for query in random.Random(seed + k).sample(queries, sample):
            words = _WORD.findall(query.lower())
            grams += list(itertools.pairwise(words))
        ratios.append(len(set(grams)) / max(1, len(grams)))
    return sum(ratios) / len(ratios)


def fixed_plan_share(plans_per_row: Iterable[list[str]], rows: int = FIXED_LINE_ROWS) -> tuple[float | None, int]:
    """The share of plans (reasoning texts) that are fixed lines: said word for word in ``rows`` rows or
    more; and how many plans there were."""
    in_rows: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for plans in plans_per_row:
        for plan in set(plans):
            in_rows[plan] += 1
        for plan in plans:
            total[plan] += 1
    count = sum(total.values())
    fixed = sum(n for plan, n in total.items() if in_rows[plan] >= rows)
    return (fixed / count if count else None), count


def confirmation_replies(replies: list[str]) -> dict[str, float | int]:
    """How confirmations were answered: how many, and the share answered with something other than
    outright agreement (a question back, a change, a refusal)."""
    other = sum(1 for r in replies if not AGREE.match(r.strip()))
    return {"confirmations": len(replies), "not_plain_yes": round(other / len(replies), 4) if replies else 0.0}
