"""The answer stage: spoken forms, named lists, facts L3 re-derives, and the answer checks of validation."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from covert.cli import main
from covert.errors import Invalid, Rejected
from covert.language.answers import Composer, fill_answer
from covert.language.spoken import fact_forms, say, say_count, say_date, say_money, say_time, say_when
from covert.rewards.facts import facts_score
from covert.validation import validate_row
from covert.validation.answer_checks import (
    _COUNT_WORDS,
    _FREE,
    _FREE_WORDS,
    _LIST_WORDS,
    COUNT_CUE,
    LIST_CUE,
    _cued,
    answer_problem,
)
from covert.validation.dataset import validate_dataset
from tests.synth.test_turn_checks import _find, _write_dataset


def test_values_are_said_as_people_write_them() -> None:
    assert say_date("2026-03-12") == "March 12, 2026"
    assert say_time("15:30") == "3:30 pm" and say_time("09:00") == "9 am" and say_time("00:05") == "12:05 am"
    assert say_when("2026-10-05T16:15") == "October 5, 2026 at 4:15 pm"
    assert say_money(1234.5, "USD") == "$1,234.50" and say_money(8.48, "CAD") == "8.48 CAD"
    assert say("status", "under_review") == "under review"
    assert say("status", "resolved_refunded") == "resolved with a refund"  # not "is resolved refunded"
    assert say("status", "needs_action") == "no reply yet"  # an invitee's reply, not "(needs action)"
    forms = fact_forms({"value": "resolved_refunded", "form": "status", "said": "resolved with a refund"})
    assert "resolved refunded" in forms and "resolved_refunded" in forms  # a reward still accepts the plain words
    assert [say_count(n, "event") for n in (0, 1, 3)] == ["no events", "1 event", "3 events"]
    assert say_count(2, "person|people") == "2 people" and say_count([{}, {}], "reply") == "2 replies"


def test_list_items_whose_own_words_hold_commas_are_set_apart_with_semicolons() -> None:
    output = {"variants": [{"options": "nib medium, color burgundy", "price": 42.22, "currency": "USD"},
                           {"options": "nib fine, color black", "price": 40.22, "currency": "USD"}]}
    text, _ = fill_answer("It comes in {variants:list:options|price@money}.", output, 0)
    assert text == "It comes in nib medium, color burgundy ($42.22); and nib fine, color black ($40.22)."
    flights = {"flights": [{"id": "SK7468", "time": "8:15 am", "seats": 5}, {"id": "SK4916", "time": "12:15 pm", "seats": 5}]}
    text, _ = fill_answer("These fly: {flights:list:id|time|seats#open seats}.", flights, 0)
    assert text == "These fly: SK7468 (8:15 am, open seats 5) and SK4916 (12:15 pm, open seats 5)."  # commas in parentheses


def test_a_list_names_its_items_with_a_limit() -> None:
    output = {"events": [{"title": f"Event {k}", "start_time": f"{9 + k:02d}:00"} for k in range(6)]}
    text, facts = fill_answer("You have {events:n:event}: {events:list:title|start_time@time}.", output, 0)
    assert text == "You have 6 events: Event 0 (9 am), Event 1 (10 am), Event 2 (11 am) and 3 more."
    assert {"value": "Event 2", "call": 0, "path": "events.2.title"} in facts
    assert {"value": "6", "call": 0, "path": "events", "form": "n:event", "said": "6 events"} in facts
    short, _ = fill_answer("{events:list:title}", {"events": output["events"][:2]}, 0)
    assert short == "Event 0 and Event 1"


def test_guards_pick_the_template_that_fits_the_status() -> None:
    delivered = {"order_id": "#W1", "status": "delivered", "carrier": "UPS", "estimated_delivery": "2026-05-18"}
    templates = ("{?status=delivered}Order {order_id} was delivered by {carrier}.",
                 "{?status~delivered}Order {order_id} should arrive by {estimated_delivery:date}.")
    composer = Composer(__import__("random").Random(0))
    facts: list[dict[str, Any]] = []
    assert composer.goal(templates, delivered, 0, "track_order", facts) == "Order #W1 was delivered by UPS."
    with pytest.raises(Rejected) as caught:  # the only fitting frame is spoken already
        composer.goal(templates, dict(delivered, order_id="#W2"), 1, "track_order", facts)
    assert caught.value.reason == "repeated_answer_frame"


def test_rewards_accept_a_fact_raw_or_spoken() -> None:
    money = {"value": "1136.45", "form": "money", "said": "$1,136.45", "call": 0, "path": "total", "unit": "currency"}
    date = {"value": "2026-03-12", "form": "date", "said": "March 12, 2026", "call": 0, "path": "check_in"}
    for text in ("It comes to $1,136.45, checking in March 12, 2026.", "Total 1136.45 USD from 2026-03-12.",
                 "That's 1,136.45 USD; you arrive on 12 March 2026."):
        assert facts_score(text, [money, date]) == (1.0, []), text
    score, missing = facts_score("It comes to $1,100.", [money, date])
    assert score == 0.0 and len(missing) == 2
    assert "12 March 2026" in fact_forms(date) and "$1,136.45" in fact_forms(money)


def test_answer_checks_catch_a_pending_date_of_a_closed_record() -> None:
    outputs = [{"dispute_id": "DSP-1", "status": "resolved_refunded", "decision_expected_by": "2026-10-05"}]
    truth = {"behaviour": "tool_use", "answer_facts": [
        {"value": "2026-10-05", "call": 0, "path": "decision_expected_by", "form": "date", "said": "October 5, 2026"}]}
    groups = [[{"name": "get_dispute_status", "arguments": {"dispute_id": "DSP-1"}}]]
    found = answer_problem("A decision is expected by October 5, 2026.", "what's up with DSP-1?", truth, outputs, groups)
    assert found is not None and found[0] == "answer_contradicts_outputs"
    outputs[0]["status"] = "under_review"
    assert answer_problem("A decision is expected by October 5, 2026.", "what's up with DSP-1?", truth, outputs,
                          groups) is None


def _facts_with_said(task: Any) -> bool:
    return any("said" in f for f in task.facts)


def _reason(row: dict[str, Any]) -> str:
    with pytest.raises(Invalid) as caught:
        validate_row(row, "sft")
    return caught.value.reason


def _broken_rows() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    spoken = _find("hotels", "simple", "get_booking_details", _facts_with_said).rows["sft"]
    said_wrong = copy.deepcopy(spoken)
    fact = next(f for f in said_wrong["ground_truth"]["answer_facts"] if "said" in f)
    said_wrong["messages"][-1]["content"] = said_wrong["messages"][-1]["content"].replace(fact["said"], "soon")
    fact["said"] = "soon"
    unsaid = copy.deepcopy(spoken)
    fact = next(f for f in unsaid["ground_truth"]["answer_facts"] if "said" in f)
    unsaid["messages"][-1]["content"] = unsaid["messages"][-1]["content"].replace(fact["said"], "later")
    not_free = _find("hotels", "simple", "get_booking_details",
                     lambda t: t.calls[-1].output.get("free_cancellation") is False).rows["sft"]
    free_claim = copy.deepcopy(not_free)
    free_claim["messages"][-1]["content"] += " You can still cancel it free of charge."
    listing = _find("calendar", "simple", "list_events", lambda t: len(t.calls[-1].output.get("events", [])) >= 2
                    and "what" in t.query.lower()).rows["sft"]
    unnamed = copy.deepcopy(listing)
    unnamed["messages"][-1]["content"] = "You have a few things on your calendar then."
    unnamed["ground_truth"]["answer_facts"] = []
    twice = copy.deepcopy(spoken)
    user = next(m for m in twice["messages"] if m["role"] == "user")
    booking = next(v for group in twice["ground_truth"]["calls"] for call in group
                   for v in call["arguments"].values() if isinstance(v, str) and len(v) >= 5)
    assert booking in user["content"]
    user["content"] += f" I mean booking {booking}."
    return spoken, {"fact_said_mismatch": said_wrong, "answer_missing_fact": unsaid,
                    "answer_contradicts_outputs": free_claim, "answer_names_no_item": unnamed,
                    "value_said_twice": twice}


def test_validation_rejects_each_broken_answer(tmp_path: Path, capsys) -> None:
    good, broken = _broken_rows()
    validate_row(good, "sft")
    for reason, row in broken.items():
        assert _reason(row) == reason
    rows = [dict(row, task_id=f"{row['task_id']}-{reason}") for reason, row in broken.items()]
    root = _write_dataset(tmp_path / "broken", [good, *rows])
    report = validate_dataset(root)
    assert {reason.split(":")[0] for reason in report.reasons()} == set(broken)
    assert main(["validate", str(root)]) == 1
    out = capsys.readouterr().out
    for reason in broken:
        assert reason in out


def test_spoken_variants_of_text_that_only_looks_like_a_date() -> None:
    from covert.language.spoken import spoken_variants

    assert spoken_variants("2026-13-12") == ("2026-13-12",)  # no month 13: the text itself, no crash
    assert "March 12, 2026" in spoken_variants("2026-03-12")


@pytest.mark.parametrize(("many", "one"), [("addresses", "address"), ("replies", "reply"), ("boxes", "box"),
                                           ("people", "person"), ("points movements", "points movement")])
def test_singular_inverts_plural(many: str, one: str) -> None:
    from covert.language.plurals import plural, singular

    assert singular(many) == one and plural(one) == many


def test_a_list_extra_joined_with_to_says_a_range() -> None:
    from covert.language.answers import fill_answer

    output = {"events": [{"title": "Focus time", "start_time": "12:00", "end_time": "12:30"},
                         {"title": "All-hands prep", "start_time": "13:00", "end_time": "14:30"}]}
    text, facts = fill_answer("On your calendar: {events:list:title|start_time@time|end_time@time#+to}.", output, 0)
    assert text == "On your calendar: Focus time (12 pm to 12:30 pm) and All-hands prep (1 pm to 2:30 pm)."
    assert len(facts) == 6
    slots = {"slots": [{"start_time": "10:00", "end_time": "11:00"}]}
    assert fill_answer("Free: {slots:list:start_time@time|end_time@time#+to}.", slots, 0)[0] == "Free: 10 am to 11 am."


def test_an_unassigned_ticket_is_said_as_such() -> None:
    from covert.synth.generate import ItemSpec, make_item

    seen = 0
    for index in range(200):
        task = make_item(ItemSpec(index, "helpdesk", "parallel", None, index // 40), 5, lambda s: "train").task
        if task is None:
            continue
        for call in task.calls:
            if isinstance(call.output, dict) and call.output.get("assigned_to") == "unassigned":
                seen += 1
                assert "Unassigned on" not in task.answer and "unassigned has" not in task.answer.lower()
    assert seen >= 1


def test_a_highest_or_lowest_record_is_named_by_its_name() -> None:
    """'The Wren Suites has the highest booking total', never '2026-03-29 has ...'; 'an amount', not 'a amount'."""
    import re

    from covert.synth.generate import ItemSpec, make_item

    checked = 0
    for builder in ("hotels", "airline", "banking"):
        for index in range(200):
            task = make_item(ItemSpec(index, builder, "sequential", None, index // 80), 44, lambda s: "train").task
            if task is None or not task.reasoning or task.reasoning[0].get("op") not in ("max", "min"):
                continue
            checked += 1
            assert not re.search(r"\d{4}-\d{2}-\d{2}", task.answer), task.answer
            assert not re.search(r"\ba [aeiou]", task.answer), task.answer
    assert checked >= 10


_CUE_PARTS = ["Show", "LIST", "which", "remind me what", "What's in", "what are", "any open tickets", "Any ",
              "pull up all", "how many", "How much", "number of", "total", "add up", "count", "sum", "summer",
              "free of charge", "FREE cancellation", "cancelled for free", "without a fee", "without charge",
              "company", "many", "show", " ", ".", "?", "\u017fhow", "whıch", "caf\u00e9", "K", "\u212aey"]


@settings(max_examples=400, deadline=None, database=None)
@given(st.lists(st.one_of(st.sampled_from(_CUE_PARTS), st.text(max_size=6)), max_size=12))
def test_cue_prefilter_finds_what_the_pattern_finds(parts: list[str]) -> None:
    """The literal prefilter of the list, count and free-of-charge cues never changes what they find."""
    text = "".join(parts)
    for pattern, words in ((LIST_CUE, _LIST_WORDS), (COUNT_CUE, _COUNT_WORDS), (_FREE, _FREE_WORDS)):
        assert _cued(pattern, words, text) == (pattern.search(text) is not None), (pattern.pattern[:30], text)


def test_sums_agree_with_the_field_noun() -> None:
    """'the points come to', 'the order total comes to'; never 'Added up, your orders come to $846.71 in order
    total.' nor a query 'what do my points movements come to in points, all together?'."""
    import random
    import re

    from covert.audit.checks import _STOCK_HANDOVER
    from covert.language.realize import AGGREGATE_ASKS, plural_noun

    assert [plural_noun(w) for w in ("points", "rooms left", "booked minutes", "devices")] == [True] * 4
    assert not any(plural_noun(w) for w in ("number of devices", "order total", "status", "energy used", "balance"))
    for field, verbs in (("points", ("come", "add")), ("order total", ("comes", "adds"))):
        for seed in range(12):
            text, _ = Composer(random.Random(seed)).aggregate(
                "sum", {"field": field, "whose": "your", "plural": "orders", "items": "my orders", "value": "$846.71"})
            assert field in text and re.search(rf"\b({verbs[0]} to|{verbs[1]} up to) \$846\.71\.$", text), text
    assert _STOCK_HANDOVER.search("What do my points movements come to in points, all together?")
    for template in AGGREGATE_ASKS["sum"]:
        ask = template.format(field="points", items="my points movements", whats="what are")
        assert not _STOCK_HANDOVER.search(ask) and "what's the points" not in ask, ask


def test_a_list_answer_naming_records_by_their_lower_case_names_names_them() -> None:
    from covert.validation.answer_checks import answer_problem

    truth = {"answer_facts": [], "behaviour": "tool_use"}
    groups = [[{"name": "ListAgentSpaces", "arguments": {}}]]
    outputs = [{"agentSpaceSummaries": [{"agentSpaceId": "agespa-7daa79a160ed", "name": "docs-risk"},
                                        {"agentSpaceId": "agespa-950deebb8452", "name": "batch-agent-space-west"}]}]
    named = "I found 2 agent spaces: docs-risk and batch-agent-space-west."
    assert answer_problem(named, "Which agent spaces exist right now?", truth, outputs, groups) is None
    found = answer_problem("There are a couple of agent spaces.", "Which agent spaces exist right now?", truth,
                           outputs, groups)
    assert found is not None and found[0] == "answer_names_no_item"


def test_a_record_the_output_names_is_never_said_by_its_id() -> None:
    """A delete answers by the record's name where its output gives one, by its id only where it gives none
    (``{?-displayName}``: "Done: phrase set projects/p/phrase-set-2 has been removed" was said of a record
    named Prod Invoicing)."""
    from covert.imports.language import _delete_answers
    from covert.imports.resources import Resource

    schema = {"type": "object", "properties": {"name": {"type": "string"}, "displayName": {"type": "string"}}}
    templates = _delete_answers(Resource("phrase_sets", "phrase set", "phrase sets", "phrase_set_id", "name", schema))
    named = {"name": "projects/p/phraseSets/phrase-set-2", "displayName": "Prod Invoicing"}
    for seed in range(12):
        said = Composer(__import__("random").Random(seed)).goal(templates, named, 0, "delete", [])
        assert "Prod Invoicing" in said and "phrase-set-2" not in said, said
        bare = Composer(__import__("random").Random(seed)).goal(templates, {**named, "displayName": ""}, 0, "delete", [])
        assert "projects/p/phraseSets/phrase-set-2" in bare, bare
    assert fill_answer("{?-displayName}Gone: {name}.", {"name": "a"}, 0)[0] == "Gone: a."


def test_a_count_of_one_takes_a_verb_in_agreement() -> None:
    """Analytics' links were answered "There are 1 web property ad words link." and "I count no profile filter
    links in all.": one is, more are, and none are."""
    template = "There are {links:n:link|links}: {links:list:name}."
    one = fill_answer(template, {"links": [{"name": "Ads link"}]}, 0)[0]
    two = fill_answer(template, {"links": [{"name": "Ads link"}, {"name": "Search link"}]}, 0)[0]
    assert (one, two) == ("There is 1 link: Ads link.", "There are 2 links: Ads link and Search link.")
    counted = [fill_answer("I count {links:n:link|links} in all.", {"links": links}, 0)[0] for links in ([], [{}, {}])]
    assert counted == ["There are no links.", "I count 2 links in all."]  # not "I count no links in all."
