"""The calls fit their turns and their label: validation rejects a row broken on purpose for each check
(directly and through ``covert validate``), and the synthesizer no longer makes such rows."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from covert.cli import main
from covert.env import State, get_builder
from covert.errors import Invalid
from covert.io.card import write_card
from covert.io.parquet import ShardWriter, encode_row, sha256_file
from covert.language.values import get_path, render
from covert.synth.generate import ItemSpec, make_item
from covert.validation import validate_row
from covert.validation.dataset import validate_dataset
from covert.views import ground_truth, rl_row, sft_row


def _find(builder: str, category: str, target: str | None = None, where: Callable[[Any], bool] = lambda t: True,
          limit: int = 400) -> Any:
    for index in range(limit):
        outcome = make_item(ItemSpec(index, builder, category, target, index // 16), 3, lambda s: "train")
        if outcome.task is not None and where(outcome.task):
            return outcome
    raise AssertionError(f"no accepted {builder} {category} task")


def _merge_turns(row: dict[str, Any], first: int) -> dict[str, Any]:
    """The SFT row with tool-call turns ``first`` and ``first + 1`` made one turn."""
    row = copy.deepcopy(row)
    messages = row["messages"]
    starts = [i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("tool_calls")]
    a, b = starts[first], starts[first + 1]
    merged = dict(messages[a], tool_calls=messages[a]["tool_calls"] + messages[b]["tool_calls"])
    results_b = [m for m in messages[b + 1:] if m["role"] == "tool"][: len(messages[b]["tool_calls"])]
    row["messages"] = [*messages[:a], merged, *messages[a + 1:b], *results_b, *messages[b + 1 + len(results_b):]]
    calls = row["ground_truth"]["calls"]
    calls[first: first + 2] = [calls[first] + calls[first + 1]]
    return row


def _split_turns(row: dict[str, Any]) -> dict[str, Any]:
    """The SFT row with every call in a turn of its own."""
    row = copy.deepcopy(row)
    out = []
    messages = row["messages"]
    i = 0
    while i < len(messages):
        m = messages[i]
        if m["role"] == "assistant" and m.get("tool_calls"):
            results = messages[i + 1: i + 1 + len(m["tool_calls"])]
            for call, result in zip(m["tool_calls"], results, strict=True):
                out += [dict(m, tool_calls=[call]), result]
            i += 1 + len(results)
        else:
            out.append(m)
            i += 1
    row["messages"] = out
    row["ground_truth"]["calls"] = [[c] for group in row["ground_truth"]["calls"] for c in group]
    return row


def _reason(row: dict[str, Any], kind: str = "sft") -> str:
    with pytest.raises(Invalid) as caught:
        validate_row(row, kind)
    return caught.value.reason


def test_same_turn_dependency_is_rejected() -> None:
    """find_person and find_free_slots(person_ids=[what find_person returns]) in one turn."""
    outcome = _find("calendar", "sequential", "find_free_slots",
                    lambda t: [c.name for c in t.calls] == ["find_person", "find_free_slots"])
    sft = outcome.rows["sft"]
    assert len(sft["ground_truth"]["calls"]) == 2  # the synthesizer puts them in two turns
    validate_row(sft, "sft")
    assert _reason(_merge_turns(sft, 0)) == "same_turn_dependency"
    rl = copy.deepcopy(outcome.rows["rl"])
    truth = rl["reward_model"]["ground_truth"]
    truth["calls"] = [truth["calls"][0] + truth["calls"][1]]
    assert _reason(rl, "rl") == "same_turn_dependency"


def _rebuilt(task: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Re-execute a task's (edited) calls and make its rows again, facts and answer from the new outputs."""
    builder = get_builder(task.builder)
    initial = State.from_dict(task.initial_state)
    env = builder.env(initial.fork())
    for call in task.calls:
        call.output = env.call(call.name, call.arguments)
    task.final_state_hash = env.state.hash()
    task.state_diff = [d.to_dict() for d in initial.diff(env.state)]
    task.facts = [{**f, "value": render(get_path(task.calls[f["call"]].output, f["path"]))} for f in task.facts]
    task.answer = " ".join(f["value"] for f in task.facts) + "."
    truth = ground_truth(task)
    return sft_row(task, truth), rl_row(task, "train", task.index, truth)


def _same_booking(task: Any) -> None:
    """The second request goes to the first call's booking (the user asks for another thing there)."""
    task.calls[1].arguments["booking_id"] = task.calls[0].arguments["booking_id"]
    task.calls[1].arguments["request"] = "a late checkout"
    task.query += " And a late checkout too."


def test_two_writes_on_one_id_in_one_turn_are_rejected() -> None:
    outcome = _find("hotels", "parallel", "add_special_request",
                    lambda t: len(t.calls) >= 2 and t.calls[0].name == "add_special_request")
    task = copy.deepcopy(outcome.task)
    assert len({c.arguments["booking_id"] for c in task.calls}) == len(task.calls)
    _same_booking(task)
    sft, rl = _rebuilt(task)
    assert not any("error" in c.output for c in task.calls)
    assert _reason(sft) == "parallel_write_conflict"
    assert _reason(rl, "rl") == "parallel_write_conflict"


def test_parallel_label_needs_one_turn_of_two_calls() -> None:
    sft = _find("airline", "parallel", "get_flight_status").rows["sft"]
    validate_row(sft, "sft")
    # split into one call per turn, the row breaks the category's one-turn invariant first
    assert _reason(_split_turns(sft)) == "category_parallel_turns"


def test_parallel_multiple_label_needs_two_tools_in_one_turn() -> None:
    sft = _find("airline", "parallel", "get_flight_status").rows["sft"]
    assert _reason(dict(sft, category="parallel_multiple")) == "category_parallel_multiple"
    single = _find("airline", "simple", "get_flight_status").rows["sft"]
    assert _reason(dict(single, category="parallel_multiple")) == "category_parallel_multiple"


def test_sequential_label_needs_a_dependency() -> None:
    sft = _find("airline", "parallel", "get_flight_status").rows["sft"]
    assert _reason(dict(_split_turns(sft), category="sequential")) == "category_sequential"


def _turn_scalars(sft: dict[str, Any]) -> tuple[list[list[dict[str, Any]]], list[set[Any]]]:
    from covert.language.values import scalar_set

    outputs = [json.loads(m["content"]) for m in sft["messages"] if m["role"] == "tool"]
    return sft["ground_truth"]["calls"], [scalar_set(o) for o in outputs]


def test_the_early_sequential_test_rejects_only_what_validation_rejects() -> None:
    """Synthesis rejects a sequential plan whose later turns take nothing from an earlier output before
    making its query (covert.validation.takes_from_earlier_turn): a row with such turns fails validation
    as category_sequential, and an accepted sequential row passes the early test."""
    from covert.validation import takes_from_earlier_turn

    # two booking lookups in turns of their own: the second takes nothing from the first's output
    sft = _find("hotels", "parallel", "get_booking_details", lambda t: len(t.calls) == 2).rows["sft"]
    broken = dict(_split_turns(sft), category="sequential")
    assert not takes_from_earlier_turn(get_builder("hotels"), *_turn_scalars(broken))
    assert _reason(broken) == "category_sequential"
    # a date both turns give is in the first output: the early test leaves it to validation (the query says it)
    flights = dict(_split_turns(_find("airline", "parallel", "get_flight_status").rows["sft"]), category="sequential")
    assert takes_from_earlier_turn(get_builder("airline"), *_turn_scalars(flights))
    assert _reason(flights) == "category_sequential"
    for name in ("airline", "hotels", "banking"):
        sft = _find(name, "sequential").rows["sft"]
        assert takes_from_earlier_turn(get_builder(name), *_turn_scalars(sft))


def test_plans_validation_or_the_answer_would_reject_are_rejected_before_their_query() -> None:
    import random

    from covert.errors import Rejected
    from covert.synth.blueprint import Blueprint
    from covert.synth.instantiate import Instantiator, instantiate

    builder = get_builder("hotels")
    state = builder.state(0, 0)
    blueprint = Blueprint("sequential", "walk", ["find_guest_by_email", "find_guest_by_loyalty_number",
                                                 "get_guest_profile"], [2])
    realized = []
    real = Instantiator.realize
    Instantiator.realize = lambda self: realized.append(1) or real(self)
    try:
        with pytest.raises(Rejected) as caught:
            instantiate(builder, blueprint, state, random.Random(2), 0, 0)
    finally:
        Instantiator.realize = real
    assert caught.value.reason == "repeated_identification" and not realized
    # an aggregate over an output with no list of two records or more: rejected as early
    Instantiator.realize = lambda self: realized.append(1) or real(self)
    try:
        with pytest.raises(Rejected) as caught:
            instantiate(builder, Blueprint("sequential", "walk", ["find_guest_by_email", "get_guest_profile"], [1],
                                           reasoning=("sum", 0)), state, random.Random(2), 0, 0)
    finally:
        Instantiator.realize = real
    assert caught.value.reason == "no_reasoning_input" and not realized


def _write_dataset(root: Path, rows: list[dict[str, Any]]) -> Path:
    writer = ShardWriter(root, "sft", "train", 1000)
    for row in rows:
        writer.add(encode_row(row, "sft"))
    files = {str(p.relative_to(root)): sha256_file(p) for p in writer.close()}
    manifest = {"files": files, "rows": {"sft/train": len(rows)}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    write_card(root, manifest, {"sft": rows[0]})  # the card load_dataset (and covert validate) needs
    return root


def test_covert_validate_rejects_each_broken_row(tmp_path: Path, capsys) -> None:
    calendar = _find("calendar", "sequential", "find_free_slots",
                     lambda t: [c.name for c in t.calls] == ["find_person", "find_free_slots"]).rows["sft"]
    flights = _find("airline", "parallel", "get_flight_status").rows["sft"]
    hotels = copy.deepcopy(_find("hotels", "parallel", "add_special_request",
                                 lambda t: len(t.calls) >= 2 and t.calls[0].name == "add_special_request").task)
    _same_booking(hotels)
    broken = {
        "same_turn_dependency": _merge_turns(calendar, 0),
        "parallel_write_conflict": _rebuilt(hotels)[0],
        "category_parallel_turns": _split_turns(flights),
        "category_parallel_multiple": dict(flights, category="parallel_multiple"),
        "category_sequential": dict(_split_turns(flights), category="sequential"),
    }
    rows = [dict(row, task_id=f"{row['task_id']}-{reason}") for reason, row in broken.items()]
    root = _write_dataset(tmp_path / "broken", [calendar, *rows])
    report = validate_dataset(root)
    assert {reason.split(":")[0] for reason in report.reasons()} == set(broken)
    assert {t for _, t, _ in report.failures} == {r["task_id"] for r in rows}
    assert main(["validate", str(root)]) == 1
    out = capsys.readouterr().out
    for reason in broken:
        assert reason in out


def test_smart_home_makes_no_parallel_multiple_row_across_turns() -> None:
    """smart_home's reads need a home id only a lookup gives: a lookup, then two reads together, is two
    turns, which the category's one-turn invariant rejects, so no parallel_multiple row is made."""
    for index in range(20):
        outcome = make_item(ItemSpec(index, "smart_home", "parallel_multiple", None, index // 16), 3,
                            lambda s: "train")
        assert outcome.task is None or len(outcome.rows["sft"]["ground_truth"]["calls"]) == 1


@pytest.mark.parametrize("builder", ["banking", "airline", "messaging"])
def test_parallel_multiple_rows_hold_two_tools_in_one_turn(builder: str) -> None:
    """Two tools called together in one turn."""
    made = 0
    for index in range(40):
        outcome = make_item(ItemSpec(index, builder, "parallel_multiple", None, index // 16), 3, lambda s: "train")
        if outcome.task is None:
            continue
        made += 1
        groups = outcome.rows["sft"]["ground_truth"]["calls"]
        assert any(len(g) >= 2 and len({c["name"] for c in g}) >= 2 for g in groups), groups
    assert made >= 20


def test_a_search_for_another_time_than_the_write_acts_at_is_rejected(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    """A room searched for one slot and then booked for a meeting at another: with both checks off, a calendar
    build writes such rows, and ``covert validate`` rejects each of them (``off_target_lookup``); with the
    checks on, the build writes none."""
    import pyarrow.parquet as pq

    from covert import validation
    from covert.build import BuildConfig, build
    from covert.synth import instantiate

    def off_target_ids(out: Path) -> set[str]:
        ids = set()
        for row in pq.read_table(sorted((out / "sft").glob("*.parquet"))).to_pylist():
            truth = json.loads(row["ground_truth"])
            calls = {c["name"]: c for group in truth["calls"] for c in group}
            search, book = calls.get("search_rooms"), calls.get("book_room")
            events = json.loads(row["initial_state"])["tables"]["events"]
            booked = events.get(book["arguments"]["event_id"]) if search and book else None
            if booked is not None and (search["arguments"]["date"], search["arguments"]["start_time"]) != (
                    booked["date"], booked["start_time"]):
                ids.add(row["task_id"])
        return ids

    config = BuildConfig(builders=["calendar"], num_tasks=600, seed=11)
    monkeypatch.setattr(instantiate, "off_target_lookup", lambda *args: "")
    monkeypatch.setattr(validation, "off_target_lookup", lambda *args: "")
    build(config, str(tmp_path / "off"), workers=1, overwrite=True, progress=False)
    monkeypatch.undo()
    broken = off_target_ids(tmp_path / "off")
    assert broken
    report = validate_dataset(tmp_path / "off", configs=("sft",), progress=False)
    assert {tid for _, tid, reason in report.failures if reason.startswith("off_target_lookup")} == broken
    build(config, str(tmp_path / "on"), workers=1, overwrite=True, progress=False)
    assert off_target_ids(tmp_path / "on") == set()


def test_off_target_lookup_compares_dates_and_times_only() -> None:
    from covert.validation import off_target_lookup

    search = {"name": "search_rooms", "arguments": {"date": "2026-05-07", "start_time": "11:15", "min_capacity": 4}}
    book = {"name": "book_room", "arguments": {"event_id": "evt_1", "room_id": "hq-3-fjord"}}
    sel = [{"call": 1, "source_call": 0}]
    met = {"event_id": "evt_1", "date": "2026-05-07", "start_time": "11:15", "min_capacity": 9}
    assert off_target_lookup([search, book], [{}, met], sel, [False, True]) == ""
    assert off_target_lookup([search, book], [{}, {**met, "date": "2026-05-09"}], sel, [False, True]) \
        == "search_rooms -> book_room: date"
    assert off_target_lookup([search, book], [{}, {**met, "start_time": "14:00"}], sel, [False, False]) == ""
    orders = {"name": "list_orders", "arguments": {"status": "pending"}}
    assert off_target_lookup([orders, book], [{}, {"status": "cancelled"}], sel, [False, True]) == ""
