"""The audit's checks: each looks at one row and says whether it applies and whether the row has the defect.

A check returns ``None`` when it does not apply to the row (a list check on a row that asks for no
list), otherwise a :class:`Verdict`. Checks are mechanical, so each has a known blind side; the
docstrings say what each one sees.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from covert.audit.categories import label_problem
from covert.audit.rows import CallView, RowView, scalars_of
from covert.audit.text import (
    frame,
    normalized,
    says,
    says_spoken,
    sentences,
    without_dates,
    without_quotes,
)
from covert.language.query_leaks import query_leaks
from covert.language.values import enum_codes, said_twice
from covert.validation.answer_checks import COUNT_CUE, LIST_CUE, distinctive, record_lists


@dataclass(frozen=True)
class Verdict:
    """A check's finding on a row it applies to; ``kind`` names which form of the defect it is."""

    flagged: bool
    kind: str = ""
    detail: str = ""


OK = Verdict(False)


@dataclass(frozen=True)
class Check:
    """A named check with the issue's bar for it (the rate a dataset should stay under)."""

    name: str
    description: str
    bar: float
    fn: Callable[[RowView], Verdict | None]
    configs: str = "all"  # "all"; "multiturn": only conversation configs; "augmented": only augmented ones


CHECKS: list[Check] = []


def check(name: str, description: str, bar: float, configs: str = "all") -> Callable:
    """Register a check function under ``name``."""

    def register(fn: Callable[[RowView], Verdict | None]) -> Callable[[RowView], Verdict | None]:
        CHECKS.append(Check(name, description, bar, fn, configs))
        return fn

    return register


def _flag(kind: str, detail: str) -> Verdict:
    return Verdict(True, kind, detail[:200])


# -- what the assistant says ------------------------------------------------------------------------------

_LIST_CUE = LIST_CUE  # shared with validation's list-request check (covert.validation.answer_checks)
_COUNT_CUE = COUNT_CUE


def _names_a_record(view: RowView, calls: list[CallView], answer_norm: str) -> bool | None:
    """Whether the answer names a record of a list the calls returned (``None``: no list came back)."""
    records = [r for c in calls for r in record_lists(c.output)]
    if not records:
        return None
    for record in records:
        for value in scalars_of(record):
            if (distinctive(value) or _slug_name(value)) and not says(view.user_norm, value) \
                    and says_spoken(answer_norm, value):
                return True
    return False


_SLUG = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")


def _slug_name(value: Any) -> bool:
    """A record named the way services name them, in lower case with hyphens (``routing-compliance-inquiry``,
    ``docs-view``): it names the record when an answer says it, though no capital or digit marks it."""
    return isinstance(value, str) and 8 <= len(value) <= 80 and bool(_SLUG.match(value))


@check("list_unnamed", "list requests (show me / which / what ...) answered without naming a single item", 0.02)
def list_unnamed(view: RowView) -> Verdict | None:
    """A query with a list cue and no count cue, whose last turn returned a list of records: flagged when
    the answer names none of the records (no name, title, code or other distinctive value of one that
    the user did not say first)."""
    if not view.turns or view.behaviour != "tool_use" or not view.answer:
        return None
    said = " ".join(view.user_texts)
    if not _LIST_CUE.search(said) or _COUNT_CUE.search(said):
        return None
    named = _names_a_record(view, view.turns[-1], normalized(view.answer))
    if named is None:
        return None
    return OK if named else _flag("no_item_named", view.answer)


_DANGLING = re.compile(r"\b(here (?:are|is)|here's|these are|the following|listed below|see below)\b[^:]*$",
                       re.IGNORECASE)


_SUPERLATIVE = re.compile(r"\b(highest|lowest|largest|smallest|most|least|biggest|cheapest|earliest|latest|longest|"
                          r"shortest)\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.()+\-/:])\d+(?![\w\-/:)]|[.,]\d)")


def _counts(value: Any, depth: int = 0) -> set[str]:
    """The numbers that count something in an output: lengths of its non-empty lists of records and
    the values of its ``*count*`` and ``total*`` fields."""
    out: set[str] = set()
    if depth > 12:
        return out
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, int) and not isinstance(item, bool) and ("count" in str(key) or str(key).startswith("total")):
                out.add(str(item))
            out |= _counts(item, depth + 1)
    elif isinstance(value, list):
        if value and any(isinstance(e, dict) for e in value):
            out.add(str(len(value)))
        for item in value[:200]:
            out |= _counts(item, depth + 1)
    return out


@check("read_only_omits", "read-only answers that leave out what a call returned (count-only, dangling 'here are')",
       0.03)
def read_only_omits(view: RowView) -> Verdict | None:
    """Read-only rows. Flagged when a sentence announces a list and ends ("here are its options."), when a
    call of the last turn returned a list of records and the answer gives its count but names none of
    them although the user did not ask for a count (count-only), or when nothing a last-turn call
    returned reaches the answer at all."""
    if not view.read_only or view.behaviour != "tool_use" or not view.answer:
        return None
    for text in sentences(without_quotes(view.answer)):
        if _DANGLING.search(text.rstrip(".!")):
            return _flag("dangling_list", text)
    answer_norm = normalized(view.answer)
    counting = bool(_COUNT_CUE.search(" ".join(view.user_texts)))
    stated = set(_NUMBER.findall(without_dates(view.answer)))
    for call in view.turns[-1]:
        named = _names_a_record(view, [call], answer_norm)
        if named is False and not counting and stated & _counts(call.output):
            return _flag("count_only", f"{call.name}: {view.answer}")
        if not counting and not _SUPERLATIVE.search(" ".join(view.user_texts)) and not any(
                says_spoken(answer_norm, v) for v in call.scalars if not says(view.user_norm, v)):
            return _flag("result_dropped", f"{call.name}: {view.answer}")
    return OK


def _data_strings(view: RowView) -> list[str]:
    values: set[str] = set()
    for call in view.calls:
        values |= {v for v in call.scalars if len(v) >= 2}
        values |= {v for v in scalars_of(call.arguments) if len(v) >= 2}
    return sorted(values, key=lambda v: (-len(v), v))


@check("repeated_template", "answers that repeat a sentence frame (the same sentence with other values)", 0.02)
def repeated_template(view: RowView) -> Verdict | None:
    """Every answer. Each sentence becomes a frame (the row's data values and
    numbers masked); flagged when two sentences share a frame of at least three literal words."""
    parts = sentences(view.answer)
    if not parts:
        return None
    values = _data_strings(view)
    seen: dict[str, str] = {}
    for part in parts:
        shape, literal = frame(part, values)
        if literal >= 3 and shape in seen:
            return _flag("same_frame", f"{seen[shape]} / {part}")
        seen.setdefault(shape, part)
    return OK


_NOT_PLURAL = frozenset(("has", "was", "is", "does", "goes", "its", "this", "plus", "yes", "less", "across", "always",
                         "perhaps", "whereas", "thus", "minus", "bus", "gas", "lens", "status", "series", "news"))
_ADJECTIVE = ("unread|open|new|extra|more|other|active|pending|free|upcoming|saved|checked|matching|additional|"
              "available|unassigned|confirmed|online|offline|scheduled|total|outstanding|chargeable|adult|paid")
_ONE_PLURAL = re.compile(rf"(?<![\d.,$])\b1 (?:(?:{_ADJECTIVE}) )?([a-z]{{2,}}s)\b")
_PLURAL_ONE = re.compile(r"\b([A-Za-z]{3,}s)\b[^.:;!?]{0,60}(?<!\d):\s*1(?![\d,:]|\.\d)")
_PAREN_S = re.compile(r"\w\((?:s|es|ies)\)")
_ID_GLUE = frozenset("-_./:")  # characters that glue a word into an identifier
_DOUBLED = re.compile(r"\b([A-Za-z]{2,}) \1\b", re.IGNORECASE)
_N_OF_N = re.compile(r"\b(\d+) of (?:the |all |your |those )?\1\b")
# a determiner before a name that brings its own ("Your The Marigold Hotel stay")
_TWO_DETERMINERS = re.compile(r"\b(?:[Yy]our|[Mm]y|[Oo]ur|[Tt]heir|[Tt]his|[Tt]hat|[Tt]he|[Aa]n?) The [A-Z]\w*")
_EMPTY_SLOT = re.compile(r"(?<=\w) [.,;:!?](?=\s|$)|\(\s*\)|\"\"|,\s*,|\b(?:null|NaN|undefined)\b")
_LEGIT_DOUBLES = frozenset({"that", "had", "very", "bye"})
# a sentence that starts in lower case ("... 111786. my ticket is sorted", "? the name ..."): not after an
# abbreviation (a company's "ACME Inc. and ...") or an ellipsis, and not an address or an identifier written as typed
_LOWER_START = re.compile(r"(?<!\.)(?<!\b[A-Za-z])(?<!\b[A-Za-z]\.[A-Za-z])(?<!\betc)(?<!\bvs)(?<!\bno)"
                          r"(?<!\bInc)(?<!\bLtd)(?<!\bCo)(?<!\bCorp)(?<!\bLLC)[.?!]\s+([a-z][\w'@.+-]*)")
_CASUAL_CLOSINGS = frozenset(("thanks", "thx", "ty", "cheers", "ta"))  # written in lower case on purpose
_TYPED = re.compile(r"[@_/\d]|\w[.-]\w|[A-Z]")
# a sentence given a second stop: '"Kept for 30 days.".', "for the jobs pilot.." (never an ellipsis)
_STOP_AFTER_STOP = re.compile(r'(?<!\.)[.!?]"?\.(?![.\w])')
# a word glued to a number ("born Jun 19, 2004Schmidt")
_GLUED = re.compile(r"(?<![\w-])\d+[A-Z][a-z]{2,}\b")
# a stretch of words said twice in a row ("James Schmidt, born Jun 19, 2004Schmidt, born Jun 19, 2004")
_REPEATED_SPAN = re.compile(r"(\b[A-Za-z][\w ,'-]{11,80}?)\s?\1\b")


def _artefacts(text: str, data: str) -> list[tuple[str, str]]:
    found = []
    for match in _PAREN_S.finditer(text):
        found.append(("paren_plural", match.group(0)))
    for match in _ONE_PLURAL.finditer(text):
        word = match.group(1)
        if word not in _NOT_PLURAL and not word.endswith(("ss", "us", "is", "ics")):
            found.append(("one_plural", match.group(0)))
    for match in _PLURAL_ONE.finditer(text):
        word = match.group(1).lower()
        if word not in _NOT_PLURAL and not word.endswith(("ss", "us", "is")):
            found.append(("plural_label_one", match.group(0)))
    for match in _DOUBLED.finditer(text):
        glue = text[match.end():match.end() + 2]
        if len(glue) == 2 and glue[0] in _ID_GLUE and glue[1].isalnum():
            continue  # "the app app-0b61": a noun, then an identifier that starts with it
        if match.group(1).lower() not in _LEGIT_DOUBLES and match.group(0).lower() not in data:
            found.append(("doubled_word", match.group(0)))
    for match in _N_OF_N.finditer(text):
        found.append(("n_of_the_n", match.group(0)))
    for match in _TWO_DETERMINERS.finditer(text):
        if match.group(0).lower() not in data:  # a value that reads so itself
            found.append(("two_determiners", match.group(0)))
    for match in _EMPTY_SLOT.finditer(text):
        if match.group(0).strip() and match.group(0).lower() not in data:
            found.append(("empty_slot", match.group(0)))
    for match in _LOWER_START.finditer(text):
        # a quoted value that ends a sentence (a subject "Dinner on Sunday?") is no sentence of the text's; an
        # unquoted one ("the destination with status reason Temporary, remove after March. removed") is
        quoted = '"' in text[max(0, match.start() - 80):match.start()]
        if not _TYPED.search(match.group(1)) and match.group(1) not in _CASUAL_CLOSINGS and \
                not (quoted and text[max(0, match.start() - 15):match.start() + 1].lower() in data):
            found.append(("lower_case_start", text[max(0, match.start() - 20):match.end()]))
    for match in _STOP_AFTER_STOP.finditer(text):
        if text[max(0, match.start() - 12):match.end()].lower() not in data:  # a value that ends so itself
            found.append(("doubled_stop", text[max(0, match.start() - 20):match.end()]))
    for match in _GLUED.finditer(text):
        if match.group(0).lower() not in data:
            found.append(("glued_words", match.group(0)))
    for match in _REPEATED_SPAN.finditer(text[:4000]):
        if len(match.group(1).split()) >= 3 and match.group(0).lower() not in data:  # not "admin overrides, consumer overrides, consumer quotas"
            found.append(("repeated_span", match.group(0)))
    return found


_SERVICE_NAMED = re.compile(r"^You are the assistant for (.{1,160}?)\. ")


def _service_named(system: str) -> str:
    """The service a system prompt says the assistant is for ("You are the assistant for NAME. ..."), lower
    case; empty when it says none."""
    found = _SERVICE_NAMED.match(system)
    return found.group(1).lower() if found else ""


@check("grammar_artefacts", "template artefacts in the user's or the assistant's text (and a doubled full "
       "stop in the system prompt): (s), 1 products, "
       "'Homes: 1', doubled words, '6 of the 6', 'Your The Marigold Hotel stay', empty slots, a sentence in lower "
       "case, a word glued to a number, words said twice in a row", 0.01)
def grammar_artefacts(view: RowView) -> Verdict | None:
    """Every row with text. Regular expressions for the artefacts templates leave: a plural in
    parentheses, a plural after 1 (with one adjective between), a plural label followed by ": 1", a
    doubled word that is not in the data, "N of the N", a determiner before a name that brings its own
    ("Your The Marigold Hotel stay"), a slot left empty (a space before
    punctuation, empty quotes or parentheses, null), a sentence that starts in lower case (not an address
    or an identifier as typed), a word glued to a number ("2004Schmidt") and a stretch of words said twice
    in a row."""
    # what the tools said, and the name the system prompt gives the service ("My Business Business Information
    # API" is Google's own name: a doubled word in it is no artefact)
    data = " ".join(" ".join(c.scalars) for c in view.calls).lower() + " " + _service_named(view.system)
    for where, texts in (("query", view.user_texts), ("assistant", view.assistant_texts)):
        for text in texts:
            found = _artefacts(text, data)
            if found:
                kind, snippet = found[0]
                return _flag(f"{kind}@{where}", snippet)
    stop = _STOP_AFTER_STOP.search(view.system)  # "You are the assistant for Gitea API.."
    if stop is not None:
        return _flag("doubled_stop@system", view.system[max(0, stop.start() - 20):stop.end()])
    return OK if (view.user_texts or view.assistant_texts) else None


_AMOUNT = re.compile(r"(?<![\w.,$€£¥])(\d{1,3}(?:,\d{3})+|\d+)\.\d{2}(?![\d.,]?\d)")
_AMOUNT_AFTER = re.compile(r"\s?(?:[A-Z]{3}\b|%|kwh\b|wh\b|km\b|kg\b|miles?\b|points?\b|nights?\b|hours?\b|"
                           r"minutes?\b|days?\b|°|degrees?\b|per\b)", re.IGNORECASE)
_AMOUNT_BEFORE = re.compile(r"(?:[$€£¥]|\b[A-Z]{3} |\b(?:firmware|version|v)\s?)$", re.IGNORECASE)


def _has_currency(value: Any, depth: int = 0) -> bool:
    """Whether nested output data names a currency (a ``currency`` field holding a code)."""
    if depth > 12:
        return False
    if isinstance(value, dict):
        if isinstance(value.get("currency"), str):
            return True
        return any(_has_currency(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_has_currency(v, depth + 1) for v in value[:200])
    return False


@check("amount_without_currency", "answers that state an amount of money without its currency ('comes to 110.74', "
       "'with a price of 31.92') in rows whose outputs name the currency", 0.0)
def amount_without_currency(view: RowView) -> Verdict | None:
    """The final answer of rows whose outputs carry a ``currency`` field. Flagged when it states a number
    with two decimals (``90.24``, ``1,312.82``) with no currency symbol or code before it and no code or
    unit (kWh, %, nights, ...) after it; a version number ("firmware 3.90") is not an amount."""
    if not view.answer or not any(_has_currency(c.output) for c in view.calls):
        return None
    for match in _AMOUNT.finditer(view.answer):
        before, after = view.answer[max(0, match.start() - 12):match.start()], view.answer[match.end():]
        if _AMOUNT_BEFORE.search(before) or _AMOUNT_AFTER.match(after):
            continue
        return _flag("bare_amount", view.answer[max(0, match.start() - 40):match.end() + 10])
    return OK


_USER_FACING_ID = re.compile(r"(booking|reservation|order|ticket|dispute|return|request|transfer|confirmation|claim|"
                             r"case|invoice|refund|tracking|flight)", re.IGNORECASE)
_ISO_TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
_SNAKE = re.compile(r"(?<![\w@./\-])[a-z]+(?:_[a-z]+)+(?![\w@/\-]|\.\w)")


def _internal_ids(value: Any, out: set[str], depth: int = 0) -> None:
    """Values of ``*_id`` fields that are not reference numbers a customer is given."""
    if depth > 12:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            key = str(key)
            is_id = key == "id" or key.endswith(("_id", "_ids"))
            if is_id and not _USER_FACING_ID.search(key):
                for v in item if isinstance(item, list) else [item]:
                    if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) >= 4:
                        out.add(str(v))
            _internal_ids(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:500]:
            _internal_ids(item, out, depth + 1)


_GLUED_KEY_PART = re.compile(r"^[a-z]{15,}$")  # a flat-case part of a field name: "lithologydescription"


def _glued_key_parts(value: Any, out: set[str], depth: int = 0) -> None:
    """The long flat-case parts of the keys of nested data (``lithologydescription_set`` gives
    ``lithologydescription``), bounded."""
    if depth > 6 or len(out) > 200:
        return
    if isinstance(value, dict):
        for key, item in list(value.items())[:200]:
            out.update(p for p in str(key).split("_") if _GLUED_KEY_PART.match(p))
            _glued_key_parts(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:50]:
            _glued_key_parts(item, out, depth + 1)


@check("internals_shown", "internals shown to the user: internal ids (payment methods, customers), snake_case "
       "enum values, raw ISO timestamps, a field name's glued words ('2 lithologydescription set')", 0.05)
def internals_shown(view: RowView) -> Verdict | None:
    """Everything the assistant says. Flagged when it states the value of an internal id field (any
    ``*_id`` of the outputs or arguments other than booking, order, ticket and similar reference
    numbers; on imported APIs ids are the developer's handles and not counted) that the user did not say, a
    snake_case word, a timestamp such as 2026-07-23T11:15, or a field name's glued words said as one
    ("I count 2 lithologydescription set in all": Django's ``lithologydescription_set``)."""
    if not view.assistant_texts:
        return None
    ids: set[str] = set()
    # on an imported API an id is the handle a developer works with (the created record's id is what the
    # answer should name), not an internal
    for call in [] if view.builder.startswith("api.") else view.calls:
        _internal_ids(call.output, ids)
        _internal_ids(call.arguments, ids)
    glued: set[str] = set()
    for call in view.calls:
        _glued_key_parts(call.output, glued)
    for text in view.assistant_texts:
        said = [w for w in re.findall(r"[a-z]{15,}", text) if w in glued]
        if said:
            return _flag("glued_field_word", said[0])
        norm = normalized(text)
        for value in sorted(ids):
            if value in text and says(norm, value) and not says(view.user_norm, value):
                return _flag("internal_id", value)
        for match in _SNAKE.finditer(text):
            if not says(view.user_norm, match.group(0)):
                return _flag("snake_case", match.group(0))
        match = _ISO_TIMESTAMP.search(text)
        if match:
            return _flag("iso_timestamp", match.group(0))
    return OK


# -- what the calls do ------------------------------------------------------------------------------------

@check("category_mismatch", "category label contradicts the calls (parallel_multiple with one call or one tool, "
       "parallel calls over two turns, sequential with no dependency, simple offering many tools, ...)", 0.0)
def category_mismatch(view: RowView) -> Verdict | None:
    """Every row that calls, asks or declines, error reports and retries included: flagged when its calls
    contradict its label (:func:`covert.audit.categories.label_problem`: simple and multiple make exactly
    one call, simple among one tool; parallel puts every call in one turn of two calls or more,
    parallel_multiple of two tools or more; sequential has a call that takes a value from an earlier
    turn's output that the user never said; state_changing writes; irrelevance makes no call). A failed
    call counts as made; a retry of it counts once."""
    if view.behaviour not in ("tool_use", "clarify", "decline", "retry", "report_error"):
        return None
    problem = label_problem(view)
    return _flag(problem, _shape(view)) if problem else OK


def _shape(view: RowView) -> str:
    return " | ".join("+".join(c.name for c in turn) for turn in view.turns) or "(no calls)"


def _enum_values(view: RowView, call: CallView) -> set[str]:
    props = ((view.tools.get(call.name) or {}).get("parameters") or {}).get("properties") or {}
    out: set[str] = set()
    for schema in props.values():
        if isinstance(schema, dict):
            for source in (schema, schema.get("items") if isinstance(schema.get("items"), dict) else {}):
                out |= {str(v) for v in source.get("enum", ())}
    return out


@check("same_turn_id", "a call uses a value in the same turn as the call that returns it", 0.0)
def same_turn_id(view: RowView) -> Verdict | None:
    """Rows with calls. Flagged when a call takes an argument value (not an enum value, not said by the
    user) that only an output of its own turn holds, no earlier turn's."""
    if not view.turns:
        return None
    earlier: set[str] = set()
    for turn in view.turns:
        for i, call in enumerate(turn):
            siblings: set[str] = set()
            for j, other in enumerate(turn):
                if j != i:
                    siblings |= other.scalars
            enums = _enum_values(view, call)
            for value in sorted(scalars_of(call.arguments)):
                if (len(value) >= 3 and value in siblings and value not in earlier and value not in enums
                        and not says(view.user_norm, value)):
                    return _flag("same_turn", f"{call.name} uses {value}")
        for call in turn:
            earlier |= call.scalars
    return OK


def _id_values(arguments: dict[str, Any]) -> set[str]:
    out = set()
    for key, value in arguments.items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, (str, int)) and not isinstance(v, bool) and str(key).endswith(("_id", "_ids", "_number")):
                out.add(str(v))
    return out


@check("parallel_write_conflict", "order-dependent writes: two writes on one id in one parallel turn", 0.0)
def parallel_write_conflict(view: RowView) -> Verdict | None:
    """Rows with a turn of two calls or more. Flagged when two writes of one turn share an id argument
    (the same booking, order, message ...): their order matters, so they cannot be parallel."""
    multi = [t for t in view.turns if len(t) >= 2]
    if not multi:
        return None
    for turn in multi:
        seen: dict[str, str] = {}
        for call in turn:
            if not call.writes:
                continue
            for value in sorted(_id_values(call.arguments)):
                if value in seen:
                    return _flag("same_id", f"{seen[value]} and {call.name} on {value}")
                seen[value] = call.name
    return OK


_REQUIRES_ID = re.compile(r"\b(identify|authenticate|verify)\b[^.]{0,120}\bbefore\b|\bfind the [\w' ]{0,40}"
                          r"account\b[^.]{0,80}\bbefore\b", re.IGNORECASE)


def _identifies(view: RowView, call: CallView) -> bool:
    """A ``find_*`` read that takes no internal id: it turns what the user says into their record."""
    if call.writes or not call.name.startswith("find_"):
        return False
    required = ((view.tools.get(call.name) or {}).get("parameters") or {}).get("required") or []
    return not any(str(p).endswith(("_id", "_ids")) for p in required)


@check("unidentified_write", "write rows that act with no identification first although the system prompt "
       "requires it", 0.02)
def unidentified_write(view: RowView) -> Verdict | None:
    """Rows that write and whose system prompt says to identify the user before acting. Flagged when no
    identifying lookup (a ``find_*`` read on what the user says) runs in a turn before the first write."""
    if not any(c.writes for c in view.calls) or not _REQUIRES_ID.search(view.system):
        return None
    for turn in view.turns:
        if any(c.writes for c in turn):
            first = next(c for c in turn if c.writes)
            return _flag("no_identification", f"{first.name} first ({_shape(view)})")
        if any(_identifies(view, c) for c in turn):
            return OK
    return OK


# -- conversations and queries ---------------------------------------------------------------------------

def _supplies(view: RowView, reply: str, turn: int, earlier: str) -> bool:
    """Whether a user reply hands over a value that a call from ``turn`` on uses, or that picks a record."""
    norm = normalized(reply)
    values = [v for t in view.turns[turn:] for c in t for v in scalars_of(c.arguments)] + view.extras.get("selections", [])
    # a one-digit count ("We're 2 people.") is handed over as much as a name is
    return any((len(v) >= 2 or v.isdigit()) and says(norm, v) and not says(earlier, v) for v in values)


@check("single_user_turn", "multi-turn rows with a single user turn, or whose later user turns hand over "
       "nothing the agent asked for (only confirmations)", 0.0, configs="multiturn")
def single_user_turn(view: RowView) -> Verdict | None:
    """Conversation rows with calls: flagged when the user speaks once (``one_user_turn``: nothing was
    held back for the agent to ask for), or when no later user turn hands over a value a later call uses
    or a record is picked by (``nothing_held_back``: the user only says yes to confirmations)."""
    if not view.turns:
        return None
    if len(view.user_texts) < 2:
        return _flag("one_user_turn", view.query)
    earlier = normalized(view.query)
    for _question, reply, turn in view.extras.get("exchanges", []):
        if _supplies(view, reply, turn, earlier):
            return OK
        earlier += " " + normalized(reply)
    return _flag("nothing_held_back", view.query)


def _descriptions(view: RowView) -> list[str]:
    out = []
    for tool in view.tools.values():
        first = str(tool.get("description") or "").split(". ")[0].strip().rstrip(".").lower()
        if len(first.split()) >= 5:
            out.append(first)
    return out


_QUERY_RUN = 7


def _copies_query(text: str, query: str) -> str | None:
    words = re.findall(r"[a-z0-9']+", query.lower())
    body = " ".join(re.findall(r"[a-z0-9']+", text.lower()))
    for k in range(len(words) - _QUERY_RUN + 1):
        window = words[k:k + _QUERY_RUN]
        if sum(w.isdigit() for w in window) * 2 > len(window):
            continue  # restating a date range or a time ("2026 07 21 to 2026 07 25") copies a value, not a plan
        run = " ".join(window)
        if f" {run} " in f" {body} ":
            return run
    return None


def _without_arguments(text: str, view: RowView) -> str:
    """The text with the calls' long string arguments (notes, titles the user dictated) taken out."""
    # a value of three words or more, counted as the run finder counts them ("summit-instance-profile-2")
    for value in sorted({v for c in view.calls for v in scalars_of(c.arguments)
                         if len(re.findall(r"[a-z0-9']+", v.lower())) >= 3}, key=len, reverse=True):
        text = re.sub(re.escape(value), " ", text, flags=re.IGNORECASE)
    return text


@check("plan_copies", "reasoning of tool-call turns that pastes a tool description or copies the user's "
       "query", 0.02, configs="multiturn")
def plan_copies(view: RowView) -> Verdict | None:
    """Rows whose tool-call turns carry reasoning: flagged when a plan holds the first sentence of a tool's
    description, or seven consecutive words of the user's first message (a copy, not a plan) outside
    the text the user dictated for a call (a note, a title)."""
    plans = view.extras.get("reasoning") or []
    if not plans:
        return None
    descriptions = _descriptions(view)
    for plan in plans:
        low = plan.lower()
        quoted = next((d for d in descriptions if d in low), None)
        if quoted:
            return _flag("tool_description", quoted)
        run = _copies_query(_without_arguments(plan, view), _without_arguments(view.query, view))
        if run:
            return _flag("query_copy", run)
    return OK


@check("confirmation_internals", "confirmations before a write that paste key names, internal ids, "
       "snake_case values or tool descriptions", 0.02, configs="multiturn")
def confirmation_internals(view: RowView) -> Verdict | None:
    """Rows with a confirmation (an assistant question answered without a new value, before a turn that
    writes). Flagged when it shows an argument key (``card_id``, or ``card id CRD-1``), a value of an
    internal id field the user never said, a snake_case word, or a tool description."""
    confirmations = []
    earlier = normalized(view.query)
    for question, reply, turn in view.extras.get("exchanges", []):
        if turn < len(view.turns) and any(c.writes for c in view.turns[turn]) and not _supplies(view, reply, turn, earlier):
            confirmations.append((question, view.turns[turn]))
        earlier += " " + normalized(reply)
    if not confirmations:
        return None
    ids: set[str] = set()
    # on an imported API an id is the handle a developer works with (the created record's id is what the
    # answer should name), not an internal
    for call in [] if view.builder.startswith("api.") else view.calls:
        _internal_ids(call.output, ids)
        _internal_ids(call.arguments, ids)
    descriptions = _descriptions(view)
    for question, calls in confirmations:
        low = question.lower()
        for call in calls:
            for key, value in call.arguments.items():
                if "_" in key and re.search(rf"(?<![\w-]){re.escape(key.lower())}(?![\w-])", low):
                    return _flag("key_name", key)
                if not isinstance(value, (dict, list)) and f"{key.replace('_', ' ')} {value}".lower() in low:
                    return _flag("key_name", f"{key.replace('_', ' ')} {value}")
        norm = normalized(question)
        for value in sorted(ids):
            if value in question and says(norm, value) and not says(view.user_norm, value):
                return _flag("internal_id", value)
        match = _SNAKE.search(question)
        if match and not says(view.user_norm, match.group(0)):
            return _flag("snake_case", match.group(0))
        quoted = next((d for d in descriptions if d in low), None)
        if quoted:
            return _flag("tool_description", quoted)
    return OK


_RETRY_LATER = re.compile(r"\b(try (?:it |that |this )?again|retry|try back|in a (?:few|little) (?:minutes|while))\b",
                          re.IGNORECASE)
_HTTP_STATUS = re.compile(r"\b[45]\d\d:? (?:Bad Request|Unauthorized|Payment Required|Forbidden|Not Found|Method Not|"
                          r"Conflict|Gone|Precondition|Unprocessable|Locked|Too Many|Internal|Not Implemented|"
                          r"Bad Gateway|Service Unavailable|Gateway Timeout)")  # not "564 Lakeview Terrace"
_DUMP = re.compile(r"(?:[^;.!?]{1,40}; ){2,}[^;.!?]{1,40}")


@check("error_report_language", "error handling that names the tool or the raw error code, tells the user to "
       "try a permanent failure again later, or dumps values", 0.02, configs="augmented")
def error_report_language(view: RowView) -> Verdict | None:
    """Rows with an injected failure (``ground_truth.failure``). Flagged when what the assistant says names
    the failing tool (as written or with spaces) or the error code or an HTTP status, when the report of
    a permanent failure advises trying again, or when it lists three values or more separated by
    semicolons (a dump, not a sentence)."""
    failure = view.extras.get("failure")
    if not failure:
        return None
    name = str(failure.get("name") or "")
    error = failure.get("error") if isinstance(failure.get("error"), dict) else {}
    code = str(error.get("code") or "")
    for text in view.assistant_texts:
        low = text.lower()
        spaced = name.replace("_", " ").lower()
        # the name as written, or spaced out where it stands for the tool ("the request to cancel pending
        # order failed"); "I couldn't add checked bags" is plain English, not the tool's name
        if name and (name.lower() in low or re.search(rf"(?:request to|call to|calling) {re.escape(spaced)}\b|"
                                                      rf"\b{re.escape(spaced)} (?:request|call|failed)\b", low)):
            return _flag("names_tool", name)
        if (code and code.lower() in low) or _HTTP_STATUS.search(text):
            return _flag("raw_code", text)
    if not failure.get("transient"):
        if _RETRY_LATER.search(view.answer):
            return _flag("try_again_permanent", view.answer)
        if _DUMP.search(view.answer):
            return _flag("value_dump", _DUMP.search(view.answer).group(0))
    return OK


GREETING = re.compile(r"^\s*(hi|hello|hey|good (?:morning|afternoon|evening|day)|greetings|howdy|dear \w+|yo)\b"
                      r"(?: there)?[\s,.!:;\u2014-]*", re.IGNORECASE)
CLOSER = re.compile(r"[\s,.;\u2014-]*\b(thanks(?: a lot| so much| in advance)?|thank you(?: so much| very much)?|"
                    r"cheers|appreciate it|much appreciated|many thanks|ta|thx|regards|best)\b[\s.!]*$", re.IGNORECASE)


def opening(query: str) -> str:
    """The greeting a query opens with, lower case (``""`` for none)."""
    match = GREETING.match(query)
    return match.group(0).strip().lower() if match else ""


def closing(query: str) -> str:
    """The closer a query ends with, lower case (``""`` for none)."""
    match = CLOSER.search(query)
    return match.group(0).strip().lstrip(",;.!\u2014- ").lower() if match else ""


@check("canned_greeting", "queries opening with a greeting or closing with a thank-you (see the distribution)", 1.0)
def canned_greeting(view: RowView) -> Verdict | None:
    """Every query: flagged when it opens with a greeting or ends with a closer. Real users do greet; what
    matters is the spread, which the report lists (distinct openings and closings, the top ones)."""
    if not view.query:
        return None
    start, end = opening(view.query), closing(view.query)
    if start or end:
        return _flag("greeting" if start and not end else "closer" if end and not start else "both",
                     f"{start!r} ... {end!r}")
    return OK


# -- hand-over phrasing, identities and whose records ------------------------------------------------------

_STOCK_HANDOVER = re.compile(
    r"(?:^|[.?!]\s+|,\s+)(?:it concerns|this is about|the person (?:i mean )?is|the person i mean is|"
    r"i mean the person)\b|\badd up to in\b|\bhow much do [\w' ]{1,40} add up to\b|\bis top for\b|"
    r"\bis lowest on\b|\bcome to in [\w' ]{1,40}, all together\b", re.IGNORECASE)
_DATE = r"\d{4}-\d{2}-\d{2}"
_DATE_CHAIN = re.compile(rf"\b(?:between|from) {_DATE} (?:and|to|through|until) {_DATE} and {_DATE}\b")
_RANGE = re.compile(rf"\b(?:between|from) ({_DATE}) (?:and|to|through|until) ({_DATE})\b")


def _repeated_value(view: RowView) -> str:
    """A value the user hands over twice in one query (a name, an email, an id), if any
    (:func:`covert.language.values.said_twice`; the enum codes of the offered tools are not counted)."""
    values = {v for call in view.calls for v in scalars_of(call.arguments)}
    return said_twice(view.query, values, enum_codes(view.tools.values()))


@check("stilted_handover", "queries with stilted hand-over phrasing: a value said twice ('... of Ingrid Kim? The "
       "person is Ingrid Kim.'), stock frames ('It concerns ...', '... add up to in ...', '... is top for ...', "
       "'... come to in points, all together?'), "
       "chained, reversed or one-day date ranges", 0.0)
def stilted_handover(view: RowView) -> Verdict | None:
    """The first user message of rows with calls. Flagged when an argument value (five characters or
    more, not a bare number) occurs twice in it, when it uses a stock frame ("It concerns ...", "which of
    my orders is top for order total?"), when a date range chains a third date ("between 2026-06-01 and
    2026-05-26 and 2026-06-02"), or when a range ends before it starts or on the day it starts ("from
    2026-10-21 to 2026-10-21")."""
    if not view.query or not view.turns:
        return None
    match = _STOCK_HANDOVER.search(view.query)
    if match:
        return _flag("stock_frame", match.group(0).strip(" ,.?!"))
    match = _DATE_CHAIN.search(view.query)
    if match:
        return _flag("date_chain", match.group(0))
    for start, end in _RANGE.findall(view.query):
        if end < start:
            return _flag("reversed_range", f"{start} .. {end}")
        if end == start:
            return _flag("one_day_range", f"from {start} to {end}")
    repeated = _repeated_value(view)
    if repeated:
        return _flag("said_twice", repeated)
    return OK


_SELF_KEYS = ("email", "email_or_phone", "membership_number", "loyalty_number", "employee_number")


def _policy_violations(view: RowView) -> list[tuple[str, str]] | None:
    """What :func:`covert.env.policy.violations` says of the row (``None`` for builders without a policy
    or rows without their initial state)."""
    from covert.env import UnknownBuilderError, get_builder
    from covert.env.policy import identity_of, violations

    try:
        builder = get_builder(view.builder)
    except UnknownBuilderError:
        return None
    if identity_of(builder) is None:
        return None
    state = view.extras.get("initial_state")
    if isinstance(state, str):
        try:
            state = orjson.loads(state)
        except orjson.JSONDecodeError:
            return None
    if not isinstance(state, dict) or not isinstance(state.get("tables"), dict):
        return None
    turns = [[{"name": c.name, "arguments": c.arguments} for c in turn] for turn in view.turns]
    outputs = [c.output for c in view.calls]
    try:
        return list(violations(builder, view.system, turns, outputs, state["tables"]))
    except (KeyError, TypeError, AttributeError, ValueError):
        return None


@check("two_identities", "a user who claims two identities in one conversation (two emails, membership numbers "
       "or identified people)", 0.0)
def two_identities(view: RowView) -> Verdict | None:
    """Rows with calls. Flagged when the calls carry two different values for a parameter in which a
    user names themselves (email, email_or_phone, membership, loyalty or employee number), or when the
    builder's policy sees two people identified or signed in."""
    if not view.turns:
        return None
    # on an imported API an email is a record's field (a contact's address), never the user naming themselves
    for key in _SELF_KEYS if not view.builder.startswith("api.") else ():
        values = {str(v) for c in view.calls for v in scalars_of({key: c.arguments.get(key)}) if v}
        if len(values) > 1:
            return _flag(key, ", ".join(sorted(values))[:200])
    found = dict(_policy_violations(view) or [])
    return _flag("policy", found["two_identities"]) if "two_identities" in found else OK


@check("other_customer_records", "rows that read or change another customer's records after the user identified "
       "(or while another is signed in)", 0.0)
def other_customer_records(view: RowView) -> Verdict | None:
    """Rows of builders with an identification policy (covert.env.policy) that carry their initial state:
    flagged when a call acts on a record owned by someone other than the identified or signed-in person."""
    if not view.turns:
        return None
    found = _policy_violations(view)
    if found is None:
        return None
    reasons = dict(found)
    return _flag("other_customer", reasons["other_customer_records"]) if "other_customer_records" in reasons else OK


# -- queries that read like schema dumps -------------------------------------------------------------------

@check("schema_in_query", "queries that read like schema dumps: operation ids, paths, parameter keys, enum "
       "spellings, opaque ids a person could not know, filler values, verbs as nouns", 0.0)
def schema_in_query(view: RowView) -> Verdict | None:
    """Every user message of rows with calls (:func:`covert.language.query_leaks.query_leaks` against the row's
    offered tools and its calls' arguments); the kind names the first defect found."""
    if not view.user_texts or not view.turns:
        return None
    calls = [{"name": c.name, "arguments": c.arguments} for c in view.calls]
    tools = [{"function": f} for f in view.tools.values()]
    for text in view.user_texts:
        leaks = query_leaks(text, tools, calls)
        if leaks:
            kind, detail = leaks[0]
            return _flag(kind, detail)
    return OK
