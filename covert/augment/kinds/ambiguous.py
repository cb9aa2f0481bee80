"""Ambiguous queries: the query leaves out one value only the user can supply; the agent must ask.

The value is an oracle argument that no earlier output carries (so no lookup can recover it) and that
the query mentions once, either inside a reference to an entity (``order #W8812`` becomes ``my order``)
or in a sentence that hands over just that value (``My email is ...``), which is dropped. The row
becomes multi-turn: the assistant asks a clarifying question, the template user
(:class:`covert.user.simulator.TemplateUser`, with the scenario of
:func:`covert.augment.simulator.clarify_scenario`) answers with exactly the missing value, and the
original oracle calls follow. The expected behaviour is ``clarify``; ``ground_truth["clarify"]`` records
the call, parameter, value, the words a question about it uses (``terms``) and what the user says, and
``ground_truth["rubric"]`` how a judge scores it.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson

from covert.augment.registry import Kind, NotApplicable, RowPair
from covert.augment.rows import flat_calls, query_of
from covert.augment.simulator import template_answer
from covert.augment.text import Query, hands_over, has_context, replace_ci, spans, split_query
from covert.env import get_builder
from covert.errors import Invalid
from covert.language.dialogue_templates import ASK_TEMPLATES, WHICH_TEMPLATES
from covert.language.values import contains_value, mentions, normalize_text, render

MODES = ("reference", "sentence")
_NORMALISED = re.compile(r"[,$]|\s\s")  # what normalize_text changes besides case


@dataclass(frozen=True)
class Config:
    """``modes``: where the value may be taken from, in order of preference."""

    modes: tuple[str, ...] = MODES

    @classmethod
    def for_intensity(cls, level: str) -> Config:
        return cls({"low": ("sentence", "reference"), "medium": MODES, "high": MODES}[level])


def _scalars(value: Any) -> list[Any]:
    items = value if isinstance(value, list) else [value]
    return [v for v in items if isinstance(v, (str, int, float)) and not isinstance(v, bool)]


def first_use(calls: list[dict[str, Any]], value: Any) -> int:
    """Index of the first oracle call whose arguments carry ``value``."""
    return next(i for i, c in enumerate(calls) if any(value in _scalars(v) for v in c["arguments"].values()))


def _values(truth: dict[str, Any]) -> list[Any]:
    """Every argument value and selection descriptor a query may have to mention (each once)."""
    values = [v for c in flat_calls(truth) for a in c["arguments"].values() for v in _scalars(a)]
    values += [s["value"] for s in truth["selections"] if s.get("mode") == "field"]
    return list(dict.fromkeys(values))


@cache
def _removable(builder_name: str, tool: str, key: str) -> bool:
    """Whether a value of ``tool.key`` can be taken out of a query: the builder refers to its entity by id,
    or has a context sentence that hands over just this parameter."""
    builder = get_builder(builder_name)
    ref = builder.language.references.get(builder.tools[tool].param_entity(key))
    by_reference = ref is not None and ref.user_knows_id and any(t != "{value}" for t in ref.by_id)
    return by_reference or has_context(builder_name, frozenset({key}))


def _candidates(truth: dict[str, Any], contents: list[str], builder: Any) -> list[tuple[int, str, Any]]:
    """Removable values no output before their first use carries: ``(call, param, value)``. ``contents`` are
    the base row's tool messages (compact JSON), searched for a string as a JSON string token."""
    calls = flat_calls(truth)
    out, seen = [], set()
    for i, call in enumerate(calls):
        params = builder.tools[call["name"]].parameters["properties"]
        for key, value in call["arguments"].items():
            schema = params.get(key, {})
            if "enum" in schema or not _removable(builder.name, call["name"], key):
                continue
            for item in _scalars(value):
                if item in seen or item == schema.get("default", object()):
                    continue
                seen.add(item)
                earlier = contents[:first_use(calls, item)]
                if isinstance(item, str):
                    token = orjson.dumps(item).decode()
                    looked_up = any(token in c for c in earlier)
                else:
                    looked_up = contains_value([orjson.loads(c) for c in earlier], item)
                if not looked_up:
                    out.append((i, key, item))
    return out


def _by_reference(text: str, builder: Any, tool: str, key: str, item: Any, rng: random.Random) -> tuple[str, str, str] | None:
    ref = builder.language.references.get(builder.tools[tool].param_entity(key))
    if ref is None or not ref.user_knows_id:
        return None
    # the longest phrase first: "dispute case DSP-1" goes as a whole, not as "dispute " + "case DSP-1"
    for template in sorted(ref.by_id, key=len, reverse=True):
        phrase = template.format(value=render(item))
        if template != "{value}" and spans(text, [phrase]):
            vague = rng.choice((f"my {ref.noun}", f"one of my {ref.plural}"))
            new = replace_ci(text, phrase, vague)
            # "my dispute DSP-1" -> "my dispute", not "my my dispute"
            new = re.sub(rf"\b(my|your|the|a|an)\s+({re.escape(vague)})\b",
                         lambda m: m.group(2).capitalize() if m.group(1)[0].isupper() else m.group(2), new,
                         flags=re.IGNORECASE)
            return new, f"it's {phrase}", ref.noun
    return None


def _by_sentence(query: Query, builder: Any, key: str, item: Any) -> tuple[str, str, str] | None:
    needle = render(item).lower()
    plain = not (isinstance(item, str) and _NORMALISED.search(item))
    holding = [i for i, u in enumerate(query.units)
               if (not plain or needle in u.lower()) and mentions(normalize_text(u), item)]
    if len(holding) != 1 or len(query.units) < 2:
        return None
    unit = query.units[holding[0]]
    if not hands_over(builder.name, unit, frozenset({key})):
        return None
    rest = Query(query.greeting, [u for i, u in enumerate(query.units) if i != holding[0]], query.closing)
    return rest.text(), unit, builder.language.noun_of_field(key)


def apply(pair: RowPair, rng: random.Random, config: Config) -> RowPair:
    """Drop one user-only value from the query and add the clarifying exchange."""
    sft = pair.sft
    truth = sft["ground_truth"]
    if truth["behaviour"] != "tool_use":
        raise NotApplicable("only tool-use tasks become ambiguous")
    builder = get_builder(sft["builder"])
    contents = [m["content"] for m in sft["messages"] if m["role"] == "tool"]
    candidates = _candidates(truth, contents, builder)
    if not candidates:
        raise NotApplicable("every value the oracle needs is looked up or cannot be taken out")
    text = query_of(sft)
    normalized = normalize_text(text)
    candidates = [c for c in candidates if mentions(normalized, c[2])]
    rng.shuffle(candidates)
    values = _values(truth)
    parts = None
    calls = flat_calls(truth)
    for i, key, item in candidates:
        for mode in config.modes:
            if mode == "reference":
                parallel = sum(1 for c in calls if c["name"] == calls[i]["name"] and key in c["arguments"]) > 1
                found = None if parallel else _by_reference(text, builder, calls[i]["name"], key, item, rng)
            else:
                parts = parts or split_query(text, [render(v) for v in values])
                found = _by_sentence(parts, builder, key, item)
            if found is None:
                continue
            query, said, noun = found
            new = normalize_text(query)
            removed = said.lower()  # what the query lost; a value only it mentioned would be lost with it
            at_risk = [v for v in values if v != item and render(v).lower() in removed and mentions(normalized, v)]
            if mentions(new, item) or not all(mentions(new, v) for v in at_risk):
                continue
            question = rng.choice(WHICH_TEMPLATES if mode == "reference" else ASK_TEMPLATES).format(label=noun)
            clarify = {"call": i, "param": key, "value": item, "label": noun, "terms": [noun], "text": said,
                       "mode": mode, "question": question}
            return _clarifying_pair(pair, query, truth, clarify)
    raise NotApplicable("no user-only value can be taken out of the query")


def _clarifying_pair(pair: RowPair, query: str, truth: dict[str, Any], clarify: dict[str, Any]) -> RowPair:
    rubric = (f"The request leaves out the {clarify['label']}, which only the user can supply. Before making any "
              "change the assistant asks the user for it; it neither guesses the value nor makes a write call "
              f"first. After the user answers, it completes the request with the value given "
              f"({render(clarify['value'])}).")
    truth = {**truth, "behaviour": "clarify", "clarify": clarify, "rubric": rubric}
    user = {"role": "user", "content": query}
    answer = template_answer(truth, query, clarify["question"])
    messages = pair.sft["messages"]
    sft = {**pair.sft, "ground_truth": truth, "messages": [
        messages[0], user, {"role": "assistant", "content": clarify["question"]}, {"role": "user", "content": answer},
        *messages[2:]]}
    rl = {**pair.rl, "prompt": [pair.rl["prompt"][0], user], "reward_model": {**pair.rl["reward_model"], "ground_truth": truth}}
    return RowPair(sft, rl, {"mode": clarify["mode"], "param": clarify["param"]})


def check(ctx: Any) -> None:
    """The clarification names an oracle value the query lacks and no lookup recovers, and the template user
    answers the question with exactly that value."""
    clarify = ctx.truth.get("clarify")
    if ctx.truth["behaviour"] != "clarify" or not isinstance(clarify, dict):
        raise Invalid("clarify_missing")
    calls = ctx.calls
    index, param, value = clarify.get("call"), clarify.get("param"), clarify.get("value")
    if not isinstance(index, int) or not 0 <= index < len(calls):
        raise Invalid("clarify_call", str(index))
    if value not in _scalars(calls[index]["arguments"].get(param)):
        raise Invalid("clarify_not_oracle_value", f"{param}={str(value)[:40]}")
    if mentions(normalize_text(ctx.query), value):
        raise Invalid("clarify_value_in_query", str(value)[:40])
    if contains_value(ctx.outputs[:first_use(calls, value)], value):
        raise Invalid("clarify_value_not_user_only", str(value)[:40])
    if not clarify.get("question") or not ctx.truth.get("rubric") or not clarify.get("terms"):
        raise Invalid("clarify_incomplete")
    if not mentions(normalize_text(ctx.clarification_answer), value):
        raise Invalid("clarification_wrong_value", ctx.clarification_answer[:60])
    expected = template_answer(ctx.truth, ctx.query, clarify["question"])
    if ctx.clarification_answer != expected:
        raise Invalid("clarification_answer_mismatch", ctx.clarification_answer[:60])


KIND = Kind(name="ambiguous", position=30, config=Config, apply=apply, check=check,
            description="one user-only value left out of the query; the assistant asks, a simulated user answers")
