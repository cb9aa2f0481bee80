"""Answer facts: the final assistant message must state every fact the oracle's answer states."""

from __future__ import annotations

from collections.abc import Sequence

from covert.values import mentions, normalize_text


def facts_score(text: str, facts: Sequence[str]) -> tuple[float, list[str]]:
    """The share of ``facts`` that ``text`` states (normalised, whole-token match), and the missing ones.

    A fact that normalises to nothing says nothing and is left out (as validation's substring check
    treats it); with no facts to state the score is 1.
    """
    facts = [fact for fact in facts if normalize_text(fact)]
    if not facts:
        return 1.0, []
    normalized = normalize_text(text)
    missing = [fact for fact in facts if not mentions(normalized, fact)]
    return (len(facts) - len(missing)) / len(facts), missing
