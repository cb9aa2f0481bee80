"""Sums, highest and lowest of amounts are said with their currency; other quantities with their unit."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from covert.audit.checks import amount_without_currency, stilted_handover
from covert.audit.rows import row_view
from covert.env import get_builder
from covert.errors import Invalid, Rejected
from covert.language.answers import aggregate_currency, is_amount
from covert.language.values import get_path
from covert.synth.generate import ItemSpec, make_item
from covert.validation import validate_row

BARE_AMOUNT = re.compile(r"(?<![$€£\d.,])\b\d{1,3}(?:,\d{3})*\.\d{2}\b(?!\s*(?:[A-Z]{3}\b|kWh|%))")


def _aggregates(builder: str, limit: int = 240) -> list[Any]:
    """Accepted sequential tasks of ``builder`` whose answer states a sum, a highest or a lowest value."""
    found = []
    for index in range(limit):
        task = make_item(ItemSpec(index, builder, "sequential", None, index // 80), 7, lambda s: "train").task
        if task is not None and task.reasoning and task.reasoning[-1]["op"] in ("sum", "max", "min"):
            found.append(task)
    return found


def _money_fact(task: Any) -> dict[str, Any] | None:
    return next((f for f in task.facts if "reasoning" in f and f.get("form") == "money"), None)


@pytest.mark.parametrize("builder", ["banking", "airline", "retail", "hotels"])
def test_aggregated_amounts_carry_their_currency(builder: str) -> None:
    tasks = _aggregates(builder)
    spoken = [t for t in tasks if _money_fact(t)]
    assert spoken, f"no aggregate over an amount in {len(tasks)} {builder} tasks"
    for task in spoken:
        fact = _money_fact(task)
        assert fact["said"] in task.answer, task.answer
        output = task.calls[task.reasoning[-1]["call"]].output
        assert get_path(output, fact["unit"]) in ("USD", "EUR", "GBP", "CAD")
    for task in tasks:  # no aggregate over an amount leaves its number bare
        if is_amount(get_builder(builder).language, task.reasoning[-1]["field"]):
            assert not BARE_AMOUNT.search(task.answer), task.answer


def test_validation_rederives_the_currency_of_an_aggregate() -> None:
    task = next(t for t in _aggregates("banking") if _money_fact(t))
    outcome = make_item(ItemSpec(task.index, "banking", "sequential", None, task.index // 80), 7, lambda s: "train")
    row = outcome.rows["sft"]
    validate_row(row, "sft")
    fact = next(f for f in row["ground_truth"]["answer_facts"] if "reasoning" in f and f.get("form") == "money")
    wrong = copy.deepcopy(row)
    wrong_fact = next(f for f in wrong["ground_truth"]["answer_facts"] if f == fact)
    wrong_fact["said"] = fact["said"].replace("$", "€") if "$" in fact["said"] else "€" + fact["said"]
    wrong["messages"][-1]["content"] = wrong["messages"][-1]["content"].replace(fact["said"], wrong_fact["said"])
    with pytest.raises(Invalid) as caught:
        validate_row(wrong, "sft")
    assert caught.value.reason == "fact_said_mismatch"
    elsewhere = copy.deepcopy(row)
    next(f for f in elsewhere["ground_truth"]["answer_facts"] if f == fact)["unit"] = "customer_id"
    with pytest.raises(Invalid) as caught:
        validate_row(elsewhere, "sft")
    assert caught.value.reason == "fact_said_mismatch"


def test_amounts_in_two_currencies_are_not_added_up() -> None:
    output = {"items": [{"price": 10.0, "currency": "USD"}, {"price": 12.5, "currency": "EUR"}]}
    with pytest.raises(Rejected) as caught:
        aggregate_currency(output, "items", "price", [0, 1])
    assert caught.value.reason == "mixed_currencies"
    assert aggregate_currency(output, "items", "price", [1]) == "items.1.currency"
    assert aggregate_currency({"currency": "USD", "items": [{"price": 1.0}]}, "items", "price", [0]) == "currency"


def test_energy_sums_say_their_unit() -> None:
    tasks = [t for t in _aggregates("smart_home", 400) if t.reasoning[-1]["field"].endswith("kwh")]
    assert tasks
    for task in tasks:
        value = next(f for f in task.facts if "reasoning" in f and f["reasoning"] == len(task.reasoning) - 1)
        assert f"{value['value']} kWh" in task.answer, task.answer


def _row(query: str, answer: str, output: dict[str, Any]) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": "get_customer_profile", "arguments": {}}}
    return {"task_id": "t", "builder": "banking", "category": "simple",
            "messages": [{"role": "system", "content": "You help customers."}, {"role": "user", "content": query},
                         {"role": "assistant", "content": "", "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": "c1", "content": json.dumps(output)},
                         {"role": "assistant", "content": answer}], "tools": []}


def test_the_audit_flags_bare_amounts_and_stilted_frames() -> None:
    priced = {"accounts": [{"balance": 12.5, "currency": "USD"}]}
    flagged = amount_without_currency(row_view(_row("What's my balance?", "Your balance comes to 12.50.", priced)))
    assert flagged.flagged and flagged.kind == "bare_amount"
    for fine in ("Your balance comes to $12.50.", "Your balance comes to 12.50 USD.", "It drew 12.50 kWh.",
                 "It runs firmware 3.90."):
        assert not amount_without_currency(row_view(_row("What's my balance?", fine, priced))).flagged, fine
    assert amount_without_currency(row_view(_row("Hi", "It drew 12.50.", {"kwh": 12.5}))) is None  # no currency
    for query, kind in (("Which of my orders is top for order total?", "stock_frame"),
                        ("How much did it use from 2026-10-21 to 2026-10-21?", "one_day_range")):
        verdict = stilted_handover(row_view(_row(query, "Sure.", priced)))
        assert verdict.flagged and verdict.kind == kind, query
