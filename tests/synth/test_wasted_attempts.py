"""Plans that could only be rejected are not drawn (or are rejected before anything runs)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from covert.env import get_builder, item_rng
from covert.errors import Rejected
from covert.synth.blueprint import Blueprint, backward, random_walk, sample_blueprint
from covert.synth.graph import tool_graph
from covert.synth.instantiate import instantiate, never_varies

RETAIL = get_builder("retail")
HOTELS = get_builder("hotels")


def test_an_echo_passes_on_only_what_the_source_was_given() -> None:
    graph = tool_graph(RETAIL)
    echoes = {(e.source, e.target) for e in graph.edges if graph.echoes(e)}
    # an order's details return the order id they were given: tracking that order needs no details first
    assert ("get_order_details", "track_order") in echoes
    # a listed order id is a new one
    assert not any(graph.echoes(e) for e in graph.edges if e.source == "get_user_details" and e.param == "order_id")
    assert "track_order" in graph.successors("get_order_details")
    assert "track_order" not in graph.successors("get_order_details", fresh=True)


def test_walks_never_take_a_step_that_only_hands_on_its_own_input() -> None:
    graph = tool_graph(RETAIL)
    echo_only = {("get_order_details", "track_order"), ("track_order", "get_order_details")}
    for a, b in echo_only:
        assert {e.param for e in graph.edges if e.source == a and e.target == b} == {"order_id"}
    for seed in range(300):
        walk = random_walk(RETAIL, item_rng("echo", seed), 5)
        assert not echo_only & set(pairwise(walk)), walk


def test_no_lookup_only_relays_the_users_own_id() -> None:
    # a booking's details give a new booking nothing but the guest id, which the guest lookup gave already
    # (the booking would be read for nothing: validation rejects such a row as a redundant step)
    lookups = {"find_guest_by_email", "find_guest_by_loyalty_number", "get_guest_profile"}
    for seed in range(80):
        steps = backward(HOTELS, "book_room", item_rng("relay", seed))
        assert steps[-1] == "book_room"
        assert "get_booking_details" not in steps[1:], steps  # first, it is how the guest is found
        blueprint = sample_blueprint(HOTELS, "state_changing", item_rng("relay-plan", seed), "book_room")
        if blueprint.method == "backward" and "get_booking_details" in blueprint.steps:
            at = blueprint.steps.index("get_booking_details")
            assert not lookups & set(blueprint.steps[:at]), blueprint.steps
    for seed in range(150):
        plan = sample_blueprint(HOTELS, "sequential", item_rng("relay-walk", seed))
        steps = plan.steps
        for i, (a, b) in enumerate(pairwise(steps)):
            if a == "get_booking_details" and b in ("get_loyalty_account", "get_guest_profile") \
                    and i not in plan.goals:
                assert not lookups & set(steps[:i]), steps


def test_a_lookup_picks_a_record_the_later_write_can_act_on() -> None:
    blueprint_steps = ["find_user_id_by_email", "get_user_details", "get_order_details",
                       "return_delivered_order_items"]
    made = 0
    for seed in range(40):
        blueprint = Blueprint("state_changing", "backward", list(blueprint_steps), [3])
        state = RETAIL.state(0, seed % 4)
        try:
            task = instantiate(RETAIL, blueprint, state, item_rng("later", seed), 0, seed)
        except Rejected as exc:
            assert exc.reason != "precondition_failed", exc
            continue
        made += 1
        looked_up = task.calls[2].arguments["order_id"]
        assert state.get("orders", looked_up)["status"] == "delivered"
        assert task.calls[3].arguments["order_id"] == looked_up
    assert made >= 30


def test_a_parallel_turn_of_a_tool_without_a_givable_varying_parameter_is_rejected_first() -> None:
    messaging = get_builder("messaging")
    # the inbox listing has only a flag and a limit the user is never asked for: its calls cannot differ
    assert never_varies(messaging, "list_inbox")
    assert not never_varies(messaging, "search_messages")
    blueprint = Blueprint("parallel", "parallel", ["list_inbox", "list_inbox"], [0, 1])
    try:
        instantiate(messaging, blueprint, messaging.state(0, 0), item_rng("inbox"), 0, 0)
    except Rejected as exc:
        assert exc.reason == "duplicate_parallel_call"
    else:
        raise AssertionError("two list_inbox calls cannot differ")


def test_the_name_and_zip_lookup_is_no_request_of_its_own() -> None:
    # all it returns besides the internal id is the name the user just said: its answer adds nothing
    for seed in range(30):
        for category in ("simple", "multiple", "parallel_multiple"):
            blueprint = sample_blueprint(RETAIL, category, item_rng("zip", category, seed), "find_user_id_by_name_zip")
            assert "find_user_id_by_name_zip" not in [blueprint.steps[g] for g in blueprint.goals], blueprint



@pytest.mark.parametrize(("fixture", "tool", "needed"), [
    ("notes_google", "notes_notes_insert", "title"), ("queues_botocore", "CreateQueue", None),
    ("shop_openapi", "createCustomer", None)])
def test_a_request_the_tool_can_word_is_found_before_a_plan_is_given_up(fixture: str, tool: str,
                                                                       needed: str | None) -> None:
    # imported creates are worded with a field the API leaves optional (a note's title), in every request
    # or in one of their intents (a customer with or without a city): drawn like any optional field, it
    # was left out two times in three, and the plan was rejected as no_phrasing after its calls had run
    from covert.imports.envs import make_builder
    from covert.synth.instantiate import _phrasing_needs
    from tests.imports import api_fixtures

    api = make_builder(getattr(api_fixtures, fixture)())
    if needed is not None:
        assert needed in _phrasing_needs(api.language, tool)
        assert needed not in api.tools[tool].parameters["required"]
    reasons = []
    for seed in range(30):
        try:
            task = instantiate(api, Blueprint("simple", "single", [tool], [0]), api.state(0, seed % 4),
                               item_rng("worded", seed), 0, seed)
        except Rejected as exc:
            reasons.append(exc.reason)
            continue
        if needed is not None:
            given = task.calls[0].arguments.get(needed)
            assert given and str(given).lower() in task.query.lower(), (task.calls[0].arguments, task.query)
    assert reasons == [], reasons


def test_a_quoted_slot_of_a_parallel_turn_quotes_each_value() -> None:
    """'Search my mail for "track" and "Software"', never 'for "track and Software"' (one phrase that no
    subject holds)."""
    from covert.language.realize import fill
    from covert.synth.instantiate import _quoted_each

    template, said = _quoted_each('search my mail for "{query}" in the subject', {"query": "track and Software"},
                                  {"query": ["track", "Software"]})
    assert fill(template, said) == 'search my mail for "track" and "Software" in the subject'
    one = _quoted_each('search my mail for "{query}"', {"query": "track"}, {"query": ["track"]})
    assert fill(*one) == 'search my mail for "track"'
