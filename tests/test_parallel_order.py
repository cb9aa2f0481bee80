"""A parallel turn's calls must not depend on their order: validation runs a turn with a write and a
read in reverse and rejects it when the read's output changes (a created note listed beside its create,
a note read beside its edit)."""

from __future__ import annotations

import random

import pytest

from covert.env.state import State
from covert.imports import envs
from covert.validation import Invalid, Oracle, _check_parallel_order, _replay
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
