"""A parallel turn's calls must not depend on their order: validation runs a turn with a write and a
read in reverse and rejects it when the read's output changes (a created note listed beside its create,
a note read beside its edit)."""

from __future__ import annotations

import random

import pytest

from covert.env.state import State
from covert.errors import Invalid
from covert.imports import envs
from covert.validation import Oracle, _check_parallel_order, _replay
from tests.imports.api_fixtures import notes_google


def _check(builder, groups: list[list[dict]], state: dict) -> None:
    """The order check on the replay validation makes of these turns."""
    oracle = Oracle("rl", "api.google.notes.v1", "", [], groups, {}, state, None, None)
    _check_parallel_order(builder.environment, oracle, _replay(builder.environment, oracle, State.from_dict(state)))


@pytest.fixture(scope="module")
def notes():
    builder = envs.make_builder(notes_google())
    return builder, builder.make_state(random.Random(1), 1)


def test_a_create_beside_a_list_of_its_table_is_order_dependent(notes) -> None:
    builder, state = notes
    create = {"name": "notes_notes_insert", "arguments": {"title": "Atlas notes"}}
    listing = {"name": "notes_notes_list", "arguments": {}}
    with pytest.raises(Invalid) as caught:
        _check(builder, [[create, listing]], state)
    assert caught.value.reason == "parallel_order_dependent"
    # the same calls in two turns (list after the create) are fine, and so are two reads together
    _check(builder, [[create], [listing]], state)
    _check(builder, [[listing, listing]], state)


def test_writes_on_different_records_may_share_a_turn(notes) -> None:
    builder, state = notes
    first, second = sorted(state["tables"]["notes"])[:2]
    turn = [{"name": "notes_notes_patch", "arguments": {"noteId": first, "title": "One"}},
            {"name": "notes_notes_patch", "arguments": {"noteId": second, "title": "Two"}}]
    _check(builder, [turn], state)
    # two creates of one table share a turn: only the ids they get follow the order
    twice = [{"name": "notes_notes_insert", "arguments": {"title": "One"}},
             {"name": "notes_notes_insert", "arguments": {"title": "Two"}}]
    _check(builder, [twice], state)
    # a read of the record a write of the same turn changes depends on the order
    seen = [{"name": "notes_notes_patch", "arguments": {"noteId": first, "title": "One"}},
            {"name": "notes_notes_get", "arguments": {"noteId": first}}]
    with pytest.raises(Invalid):
        _check(builder, [seen], state)


def test_synthesis_rejects_an_order_dependent_first_turn_as_validation_would(monkeypatch) -> None:
    """A hand-written plan whose first turn gives another read output in reverse is rejected before its
    query is made; made into rows without that early test, validation rejects the very same attempt."""
    import covert.synth.instantiate as instantiate_module
    from covert.env import get_builder
    from covert.errors import Rejected
    from covert.synth.generate import ItemSpec, make_task, shared_state
    from covert.validation import validate_pair
    from covert.views import ground_truth, rl_row, sft_row

    spec = ItemSpec(index=675, builder="helpdesk", category="parallel_multiple", target="add_ticket_comment",
                    state_index=5)
    state = shared_state(spec.builder, 11, spec.world).fork()
    with pytest.raises(Rejected) as early:
        make_task(spec, 11, 0, state)
    assert early.value.reason == "parallel_order_dependent"
    monkeypatch.setattr(instantiate_module, "_reject_order_dependent", lambda *args: None)
    task = make_task(spec, 11, 0, state)
    writes = {get_builder("helpdesk").tools[c.name].writes for c in task.calls}
    assert writes == {True, False} and len(task.groups) == 1  # one turn of reads and writes
    truth = ground_truth(task)
    with pytest.raises(Invalid) as late:
        validate_pair(sft_row(task, truth), rl_row(task, "train", spec.index, truth), state)
    assert late.value.reason == "parallel_order_dependent"
