"""What a row's calls make it: the category label its calls bear out, and how a label contradicts them.

One home for the invariants of the labels, used by the audit (``category_mismatch``) and by
augmentation, which relabels a row whose augmented calls no longer fit its base row's label:

- ``simple``: one call, one tool offered; ``multiple``: one call among several tools;
- ``parallel``: every call in one turn, two calls or more; ``parallel_multiple``: the same, of two tools
  or more (a row that must identify the user first is sequential, not parallel);
- ``sequential``: a call takes a value from an earlier turn's output that the user never said;
- ``state_changing``: a write; ``irrelevance``: no call.

The calls judged are the calls a row makes: a failed call counts (choosing it was right; the tool
failed), a retry of a failed call counts once.
"""

from __future__ import annotations

from dataclasses import replace

from covert.audit.rows import CallView, RowView, scalars_of
from covert.audit.text import says
from covert.env import is_error


def made_turns(turns: list[list[CallView]]) -> list[list[CallView]]:
    """The turns with each failed call that is retried later (the same tool, the same arguments) left out,
    and turns left empty by that dropped."""
    out = []
    flat = [(t, c) for t, turn in enumerate(turns) for c in turn]
    for t, turn in enumerate(turns):
        kept = []
        for call in turn:
            retried = is_error(call.output) and any(
                later_t > t and other.name == call.name and other.arguments == call.arguments
                for later_t, other in flat)
            if not retried:
                kept.append(call)
        if kept:
            out.append(kept)
    return out


def uses_earlier_output(view: RowView, turns: list[list[CallView]], k: int) -> bool:
    """Whether a call of turn ``k`` takes a value an earlier turn's output holds that the user never said."""
    earlier: set[str] = set()
    for turn in turns[:k]:
        for call in turn:
            earlier |= call.scalars
    return any(value in earlier and not says(view.user_norm, value)
               for call in turns[k] for value in scalars_of(call.arguments))


def label_problem(view: RowView, category: str | None = None) -> str | None:
    """How the row's calls contradict ``category`` (the row's own label by default), as a short kind
    (``simple_calls``, ``parallel_extra_turn`` ...), or ``None`` where they bear it out."""
    category = category or view.category
    turns = made_turns(view.turns)
    calls = [c for turn in turns for c in turn]
    if category in ("simple", "multiple"):
        if len(calls) != 1:
            return f"{category}_calls"
        if category == "simple" and len(view.tools) > 1:
            return "simple_many_tools"
        return None
    if category in ("parallel", "parallel_multiple"):
        if not any(len(t) >= 2 for t in turns):
            return "parallel_not_one_turn" if category == "parallel" else "parallel_multiple_one_call"
        if category == "parallel_multiple" and not any(len(t) >= 2 and len({c.name for c in t}) >= 2 for t in turns):
            return "parallel_multiple_one_tool"
        if len(turns) > 1:
            return "parallel_extra_turn"
        return None
    if category == "sequential":
        if len(turns) < 2:
            return "sequential_one_turn"
        if not any(uses_earlier_output(view, turns, k) for k in range(1, len(turns))):
            return "sequential_no_dependency"
        return None
    if category == "state_changing":
        return None if any(c.writes for c in calls) else "state_changing_no_write"
    if category == "irrelevance":
        return None if not calls else "irrelevance_with_calls"
    return None


def fitting_category(view: RowView) -> str | None:
    """The label the row's calls bear out (``None`` when none does: turns that take nothing from each
    other), preferring the row's own label."""
    if label_problem(view) is None:
        return view.category
    turns = made_turns(view.turns)
    calls = [c for turn in turns for c in turn]
    if not calls:
        return "irrelevance"
    if any(c.writes for c in calls):
        return "state_changing"
    order = ("simple", "multiple", "parallel", "parallel_multiple", "sequential")
    return next((c for c in order if label_problem(replace(view, category=c)) is None), None)
