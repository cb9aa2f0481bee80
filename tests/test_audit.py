"""``covert audit``: each check flags its defect on a row broken on purpose and passes a clean row; a real
build is audited end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from covert.audit import CHECKS, audit_dataset, audit_rows, row_view
from covert.build import BuildConfig, build
from covert.cli import main
from covert.env import get_builder
from covert.io.parquet import ShardWriter, encode_row, sha256_file

HOTELS_SYSTEM = get_builder("hotels").system_prompt
CHECK = {c.name: c for c in CHECKS}


def _tools(builder: str, names: list[str]) -> list[dict[str, Any]]:
    env = get_builder(builder).environment
    return env.openai_tools([n for n in names if n in env.tool_specs])


def make_row(query: str | list[str], turns: list[list[tuple[str, dict[str, Any], Any]]], answer: str,
             category: str = "simple", builder: str = "hotels", system: str = "You help guests.",
             task_id: str = "t-1") -> dict[str, Any]:
    """An SFT row with these calls turn by turn (``(tool, arguments, output)``) and this final answer."""
    queries = [query] if isinstance(query, str) else query
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": queries[0]}]
    for extra in queries[1:]:
        messages += [{"role": "assistant", "content": "Which one do you mean?"}, {"role": "user", "content": extra}]
    names: list[str] = []
    n = 0
    for turn in turns:
        calls = []
        results = []
        for name, arguments, output in turn:
            calls.append({"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": arguments}})
            results.append({"role": "tool", "tool_call_id": f"call_{n}", "name": name, "content": json.dumps(output)})
            names.append(name)
            n += 1
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        messages += results
    messages.append({"role": "assistant", "content": answer})
    return {"task_id": task_id, "builder": builder, "category": category, "messages": messages,
            "tools": _tools(builder, sorted(set(names))) if builder != "none" else [],
            "ground_truth": {"behaviour": "tool_use" if turns else "decline"}}


def verdict(name: str, row: dict[str, Any]):
    return CHECK[name].fn(row_view(row))


ROOMS = {"date": "2026-09-03", "rooms": [{"room_id": "hq-5-atlas", "name": "Atlas", "floor": 5, "capacity": 4},
                                         {"room_id": "hq-4-pioneer", "name": "Pioneer", "floor": 4, "capacity": 6}]}
SEARCH = ("search_rooms", {"date": "2026-09-03", "start_time": "11:00"}, ROOMS)


def _calendar(answer: str, query: str = "Which rooms are free at 11:00 on 2026-09-03?") -> dict[str, Any]:
    return make_row(query, [[SEARCH]], answer, builder="calendar")


def test_list_request_answered_without_an_item() -> None:
    assert verdict("list_unnamed", _calendar("I found 2 rooms that are free.")).flagged
    assert verdict("list_unnamed", _calendar("Atlas (floor 5) and Pioneer (floor 4) are free at 11:00.")) == \
        CHECK["list_unnamed"].fn(row_view(_calendar("Atlas and Pioneer are free.")))
    assert not verdict("list_unnamed", _calendar("Atlas (floor 5) and Pioneer (floor 4) are free at 11:00.")).flagged
    # a count question is not a list request
    assert verdict("list_unnamed", _calendar("2 rooms are free.", "How many rooms are free at 11:00?")) is None


def test_read_only_answer_that_leaves_out_the_result() -> None:
    count_only = verdict("read_only_omits", _calendar("I found 2 rooms that are free."))
    assert count_only.flagged and count_only.kind == "count_only"
    product = {"product_id": "8267560257", "name": "Office Chair", "category": "home",
               "variants": [{"item_id": "5825417345", "options": "material mesh, color black", "price": 224.18}]}
    dangling = make_row("Which versions of the Office Chair are in stock?",
                        [[("get_product_details", {"product_id": "8267560257"}, product)]],
                        "The Office Chair is part of our home range; here are its options.", builder="retail")
    assert verdict("read_only_omits", dangling).kind == "dangling_list"
    named = make_row("Which versions of the Office Chair are in stock?",
                     [[("get_product_details", {"product_id": "8267560257"}, product)]],
                     "The Office Chair comes in material mesh, color black, at 224.18 USD.", builder="retail")
    assert not verdict("read_only_omits", named).flagged
    assert not verdict("read_only_omits", _calendar("Atlas and Pioneer are free at 11:00.")).flagged


def _status(number: str, gate: str) -> tuple[str, dict[str, Any], Any]:
    return ("get_flight_status", {"flight_number": number, "date": "2026-07-23"},
            {"flight_number": number, "status": "scheduled", "terminal": "1", "gate": gate})


def test_repeated_sentence_frame() -> None:
    turns = [[_status("SK6865", "B14"), _status("SK6100", "B4")]]
    query = "Where do I board SK6865 and SK6100 on 2026-07-23?"
    repeated = make_row(query, turns, "Flight SK6865 departs from terminal 1, gate B14. "
                                      "Flight SK6100 departs from terminal 1, gate B4.", "parallel", "airline")
    assert verdict("repeated_template", repeated).flagged
    one = make_row(query, turns, "Both leave from terminal 1: SK6865 from gate B14 and SK6100 from gate B4.",
                   "parallel", "airline")
    assert not verdict("repeated_template", one).flagged


@pytest.mark.parametrize(("answer", "kind"), [
    ("I found 1 contact(s) matching that name.", "paren_plural"),
    ("We currently carry 1 products in that range.", "one_plural"),
    ("You have 1 unread emails.", "one_plural"),
    ("The account belongs to Ana Lee. Homes it can control: 1.", "plural_label_one"),
    ("The total total price is 376.2 USD.", "doubled_word"),
    ("I deleted the room room.", "doubled_word"),
    ("Free at 11:00: 6 of the 6 rooms that fit.", "n_of_the_n"),
    ("Your The Marigold Hotel stay is moved to February 1, 2027.", "two_determiners"),
    ("The user wants: could you . First, look it up.", "empty_slot"),
    ("Atlas is free on May 7. the room seats 4.", "lower_case_start"),
    ("Is Atlas free? the name of the room is Atlas.", "lower_case_start"),
    ("The passenger now reads James Schmidt, born Jun 19, 2004Schmidt.", "glued_words"),
    ('The note reads "Kept for 30 days.".', "doubled_stop"),
    ("I created the repo Maps with the description Shared for the jobs pilot.. Done.", "doubled_stop"),
    ("The passenger now reads Schmidt, born Jun 19, 2004 Schmidt, born Jun 19, 2004.", "repeated_span"),
])
def test_grammar_artefacts(answer: str, kind: str) -> None:
    found = verdict("grammar_artefacts", _calendar(answer))
    assert found.flagged and found.kind == f"{kind}@assistant", (answer, found)


def test_grammar_artefacts_in_the_query_and_clean_text() -> None:
    assert verdict("grammar_artefacts", _calendar("Atlas is free.", "Please add 1 extra bag(s).")).kind == \
        "paren_plural@query"
    for clean in ("Atlas and Pioneer are free at 11:00; Atlas seats 4.", "You have 1 unread email and 3 rooms.",
                  "Rooms free at 11:00: Atlas.", "I deleted the room room-4b1c and the view view.539f.",
                  "Is Atlas free? ana.lee@mail.example here. thanks", "Book it, e.g. at 11:00. Atlas is free.",
                  "Floors 4 and 5 and Atlas, Iris and Summit are free.", "Wait... and then book it.",
                  "I help with admin overrides, consumer overrides, consumer quota metrics and operations.",
                  "Here are the organizations: Blue Gateway, ACME Inc. and Atlas Co. and Iris Ltd. too.",
                  "Versions 1..5 are free. Wait... ok."):
        assert not verdict("grammar_artefacts", _calendar(clean)).flagged, clean


REDEEM = {"booking_id": "WSWK8W9T", "points_redeemed": 2500,
          "credit": {"amount": 12.5, "currency": "USD", "payment_method_id": "card_9356481", "label": "Visa ending in 3511"},
          "points_balance": 20244, "redeemed_at": "2026-03-02T10:15:00Z", "status": "partially_paid"}


def _redeem(answer: str) -> dict[str, Any]:
    return make_row("Please knock 2500 points off booking WSWK8W9T.",
                    [[("redeem_points", {"booking_id": "WSWK8W9T", "points": 2500}, REDEEM)]], answer, "simple")


@pytest.mark.parametrize(("answer", "kind"), [
    ("I redeemed 2500 points: 12.5 USD goes back to card_9356481.", "internal_id"),
    ("Done; the booking is now partially_paid.", "snake_case"),
    ("I redeemed 2500 points at 2026-03-02T10:15.", "iso_timestamp"),
])
def test_internals_shown(answer: str, kind: str) -> None:
    found = verdict("internals_shown", _redeem(answer))
    assert found.flagged and found.kind == kind
    guest = make_row("Find my profile, I'm ana@example.com.", [[("find_guest_by_email", {"email": "ana@example.com"},
                                                                 {"guest_id": "GST-4774151"})]],
                     "I found your profile; your guest id is GST-4774151.")
    assert verdict("internals_shown", guest).kind == "internal_id"


def test_a_field_names_glued_words_are_counted() -> None:
    """Django's ``lithologydescription_set`` said as "2 lithologydescription set" is a field name shown, not
    words; the same count said in words is not."""
    well = {"well_tag_number": 1001, "lithologydescription_set": [{"start": 0}, {"start": 12}]}
    call = [[("wells_read", {"well_tag_number": 1001}, well)]]
    glued = make_row("How many lithology descriptions does well 1001 have?", call,
                     "I count 2 lithologydescription set in all.")
    assert verdict("internals_shown", glued).kind == "glued_field_word"
    worded = make_row("How many lithology descriptions does well 1001 have?", call,
                      "Well 1001 has 2 lithology descriptions.")
    assert not verdict("internals_shown", worded).flagged


def test_internals_clean_answer_keeps_reference_numbers() -> None:
    clean = _redeem("I redeemed 2500 points on booking WSWK8W9T: 12.5 USD goes back to your Visa ending in 3511, "
                    "and you have 20244 points left.")
    assert not verdict("internals_shown", clean).flagged


PERSON = {"person_id": "U0WUG8PW9", "name": "Anika Smith", "email": "anika.smith@example.com"}
FIND_PERSON = ("find_person", {"name_or_email": "Anika Smith"}, PERSON)
FREE = ("find_free_slots", {"email": "yuki@example.com", "person_ids": ["U0WUG8PW9"], "date": "2026-09-04"},
        {"date": "2026-09-04", "slots": [{"start": "10:00", "end": "11:00"}]})
FREE_QUERY = "I'm yuki@example.com. When are Anika Smith and I both free on 2026-09-04?"


def test_category_label_contradicts_the_calls() -> None:
    mismatch = CHECK["category_mismatch"].fn
    one_call = make_row("Where do I board SK6865?", [[_status("SK6865", "B14")]], "Gate B14.", "parallel_multiple",
                        "airline")
    assert mismatch(row_view(one_call)).kind == "parallel_multiple_one_call"
    one_tool = make_row("Gates of SK6865 and SK6100?", [[_status("SK6865", "B14"), _status("SK6100", "B4")]],
                        "SK6865: gate B14; SK6100: gate B4.", "parallel_multiple", "airline")
    assert mismatch(row_view(one_tool)).kind == "parallel_multiple_one_tool"
    assert not mismatch(row_view({**one_tool, "category": "parallel"})).flagged
    split = make_row("Gates of SK6865 and SK6100?", [[_status("SK6865", "B14")], [_status("SK6100", "B4")]],
                     "SK6865: gate B14; SK6100: gate B4.", "parallel", "airline")
    assert mismatch(row_view(split)).kind == "parallel_not_one_turn"
    assert mismatch(row_view({**split, "category": "sequential"})).kind == "sequential_no_dependency"
    chained = make_row(FREE_QUERY, [[FIND_PERSON], [FREE]], "You're both free from 10:00 to 11:00.", "sequential",
                       "calendar")
    assert not mismatch(row_view(chained)).flagged
    flights = ("search_flights", {"origin": "DEN", "destination": "BOS", "date": "2026-01-19"},
               {"flights": [{"flight_number": "SK6804", "departure_time": "07:50"}]})
    two_tools = make_row("Gate of SK6865, and flights from DEN to BOS on 2026-01-19?",
                         [[_status("SK6865", "B14"), flights]], "Gate B14; SK6804 leaves at 07:50.",
                         "parallel_multiple", "airline")
    assert not mismatch(row_view(two_tools)).flagged


def test_failed_calls_and_error_reports_are_judged_by_the_calls_they_make() -> None:
    failed = ("get_flight_status", {"flight_number": "SK6865", "date": "2026-07-23"},
              {"error": {"code": "service_unavailable", "message": "503", "retryable": True}})
    retried = make_row("Where do I board SK6865?", [[failed], [_status("SK6865", "B14")]], "Gate B14.", "simple",
                       "airline")
    assert not CHECK["category_mismatch"].fn(row_view(retried)).flagged
    reported = make_row("Where do I board SK6865?", [[failed]], "Sorry, that failed.", "sequential", "airline")
    reported["ground_truth"]["behaviour"] = "report_error"
    # an error report cut the row to one call: a row of one call is not sequential (an augmented row's
    # label must say what the row is), while the failed call itself counts as made
    assert CHECK["category_mismatch"].fn(row_view(reported)).kind == "sequential_one_turn"
    assert not CHECK["category_mismatch"].fn(row_view({**reported, "category": "simple"})).flagged


def test_outputs_in_other_formats_still_give_their_values() -> None:
    csv = "field,value\nowner_name,Liam Mensah\nhomes,[table: homes]\n\nhome_id,name\nhome_e4b3d4f8,Family Home\n"
    assert {"Liam Mensah", "home_e4b3d4f8", "Family Home"} <= set(row_view(
        {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "x", "arguments": {}}}]},
                      {"role": "tool", "tool_call_id": "c", "content": csv}]}).turns[0][0].output)


def test_id_used_in_the_turn_that_returns_it() -> None:
    same = make_row(FREE_QUERY, [[FIND_PERSON, FREE]], "You're both free from 10:00 to 11:00.", "sequential", "calendar")
    assert verdict("same_turn_id", same).flagged
    split = make_row(FREE_QUERY, [[FIND_PERSON], [FREE]], "You're both free from 10:00 to 11:00.", "sequential",
                     "calendar")
    assert not verdict("same_turn_id", split).flagged


def _writes(second_booking: str) -> dict[str, Any]:
    cancel = ("cancel_booking", {"booking_id": second_booking, "reason": "change of plans"},
              {"booking_id": second_booking, "status": "cancelled"})
    redeem = ("redeem_points", {"booking_id": "WSWK8W9T", "points": 2500}, REDEEM)
    return make_row(f"Redeem 2500 points on WSWK8W9T, then cancel {second_booking}.", [[redeem, cancel]],
                    "Done.", "parallel_multiple")


def test_order_dependent_writes_in_one_turn() -> None:
    assert verdict("parallel_write_conflict", _writes("WSWK8W9T")).flagged
    assert not verdict("parallel_write_conflict", _writes("WSQ7ZZ21")).flagged
    assert verdict("parallel_write_conflict", _redeem("Done.")) is None  # no turn of two calls


def test_write_without_identification() -> None:
    bare = make_row("Please knock 2500 points off booking WSWK8W9T.",
                    [[("redeem_points", {"booking_id": "WSWK8W9T", "points": 2500}, REDEEM)]],
                    "Done.", system=HOTELS_SYSTEM)
    assert verdict("unidentified_write", bare).flagged
    identified = make_row("I'm ana@example.com; knock 2500 points off booking WSWK8W9T.",
                          [[("find_guest_by_email", {"email": "ana@example.com"}, {"guest_id": "GST-4774151"})],
                           [("redeem_points", {"booking_id": "WSWK8W9T", "points": 2500}, REDEEM)]],
                          "Done.", system=HOTELS_SYSTEM)
    assert not verdict("unidentified_write", identified).flagged
    assert verdict("unidentified_write", {**bare, "messages": [{"role": "system", "content": "Help guests."},
                                                              *bare["messages"][1:]]}) is None


def test_multiturn_row_with_one_user_turn() -> None:
    single = make_row(FREE_QUERY, [[FIND_PERSON], [FREE]], "Free at 10:00.", "sequential", "calendar")
    asked = make_row(["When are Anika Smith and I both free on 2026-09-04?", "I'm yuki@example.com."],
                     [[FIND_PERSON], [FREE]], "Free at 10:00.", "sequential", "calendar")
    assert verdict("single_user_turn", single).flagged
    assert not verdict("single_user_turn", asked).flagged
    assert "single_user_turn" in audit_rows([single], "sft-multiturn").results
    assert "single_user_turn" not in audit_rows([single], "sft").results


def test_canned_greetings_and_their_distribution() -> None:
    greeted = _calendar("Atlas is free.", "Hi there! Which rooms are free at 11:00 on 2026-09-03? Thanks in advance.")
    plain = _calendar("Atlas is free.")
    assert verdict("canned_greeting", greeted).kind == "both"
    assert not verdict("canned_greeting", plain).flagged
    audit = audit_rows([greeted, plain, {**greeted, "task_id": "t-2"}])
    assert audit.openings == {"hi there!": 2, "": 1}
    assert audit.closings["thanks in advance."] == 2


def test_a_clean_row_passes_every_check() -> None:
    clean = make_row(["When are Anika Smith and I both free on 2026-09-04?", "I'm yuki@example.com."],
                     [[FIND_PERSON], [FREE]], "You and Anika Smith are both free from 10:00 to 11:00 on 2026-09-04.",
                     "sequential", "calendar")
    audit = audit_rows([clean], "sft-multiturn")
    flagged = {name: r.flagged for name, r in audit.results.items() if r.flagged}
    assert not flagged, flagged


def test_hostile_rows_do_not_crash_the_audit() -> None:
    broken = make_row("Which rooms?", [[SEARCH]], "x" * 100_000 + " (s)")
    broken["messages"][3]["content"] = "<response><rooms><name>Atlas</name></rooms></response>"
    del broken["messages"][2]["tool_calls"][0]["function"]["arguments"]
    audit = audit_rows([broken, {"task_id": "empty"}, {"messages": [{"role": "user"}], "tools": [None]}])
    assert audit.rows == 3
    # texts are read up to a bound: the artefact past it is not seen
    assert audit.results["grammar_artefacts"].total.flagged == 0
    assert "Atlas" in row_view(broken).turns[0][0].output


def _write_dataset(root: Path, rows: list[dict[str, Any]], config: str = "sft") -> Path:
    writer = ShardWriter(root, config, "train", 1000)
    for row in rows:
        writer.add(encode_row(row, config))
    shards = writer.close()
    files = {str(p.relative_to(root)): sha256_file(p) for p in shards}
    (root / "manifest.json").write_text(json.dumps({"files": files}))
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("audit") / "data"
    build(BuildConfig(builders=["all"], num_tasks=160, seed=7, multi_turn=True), out, progress=False)
    return out


def test_audit_of_a_real_build(built: Path, capsys) -> None:
    assert main(["audit", str(built), "--json", "--examples", "3"]) == 0
    printed = capsys.readouterr().out
    assert main(["audit", str(built), "--json", "--examples", "3", "--workers", "2"]) == 0
    assert capsys.readouterr().out == printed  # the same report on local worker processes
    report = json.loads(printed)
    assert set(report["configs"]) == {"sft", "sft-multiturn"}
    sft = report["configs"]["sft"]
    assert sft["rows"] == 160
    assert set(sft["checks"]) == {c.name for c in CHECKS if c.configs == "all"}
    assert "single_user_turn" in report["configs"]["sft-multiturn"]["checks"]
    imported_only = {c.name for c in CHECKS if c.fn.__module__ == "covert.audit.imported"}  # no api.* rows here
    for name, result in sft["checks"].items():
        assert (result["applicable"] == 0) if name in imported_only else (0 < result["applicable"] <= 160), name
        assert result["rate"] is None or 0.0 <= result["rate"] <= 1.0
        assert sum(c["flagged"] for c in result["per_builder"].values()) == result["flagged"]
        assert len(result["examples"]) == min(3, result["flagged"])
    assert len(sft["checks"]["grammar_artefacts"]["per_builder"]) == 8
    # the synthesizer no longer makes these (validation rejects them too)
    for name in ("category_mismatch", "same_turn_id", "parallel_write_conflict"):
        assert sft["checks"][name]["flagged"] == 0, sft["checks"][name]["examples"]
    assert main(["audit", str(built), "--config", "sft"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("== sft: 160 rows") and "list_unnamed" in table and "smart_home" in table


def test_audit_flags_broken_rows_written_to_disk(tmp_path: Path) -> None:
    rows = [_calendar("I found 2 rooms that are free.")]
    for i, row in enumerate(rows):
        row.update(task_id=f"calendar-{i}", environment="calendar", builder_version="1.0.0", difficulty="easy",
                   num_calls=1, augmentations=[], base_task_id=None, pass_rate=None, calibration=None,
                   initial_state={}, ground_truth={"behaviour": "tool_use", "calls": []})
    root = _write_dataset(tmp_path / "broken", rows)
    audits = audit_dataset(root)
    assert audits["sft"].results["list_unnamed"].flagged[0][0] == "calendar-0"


def test_audit_bad_input(tmp_path: Path, capsys) -> None:
    assert main(["audit", str(tmp_path / "missing")]) == 2
    assert "not a covert dataset" in capsys.readouterr().err


def _confirmed_redeem(confirmation: str, plan: str = "I'll apply their points to the booking they named.") -> dict:
    row = _redeem("I redeemed 2500 points on booking WSWK8W9T.")
    messages = row["messages"]
    turn = next(i for i, m in enumerate(messages) if m.get("tool_calls"))
    messages[turn]["reasoning_content"] = plan
    messages[turn:turn] = [{"role": "assistant", "content": confirmation},
                           {"role": "user", "content": "Yes, please go ahead."}]
    return row


def test_conversation_that_only_confirms_holds_nothing_back() -> None:
    row = _confirmed_redeem("I'll apply 2500 points to booking WSWK8W9T. Shall I go ahead?")
    assert verdict("single_user_turn", row).kind == "nothing_held_back"
    held = make_row(["Please knock 2500 points off my booking.", "It's booking WSWK8W9T."],
                    [[("redeem_points", {"booking_id": "WSWK8W9T", "points": 2500}, REDEEM)]], "Done.", "simple")
    assert not verdict("single_user_turn", held).flagged


@pytest.mark.parametrize(("confirmation", "kind"), [
    ("I'm about to redeem points (booking id WSWK8W9T, points 2500). Shall I go ahead?", "key_name"),
    ("Calling redeem_points with booking_id WSWK8W9T. Shall I go ahead?", "key_name"),
    ("I'll credit card_9356481 with 2500 points. Shall I go ahead?", "internal_id"),
])
def test_confirmation_that_pastes_internals(confirmation: str, kind: str) -> None:
    assert verdict("confirmation_internals", _confirmed_redeem(confirmation)).kind == kind
    clean = _confirmed_redeem("I'll apply 2500 of your points to booking WSWK8W9T. Shall I go ahead?")
    assert not verdict("confirmation_internals", clean).flagged
    assert "confirmation_internals" not in audit_rows([clean], "sft").results


def test_plan_that_copies_the_query_or_a_tool_description() -> None:
    copied = _confirmed_redeem("Shall I go ahead?", "The user wants: please knock 2500 points off booking wswk8w9t.")
    assert verdict("plan_copies", copied).kind == "query_copy"
    description = get_builder("hotels").tools["redeem_points"].description.split(". ")[0]
    pasted = _confirmed_redeem("Shall I go ahead?", f"First: {description}.")
    assert verdict("plan_copies", pasted).kind == "tool_description"
    assert not verdict("plan_copies", _confirmed_redeem("Shall I go ahead?")).flagged


def test_a_plan_that_restates_a_date_range_is_no_copy() -> None:
    row = make_row("Which rooms are free from 2026-07-21 to 2026-07-25 at 10:00 in Lisbon?",
                   [[("redeem_points", {"booking_id": "WSWK8W9T", "points": 2500}, REDEEM)]], "Done.", "simple")
    messages = row["messages"]
    turn = next(i for i, m in enumerate(messages) if m.get("tool_calls"))
    messages[turn]["reasoning_content"] = "I'll search the stay 2026-07-21 to 2026-07-25 at 10:00 for them."
    assert not verdict("plan_copies", row).flagged
    messages[turn]["reasoning_content"] = "Which rooms are free from 2026-07-21 to 2026-07-25 at 10:00 in Lisbon"
    assert verdict("plan_copies", row).kind == "query_copy"  # the whole sentence, words and all, is a copy


@pytest.mark.parametrize(("answer", "kind"), [
    ("I'm sorry: the request to redeem points failed (permission_denied: 403 Forbidden).", "names_tool"),
    ("Sorry, that failed with 403 Forbidden: not allowed.", "raw_code"),
    ("Sorry, that isn't possible from this account. Please try again later.", "try_again_permanent"),
    ("Sorry, that isn't possible from this account. Found: UPS; 2026-03-12; #W5429527.", "value_dump"),
])
def test_error_report_language(answer: str, kind: str) -> None:
    row = _redeem(answer)
    row["ground_truth"] = {"behaviour": "report_error", "failure": {
        "name": "redeem_points", "transient": False, "error": {"code": "permission_denied"}}}
    assert verdict("error_report_language", row).kind == kind
    row["messages"][-1]["content"] = ("I'm sorry, I wasn't able to apply your points to booking WSWK8W9T: this "
                                      "account isn't permitted to do that. Our support team can help.")
    assert not verdict("error_report_language", row).flagged
    assert "error_report_language" in audit_rows([row], "sft-augmented").results
    # plain English that happens to spell the tool, and a street number, are neither a tool name nor a code
    row["messages"][-1]["content"] = ("I'm sorry, I couldn't redeem points on booking WSWK8W9T for 564 Lakeview "
                                      "Terrace: this account isn't permitted to do that.")
    assert not verdict("error_report_language", row).flagged


def test_a_one_digit_count_handed_over_is_something_held_back() -> None:
    """'We're 2 people.' answers the agent's question: the row holds something back."""
    search = ("search_rooms", {"date": "2026-10-06", "start_time": "12:00", "min_capacity": 2}, {"rooms": []})
    held = make_row(["Which rooms are free on 2026-10-06 at 12:00?", "We're 2 people."], [[search]], "None.",
                    "simple", builder="calendar")
    assert not verdict("single_user_turn", held).flagged
    said = make_row(["Which rooms are free on 2026-10-06 at 12:00 for 2 people?", "Yes."], [[search]], "None.",
                    "simple", builder="calendar")
    assert verdict("single_user_turn", said).kind == "nothing_held_back"


# -- what answers and plans assert (covert.audit.hand), the category invariants, imported writes -----------

VARIANTS = {"product_id": "9229267687", "name": "Blender", "variants": [
    {"item_id": "7906155659", "options": "color red, capacity 1.5L", "available": True},
    {"item_id": "6731251284", "options": "color black, capacity 2L", "available": False}]}
PRODUCT = ("get_product_details", {"product_id": "9229267687"}, VARIANTS)


def test_an_in_stock_answer_that_offers_an_unavailable_variant() -> None:
    query = "Which versions of the Blender are in stock?"
    false = make_row(query, [[PRODUCT]], "We have it in color red, capacity 1.5L and color black, capacity 2L.",
                     builder="retail")
    assert verdict("unavailable_offered", false).kind == "offers_unavailable"
    true = make_row(query, [[PRODUCT]], "In stock right now: color red, capacity 1.5L.", builder="retail")
    assert not verdict("unavailable_offered", true).flagged
    # "what options" asks for every version: naming an unavailable one is no claim that it is in stock
    assert not verdict("unavailable_offered", {**false, "messages": [
        *false["messages"][:1], {"role": "user", "content": "What options does the Blender come in?"},
        *false["messages"][2:]]}).flagged


def test_a_list_the_user_asked_for_cut_short() -> None:
    cut = _calendar("Free at 11 am: Atlas, Pioneer and 2 more.")
    assert verdict("list_cut", cut).kind == "asked_list_cut"
    assert not verdict("list_cut", _calendar("Free at 11 am: Atlas and Pioneer.")).flagged
    # a summary of a list nobody asked for is fine
    unasked = _calendar("Atlas is free, and 3 more rooms too.", "Is a room free at 11:00 on 2026-09-03?")
    assert not verdict("list_cut", unasked).flagged


ORDER = {"order_id": "#W1", "items": [{"item_id": "11", "name": "Suitcase"}, {"item_id": "12", "name": "Blender"},
                                      {"item_id": "13", "name": "Desk Lamp"}]}


def test_a_count_the_query_already_holds() -> None:
    call = ("get_order_details", {"order_id": "#W1"}, ORDER)
    told = make_row("How many items are in my order with the Suitcase, Blender and Desk Lamp?", [[call]],
                    "I count 3 items in all.", builder="retail")
    assert verdict("answer_in_query", told).kind == "count_named"
    fair = make_row("How many items are in order #W1?", [[call]], "I count 3 items in all.", builder="retail")
    assert not verdict("answer_in_query", fair).flagged
    # "SoMa" is in the query (inside the hotel's name), but two hotels are in SoMa: it names neither
    hotels = {"hotels": [{"hotel_id": "H1", "hotel_name": "Hotel Solana SoMa", "neighborhood": "SoMa"},
                         {"hotel_id": "H2", "hotel_name": "Lumen Suites", "neighborhood": "SoMa"}]}
    shared = make_row("How many hotels are there besides Hotel Solana SoMa?", [[("search_hotels", {"city": "X"},
                                                                                 hotels)]],
                      "There are 2 hotels.", builder="hotels")
    assert not verdict("answer_in_query", shared).flagged


def test_an_answer_that_says_one_list_twice() -> None:
    second = ("search_rooms", {"date": "2026-09-04", "start_time": "11:00"}, {**ROOMS, "date": "2026-09-04"})
    twice = make_row("Which rooms are free at 11:00 on 2026-09-03 and 2026-09-04?", [[SEARCH, second]],
                     "On September 3: Atlas and Pioneer. On September 4: Atlas and Pioneer.", "parallel", "calendar")
    assert verdict("list_said_twice", twice).kind == "same_items"
    once = make_row("Which rooms are free at 11:00 on 2026-09-03 and 2026-09-04?", [[SEARCH, second]],
                    "Atlas and Pioneer are free at 11 am on both days.", "parallel", "calendar")
    assert not verdict("list_said_twice", once).flagged


def _mail(*messages: tuple[str, str, str]) -> dict[str, Any]:
    return {"messages": [{"message_id": m, "subject": subject, "from_name": sender} for m, subject, sender in messages]}


def test_a_list_said_twice_is_one_record_said_more_often_than_returned() -> None:
    """An email in the inbox and in a search is one record said twice; two emails that share a subject, and
    a subject inside its reply's ("Dinner on Sunday?" in "Re: Dinner on Sunday?"), are not."""
    inbox = ("list_inbox", {}, _mail(("m1", "Agenda for Monday", "Ana Silva"), ("m2", "Slides for the offsite",
                                                                             "Bo Park"), ("m3", "Re: Dinner on Sunday?", "Cy Lee"),
                                     ("m4", "Dinner on Sunday?", "Cy Lee")))
    search = ("search_messages", {"label": "Work"}, _mail(("m1", "Agenda for Monday", "Ana Silva"),
                                                         ("m2", "Slides for the offsite", "Bo Park")))
    query = "What's in my inbox? And which Work emails do I have?"
    overlap = make_row(query, [[inbox, search]], "In your inbox: Agenda for Monday (Ana Silva), Slides for the "
                       "offsite (Bo Park), Re: Dinner on Sunday? (Cy Lee) and Dinner on Sunday? (Cy Lee). Work: "
                       "Agenda for Monday (Ana Silva) and Slides for the offsite (Bo Park).", "parallel_multiple",
                       "messaging")
    assert verdict("list_said_twice", overlap).kind == "same_items"
    said_once = make_row(query, [[inbox, search]], "In your inbox: Agenda for Monday (Ana Silva), Slides for the "
                         "offsite (Bo Park), Re: Dinner on Sunday? (Cy Lee) and Dinner on Sunday? (Cy Lee); the "
                         "first two are your Work emails.", "parallel_multiple", "messaging")
    assert not verdict("list_said_twice", said_once).flagged
    same_subject = ("list_inbox", {}, _mail(("m7", "Your statement is ready", "Ridgeline Bank"),
                                            ("m8", "Your statement is ready", "Ridgeline Bank")))
    two = make_row("What's in my inbox?", [[same_subject]], "In your inbox: Your statement is ready (Ridgeline Bank) "
                   "and Your statement is ready (Ridgeline Bank).", "simple", "messaging")
    assert not verdict("list_said_twice", two).flagged


def test_validation_rejects_what_the_audit_counts_as_said_twice_or_in_the_query() -> None:
    """answer_problem (L3 validation) holds the same checks, so a build writes no row the audit flags."""
    from covert.validation.answer_checks import answer_problem

    truth = {"answer_facts": [], "behaviour": "tool_use"}
    second = {**ROOMS, "date": "2026-09-04"}
    assert answer_problem("On September 3: Atlas and Pioneer. On September 4: Atlas and Pioneer.",
                          "Which rooms are free at 11:00 on 2026-09-03 and 2026-09-04?", truth, [ROOMS, second],
                          [])[0] == "answer_repeats_list"
    assert answer_problem("Atlas and Pioneer are free at 11 am on both days.",
                          "Which rooms are free at 11:00 on 2026-09-03 and 2026-09-04?", truth, [ROOMS, second],
                          []) is None
    assert answer_problem("I count 3 items in all.", "How many items are in my order with the Suitcase, Blender "
                          "and Desk Lamp?", truth, [ORDER], [])[0] == "answer_in_query"
    assert answer_problem("I count 3 items in all.", "How many items are in order #W1?", truth, [ORDER], []) is None


def _conversation(plan: str) -> dict[str, Any]:
    found = {"customer_id": "cu_1", "name": "Ana Silva", "reservations": ["QCJECV"]}
    details = {"reservation_id": "QCJECV", "status": "confirmed"}
    messages = [{"role": "system", "content": "You help travellers."},
                {"role": "user", "content": "Can you check my reservation? I'm ana@example.com."},
                {"role": "assistant", "content": "", "reasoning_content": plan, "tool_calls": [
                    {"id": "c0", "type": "function", "function": {"name": "find_customer_by_email",
                                                                  "arguments": {"email": "ana@example.com"}}}]},
                {"role": "tool", "tool_call_id": "c0", "name": "find_customer_by_email", "content": json.dumps(found)},
                {"role": "assistant", "content": "", "reasoning_content": "Now I'll check reservation QCJECV.",
                 "tool_calls": [{"id": "c1", "type": "function", "function": {
                     "name": "get_reservation_details", "arguments": {"reservation_id": "QCJECV"}}}]},
                {"role": "tool", "tool_call_id": "c1", "name": "get_reservation_details", "content": json.dumps(details)},
                {"role": "assistant", "content": "Reservation QCJECV is confirmed."}]
    return {"task_id": "t-1", "builder": "airline", "category": "sequential", "messages": messages,
            "tools": _tools("airline", ["find_customer_by_email", "get_reservation_details"]),
            "ground_truth": {"behaviour": "tool_use"}}


def test_a_plan_that_names_an_id_nothing_has_shown() -> None:
    check = CHECK["plan_foreknows"].fn
    assert check(row_view(_conversation("I'll look them up, then check reservation QCJECV."))).kind == "unseen_id"
    assert not check(row_view(_conversation("I'll look them up by the email they gave."))).flagged


def test_a_change_then_a_cancel_of_the_same_order() -> None:
    modify = ("modify_pending_order_address", {"order_id": "#W1", "address1": "1 Elm St"}, {"order_id": "#W1"})
    cancel = ("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"}, {"status": "cancelled"})
    other = ("cancel_pending_order", {"order_id": "#W2", "reason": "no longer needed"}, {"status": "cancelled"})
    undone = make_row("Ship #W1 to 1 Elm St, then cancel #W1.", [[modify], [cancel]], "Done.", "state_changing",
                      "retail")
    assert verdict("undone_write", undone).kind == "change_then_cancel"
    fine = make_row("Ship #W1 to 1 Elm St and cancel #W2.", [[modify, other]], "Done.", "state_changing", "retail")
    assert not verdict("undone_write", fine).flagged


def test_parallel_rows_make_every_call_in_one_turn_and_simple_rows_offer_one_tool() -> None:
    mismatch = CHECK["category_mismatch"].fn
    flights = ("search_flights", {"origin": "DEN", "destination": "BOS", "date": "2026-01-19"},
               {"flights": [{"flight_number": "SK6804", "departure_time": "07:50"}]})
    find = ("find_customer_by_email", {"email": "ana@example.com"}, {"customer_id": "cu_1", "name": "Ana"})
    split = make_row("I'm ana@example.com. Gate of SK6865, and flights from DEN to BOS?",
                     [[find], [_status("SK6865", "B14"), flights]], "Gate B14; SK6804 at 07:50.",
                     "parallel_multiple", "airline")
    assert mismatch(row_view(split)).kind == "parallel_extra_turn"
    one_turn = make_row("Gate of SK6865, and flights from DEN to BOS?", [[_status("SK6865", "B14"), flights]],
                        "Gate B14; SK6804 at 07:50.", "parallel_multiple", "airline")
    assert not mismatch(row_view(one_turn)).flagged
    simple = make_row("Where do I board SK6865?", [[_status("SK6865", "B14")]], "Gate B14.", "simple", "airline")
    assert not mismatch(row_view(simple)).flagged
    offered = {**simple, "tools": simple["tools"] + _tools("airline", ["search_flights"])}
    assert mismatch(row_view(offered)).kind == "simple_many_tools"
    assert not mismatch(row_view({**offered, "category": "multiple"})).flagged


def test_imported_writes_are_seen_by_their_names() -> None:
    from covert.audit.rows import is_write

    assert is_write("api.example_fax", "DeleteFax") and is_write("api.example", "users_patch")
    assert is_write("api.example", "compute.instances.delete") and not is_write("api.example", "get_post")
    deleted = make_row("Delete fax 12.", [[("DeleteFax", {"faxId": "12"}, {"deleted": True})]], "Deleted.",
                       "state_changing", "none")
    deleted["builder"] = "api.example_fax"
    assert not CHECK["category_mismatch"].fn(row_view(deleted)).flagged
    read = make_row("Show fax 12.", [[("GetFax", {"faxId": "12"}, {"faxId": "12"})]], "Here.", "state_changing", "none")
    read["builder"] = "api.example_fax"
    assert CHECK["category_mismatch"].fn(row_view(read)).kind == "state_changing_no_write"


def test_language_measures_of_a_config() -> None:
    from covert.audit.distribution import confirmation_replies, distinct_2, fixed_plan_share, polite

    assert polite("Hi, can you check my order?") and polite("Cancel it please.") and not polite("Cancel order #W1.")
    assert distinct_2(["a b c"] * 200) < distinct_2([f"word{i} other{i} more{i}" for i in range(200)])
    assert distinct_2(["too few"]) is None
    share, count = fixed_plan_share([["I'll answer."]] * 10 + [[f"plan {i}"] for i in range(10)])
    assert count == 20 and share == 0.5
    replies = confirmation_replies(["Yes, please go ahead.", "Wait, will anything else change?", "Okay, go ahead."])
    assert replies["confirmations"] == 3 and abs(replies["not_plain_yes"] - 1 / 3) < 1e-3


def test_a_tool_name_says_it_writes_after_a_modifier() -> None:
    # an imported dataset audited where its store is not installed: the tool's name is all there is
    from covert.audit.rows import is_write, writes_by_name

    assert writes_by_name("partialUpdateProjectRole") and writes_by_name("batchCreateUsers")
    assert writes_by_name("DeleteBucket") and writes_by_name("widgets_patch")
    assert writes_by_name("enterprise-admin_delete-global-webhook") and writes_by_name("notes_patch_2")
    assert writes_by_name("apps_remove-repo-from-installation-for-authenticated-user")
    assert not writes_by_name("partialListRoles") and not writes_by_name("getAllProjectRoles")
    assert not writes_by_name("enterprise-admin_list-global-webhooks") and not writes_by_name("notes_list_2")
    assert is_write("api.openapi.not.installed", "partialUpdateProjectRole")


def test_an_unquoted_value_that_ends_a_sentence_is_a_lower_case_start() -> None:
    """A value of the data said unquoted in the middle of a sentence is no sentence of its own: "the
    destination with status reason Temporary, remove after March. removed" is flagged, the same value
    quoted is not."""
    from covert.audit.checks import _artefacts

    data = "temporary, remove after march."
    assert _artefacts("Drop the destination with status reason Temporary, remove after March. removed.", data)
    assert not _artefacts('Drop the destination with status reason "Temporary, remove after March. removed', data)



def test_a_doubled_full_stop_in_the_system_prompt_is_a_grammar_artefact() -> None:
    """Gitea's title "Gitea API." made every row's system prompt "You are the assistant for Gitea API..",
    which the audit, reading only the user's and the assistant's text, never saw."""
    row = _calendar("Atlas and Pioneer are free at 11:00.")
    system = next(m for m in row["messages"] if m["role"] == "system")
    system["content"] = "You are the assistant for Gitea API.. You look up and manage GPG keys."
    found = verdict("grammar_artefacts", row)
    assert found.flagged and found.kind == "doubled_stop@system", found
    system["content"] = "You are the assistant for Gitea API. You look up GPG keys (e.g. by id) and more..."
    assert not verdict("grammar_artefacts", row).flagged


def test_a_doubled_word_in_the_services_own_name_is_no_grammar_artefact() -> None:
    """Google's "My Business Business Information API" is the service's name: its doubled word, said in the
    system prompt and again by the assistant, is no template artefact; a doubled word the name does not
    have still is."""
    row = _calendar("That is outside what I can do for categories in My Business Business Information API.")
    system = next(m for m in row["messages"] if m["role"] == "system")
    system["content"] = "You are the assistant for My Business Business Information API. You look up categories."
    assert not verdict("grammar_artefacts", row).flagged
    system["content"] = "You are the assistant for Business Information API. You look up categories."
    found = verdict("grammar_artefacts", row)
    assert found.flagged and found.kind == "doubled_word@assistant", found


def test_a_put_on_a_record_the_row_has_seen_is_no_create_for_the_audit() -> None:
    """Traccar's ``put_users_id`` changed the device limit of a user a listing had shown disabled; the audit
    read the put as a create and its unchanged ``disabled: true`` as a new record made ended. A put on an id
    no earlier output holds still makes a record, and is still read so."""
    user = {"id": 1002, "name": "Suzanne Ballard", "deviceLimit": 98, "disabled": True}
    listed = ("get_users", {}, [user])
    changed = ("put_users_id", {"id": 1002, "deviceLimit": 143}, {**user, "deviceLimit": 143})
    row = {**make_row("Set Suzanne Ballard's device limit to 143.", [[listed], [changed]],
                      "Suzanne Ballard now has the device limit 143.", "state_changing", builder="none"),
           "builder": "api.openapi.traccar.not.installed"}
    assert verdict("create_terminal_status", row) is None  # no create in the row
    made = ("put_users_id", {"id": 1009, "name": "Ana Lee"}, {"id": 1009, "name": "Ana Lee", "disabled": True})
    row = {**make_row("Add the user Ana Lee.", [[made]], "Ana Lee is added.", "state_changing", builder="none"),
           "builder": "api.openapi.traccar.not.installed"}
    found = verdict("create_terminal_status", row)
    assert found.flagged and found.kind == "ended_flag", found


def test_a_count_of_a_list_inside_a_part_of_the_record_is_read_as_that_list() -> None:
    """Serverless Application Repository: "How many parameter definitions does the application ... have?"
    counts the 2 ``ParameterDefinitions`` of the application's ``Version``; the audit read only top-level
    lists (its 2 ``Labels``) and called the true count one of another record's noun."""
    app = {"ApplicationId": "app-d3", "Labels": ["Coleman Compliance", "Prod Risk"],
           "Version": {"ApplicationId": "app-d3", "ParameterDefinitions": [{"Name": "a"}, {"Name": "b"}]}}

    def row(answer: str) -> dict[str, Any]:
        made = make_row("How many parameter definitions does the application by Darryl Hartman have?",
                        [[("GetApplication", {"ApplicationId": "app-d3"}, app)]], answer, "sequential", builder="none")
        return {**made, "builder": "api.botocore.serverlessrepo.not.installed"}

    assert not verdict("count_names_other_records", row("There are 2 parameter definitions.")).flagged
    found = verdict("count_names_other_records", row("There are 2 zebras."))
    assert found.flagged and found.kind == "counted_as_other_records", found


def test_a_project_named_by_its_number_may_have_an_id_of_another_form() -> None:
    """Cloud Resource Manager's project ``projects/320233962530`` has the id ``etl-project-test``: a number and
    an id are two names of one project, not a contradiction; a path under one project id with a
    ``projectId`` naming another still is."""
    def row(project: dict[str, Any]) -> dict[str, Any]:
        made = make_row("List our projects.", [[("cloudresourcemanager_projects_list", {}, {"projects": [project]})]],
                        "Here are the projects: Workflow Project.", "simple", builder="none")
        return {**made, "builder": "api.google.cloudresourcemanager.not.installed"}

    assert not verdict("scope_disagrees", row({"name": "projects/320233962530", "projectId": "etl-project-test",
                                               "displayName": "Workflow Project"})).flagged
    found = verdict("scope_disagrees", row({"name": "projects/etl-project-test/buckets/b-1", "projectId": "pro-4c4e",
                                            "displayName": "Workflow Project"}))
    assert found.flagged and found.kind == "project_disagrees_with_path", found
