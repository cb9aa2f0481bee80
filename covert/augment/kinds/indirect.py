"""Indirect queries: the same request, phrased so the agent has to work out what is meant.

Three rephrasings, each applied only where it keeps every oracle value grounded:

- ``describe``: an entity the oracle singles out of a list by one describing field is described by
  another field that also singles it out (``the order with the blender`` becomes ``the order I placed
  on 2025-03-02``), from the builder's ``language.references[...].by_field``; the ground truth's
  selection record is updated to the new field, and L3 checks that it still singles the record out;
- ``implicit``: a direct request frame becomes an indirect one (``Can you ...?`` -> ``I was hoping you
  could ...``, ``What's ...?`` -> ``I've been wondering: what's ...?``);
- ``reorder``: the sentences that hand over information move to the other side of the requests and
  swap among themselves, and independent requests are reordered (only when at most one oracle call
  writes, so the order of the requests can never decide the final state).

Values are never removed, so grounding holds by construction; :mod:`covert.augment.verify` re-runs the
L3 grounding, leak, selection and minimality checks on the new query all the same.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from covert.augment.registry import Kind, NotApplicable, RowPair
from covert.augment.rows import flat_calls, query_of, recorded_outputs, with_query, with_truth
from covert.augment.text import Query, capitalise, is_context, replace_ci, spans, split_query, strip_connector
from covert.env import get_builder
from covert.errors import Invalid
from covert.language.realize import CONNECTORS, keeps_capital
from covert.language.values import get_path, mentions, normalize_text, overlaps, render

OPS = ("describe", "implicit", "reorder")

# each direct frame has many indirect ones, so that no one wording recurs across the kind's rows (a frame
# said in one row in two makes the queries' bigrams repeat); none carries a politeness formula
_FRAMES = (
    (re.compile(r"(?:can|could) you (.+)\?$", re.IGNORECASE),
     ("I was hoping you could {rest}.", "It would help me if you could {rest}.", "Any chance you could {rest}?",
      "I wonder if you could {rest}.", "Would you be able to {rest}?", "Are you able to {rest}?",
      "Is it possible for you to {rest}?", "I'm hoping you can {rest}.", "Might you be able to {rest}?",
      "Maybe you can {rest}?", "I'd like you to {rest}.", "Is there a way you could {rest}?")),
    (re.compile(r"please (.+?)\.?$", re.IGNORECASE),
     ("I need you to {rest}.", "I'd like you to {rest}.", "Go ahead and {rest}.", "Would you {rest}?",
      "I'll need you to {rest}.", "Could you {rest} for me?", "Time to {rest}.", "Can you {rest} now?",
      "You can {rest}, I've decided.", "Let's {rest}.")),
    (re.compile(r"i'd like to (.+)$", re.IGNORECASE),
     ("I'm hoping to {rest}", "I want to {rest}", "I need to {rest}", "I'm trying to {rest}", "My plan is to {rest}",
      "I'm looking to {rest}", "What I want is to {rest}", "I've decided to {rest}", "I'm keen to {rest}")),
    (re.compile(r"i want to (.+)$", re.IGNORECASE),
     ("I'm looking to {rest}", "I'd like to {rest}", "I'm hoping to {rest}", "I need to {rest}", "I'm trying to {rest}",
      "My plan is to {rest}", "What I'm after is to {rest}", "I've made up my mind to {rest}", "I'm keen to {rest}")),
    (re.compile(r"show me (.+?)\.?$", re.IGNORECASE),
     ("I'd like to see {rest}.", "I want to see {rest}.", "Can I see {rest}?", "Let me see {rest}.",
      "I'd like a look at {rest}.", "Pull up {rest}.", "Bring up {rest}.", "I need to see {rest}.",
      "Could I get a look at {rest}?")),
    (re.compile(r"((?:what|which|who|when|where|how|is|are|has|have|do|does|did)\b.+\?)$", re.IGNORECASE),
     ("I've been wondering: {rest}", "Something I can't work out: {rest}", "Quick one: {rest}", "I'm curious: {rest}",
      "I can't remember: {rest}", "Before I forget: {rest}", "This has been bugging me: {rest}",
      "One thing I'm unsure about: {rest}", "I couldn't find it myself: {rest}", "I've lost track, so: {rest}",
      "Help me out here: {rest}", "Been meaning to ask: {rest}")),
)


@dataclass(frozen=True)
class Config:
    """At most ``max_ops`` of the rephrasings, and at most ``max_frames`` reframed requests."""

    max_ops: int = 2
    max_frames: int = 1

    @classmethod
    def for_intensity(cls, level: str) -> Config:
        return {"low": cls(1, 1), "medium": cls(2, 1), "high": cls(3, 3)}[level]


def _argument_values(truth: dict[str, Any]) -> list[Any]:
    values = []
    for call in flat_calls(truth):
        for value in call["arguments"].values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, (str, int, float)) and not isinstance(item, bool):
                    values.append(item)
    return values


def _protected(truth: dict[str, Any]) -> list[str]:
    values = [render(v) for v in _argument_values(truth)]
    values += [render(s["value"]) for s in truth["selections"] if s.get("mode") == "field"]
    return values


def _describe(query: Query, truth: dict[str, Any], outputs: list[Any], builder: Any, rng: random.Random,
              limit: int) -> list[dict[str, Any]]:
    """Re-describe selected entities in place; returns the changes (and edits ``truth["selections"]``)."""
    calls = flat_calls(truth)
    changes = []
    order = list(range(len(truth["selections"])))
    rng.shuffle(order)
    for index in order:
        if len(changes) >= limit:
            break
        sel = truth["selections"][index]
        if sel.get("mode") != "field":
            continue
        tool = builder.tools[calls[sel["call"]]["name"]]
        ref = builder.language.references.get(tool.param_entity(sel["param"]))
        if ref is None:
            continue
        said = [t.format(value=render(sel["value"])) for t in ref.by_field.get(sel["by"], ())]
        text = " ".join(query.units)
        old = next((p for p in said if spans(text, [p])), None)
        source = outputs[sel["source_call"]]
        elements = get_path(source, sel["list_path"]) if sel["list_path"] else source
        if old is None or not isinstance(elements, list):
            continue
        chosen = next((e for e in elements if isinstance(e, dict) and e.get(sel["key"]) == sel["chosen"]), None)
        if chosen is None:
            continue
        given = [v.lower() for v in map(render, _argument_values(truth)) if len(v) >= 3]
        options = [
            f for f in sorted(ref.by_field)
            if f != sel["by"] and isinstance(chosen.get(f), (str, int, float)) and not isinstance(chosen.get(f), bool)
            and chosen.get(f) != "" and sum(1 for e in elements if isinstance(e, dict) and e.get(f) == chosen[f]) == 1
            and not mentions(normalize_text(text), chosen[f]) and not overlaps(chosen[f], given)
        ]
        if not options:
            continue
        by = rng.choice(options)
        new = rng.choice(ref.by_field[by]).format(value=render(chosen[by]))
        units = [replace_ci(u, old, new) for u in query.units]
        said = normalize_text(" ".join(units))
        if not all(mentions(said, v) for v in _argument_values(truth) if mentions(normalize_text(text), v)):
            continue
        query.units = units
        truth["selections"][index] = {**sel, "by": by, "value": chosen[by]}
        changes.append({"selection": index, "from": sel["by"], "to": by})
    return changes


def _reframe(unit: str, rng: random.Random) -> str | None:
    connector, body = strip_connector(unit)
    for pattern, templates in _FRAMES:
        match = pattern.match(body)
        if match:
            rest = match.group(1)
            if not keeps_capital(rest):
                rest = rest[:1].lower() + rest[1:]
            framed = rng.choice(templates).format(rest=rest)
            if connector:
                framed = connector + (framed if keeps_capital(framed) else framed[:1].lower() + framed[1:])
            return framed
    return None


def _implicit(query: Query, asks: list[int], rng: random.Random, limit: int, values: list[Any]) -> int:
    """Reframe up to ``limit`` requests, never one that quotes an argument value the reframing would
    change (a free-text comment the user dictates is an argument, word for word)."""
    order = list(asks)
    rng.shuffle(order)
    done = 0
    for i in order:
        if done >= limit:
            break
        framed = _reframe(query.units[i], rng)
        quoted = [v for v in values if mentions(normalize_text(query.units[i]), v)]
        if framed is not None and quoted and not all(mentions(normalize_text(framed), v) for v in quoted):
            continue
        if framed is not None and framed != query.units[i]:
            query.units[i] = framed
            done += 1
    return done


def _split_asks(query: Query, builder: str) -> tuple[list[int], list[int]] | None:
    """Indices of context sentences and of the request block; ``None`` if the block is not contiguous."""
    contexts = [i for i, u in enumerate(query.units) if is_context(builder, u)]
    asks = [i for i in range(len(query.units)) if i not in contexts]
    if asks and asks != list(range(asks[0], asks[-1] + 1)):
        return None
    return contexts, asks


def _reorder(query: Query, contexts: list[int], asks: list[int], may_swap_asks: bool, rng: random.Random) -> bool:
    units = query.units
    context_units = [units[i] for i in contexts]
    ask_units = [units[i] for i in asks]
    separable = len(ask_units) > 1 and not strip_connector(ask_units[0])[0] and all(
        strip_connector(u)[0] for u in ask_units[1:])
    if separable and may_swap_asks:
        bodies = [ask_units[0]] + [capitalise(strip_connector(u)[1]) for u in ask_units[1:]]
        order = list(range(len(bodies)))
        while order == sorted(order):
            rng.shuffle(order)
        ask_units = [bodies[order[0]]] + [
            rng.choice(CONNECTORS) + (bodies[j] if keeps_capital(bodies[j]) else bodies[j][:1].lower() + bodies[j][1:])
            for j in order[1:]
        ]
    rng.shuffle(context_units)
    contexts_first = bool(contexts) and (not asks or contexts[0] < asks[0])
    if context_units and ask_units:
        contexts_first = not contexts_first
    new = context_units + ask_units if contexts_first else ask_units + context_units
    new = [capitalise(u) for u in new]
    changed = new != [capitalise(u) for u in units]
    query.units = new
    return changed


def apply(pair: RowPair, rng: random.Random, config: Config) -> RowPair:
    """Rephrase the query with up to ``config.max_ops`` of the operations."""
    sft = pair.sft
    truth = sft["ground_truth"]
    if truth["behaviour"] != "tool_use":
        raise NotApplicable("only tool-use tasks are rephrased")
    builder = get_builder(sft["builder"])
    original = query_of(sft)
    query = split_query(original, _protected(truth))
    truth = {**truth, "selections": list(truth["selections"])}
    ops = list(OPS)
    rng.shuffle(ops)
    applied: list[str] = []
    record: dict[str, Any] = {}
    writes = sum(1 for c in flat_calls(truth) if builder.tools[c["name"]].writes)
    for op in ops:
        if len(applied) >= config.max_ops:
            break
        if op == "describe":
            changes = _describe(query, truth, recorded_outputs(sft), builder, rng, config.max_ops)
            if changes:
                applied.append(op)
                record["redescribed"] = changes
        elif op == "implicit":
            split = _split_asks(query, builder.name)
            if split and _implicit(query, split[1], rng, config.max_frames, _argument_values(truth)):
                applied.append(op)
        else:
            split = _split_asks(query, builder.name)
            if split and _reorder(query, *split, may_swap_asks=writes <= 1, rng=rng):
                applied.append(op)
    text = query.text()
    if not applied or text == original:
        raise NotApplicable("no rephrasing applies to this query")
    record["ops"] = sorted(applied, key=OPS.index)
    out = with_query(pair, text)
    if "redescribed" in record:
        out = with_truth(out, truth)
    return RowPair(out.sft, out.rl, record)


def check(ctx: Any) -> None:
    """Every re-described selection names the field its record now uses (L3 checks the rest)."""
    ops = ctx.augmentation.get("ops")
    if not isinstance(ops, list) or not ops or any(op not in OPS for op in ops):
        raise Invalid("indirect_ops", str(ops)[:80])
    for change in ctx.augmentation.get("redescribed", []):
        sel = ctx.truth["selections"][change["selection"]]
        if sel.get("by") != change["to"]:
            raise Invalid("indirect_selection", f"selection {change['selection']} is by {sel.get('by')}")


KIND = Kind(name="indirect", position=20, config=Config, apply=apply, check=check,
            description="entities described by other fields, indirect request frames, reordered sentences")
