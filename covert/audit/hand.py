"""Checks of what answers and plans assert: true to the outputs, said once, known before they are said.

Registered with the other checks (:data:`covert.audit.checks.CHECKS`) when :mod:`covert.audit` is
imported. Each sees one row; the docstrings say what each one sees and what it misses.
"""

from __future__ import annotations

import re

from covert.audit.checks import OK, Verdict, _flag, check
from covert.audit.rows import RowView, scalars_of
from covert.audit.text import normalized
from covert.validation import undoes_earlier_write
from covert.validation.answer_checks import (
    COUNT_CUE,
    asks_for_list,
    count_named_in_query,
    items_said_twice,
    record_lists,
    unavailable_named,
)

_CUT = re.compile(r"\band (\d+) more\b")


@check("unavailable_offered", "answers to 'which ... are in stock / available' that name a record the outputs "
       "mark unavailable", 0.0)
def unavailable_offered(view: RowView) -> Verdict | None:
    """Rows whose query asks what is in stock or available and whose outputs mark records with an
    ``available``/``in_stock`` flag: flagged when the answer names a distinctive value of a record marked
    unavailable that no available record shares (:func:`covert.validation.answer_checks.unavailable_named`)."""
    if not view.answer or not view.turns:
        return None
    outputs = [c.output for c in view.calls]
    if not any("available" in r or "in_stock" in r for o in outputs for r in record_lists(o)):
        return None
    found = unavailable_named(" ".join(view.user_texts), normalized(view.answer), outputs)
    return _flag("offers_unavailable", found) if found else OK


@check("list_cut", "answers that cut a list the user asked for to '... and N more'", 0.01)
def list_cut(view: RowView) -> Verdict | None:
    """Answered rows with calls: flagged when the answer says "and N more" although the user asked to be
    shown or told the items (a list cue and no count cue, :func:`covert.validation.answer_checks.asks_for_list`).
    A summary of a list the user did not ask for is not flagged."""
    if not view.answer or not view.turns or view.behaviour != "tool_use":
        return None
    match = _CUT.search(view.answer)
    if match and any(asks_for_list(text) for text in view.user_texts):
        return _flag("asked_list_cut", match.group(0))
    return OK


@check("answer_in_query", "count questions whose query already names every counted record ('How many items in my "
       "order with the Suitcase, Blender and Desk Lamp?' -> 3)", 0.0)
def answer_in_query(view: RowView) -> Verdict | None:
    """Rows whose query asks for a count: flagged when a list of two records or more that the calls
    returned has every record named in the query (by a value no other record of the list holds) and the
    answer states that count: the user said the answer (:func:`covert.validation.answer_checks.count_named_in_query`,
    the check validation rejects rows by)."""
    if not view.answer or not view.turns or not COUNT_CUE.search(view.query):
        return None
    found = count_named_in_query(view.query, normalized(view.answer), [c.output for c in view.calls])
    return _flag("count_named", f"{found}: {view.query}") if found else OK


@check("list_said_twice", "answers that say the same list of items twice (one parallel answer per call naming "
       "the same records)", 0.0)
def list_said_twice(view: RowView) -> Verdict | None:
    """Answers of rows whose calls returned records: flagged when two distinctive values of returned
    records (names, titles) that the user did not say are each said more often than distinct records
    hold them (:func:`covert.validation.answer_checks.items_said_twice`, the check validation rejects rows by):
    a list said twice, not one record mentioned again, nor two emails that share a subject."""
    if not view.answer or not view.turns:
        return None
    twice = items_said_twice(view.answer, view.user_norm, [c.output for c in view.calls])
    return _flag("same_items", ", ".join(twice[:4])) if len(twice) >= 2 else OK


# letters and digits ("INC0041241", "#W6862308", "u_1f2f6ce7"), or a booking code of capitals ("QCJECV")
_CODE = re.compile(r"^(?:(?=.*\d)(?=.*[A-Za-z#])[A-Za-z0-9#_\-]{5,40}|[A-Z]{5,10})$")


def _codes(view: RowView) -> set[str]:
    """Ids a model could invent: the calls' argument and output values that are codes (letters and digits,
    five characters or more, no spaces; or five to ten capitals)."""
    out: set[str] = set()
    for call in view.calls:
        for value in scalars_of(call.arguments) | call.scalars:
            if _CODE.match(value) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", value):
                out.add(value)
    return out


@check("plan_foreknows", "reasoning that names an id (order, reservation, ticket ...) before any user turn or "
       "tool output showed it", 0.0, configs="multiturn")
def plan_foreknows(view: RowView) -> Verdict | None:
    """Conversation rows with reasoning on their turns: flagged when a turn's reasoning holds a code of the
    row (an argument or output value with letters and digits) that no earlier message (user, assistant
    or tool) holds: the plan knows what nothing has shown yet."""
    timeline = view.extras.get("timeline") or []
    if not any(kind == "reasoning" for kind, _ in timeline):
        return None
    codes = _codes(view)
    shown = ""
    for kind, text in timeline:
        if kind == "reasoning":
            for code in sorted(codes):
                if code in text and code not in shown:
                    return _flag("unseen_id", f"{code}: {text}")
        else:
            shown += "\n" + text
    return OK


@check("undone_write", "plans that change a record and then cancel or delete the same record in one request", 0.0)
def undone_write(view: RowView) -> Verdict | None:
    """Rows with two writes or more: flagged when a write that cancels or deletes a record (its name starts
    with cancel_, delete_, remove_ ...) takes an id that an earlier, different write changed: the first
    change is thrown away (:func:`covert.validation.undoes_earlier_write`)."""
    if sum(c.writes for c in view.calls) < 2:
        return None
    found = undoes_earlier_write([(c.name, c.arguments, c.writes) for c in view.calls])
    return _flag("change_then_cancel", found) if found else OK
