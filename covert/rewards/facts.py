"""Answer facts: the final assistant message must state every fact the oracle's answer states."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from covert.language.spoken import fact_forms
from covert.language.values import mentions, normalize_text

Fact = str | Mapping[str, Any] | Sequence[str]


def forms_of(fact: Fact) -> tuple[str, ...]:
    """The texts under which ``fact`` counts as stated: a plain value as itself; a fact mapping as its
    raw value, its spoken form and their usual variants (:func:`covert.language.spoken.fact_forms`: "$12.50" or
    "12.50 USD", "March 12, 2026" or "2026-03-12"); a sequence of strings as those alternatives."""
    if isinstance(fact, str):
        return (fact,)
    if isinstance(fact, Mapping):
        return fact_forms(dict(fact))
    return tuple(f for f in fact if isinstance(f, str))


def facts_score(text: str, facts: Sequence[Fact]) -> tuple[float, list[str]]:
    """The share of ``facts`` that ``text`` states (normalised, whole-token match, any accepted form of
    each), and the missing ones (by their first form).

    A fact that normalises to nothing says nothing and is left out (as validation's substring check
    treats it); with no facts to state the score is 1.
    """
    forms = [f for f in (tuple(x for x in forms_of(fact) if normalize_text(x)) for fact in facts) if f]
    if not forms:
        return 1.0, []
    normalized = normalize_text(text)
    missing = [alternatives[0] for alternatives in forms
               if not any(mentions(normalized, form) for form in alternatives)]
    return (len(forms) - len(missing)) / len(forms), missing
