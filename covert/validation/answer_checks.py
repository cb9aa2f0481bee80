"""L3 checks of the final answer against the replayed outputs (called from :mod:`covert.validation`).

- every answer fact derives from the outputs: its raw ``value`` from the output path (or the reasoning
  step), its spoken form ``said`` re-derived from that value by :mod:`covert.language.spoken` (``fact_not_derivable``,
  ``fact_said_mismatch``);
- the answer states every fact, spoken or raw (``answer_missing_fact``);
- the answer claims nothing the outputs contradict: no pending date of a closed record (a decision date
  of a resolved dispute, a free-cancellation deadline of a completed booking), no "free of charge" where
  the outputs say a cancellation is not free (``answer_contradicts_outputs``);
- an answer to "which ... are in stock / available" names no record the outputs mark unavailable
  (``"available": false``, ``"in_stock": false``) (``answer_contradicts_outputs``);
- a list request is answered with its items: when the user asks to be shown or told which records and
  the last turn returned records, the answer names at least one (``answer_names_no_item``);
- the answer says no list twice: at most one returned value (a name, a title) is said more often than
  returned records hold it (``answer_repeats_list``, :func:`items_said_twice`);
- a count is not one the query already holds: no list whose every record the query names is counted
  in the answer (``answer_in_query``, :func:`count_named_in_query`).

Each function returns ``(reason, detail)`` for the first problem, or ``None``.
"""

from __future__ import annotations

import re
from typing import Any

from covert.language.spoken import Unspeakable, fact_text, raw_value, say
from covert.language.values import get_path, mentions, normalize_text, render

Problem = tuple[str, str] | None

# fields that only hold while a record is open, and the statuses that close a record
PENDING_FIELDS = frozenset(("decision_expected_by", "provisional_credit_by", "cancellation_deadline",
                            "resolve_by", "estimated_resolution"))
CLOSED_STATUSES = frozenset(("resolved", "resolved_refunded", "denied", "completed", "cancelled", "canceled",
                             "checked_out", "closed", "no_show", "refunded", "rejected"))
_FREE = re.compile(r"\b(free of charge|free cancellation|cancel(?:led)? for free|without (?:a )?(?:fee|charge))\b",
                   re.IGNORECASE)

LIST_CUE = re.compile(
    r"\b(show|list|which|remind me what|what(?:'s| is| are| was| were)? (?:in|on|set up)\b|what (?:are|were|can|"
    r"options|flights|rooms|hotels|emails|messages|events|devices|tickets|orders|products|versions|"
    r"automations|homes|payees|accounts|cards|transactions|agents|meetings|bookings|reservations)\b|any (?:\w+ )?"
    r"(?:emails|messages|events|flights|rooms|tickets|orders|devices|transactions|meetings)\b|pull up (?:all|every)|"
    r"what do i have|what have i got|"
    r"what \w+(?: \w+)? (?:do we have|exist|are set up|are configured|have been set up)\b|pull up the|"
    r"(?:i'd like|i want) to see the|rundown of|enumerate|overview of|dump the|walk me through the)", re.IGNORECASE)
COUNT_CUE = re.compile(r"\b(how many|how much|how big|number of|total|add up|count|headcount|tally|sum)\b",
                       re.IGNORECASE)
# words one of which a text must hold for LIST_CUE, COUNT_CUE or _FREE to find anything in it (every
# alternative starts with one); an ASCII text without them is not searched
_LIST_WORDS = ("show", "list", "which", "remind me what", "what", "any ", "pull up ", "to see the", "rundown",
               "enumerate", "overview", "dump", "walk me through")
_COUNT_WORDS = ("how ", "number of", "total", "add up", "count", "tally", "sum")
_FREE_WORDS = ("free", "without ")


def _cued(pattern: re.Pattern[str], words: tuple[str, ...], text: str) -> bool:
    """Whether ``pattern`` (case-insensitive, each alternative led by one of ``words``) finds something in
    ``text``: an ASCII text holding none of the words, in any case, cannot match, and is not searched."""
    if text.isascii():
        lowered = text.lower()
        if not any(word in lowered for word in words):
            return False
    return pattern.search(text) is not None


def asks_for_list(text: str) -> bool:
    """Whether a request asks to be shown or told the items of a list (a list cue and no count cue)."""
    return _cued(LIST_CUE, _LIST_WORDS, text) and not _cued(COUNT_CUE, _COUNT_WORDS, text)


_DATE_OR_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$|^\d{1,2}:\d{2}(:\d{2})?$")
_CODE3 = re.compile(r"^[A-Z]{3}$")
MAX_RECORDS = 200


def distinctive(value: Any) -> bool:
    """A value that names something when it shows up in text: a name, a title, a code with digits.

    Lower-case single words (statuses, folders), bare dates and times and three-letter codes
    (currencies, airports) are not: they occur in many records and in many answers. An email address is.
    """
    if not isinstance(value, str) or not 3 <= len(value) <= 200:
        return False
    if _DATE_OR_TIME.match(value) or _CODE3.match(value):
        return False
    return any(ch.isupper() or ch.isdigit() or ch in " @" for ch in value)


def record_lists(value: Any, limit: int = MAX_RECORDS) -> list[dict[str, Any]]:
    """The records of every non-empty list of records inside nested data (at most ``limit``)."""
    out: list[dict[str, Any]] = []
    stack = [value]
    while stack and len(out) < limit:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            records = [e for e in item if isinstance(e, dict)]
            out.extend(records[: limit - len(out)])
            stack.extend(records)
    return out


def _reasoning_values(step: dict[str, Any], outputs: list[Any]) -> set[str] | None:
    elements = get_path(outputs[step["call"]], step["list_path"]) if step["list_path"] else outputs[step["call"]]
    if not isinstance(elements, list):
        return None
    key = step.get("field")
    if step["op"] == "count":
        return {render(len(elements))}
    values = [e.get(key) for e in elements]
    if step["op"] == "sum":
        return {render(round(sum(values), 2))}
    best = max(values) if step["op"] in ("max", "argmax") else min(values)
    chosen = elements[values.index(best)]
    return {render(best)} | {render(v) for v in chosen.values() if isinstance(v, (str, int, float))}


def _spoken(fact: dict[str, Any], value: Any, output: Any) -> str:
    form = str(fact.get("form") or "")
    unit = get_path(output, fact["unit"]) if isinstance(fact.get("unit"), str) else None
    return say(form, value, unit)


def fact_problem(fact: dict[str, Any], outputs: list[Any], reasoning: list[dict[str, Any]]) -> Problem:
    """Whether one answer fact derives from the replayed ``outputs`` (raw value and spoken form)."""
    if not normalize_text(fact["value"]):
        return "empty_fact", str(fact.get("path", fact.get("reasoning", "")))
    form = str(fact.get("form") or "")
    if "call" in fact and fact.get("quote") is True:  # quoted from a text output (live MCP servers answer in text)
        index = fact["call"]
        text = outputs[index] if isinstance(index, int) and 0 <= index < len(outputs) else None
        if not isinstance(text, str) or fact["value"] not in text:
            return "fact_not_derivable", f"{fact['value']} is not in the text of call {index}"
        return None
    if "call" in fact:
        if not isinstance(fact["call"], int) or not 0 <= fact["call"] < len(outputs):
            return "fact_without_source", fact["value"]
        output = outputs[fact["call"]]
        value = get_path(output, fact["path"])
        try:
            raw = None if value is None else raw_value(form, value)
        except Unspeakable:
            raw = None
        if raw != fact["value"]:
            return "fact_not_derivable", f"{fact['value']} at call {fact['call']}.{fact['path']}"
    elif "reasoning" in fact:
        step = reasoning[fact["reasoning"]]
        values = _reasoning_values(step, outputs)
        if values is None:
            return "reasoning_input", f"{step['op']} over {step['list_path']}"
        if fact["value"] not in values:
            return "fact_not_derivable", f"{fact['value']} from {step['op']}"
        # an amount's currency is in the output the step ran over
        output = outputs[step["call"]] if "unit" in fact else None
        value = fact["value"]
        try:
            value = int(value) if form.startswith("n:") else float(value) if form == "money" else value
        except ValueError:
            return "fact_said_mismatch", f"{fact['value']} is no {form.split(':')[0]}"
    else:
        return "fact_without_source", fact["value"]
    if "said" in fact:
        try:
            expected = _spoken(fact, value, output)
        except Unspeakable as exc:
            return "fact_said_mismatch", f"{fact['said']}: {exc}"[:120]
        if expected != fact["said"]:
            return "fact_said_mismatch", f"{fact['said']!r} != {expected!r}"
    return None


def _contradiction(fact: dict[str, Any], outputs: list[Any]) -> str:
    """A fact that states a pending field of a closed record ("" if none)."""
    if "call" not in fact:
        return ""
    parent, _, leaf = fact["path"].rpartition(".")
    if leaf not in PENDING_FIELDS:
        return ""
    record = get_path(outputs[fact["call"]], parent) if parent else outputs[fact["call"]]
    status = record.get("status") if isinstance(record, dict) else None
    if isinstance(status, str) and status in CLOSED_STATUSES:
        return f"{leaf} {fact['value']} of a {status} record"
    return ""


def _free_flags(value: Any, out: list[bool], depth: int = 0) -> None:
    if depth > 12:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "free_cancellation" and isinstance(item, bool):
                out.append(item)
            _free_flags(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:MAX_RECORDS]:
            _free_flags(item, out, depth + 1)


def answer_problem(answer: str, query: str, truth: dict[str, Any], outputs: list[Any],
                   groups: list[list[dict[str, Any]]]) -> Problem:
    """Whether the final ``answer`` states its facts, claims nothing the outputs contradict and, for a
    list request, names an item of the list."""
    normalized = normalize_text(answer)
    for fact in truth["answer_facts"]:
        if normalize_text(fact_text(fact)) not in normalized:
            return "answer_missing_fact", fact_text(fact)
    for fact in truth["answer_facts"]:
        found = _contradiction(fact, outputs)
        if found:
            return "answer_contradicts_outputs", found
    if _cued(_FREE, _FREE_WORDS, answer):
        flags: list[bool] = []
        _free_flags(outputs, flags)
        if flags and not any(flags):
            return "answer_contradicts_outputs", "says free of charge; the outputs say it is not"
    found = unavailable_named(query, normalized, outputs)
    if found:
        return "answer_contradicts_outputs", f"offers {found}, which the outputs mark unavailable"
    twice = items_said_twice(answer, normalize_text(query), outputs)
    if len(twice) >= 2:
        return "answer_repeats_list", ", ".join(twice[:4])
    counted = count_named_in_query(query, normalized, outputs)
    if counted:
        return "answer_in_query", counted
    if truth.get("behaviour") == "tool_use" and groups:
        return _list_problem(normalized, query, outputs[len(outputs) - len(groups[-1]):])
    return None


def _record_key(record: dict[str, Any]) -> str:
    """Who a record is: its first id field (``message_id``, ``id`` ...), else its whole content; the same
    record returned by two calls (an email in the inbox and in a search) has one key."""
    for key, value in record.items():
        if (key == "id" or key.endswith("_id")) and isinstance(value, (str, int)) and not isinstance(value, bool):
            return f"{key}={value}"
    return repr(sorted((str(k), repr(v)) for k, v in record.items()))


def _spans(text: str, value: str) -> list[tuple[int, int]]:
    """Where ``value`` occurs in ``text`` as a whole run (no letter, digit, ``-`` or ``_`` either side)."""
    out = []
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in "-_") and not (after.isalnum() or after in "-_"):
            out.append((start, end))
        start = text.find(value, start + 1)
    return out


def items_said_twice(answer: str, query_norm: str, outputs: list[Any]) -> list[str]:
    """The distinctive values of returned records (names, titles) that ``answer`` says more often than
    distinct records hold them, the user's own words left out, sorted. An occurrence inside a longer
    returned value ("Dinner on Sunday?" in "Re: Dinner on Sunday?") is that value's, not its own; two
    emails with one subject may be said twice, one email in two lists may not. Two such values or more
    are a list said twice (one record mentioned again is one value)."""
    holders: dict[str, set[str]] = {}
    for record in (r for output in outputs for r in record_lists(output)):
        key = ""
        for value in record.values():
            if type(value) is str and value in answer and distinctive(value):
                key = key or _record_key(record)
                holders.setdefault(value, set()).add(key)
    claimed: list[tuple[int, int]] = []
    twice = []
    for value in sorted(holders, key=lambda v: (-len(v), v)):
        spans = [s for s in _spans(answer, value) if not any(a <= s[0] and s[1] <= b for a, b in claimed)]
        claimed.extend(spans)
        if len(spans) > len(holders[value]) and not mentions(query_norm, value):
            twice.append(value)
    return sorted(twice)


def count_named_in_query(query: str, answer_norm: str, outputs: list[Any]) -> str:
    """For a query that asks for a count: the first list of two records or more that the outputs returned
    whose every record the query names (by a distinctive value no other record of the list holds) and
    whose length the answer states, as ``"N named in the query"`` (``""`` for none): the user said the
    answer ("How many items in my order with the Suitcase, Blender and Desk Lamp?" -> 3)."""
    if not _cued(COUNT_CUE, _COUNT_WORDS, query):
        return ""
    query_norm = normalize_text(query)
    stack = list(outputs)
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            records = [e for e in item[:MAX_RECORDS] if isinstance(e, dict)]
            stack.extend(records)
            if len(records) < 2 or not mentions(answer_norm, len(records)):
                continue
            shared: dict[str, int] = {}
            for record in records:
                for value in {v for v in record.values() if distinctive(v)}:
                    shared[value] = shared.get(value, 0) + 1
            if all(any(distinctive(v) and shared[v] == 1 and mentions(query_norm, v) for v in r.values())
                   for r in records):
                return f"{len(records)} named in the query"
    return ""


_AVAILABILITY_CUE = re.compile(r"\b(in stock|available|availability|can i (?:buy|get|order))\b", re.IGNORECASE)
_AVAILABLE_KEYS = ("available", "in_stock", "is_available")


def unavailable_named(query: str, answer_norm: str, outputs: list[Any]) -> str:
    """For a query that asks what is in stock or available: the first distinctive value of a record the
    outputs mark unavailable (``available``/``in_stock`` false) that the answer names and the query does
    not (``""`` for none). An answer that offers an unavailable variant tells the user something false."""
    if "stock" not in query.lower() and "availab" not in query.lower() and "can i " not in query.lower():
        return ""
    if not _AVAILABILITY_CUE.search(query):
        return ""
    query_norm = normalize_text(query)
    available: set[str] = set()
    unavailable: list[str] = []
    for record in (r for output in outputs for r in record_lists(output)):
        flag = next((record[k] for k in _AVAILABLE_KEYS if isinstance(record.get(k), bool)), None)
        if flag is None:
            continue
        values = [str(v) for v in record.values() if distinctive(v)]
        (available.update if flag else unavailable.extend)(values)
    for value in unavailable:
        # a value an available record shares ("color black" of two variants) says nothing of this one
        if value not in available and not mentions(query_norm, value) and mentions(answer_norm, value):
            return value
    return ""


def _list_problem(answer_norm: str, query: str, last: list[Any]) -> Problem:
    if not asks_for_list(query):
        return None
    query_norm = normalize_text(query)
    records = [r for output in last for r in record_lists(output)]
    if not records:
        return None
    for record in records:
        for key, value in record.items():
            if (distinctive(value) or _record_name(key, value)) and not mentions(query_norm, value) \
                    and mentions(answer_norm, value):
                return None
    return "answer_names_no_item", "a list request whose answer names none of the records returned"


def _record_name(key: Any, value: Any) -> bool:
    """Whether ``value`` is what a record is called (its ``name`` or ``title``, ``applicationName``): a
    name in lower case ("docs-risk") names it as well as "Docs Risk" would."""
    return isinstance(key, str) and key.lower().endswith(("name", "title")) and isinstance(value, str) \
        and 3 <= len(value) <= 200
