"""A row obeys its own system prompt: it identifies the user before acting where the prompt asks for it,
or the prompt says who is signed in; it acts on one person's records only. Validation (and ``covert
validate``) rejects a row broken on purpose for each check."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from covert.cli import main
from covert.env import get_builder
from covert.env.policy import (
    choose_principal,
    identity_of,
    owner_of,
    principal_view,
    signed_in_sentence,
    violation,
)
from covert.errors import Invalid
from covert.synth.generate import ItemSpec, make_item
from covert.validation import validate_row
from covert.validation.dataset import validate_dataset
from tests.synth.test_turn_checks import _find, _write_dataset

POLICY_BUILDERS = ("airline", "banking", "helpdesk", "hotels", "retail", "smart_home")


def _reason(row: dict[str, Any]) -> str:
    try:
        validate_row(row, "sft")
    except Invalid as exc:
        return exc.reason
    return ""


def _with_system(row: dict[str, Any], text: str) -> dict[str, Any]:
    row = copy.deepcopy(row)
    row["messages"][0]["content"] = text
    return row


def _names(row: dict[str, Any]) -> list[str]:
    return [c["name"] for turn in row["ground_truth"]["calls"] for c in turn]


def _signed_in_guest(row: dict[str, Any]) -> str:
    identity = identity_of(get_builder(row["builder"]))
    tables = row["initial_state"]["tables"]
    return next(k for k, r in tables[identity.table].items() if signed_in_sentence(identity, r) in row["messages"][0]["content"])


def _other_guest(row: dict[str, Any], guest: str) -> dict[str, Any]:
    identity = identity_of(get_builder(row["builder"]))
    return next(r for k, r in sorted(row["initial_state"]["tables"][identity.table].items()) if k != guest)


def test_every_policy_builder_states_its_requirement_in_its_prompt() -> None:
    for name in POLICY_BUILDERS:
        builder = get_builder(name)
        identity = identity_of(builder)
        assert identity is not None and identity.requirement in builder.system_prompt, name
        assert set(identity.tools) <= set(builder.tools), name


def test_single_call_write_rows_say_the_user_is_signed_in() -> None:
    builder = get_builder("hotels")
    requirement = identity_of(builder).requirement
    row = _find("hotels", "simple", "cancel_booking").rows["sft"]
    system = row["messages"][0]["content"]
    assert requirement not in system and "is signed in to the Wayfarer app as" in system
    guest = _signed_in_guest(row)
    booking = row["ground_truth"]["calls"][0][0]["arguments"]["booking_id"]
    assert row["initial_state"]["tables"]["bookings"][booking]["guest_id"] == guest
    validate_row(row, "sft")


def test_multi_step_write_rows_identify_first() -> None:
    for name in ("hotels", "retail", "airline"):
        identity = identity_of(get_builder(name))
        for index in range(3):
            outcome = _find(name, "state_changing", None, lambda t, i=index: t.index >= i * 20)
            row = outcome.rows["sft"]
            assert identity.requirement in row["messages"][0]["content"]
            assert row["ground_truth"]["calls"][0][0]["name"] in identity.tools, _names(row)


def test_calendar_user_names_one_email_for_themselves() -> None:
    made = 0
    for index in range(40):
        for category in ("parallel", "parallel_multiple"):
            outcome = make_item(ItemSpec(index, "calendar", category, None, index // 16), 3, lambda s: "train")
            if outcome.task is None:
                continue
            made += 1
            emails = {c.arguments["email"] for c in outcome.task.calls if "email" in c.arguments}
            assert len(emails) <= 1, (outcome.task.query, emails)
    assert made >= 20


def test_principal_view_keeps_one_persons_records() -> None:
    builder = get_builder("banking")
    identity = identity_of(builder)
    state = builder.state(3, 0)
    person = state.ids("customers")[0]
    view = principal_view(state, identity, person)
    assert view.ids("customers") == [person]
    for table in identity.owners:
        for key, _ in view.records(table):
            assert owner_of(identity, state, table, key) == person
    assert any(True for _ in view.records("transactions"))
    assert state.count("customers") > 1  # the original is untouched


def test_violation_reasons_on_hand_made_trajectories() -> None:
    builder = get_builder("hotels")
    identity = identity_of(builder)
    state = builder.state(3, 0).to_dict()["tables"]
    guest, other = sorted(state["guests"])[:2]
    booking = next(k for k, b in state["bookings"].items() if b["guest_id"] == other)
    find = {"name": "find_guest_by_email", "arguments": {"email": state["guests"][guest]["email"]}}
    cancel = {"name": "cancel_booking", "arguments": {"booking_id": booking, "reason": "plans changed"}}
    prompt = builder.system_prompt
    assert violation(builder, prompt, [[cancel]], [{}], state)[0] == "unidentified_action"
    assert violation(builder, prompt, [[find, cancel]], [{"guest_id": guest}, {}], state)[0] == "unidentified_action"
    assert violation(builder, prompt, [[find], [cancel]], [{"guest_id": guest}, {}], state)[0] == "other_customer_records"
    signed = prompt.replace(identity.requirement, signed_in_sentence(identity, state["guests"][other]))
    assert violation(builder, signed, [[cancel]], [{}], state) is None
    assert violation(builder, signed, [[find], [cancel]], [{"guest_id": guest}, {}], state)[0] == "two_identities"
    assert violation(builder, prompt.replace(identity.requirement, ""), [[cancel]], [{}], state)[0] == "policy_prompt"
    calendar = get_builder("calendar")
    two = [[{"name": "list_events", "arguments": {"email": "a@x.example", "start_date": "2026-01-01"}},
            {"name": "list_events", "arguments": {"email": "b@x.example", "start_date": "2026-01-01"}}]]
    assert violation(calendar, calendar.system_prompt, two, [{}, {}], {})[0] == "two_identities"
    # the same guest identified twice, by email and by loyalty number: one lookup is enough
    loyalty = {"name": "find_guest_by_loyalty_number",
               "arguments": {"loyalty_number": state["guests"][guest]["loyalty_number"]}}
    mine = next(k for k, b in state["bookings"].items() if b["guest_id"] == guest)
    own_cancel = {"name": "cancel_booking", "arguments": {"booking_id": mine, "reason": "plans changed"}}
    twice = violation(builder, prompt, [[find, loyalty], [own_cancel]], [{"guest_id": guest}, {"guest_id": guest}, {}],
                      state)
    assert twice is not None and twice[0] == "repeated_identification"
    assert violation(builder, prompt, [[find], [own_cancel]], [{"guest_id": guest}, {}], state) is None


def test_covert_validate_rejects_each_policy_break(tmp_path: Path, capsys) -> None:
    builder = get_builder("hotels")
    identity = identity_of(builder)
    simple = _find("hotels", "simple", "cancel_booking").rows["sft"]
    guest = _signed_in_guest(simple)
    identified = _find("hotels", "state_changing", None,
                       lambda t: t.calls[0].name in identity.tools and len(t.calls) >= 2).rows["sft"]
    first = identified["messages"][0]["content"]
    sentence = signed_in_sentence(identity, _other_guest(simple, guest))
    assert _reason(simple) == "" and _reason(identified) == ""
    broken = {
        "unidentified_action": _with_system(simple, builder.system_prompt),
        "policy_prompt": _with_system(simple, builder.system_prompt.replace(identity.requirement, "")),
        "other_customer_records": _with_system(simple, simple["messages"][0]["content"].replace(
            signed_in_sentence(identity, simple["initial_state"]["tables"]["guests"][guest]), sentence)),
        "two_identities": _with_system(identified, first.replace(
            identity.requirement, signed_in_sentence(identity, _two_identities_guest(identified)))),
    }
    for reason, row in broken.items():
        assert _reason(row) == reason, reason
    rows = [dict(row, task_id=f"{row['task_id']}-{reason}") for reason, row in broken.items()]
    root = _write_dataset(tmp_path / "broken", [simple, *rows])
    report = validate_dataset(root)
    assert {reason.split(":")[0] for reason in report.reasons()} == set(broken)
    assert main(["validate", str(root)]) == 1
    out = capsys.readouterr().out
    for reason in broken:
        assert reason in out


def _two_identities_guest(row: dict[str, Any]) -> dict[str, Any]:
    """A guest other than the one the row's identification call finds."""
    outputs = [m["content"] for m in row["messages"] if m["role"] == "tool"]
    found = json.loads(outputs[0]).get("guest_id")
    return next(r for k, r in sorted(row["initial_state"]["tables"]["guests"].items()) if k != found)


def test_principal_choice_is_deterministic() -> None:
    builder = get_builder("retail")
    state = builder.state(3, 1)
    picks = [choose_principal(identity_of(builder), state, random.Random(7)) for _ in range(3)]
    assert len(set(picks)) == 1 and picks[0] in state.ids("users")


def test_acts_is_cached_per_builder_identity_and_tool() -> None:
    """The cached answer is the computed one, and another identity object is not answered from the cache."""
    from dataclasses import replace

    from covert.env.policy import _acts, acts

    builder = get_builder("hotels")
    identity = identity_of(builder)
    answers = {name: acts(builder, identity, name) for name in builder.tools}
    assert answers == {name: _acts(builder, identity, name) for name in builder.tools}
    assert answers == {name: acts(builder, identity, name) for name in builder.tools}
    assert any(answers.values()) and not all(answers.values())
    lookup = identity.tools[0]
    assert answers[lookup] is False
    other = replace(identity, tools=())  # the lookup no longer identifies: reading a profile by id acts
    assert acts(builder, other, lookup) == _acts(builder, other, lookup)


def _changed_states(names: tuple[str, ...], seed: int, world: int, dangling: bool = False,
                    before: Callable[[Any, Any], Any] | None = None) -> Iterator[tuple[str, Any, list[str], Any]]:
    """``(name, identity, owned tables, state)``: six states per builder, each one seeded world changed by
    :func:`_shuffle_owners`; ``before(identity, stored state)`` runs on each before its writes."""
    for name in names:
        builder = get_builder(name)
        identity = identity_of(builder)
        base = builder.state(seed, world)
        owned = [t for t in dict.fromkeys((identity.table, *identity.owners)) if t]
        rng = random.Random(name)
        for _ in range(6):
            state = base.fork()
            if before is not None:
                before(identity, state.stored())
            _shuffle_owners(state, identity, owned, rng, dangling)
            yield name, identity, owned, state


def test_ownership_of_a_changed_state_is_the_full_computation() -> None:
    """The ownership of a state changed by writes (derived from its stored state's) equals owner_of of
    every record: owners moved, records added and removed, also along field-and-table rules."""
    from covert.env.policy import _records, ownership

    # the stored state's map is cached first, so the changed state's is derived from it
    for name, identity, owned, state in _changed_states(("banking", "hotels", "smart_home"), 5, 1, True, ownership):
        full = {(t, k): owner_of(identity, state, t, k) for t in owned for k, _ in _records(state, t)}
        assert ownership(identity, state) == full, name


def _shuffle_owners(state: Any, identity: Any, owned: list[str], rng: random.Random, dangling: bool = False) -> None:
    """Writes that move ownership around: a record changes hands (with ``dangling``, its ids may point at
    nothing), a record goes, a copy of one comes."""
    people = state.ids(identity.table)
    for table in rng.sample(owned, min(3, len(owned))):
        keys = state.ids(table)
        if not keys:
            continue
        record = state.edit(table, rng.choice(keys))
        for field_name in [f for f, v in record.items() if isinstance(v, str) and v in people][:1]:
            record[field_name] = rng.choice(people)  # the record changes hands
        for key, value in list(record.items()) if dangling else ():
            if key.endswith("_id") and isinstance(value, str) and rng.random() < 0.5:
                record[key] = value + "-gone"  # it now points at nothing
        if len(keys) > 1 and rng.random() < 0.5:
            state.delete(table, keys[-1])
        state.insert(table, f"{keys[0]}-new{rng.randrange(99)}", dict(state.get(table, keys[0]) or {}))


def test_principal_view_of_a_changed_state_is_the_full_computation() -> None:
    """Each person's view of a state changed by writes (derived from the stored state's view) holds exactly
    the records owner_of lets them act on, and is the same state as hiding everyone else's."""
    from covert.env.policy import _records, owned_by

    for name, identity, owned, state in _changed_states(("banking", "hotels", "smart_home", "retail"), 7, 2):
        for person in state.ids(identity.table):
            hidden = {(t, k) for t in owned for k, _ in _records(state, t)
                      if not owned_by(owner_of(identity, state, t, k), person)}
            assert principal_view(state, identity, person).to_dict() == state.without(hidden).to_dict(), name


def test_a_colleague_looked_up_is_never_the_user_themselves(tmp_path: Path) -> None:
    """'I'm ingrid.kim@... and I need 45 minutes with my colleague' whose colleague turns out to be Ingrid:
    a row in which a call about someone else finds the user breaks the policy (``self_as_other``), and a
    calendar build makes none."""
    import pyarrow.parquet as pq

    from covert.build import BuildConfig, build

    builder = get_builder("calendar")
    me = {"email": "ingrid.kim@copperleaf.studio"}
    turns = [[{"name": "list_events", "arguments": {**me, "start_date": "2026-03-25"}},
              {"name": "find_person", "arguments": {"name_or_email": "Ingrid Kim"}}]]
    outputs = [{"events": []}, {"person_id": "U1", "name": "Ingrid Kim", **me}]
    assert violation(builder, builder.system_prompt, turns, outputs, {}) == (
        "self_as_other", "find_person finds the user as someone else")
    other = [outputs[0], {"person_id": "U2", "name": "Hugo Muller", "email": "hugo.muller@copperleaf.studio"}]
    assert violation(builder, builder.system_prompt, turns, other, {}) is None

    build(BuildConfig(builders=["calendar"], num_tasks=400, seed=11), str(tmp_path / "cal"), workers=1,
          overwrite=True, progress=False)
    found = 0
    for row in pq.read_table(sorted((tmp_path / "cal" / "sft").glob("*.parquet"))).to_pylist():
        calls = [c for group in json.loads(row["ground_truth"])["calls"] for c in group]
        own = {c["arguments"]["email"] for c in calls if "email" in c["arguments"]}
        messages = json.loads(row["messages"]) if isinstance(row["messages"], str) else row["messages"]
        people = [json.loads(m["content"]) for m in messages if m["role"] == "tool" and m.get("name") == "find_person"]
        found += len(people)
        assert not any(p.get("email") in own for p in people), messages[1]["content"]
    assert found >= 20
