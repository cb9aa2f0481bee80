"""The answer stage: compose the final assistant message from the task's goals and the outputs.

Answer templates (``Intent.answer`` in a builder's language) have slots that are paths into the
goal call's output, each with an optional form::

    {status:status}                 a status in words ("under review")
    {check_in:date}                 "March 12, 2026"; also :time ("3:30 pm") and :when (a timestamp)
    {total:money}                   "$1,136.45" (currency: the amount's sibling ``currency`` field, or the
                                    nearest one above it; ``{total:money:charge.currency}`` names it)
    {events:n:event}                a count in agreement: "no events", "1 event", "3 events"
    {?status=delivered,shipped}     a guard: the template fits only when the value is one of these
                                    (``{?status~cancelled}``: none of these); it says nothing
    {?-title}                       a guard: the template fits only when the output has no value there
                                    (a record said by its id where it has no name to say)
    {events:list:title|start_time@time}
                                    the items of a list by name, each with extras in parentheses:
                                    "Standup (9 am), Review (2:30 pm) and 3 more" (a list the user asked
                                    for is named in full, up to :data:`FULL_LIST_LIMIT` items)
    {variants:list:options?available}
                                    only the items whose field ``available`` is true ("which versions
                                    are in stock?" is never answered with one that is not)

Every value an answer states is an answer fact (``{"call", "path", "value"}``, with ``form``,
``said`` and ``unit`` when it is spoken rather than quoted), which validation re-derives from the
replayed outputs. Several results of one turn share one answer with a different sentence frame each.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from covert.errors import Rejected
from covert.language.plurals import plural
from covert.language.realize import plural_noun
from covert.language.spoken import FORMS, Unspeakable, raw_value, say, say_count
from covert.language.values import get_path, join_items, render, single_stops

LIST_LIMIT = 4  # a list of at most this many items is named in full; a longer one names LIST_LIMIT - 1
FULL_LIST_LIMIT = 12  # ... unless the user asked for the list: then up to this many are named

AGGREGATE_ANSWERS = {
    "sum": ("The {field} across {whose} {plural} {comes} to {value}.",
            "Added up over {whose} {plural}, the {field} {comes} to {value}.",
            "Across {whose} {plural}, the {field} {adds} up to {value}."),
    "count": ("You have {count}.", "I count {count} in all.", "All told, that's {count}.",
              "That comes to {count}."),
    # a count of a list that is not the user's own ("How many rooms does Hotel Solana have?"): not "You have"
    "count_of": ("I count {count} in all.", "All told, that's {count}.", "That comes to {count}.",
                 "There are {count}."),
    "max": ("{label} has the highest {field}, at {value}.", "The highest {field} belongs to {label}: {value}.",
            "That would be {label}, with {a} {field} of {value}."),
    "min": ("{label} has the lowest {field}, at {value}.", "The lowest {field} belongs to {label}: {value}.",
            "That would be {label}, with {a} {field} of just {value}."),
}


@dataclass(frozen=True)
class Slot:
    """One slot of an answer template: an output path and how to say its value."""

    path: str
    form: str = ""  # "", a form of covert.language.spoken, or "list"
    arg: str = ""  # the currency path of money, the noun of n, the item spec of list


@cache
def parse(template: str) -> tuple[tuple[str, Slot | None], ...]:
    """A template as ``(literal, slot)`` pairs (the last slot may be ``None``)."""
    out = []
    for literal, name, spec, _ in string.Formatter().parse(template):
        slot = None
        if name and name.startswith("?-"):
            slot = Slot(name[2:], "guard", "-")
        elif name and name.startswith("?"):
            negate = "~" in name
            path, _, values = name[1:].partition("~" if negate else "=")
            slot = Slot(path, "guard", ("~" if negate else "=") + values)
        elif name:
            form, _, arg = (spec or "").partition(":")
            if form and form not in FORMS and form != "list":
                raise ValueError(f"unknown answer form {form!r} in {template!r}")
            slot = Slot(name, form, arg)
        out.append((literal, slot))
    return tuple(out)


def answer_paths(template: str) -> frozenset[str]:
    """The output paths an answer template reads (for the builder contract tests)."""
    return frozenset(slot.path for _, slot in parse(template) if slot is not None)


# words of a field name that make it an amount of money where its records name a currency
MONEY_WORDS = frozenset(("price", "amount", "total", "balance", "cost", "fee", "fees", "paid", "due", "spent",
                         "charge", "fare", "subtotal", "refund"))


@lru_cache(maxsize=4096)
def money_fields(language: Any) -> frozenset[str]:
    """The output fields a language's answer templates say as amounts of money (``{total:money}``, a
    list extra ``price@money``). Cached per language (languages hash by identity)."""
    fields = set()
    for options in language.intents.values():
        for intent in options:
            for template in intent.answer:
                for _, slot in parse(template):
                    if slot is None:
                        continue
                    if slot.form == "money":
                        fields.add(slot.path.rsplit(".", 1)[-1])
                    elif slot.form == "list":
                        fields.update(key for key, form, _ in _item_spec(slot.arg) if form == "money")
    return frozenset(fields)


def is_amount(language: Any, key: str) -> bool:
    """Whether output field ``key`` holds amounts of money: the language's answers say it as money, or its
    name has a word of :data:`MONEY_WORDS` (an aggregate over it is then said with its currency, where the
    records name one)."""
    return key in money_fields(language) or not MONEY_WORDS.isdisjoint(key.lower().split("_"))


def aggregate_currency(output: Any, list_path: str, key: str, indexes: list[int]) -> str:
    """The output path of the one currency the amounts ``key`` of the listed elements ``indexes`` are in
    (each element's own ``currency`` field, or the nearest one above it); raises :class:`Unspeakable`
    when one has none, and :class:`Rejected` (``mixed_currencies``) when they differ: amounts in
    different currencies add up to nothing a person could be told."""
    prefix = f"{list_path}." if list_path else ""
    units = [_unit_path(output, f"{prefix}{i}.{key}", "") for i in indexes]
    if len({get_path(output, unit) for unit in units}) > 1:
        raise Rejected("mixed_currencies", f"{key} in {list_path}")
    return units[0]


def _guard_holds(output: Any, slot: Slot) -> bool:
    """``{?status=a,b}``: the value at the path is one of a, b; ``{?status~a,b}``: it is none of them;
    ``{?-status}``: there is no value there (nothing, or an empty string)."""
    value = get_path(output, slot.path)
    if slot.arg == "-":
        return value is None or value == ""
    listed = value is not None and render(value) in slot.arg[1:].split(",")
    return listed if slot.arg[0] == "=" else not listed


def _unit_path(output: Any, path: str, explicit: str) -> str:
    """The path of the currency an amount at ``path`` is in: ``explicit`` if given, else the nearest
    ``currency`` field at or above the amount's own record."""
    if explicit:
        return explicit
    parts = path.split(".")[:-1]
    while True:
        candidate = ".".join([*parts, "currency"])
        if isinstance(get_path(output, candidate), str):
            return candidate
        if not parts:
            raise Unspeakable(f"no currency for {path}")
        parts.pop()


def _scalar_fact(output: Any, index: int, path: str, form: str, arg: str) -> dict[str, Any]:
    """The fact for one value; raises :class:`Unspeakable` when the value is missing or does not fit."""
    value = get_path(output, path)
    if isinstance(value, list) and form != "n" and not (form == "" and value and all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value)):
        raise Unspeakable(f"{path} holds a list that only a count or a list slot can say")
    if value is None or value == "" or isinstance(value, dict):
        raise Unspeakable(f"{path} holds no sayable value")
    fact: dict[str, Any] = {"value": raw_value(form, value), "call": index, "path": path}
    if form == "money":
        unit = _unit_path(output, path, arg)
        fact.update(form="money", unit=unit, said=say("money", value, get_path(output, unit)))
    elif form == "n":
        fact.update(form=f"n:{arg}", said=say(f"n:{arg}", value))
    elif form:
        fact.update(form=form, said=say(form, value))
    return fact


def _item_spec(arg: str) -> tuple[tuple[str, str, str], ...]:
    """``title|start_time@time|capacity#seats`` -> ``(("title", "", ""), ("start_time", "time", ""),
    ("capacity", "", "seats"))``: each extra's key, form and label (``#seats`` says "seats 8", ``#~device``
    says "1 device" or "3 devices", ``#+to`` joins the extra to the one before: "12 pm to 12:30 pm"), so a bare number in parentheses never leaves the reader guessing what it counts."""
    out = []
    for part in arg.partition("?")[0].split("|"):
        part, _, label = part.partition("#")
        key, _, form = part.partition("@")
        out.append((key, form, label))
    return tuple(out)


def _labelled(said: str, label: str) -> str:
    """An extra with its label: ``seats 8``; ``~device`` is a counted noun ("1 device", "3 devices")."""
    if not label:
        return said
    if label.startswith("~"):
        return say_count(int(said), label[1:]) if said.isdigit() and int(said) > 0 else f"{said} {plural(label[1:])}"
    return f"{label} {said}"


def _list_text(output: Any, index: int, slot: Slot, full: bool = False) -> tuple[str, list[dict[str, Any]]]:
    items = get_path(output, slot.path)
    if not isinstance(items, list) or not items or not all(isinstance(e, dict) for e in items):
        raise Unspeakable(f"{slot.path} is no list of records")
    arg, _, only = slot.arg.partition("?")
    spec = _item_spec(arg)
    kept = [k for k, item in enumerate(items) if not only or item.get(only) is True]
    if not kept:
        raise Unspeakable(f"no item of {slot.path} has {only}")
    limit = FULL_LIST_LIMIT if full else LIST_LIMIT
    shown = kept if len(kept) <= limit else kept[: limit - 1]
    names: list[str] = []
    facts: list[dict[str, Any]] = []
    for k in shown:
        parts = []
        for key, form, label in spec:
            fact = _scalar_fact(output, index, f"{slot.path}.{k}.{key}", form, "")
            said = fact.get("said") or fact["value"]
            if label.startswith("+") and parts:  # ``end_time@time#+to``: "12 pm to 12:30 pm"
                parts[-1] = f"{parts[-1]} {label[1:]} {said}"
            else:
                parts.append(_labelled(said, label))
            facts.append(fact)
        label, extras = parts[0], parts[1:]
        names.append(f"{label} ({', '.join(extras)})" if extras else label)
    if len(shown) < len(kept):
        names.append(f"{len(kept) - len(shown)} more")
    return join_items(names), facts


def fill_answer(template: str, output: Any, index: int, full: bool = False) -> tuple[str, list[dict[str, Any]]]:
    """Fill one answer template from call ``index``'s output: the text and its facts (``full``: the user
    asked for the list, so a list slot names every item it can); raises :class:`Unspeakable` when the
    output cannot fill it."""
    text = []
    facts: list[dict[str, Any]] = []
    none_counted = False
    for literal, slot in parse(template):
        if none_counted and literal.startswith(" in all"):  # "I count no links in all." -> "There are no links."
            literal = literal[len(" in all"):]
        none_counted = False
        text.append(literal)
        if slot is None:
            continue
        if slot.form == "guard":
            if not _guard_holds(output, slot):
                raise Unspeakable(f"{slot.path} does not fit the template")
            continue
        if slot.form == "list":
            said, found = _list_text(output, index, slot, full)
            facts.extend(found)
        else:
            fact = _scalar_fact(output, index, slot.path, slot.form, slot.arg)
            said = fact.get("said") or fact["value"]
            facts.append(fact)
            if slot.form.startswith("n") and str(said).startswith("1 ") and text[-1].endswith(" are "):
                text[-1] = text[-1][:-len("are ")] + "is "  # "There is 1 web property link", not "There are 1"
            elif slot.form.startswith("n") and str(said).startswith("no ") and text[-1].endswith("I count "):
                text[-1], none_counted = text[-1][:-len("I count ")] + "There are ", True
        text.append(said)
    return single_stops("".join(text)), facts  # 'It reads "Kept for 30 days."', not '... days.".'


def _add(facts: list[dict[str, Any]], new: list[dict[str, Any]]) -> None:
    for fact in new:
        if fact not in facts:
            facts.append(fact)


class Composer:
    """Composes one task's final answer; ``used`` keeps the templates already spoken so that no two
    results of the answer share a sentence frame while another frame fits."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.lists: set[frozenset[str]] = set()  # the items of each list spoken so far

    def goal(self, templates: tuple[str, ...], output: Any, index: int, tool: str,
             facts: list[dict[str, Any]], full: bool = False) -> str:
        """The answer to one goal call: a template that its output fills, a fresh one where possible
        (``full``: the user asked for the list, see :func:`fill_answer`)."""
        fits = False
        # in a seeded order, the first frame not spoken yet that the output fills (no need to fill them all)
        for template in self.rng.sample(templates, len(templates)):
            if template in self.used and fits:
                continue
            try:
                text, found = fill_answer(template, output, index, full)
            except Unspeakable:
                continue
            fits = True
            if template in self.used:
                continue
            keyed = [(str(f["path"]).rsplit(".", 1)[-1], str(f["value"])) for f in found
                     if any(p.isdigit() for p in str(f.get("path", "")).split("."))]
            items = frozenset(v for k, v in keyed if k == keyed[0][0]) if keyed else frozenset()
            if len(items) >= 2 and items in self.lists:
                # two calls of one turn that return the same records would say one list twice
                raise Rejected("answer_repeats_list", tool)
            self.lists.add(items)
            self.used.add(template)
            _add(facts, found)
            return text
        if not fits:
            raise Rejected("answer_path_missing", tool)
        raise Rejected("repeated_answer_frame", tool)  # every frame that fits is spoken: it would repeat

    def aggregate(self, op: str, words: dict[str, str], count: int | None = None,
                  nouns: tuple[str, str] = ("", ""), own: bool = True) -> tuple[str, dict[str, str]]:
        """The answer to a reasoning step (sum, count, max, min); for a count, the counted noun agrees
        with the number, and a list that is not the user's own (``own`` false) is not said as "You have".
        Returns the text and the extra fact fields (``form``, ``said``)."""
        extra: dict[str, str] = {}
        if op == "count" and count is not None:
            noun, many = nouns
            form = f"n:{noun}|{many}" if many != plural(noun) else f"n:{noun}"
            words = {**words, "count": say_count(count, form[2:])}
            extra = {"form": form, "said": words["count"]}
        template = self.rng.choice(AGGREGATE_ANSWERS["count_of" if op == "count" and not own else op])
        field_noun = words.get("field", "")
        article = "an" if field_noun[:1].lower() in ("a", "e", "i", "o", "u") else "a"
        many = plural_noun(field_noun)  # "the points come to", "the order total comes to"
        return template.format(**words, a=article, comes="come" if many else "comes",
                               adds="add" if many else "adds"), extra

