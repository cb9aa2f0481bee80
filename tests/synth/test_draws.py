"""Draws that can succeed: a try whose call failed its precondition is followed by one on another of the
principal's records, a parallel turn asks about records it has not asked about yet, and a parallel turn
that repeats a tool is about someone with several such records."""

from __future__ import annotations

import contextlib
import copy
import random

import pytest

from covert.env import State, get_builder
from covert.env.policy import choose_principal, holdings, identity_of, owner_of
from covert.errors import Rejected
from covert.synth.blueprint import Blueprint
from covert.synth.instantiate import Instantiator


def _hotels_state(edit=None) -> State:
    data = copy.deepcopy(get_builder("hotels").state(0, 0).to_dict())
    if edit is not None:
        edit(data["tables"])
    return State.from_dict(data)


def _recording(inst: Instantiator, tool: str) -> list[dict]:
    """The arguments of every call of ``tool`` the instantiator makes (failed tries included)."""
    seen: list[dict] = []
    real = inst.env.call

    def call(name, arguments=None):
        if name == tool:
            seen.append(dict(arguments))
        return real(name, arguments)

    inst.env.call = call
    return seen


@contextlib.contextmanager
def _without_eligible(builder):
    """The builder's language with no ``eligible`` tests (calls are only known to fail once they run)."""
    language = builder.language
    kept = language.eligible
    object.__setattr__(language, "eligible", {})
    try:
        yield
    finally:
        object.__setattr__(language, "eligible", kept)


def _close_all(guest):
    def close(tables):  # every booking of the guest is over: no try can cancel one
        for booking in tables["bookings"].values():
            if booking["guest_id"] == guest:
                booking["status"] = "completed"
    return close


def test_a_failed_try_is_followed_by_another_record_then_rejected() -> None:
    builder = get_builder("hotels")
    guest = "GST-7337574"
    state = _hotels_state(_close_all(guest))
    mine = sorted(k for k, b in state.records("bookings") if b["guest_id"] == guest)
    assert len(mine) == 2
    with _without_eligible(builder):
        for seed in range(5):
            tried, caught = _cancel_for(builder, state, guest, seed)
            assert caught.reason == "precondition_failed"
            assert caught.detail == "cancel_booking:booking_not_active"
            # each of the guest's bookings is tried once, none of anyone else's
            assert sorted(a["booking_id"] for a in tried) == mine


def _cancel_for(builder, state, guest: str, seed: int) -> tuple[list, Rejected]:
    """The arguments of every cancel_booking call a simple cancellation for ``guest`` tried, and its rejection."""
    inst = Instantiator(builder, Blueprint("simple", "single", ["cancel_booking"], [0]), state, random.Random(seed))
    inst.principal = guest
    tried = _recording(inst, "cancel_booking")
    with pytest.raises(Rejected) as caught:
        inst.run()
    return tried, caught.value


def test_no_record_the_call_can_act_on_is_rejected_without_running_it() -> None:
    """hotels' eligible test of cancel_booking.booking_id refuses completed bookings: a guest with nothing
    to cancel gets the same rejection at once, no call made and no further draw."""
    builder = get_builder("hotels")
    guest = "GST-7337574"
    state = _hotels_state(_close_all(guest))
    for seed in range(5):
        tried, caught = _cancel_for(builder, state, guest, seed)
        assert caught.reason == "precondition_failed" and tried == []


def test_the_principal_holds_a_record_the_call_can_act_on() -> None:
    builder = get_builder("hotels")
    identity = identity_of(builder)
    test = builder.language.eligible["cancel_booking.booking_id"]
    state = _hotels_state(_close_all("GST-7337574"))
    able = holdings(identity, state, "bookings", test)
    assert able["GST-7337574"] == 0 < holdings(identity, state, "bookings")["GST-7337574"]
    fit = {p for p, n in able.items() if n >= 1}
    assert fit and fit != set(able)
    rng = random.Random(5)
    assert {choose_principal(identity, state, rng, 1, (("bookings", 1, test),)) for _ in range(40)} <= fit
    # nobody holds five such bookings: the need is counted without its test (as before there were tests)
    assert (choose_principal(identity, state, random.Random(1), 1, (("bookings", 5, test),))
            == choose_principal(identity, state, random.Random(1), 1, (("bookings", 5),)))
    for seed in range(8):  # a task that cancels a booking is about someone with one to cancel
        inst = Instantiator(builder, Blueprint("simple", "single", ["cancel_booking"], [0]), state, random.Random(seed))
        assert inst.principal in fit
        tried = _recording(inst, "cancel_booking")
        inst.run()
        assert len(tried) == 1 and test(state, state.get("bookings", tried[0]["booking_id"]))


def test_a_record_picked_from_a_listed_output_is_one_the_call_can_act_on() -> None:
    """retail: the order picked from the user's order list to be cancelled is a pending one."""
    builder = get_builder("retail")
    state = builder.state(0, 1)
    test = builder.language.eligible["cancel_pending_order.order_id"]
    blueprint = Blueprint("state_changing", "backward",
                          ["find_user_id_by_email", "get_user_details", "cancel_pending_order"], [2], None, 0.0)
    picked = 0
    for seed in range(30):
        inst = Instantiator(builder, blueprint, state, random.Random(seed))
        tried = _recording(inst, "cancel_pending_order")
        with contextlib.suppress(Rejected):
            inst.run()
        for args in tried:
            assert test(state, state.get("orders", args["order_id"]))
        picked += any(s["param"] == "order_id" for s in inst.selections)
    assert picked >= 5


@pytest.mark.parametrize("name", ["airline", "banking", "helpdesk", "hotels", "messaging", "retail", "smart_home"])
def test_eligible_tests_never_refuse_a_record_a_call_succeeds_on(name: str) -> None:
    """A builder's ``eligible`` tests are necessary conditions: with the tests switched off (records drawn
    as before), no call that succeeds acts on a record its test refuses, in the state it ran on."""
    from covert.env.environment import Environment
    from covert.synth.generate import ItemSpec, make_task

    builder = get_builder(name)
    language = builder.language
    tests = dict(language.eligible)
    assert tests
    seen: dict[str, int] = {}
    wrong: list[str] = []
    real = Environment.call

    def call(env, tool, arguments=None):
        before = env.state.fork()
        output = real(env, tool, arguments)
        if (isinstance(output, dict) and "error" in output) or not isinstance(arguments, dict):
            return output
        for param, value in arguments.items():
            test = tests.get(f"{tool}.{param}")
            if test is None:
                continue
            table = language.entity_tables[builder.tools[tool].param_entity(param)]
            for key in value if isinstance(value, list) else [value]:
                record = before.get(table, key)
                if record is not None:
                    seen[tool] = seen.get(tool, 0) + 1
                    if not test(before, record):
                        wrong.append(f"{tool}.{param}={key}")
        return output

    with _without_eligible(builder):
        Environment.call = call
        try:
            for index in range(240):
                category = ("state_changing", "parallel", "simple", "parallel_multiple")[index % 4]
                spec = ItemSpec(index, name, category, None, index // 60)
                for attempt in range(2):
                    with contextlib.suppress(Rejected):
                        make_task(spec, 0, attempt)
        finally:
            Environment.call = real
    assert not wrong, wrong[:5]
    assert sum(seen.values()) >= 10


def test_a_parallel_turn_asks_about_records_it_has_not_asked_about() -> None:
    builder = get_builder("hotels")
    identity = identity_of(builder)
    state = _hotels_state()
    blueprint = Blueprint("parallel", "parallel", ["get_booking_details"] * 3, [0, 1, 2], None, 0.0)
    made = 0
    for seed in range(12):
        inst = Instantiator(builder, blueprint, state, random.Random(seed))
        try:
            inst.run()
        except Rejected:
            continue
        ids = [c.arguments["booking_id"] for c in inst.calls]
        assert len(ids) == len(set(ids)) >= 2
        assert {owner_of(identity, state, "bookings", k) for k in ids} == {inst.principal}
        made += 1
    assert made >= 8


def test_a_parallel_principal_holds_several_of_the_records() -> None:
    builder = get_builder("hotels")
    identity = identity_of(builder)

    def one_each(tables):  # GST-9145653 keeps three bookings; the others one each
        for key in ("WSDHAMRJ", "WSP9ZHSV"):
            del tables["bookings"][key]

    state = _hotels_state(one_each)
    held = holdings(identity, state, "bookings")
    assert held == {"GST-3607279": 1, "GST-7337574": 1, "GST-9145653": 3}
    rng = random.Random(3)
    assert {choose_principal(identity, state, rng, 2, (("bookings", 2),)) for _ in range(30)} == {"GST-9145653"}
    # nobody holds five: everyone may be drawn, as without the need
    assert len({choose_principal(identity, state, rng, 2, (("bookings", 5),)) for _ in range(60)}) == 3
    blueprint = Blueprint("parallel", "parallel", ["get_booking_details"] * 2, [0, 1], None, 0.0)
    for seed in range(6):
        inst = Instantiator(builder, blueprint, state, random.Random(seed))
        assert inst.principal == "GST-9145653"


def test_a_parallel_turn_with_nothing_left_to_ask_about_is_rejected() -> None:
    builder = get_builder("hotels")

    def single(tables):  # nobody has two bookings
        for key in ("WSDHAMRJ", "WSL74R28", "WSWK55LT", "WSP9ZHSV"):
            del tables["bookings"][key]

    state = _hotels_state(single)
    blueprint = Blueprint("parallel", "parallel", ["get_booking_details"] * 2, [0, 1], None, 0.0)
    for seed in range(4):
        inst = Instantiator(builder, blueprint, state, random.Random(seed))
        tried = _recording(inst, "get_booking_details")
        with pytest.raises(Rejected) as caught:
            inst.run()
        assert caught.value.reason == "duplicate_parallel_call"
        assert len(tried) == 1  # the one booking, asked about once


def test_a_parallel_turn_makes_no_more_calls_than_its_tool_has_answer_frames() -> None:
    from covert.synth.blueprint import (
        MOST_PARALLEL_CALLS,
        most_parallel_calls,
        parallel_tools,
        sample_blueprint,
    )

    builder = get_builder("hotels")
    frames = {t: min(len(i.answer) for i in builder.language.intents[t]) for t in parallel_tools(builder)}
    assert min(frames.values()) < MOST_PARALLEL_CALLS  # the cap matters for this builder
    counts: dict[str, set[int]] = {}
    for seed in range(300):
        blueprint = sample_blueprint(builder, "parallel", random.Random(seed))
        tool = blueprint.steps[0]
        assert 2 <= len(blueprint.steps) <= most_parallel_calls(builder, tool) == min(frames[tool], MOST_PARALLEL_CALLS)
        counts.setdefault(tool, set()).add(len(blueprint.steps))
    assert all(seen == set(range(2, most_parallel_calls(builder, t) + 1)) for t, seen in counts.items())


def test_a_lookup_before_a_write_asks_about_a_record_the_write_can_act_on() -> None:
    """retail: the order the user asks about before returning its items is a delivered one (the write's
    own sampler draws it), whenever the user has one."""
    builder = get_builder("retail")
    state = builder.state(0, 0)
    delivered = {k for k, o in state.records("orders") if o["status"] == "delivered"}
    owners = {o["user_id"] for k, o in state.records("orders") if k in delivered}
    blueprint = Blueprint("state_changing", "backward", ["get_order_details", "return_delivered_order_items"], [1])
    asked = 0
    for seed in range(20):
        inst = Instantiator(builder, blueprint, state, random.Random(seed))
        if inst.principal not in owners:
            continue
        with contextlib.suppress(Rejected):  # what was asked is looked at all the same
            inst.run()
        if inst.calls:
            assert inst.calls[0].arguments["order_id"] in delivered
            asked += 1
    assert asked >= 5


def test_a_write_that_changes_nothing_is_drawn_again() -> None:
    """smart_home: locking a locked door changes nothing (validation rejects it as a redundant step): the
    instantiation draws again, and every write it keeps changes the state."""
    builder = get_builder("smart_home")
    state = builder.state(0, 0)
    blueprint = Blueprint("state_changing", "backward", ["find_homes_by_email", "get_home", "set_lock"], [2])
    kept, redrawn = 0, 0
    for seed in range(40):
        inst = Instantiator(builder, blueprint, state, random.Random(seed))
        tried = _recording(inst, "set_lock")
        try:
            inst.run()
        except Rejected as exc:
            assert exc.reason != "redundant_step" or len(tried) == 4  # every try changed nothing
            continue
        assert state.diff(inst.env.state), tried  # the kept write changed something
        kept += 1
        redrawn += len(tried) > 1
    assert kept >= 10 and redrawn >= 1


def test_a_parallel_call_with_no_record_left_to_act_on_stops_drawing() -> None:
    """hotels: a guest with one booking that can take a special request (the others completed) asks for
    requests on two: the second call of the turn can only draw a completed booking (the one the turn already
    asks about is not drawn again), so it is given up after one refused draw, no call run, rather than drawn
    again on each of the others; the turn of one call is rejected."""
    builder = get_builder("hotels")
    guest = "GST-9145653"
    state = _hotels_state()
    test = builder.language.eligible["add_special_request.booking_id"]
    mine = [k for k, b in state.records("bookings") if b["guest_id"] == guest]
    assert len(mine) == 3

    def one_open(tables):
        for key in mine[1:]:
            tables["bookings"][key]["status"] = "completed"
        tables["bookings"][mine[0]].update(status="confirmed", special_requests=[])

    state = _hotels_state(one_open)
    assert [k for k in mine if test(state, state.get("bookings", k))] == mine[:1]
    blueprint = Blueprint("parallel", "parallel", ["add_special_request"] * 2, [0, 1], None, 0.0)
    for seed in range(4):
        inst = Instantiator(builder, blueprint, state, random.Random(seed))
        inst.principal = guest
        tried = _recording(inst, "add_special_request")
        binds = []
        real = inst._bind
        inst._bind = lambda tool, link, real=real, binds=binds: binds.append(tool) or real(tool, link)
        with pytest.raises(Rejected) as caught:
            inst.run()
        assert caught.value.reason == "duplicate_parallel_call"
        assert [a["booking_id"] for a in tried] == mine[:1]  # the one it can act on, once
        assert len(binds) == 2


def test_a_parallel_turn_of_a_tool_that_never_varies_is_rejected_before_it_runs(monkeypatch) -> None:
    """calendar's list_events takes only the user's own email and dates: its parallel calls can never differ,
    so a parallel plan of it is rejected before anything runs, with the reason run() gives after one call."""
    import random

    import covert.synth.instantiate as instantiate_module
    from covert.env import get_builder
    from covert.errors import Rejected
    from covert.synth.blueprint import Blueprint
    from covert.synth.instantiate import instantiate, never_varies

    builder = get_builder("calendar")
    assert never_varies(builder, "list_events") and not never_varies(builder, "search_rooms")
    plan = Blueprint("parallel", "parallel", ["list_events", "list_events"], [0, 1])
    state = builder.state(11, 0)
    ran = []
    monkeypatch.setattr(instantiate_module.Instantiator, "run", lambda self: ran.append(1))
    with pytest.raises(Rejected) as early:
        instantiate(builder, plan, state, random.Random(1), 11, 0)
    assert early.value.reason == "duplicate_parallel_call" and not ran
    monkeypatch.undo()
    monkeypatch.setattr(instantiate_module, "_reject_unvarying_turn", lambda *args: None)
    for seed in range(5):  # without the early test, the plan runs and is rejected all the same
        with pytest.raises(Rejected) as late:
            instantiate(builder, Blueprint("parallel", "parallel", ["list_events"] * 3, [0, 1, 2]), state,
                        random.Random(seed), 11, 0)
        assert late.value.reason == "duplicate_parallel_call"
