"""A parallel turn's calls must not depend on their order: validation runs a turn with a write and a
read in reverse and rejects it when the read's output changes (a created note listed beside its create,
a note read beside its edit)."""

from __future__ import annotations

import random

import pytest

from covert.env.state import State
from covert.imports import envs
from covert.validation import Invalid, Oracle, _check_parallel_order
from tests.imports.api_fixtures import notes_google


def _oracle(groups: list[list[dict]], state: dict) -> Oracle:
    return Oracle("rl", "api.google.notes.v1", "", [], groups, {}, state, None, None)


@pytest.fixture(scope="module")
def notes():
    builder = envs.make_builder(notes_google())
    return builder, builder.make_state(random.Random(1), 1)


def test_a_create_beside_a_list_of_its_table_is_order_dependent(notes) -> None:
    builder, state = notes
    create = {"name": "notes_notes_insert", "arguments": {"title": "Atlas notes"}}
    listing = {"name": "notes_notes_list", "arguments": {}}
    with pytest.raises(Invalid) as caught:
        _check_parallel_order(builder.environment, _oracle([[create, listing]], state), State.from_dict(state))
    assert caught.value.reason == "parallel_order_dependent"
    # the same calls in two turns (list after the create) are fine, and so are two reads together
    _check_parallel_order(builder.environment, _oracle([[create], [listing]], state), State.from_dict(state))
    _check_parallel_order(builder.environment, _oracle([[listing, listing]], state), State.from_dict(state))


def test_writes_on_different_records_may_share_a_turn(notes) -> None:
    builder, state = notes
    first, second = sorted(state["tables"]["notes"])[:2]
    turn = [{"name": "notes_notes_patch", "arguments": {"noteId": first, "title": "One"}},
            {"name": "notes_notes_patch", "arguments": {"noteId": second, "title": "Two"}}]
    _check_parallel_order(builder.environment, _oracle([turn], state), State.from_dict(state))
    # two creates of one table share a turn: only the ids they get follow the order
    twice = [{"name": "notes_notes_insert", "arguments": {"title": "One"}},
             {"name": "notes_notes_insert", "arguments": {"title": "Two"}}]
    _check_parallel_order(builder.environment, _oracle([twice], state), State.from_dict(state))
    # a read of the record a write of the same turn changes depends on the order
    seen = [{"name": "notes_notes_patch", "arguments": {"noteId": first, "title": "One"}},
            {"name": "notes_notes_get", "arguments": {"noteId": first}}]
    with pytest.raises(Invalid):
        _check_parallel_order(builder.environment, _oracle([seen], state), State.from_dict(state))
