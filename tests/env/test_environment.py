"""Environment.call never raises: bad names, bad arguments, failing tools, hostile payloads; reset; from_row."""

from __future__ import annotations

import json
from typing import Any, Literal, Optional, TypedDict

import orjson
import pytest

from covert.env import (
    Environment,
    State,
    ToolError,
    copy_json,
    error_observation,
    from_row,
    get_builder,
    is_error,
    tool,
)
from covert.env.environment import INTERNAL_ERROR, INVALID_ARGUMENTS, UNKNOWN_TOOL


class Note(TypedDict):
    """A note.

    Attributes:
        note_id: Its id.
        text: Its text.
        priority: 1 (low) to 3 (high).
        tags: Labels.
        locked: Locked notes cannot be deleted.
    """

    note_id: str
    text: str
    priority: int
    tags: list[str]
    locked: bool


class NotesEnv(Environment):
    """A toy environment: notes plus a counter."""

    name = "notes"

    @tool(errors=("note_not_found",))
    def get_note(self, note_id: str) -> Note:
        """Read one note.

        Args:
            note_id: The note's id, such as n1.
        """
        note = self.state.get("notes", note_id)
        if note is None:
            raise ToolError("note_not_found", f"No note has id {note_id}.")
        return copy_json(note)

    @tool()
    def count_notes(self) -> dict:
        """Count the notes and read the counter."""
        return {"notes": self.state.count("notes"), "counter": self.state.counter("bumps")}

    @tool(writes=True)
    def add_note(
        self, text: str, priority: int = 1, tags: Optional[list[str]] = None, kind: Literal["todo", "memo"] = "memo"
    ) -> Note:
        """Add a note.

        Args:
            text: What the note says.
            priority: 1 (low) to 3 (high).
            tags: Labels for the note.
            kind: The kind of note.
        """
        note_id = f"n{self.state.next_id('notes')}"
        note = {"note_id": note_id, "text": text, "priority": priority, "tags": list(tags or []), "locked": False,
                "kind": kind}
        self.state.insert("notes", note_id, note)
        return copy_json(note)

    @tool(writes=True, errors=("note_not_found", "note_locked"))
    def delete_note(self, note_id: str) -> dict:
        """Delete a note that is not locked.

        Args:
            note_id: The note's id.
        """
        note = self.state.get("notes", note_id)
        if note is None:
            raise ToolError("note_not_found", f"No note has id {note_id}.")
        if note["locked"]:
            raise ToolError("note_locked", f"Note {note_id} is locked.")
        self.state.delete("notes", note_id)
        return {"deleted": note_id}

    @tool(writes=True)
    def bump(self, amount: int) -> dict:
        """Add to the counter.

        Args:
            amount: How much to add.
        """
        for _ in range(amount):
            self.state.next_id("bumps")
        return {"counter": self.state.counter("bumps"), "amount_type": type(amount).__name__}

    @tool(writes=True)
    def store(self, data: dict) -> dict:
        """Store an arbitrary object.

        Args:
            data: Any JSON object.
        """
        blob = copy_json(data)  # before any write: a failing tool leaves no partial change
        self.state.insert("blobs", f"b{self.state.next_id('blobs')}", blob)
        return {"stored": True}

    @tool()
    def explode(self) -> dict:
        """A tool with a bug."""
        raise RuntimeError("boom")


STORED = {
    "tables": {
        "notes": {
            "n1": {"note_id": "n1", "text": "buy milk", "priority": 2, "tags": ["home"], "locked": False},
            "n2": {"note_id": "n2", "text": "secret", "priority": 3, "tags": [], "locked": True},
        }
    },
    "counters": {"notes": 2},
}


@pytest.fixture
def stored() -> State:
    return State.from_dict(STORED)


@pytest.fixture
def env(stored: State) -> NotesEnv:
    return NotesEnv(stored)


def _error(observation: Any, code: str, *fragments: str) -> None:
    assert is_error(observation), observation
    assert observation["error"]["code"] == code, observation
    for fragment in fragments:
        assert fragment in observation["error"]["message"], observation
    json.dumps(observation)


# -- the happy paths -------------------------------------------------------------------------------
def test_read_and_write_tools(env: NotesEnv, stored: State) -> None:
    assert env.call("get_note", {"note_id": "n1"})["text"] == "buy milk"
    assert env.call("count_notes") == {"notes": 2, "counter": 0}
    assert env.call("count_notes", None) == {"notes": 2, "counter": 0}
    added = env.call("add_note", {"text": "call mum", "tags": ["family"], "kind": "todo"})
    assert added == {"note_id": "n3", "text": "call mum", "priority": 1, "tags": ["family"], "locked": False,
                     "kind": "todo"}
    assert env.call("delete_note", {"note_id": "n1"}) == {"deleted": "n1"}
    assert env.call("bump", {"amount": 2}) == {"counter": 2, "amount_type": "int"}
    assert env.call("count_notes", {}) == {"notes": 2, "counter": 2}
    assert stored.count("notes") == 2 and stored.counter("bumps") == 0, "the stored state is never written"


def test_json_string_and_bytes_arguments(env: NotesEnv) -> None:
    assert env.call("get_note", '{"note_id": "n1"}')["note_id"] == "n1"
    assert env.call("get_note", b'{"note_id": "n2"}')["note_id"] == "n2"
    assert env.call("count_notes", "{}")["notes"] == 2


def test_precondition_tool_error(env: NotesEnv) -> None:
    before = env.state.hash()
    _error(env.call("delete_note", {"note_id": "n2"}), "note_locked", "n2")
    _error(env.call("get_note", {"note_id": "zz"}), "note_not_found", "zz")
    assert env.state.hash() == before


# -- calls that fail, none of which raise ----------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "arguments", "code", "fragment"),
    [
        ("nope", {}, UNKNOWN_TOOL, "nope"),
        (None, {}, UNKNOWN_TOOL, "None"),
        (123, {}, UNKNOWN_TOOL, "123"),
        ("x" * 10_000, {}, UNKNOWN_TOOL, "no tool"),
        ("get_note", ["n1"], INVALID_ARGUMENTS, "JSON object"),
        ("get_note", 5, INVALID_ARGUMENTS, "JSON object"),
        ("get_note", "[1, 2]", INVALID_ARGUMENTS, "JSON object"),
        ("get_note", '"n1"', INVALID_ARGUMENTS, "JSON object"),
        ("get_note", "{note_id: n1}", INVALID_ARGUMENTS, "not valid JSON"),
        ("get_note", "", INVALID_ARGUMENTS, "not valid JSON"),
        ("get_note", b"\xff\xfe", INVALID_ARGUMENTS, "not valid JSON"),
        ("get_note", {"note_id": 5}, INVALID_ARGUMENTS, "note_id must be string"),
        ("get_note", {"note_id": None}, INVALID_ARGUMENTS, "note_id"),
        ("get_note", {}, INVALID_ARGUMENTS, "note_id"),
        ("get_note", None, INVALID_ARGUMENTS, "note_id"),
        ("get_note", {"note_id": "n1", "extra": 1}, INVALID_ARGUMENTS, "extra"),
        ("add_note", {"text": "t", "priority": True}, INVALID_ARGUMENTS, "priority must be integer"),
        ("add_note", {"text": "t", "priority": 1.5}, INVALID_ARGUMENTS, "priority"),
        ("add_note", {"text": "t", "priority": "2"}, INVALID_ARGUMENTS, "priority"),
        ("add_note", {"text": "t", "tags": "home"}, INVALID_ARGUMENTS, "tags"),
        ("add_note", {"text": "t", "tags": [1]}, INVALID_ARGUMENTS, "tags"),
        ("add_note", {"text": "t", "kind": "poem"}, INVALID_ARGUMENTS, "kind"),
        ("bump", {"amount": False}, INVALID_ARGUMENTS, "amount must be integer"),
        ("store", {"data": []}, INVALID_ARGUMENTS, "must be object"),
        ("get_note", {1: "n1"}, INVALID_ARGUMENTS, ""),
        ("explode", {}, INTERNAL_ERROR, "RuntimeError: boom"),
    ],
)
def test_bad_calls_return_error_observations(
    env: NotesEnv, name: Any, arguments: Any, code: str, fragment: str
) -> None:
    before = env.state.hash()
    observation = env.call(name, arguments)
    _error(observation, code, fragment)
    assert len(observation["error"]["message"]) <= 400
    assert "data." not in observation["error"]["message"]
    assert env.state.hash() == before


def test_messages_name_the_problem(env: NotesEnv) -> None:
    assert env.call("get_note", {}) == error_observation(INVALID_ARGUMENTS, "arguments must contain ['note_id'] properties")
    assert env.call("get_note", {"note_id": "n1", "x": 1}) == error_observation(
        INVALID_ARGUMENTS, "arguments must not contain {'x'} properties"
    )


def test_messages_keep_parameter_names_containing_data() -> None:
    """The validator's ``data.`` prefix is stripped with ``str.replace`` over the whole message, so a
    parameter called ``data`` is reported as "arguments" and one called ``metadata`` as "metaarguments".
    """

    class Env(Environment):
        @tool
        def t(self, metadata: str, data: int) -> dict:
            """T.

            Args:
                metadata: Free text.
                data: A number.
            """
            return {}

    assert Env().call("t", {"metadata": 1, "data": 1}) == error_observation(INVALID_ARGUMENTS, "metadata must be string")
    assert Env().call("t", {"metadata": "m", "data": "x"}) == error_observation(INVALID_ARGUMENTS, "data must be integer")


def test_integral_float_for_int_parameter_reaches_the_tool_as_int(env: NotesEnv) -> None:
    """JSON ``2.0`` for an ``int`` parameter passes validation (JSON Schema counts it as an integer) and
    the tool receives a float. It must either be rejected or be handed over as ``int``: otherwise a tool
    gets a type its hint rules out, and state written from it (``2.0`` versus ``2``) hashes differently
    from the same call written with ``2``.
    """
    observation = env.call("bump", '{"amount": 2.0}')
    assert is_error(observation) or observation["amount_type"] == "int", observation
    added = env.call("add_note", {"text": "t", "priority": 2.0})
    twin = NotesEnv(State.from_dict(STORED))
    twin.call("add_note", {"text": "t", "priority": 2})
    assert is_error(added) or env.state.hash() == twin.state.hash()


def _deep(levels: int, leaf: Any = "x") -> Any:
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def _deep_list(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def test_deeply_nested_arguments(env: NotesEnv) -> None:
    deep = _deep(10_000)
    before = env.state.hash()
    attempts = [
        ("get_note", {"note_id": deep}),
        ("get_note", {"note_id": "n1", "extra": deep}),
        ("get_note", deep),
        ("add_note", {"text": "t", "tags": _deep_list(10_000)}),
        ("store", {"data": deep}),
        ("store", {"data": {"list": _deep_list(10_000)}}),
    ]
    for name, arguments in attempts:
        observation = env.call(name, arguments)
        assert is_error(observation), (str(name)[:40], observation)
        json.dumps(observation)
    text = '{"note_id": ' + '{"a": ' * 10_000 + "1" + "}" * 10_001
    _error(env.call("get_note", text), INVALID_ARGUMENTS)
    text = '{"data": ' + "[" * 10_000 + "]" * 10_000 + "}"
    assert is_error(env.call("store", text))
    assert env.state.hash() == before
    # a deep but reasonable object still works
    assert env.call("store", {"data": _deep(50)}) == {"stored": True}


class _Unprintable:
    def __str__(self) -> str:
        raise ValueError("no str")

    __repr__ = __str__


class _BadError(Exception):
    def __str__(self) -> str:
        raise ValueError("no str")


def test_unprintable_names_and_exceptions_do_not_raise() -> None:
    """``call`` formats the tool name and a tool's exception with ``str()`` inside its error path, so an
    object whose ``str()`` fails (a deeply nested list hits RecursionError) escapes the "never raises" promise.
    """

    class Env(Environment):
        @tool
        def bad(self) -> dict:
            """Raise an exception that cannot be printed."""
            raise _BadError()

    env = Env()
    for name in (_deep_list(10_000), _Unprintable()):
        _error(env.call(name, {}), UNKNOWN_TOOL)  # type: ignore[arg-type]
    _error(env.call("bad", {}), INTERNAL_ERROR, "_BadError")


def test_five_megabyte_string_argument(env: NotesEnv) -> None:
    big = "é" * (5 * 1024 * 1024)
    added = env.call("add_note", {"text": big})
    assert not is_error(added) and added["text"] == big
    assert env.state.get("notes", added["note_id"])["text"] == big
    _error(env.call("bump", {"amount": big}), INVALID_ARGUMENTS, "amount")
    observation = env.call("get_note", {"note_id": "n1", big: 1})
    _error(observation, INVALID_ARGUMENTS)
    assert len(observation["error"]["message"]) <= 400
    _error(env.call(big, {}), UNKNOWN_TOOL)
    assert env.call("get_note", orjson.dumps({"note_id": big}).decode())["error"]["code"] == "note_not_found"
    _error(env.call("get_note", '{"note_id": "' + big), INVALID_ARGUMENTS, "not valid JSON")


# -- reset -----------------------------------------------------------------------------------------
def test_reset_from_state_shares_the_snapshot(stored: State) -> None:
    env = NotesEnv()
    assert env.state.to_dict() == {"tables": {}, "counters": {}}
    env.reset(stored)
    assert env.state._snapshot is stored._snapshot
    assert env.state is not stored
    env.call("add_note", {"text": "x"})
    env.call("delete_note", {"note_id": "n1"})
    assert stored.to_dict() == State.from_dict(STORED).to_dict()
    env.reset(stored)
    assert env.state.hash() == stored.hash()
    assert NotesEnv(stored).state._snapshot is stored._snapshot


def test_reset_from_dict_loads_a_copy() -> None:
    data = copy_json(STORED)
    env = NotesEnv()
    env.reset(data)
    assert env.state.to_dict() == State.from_dict(STORED).to_dict()
    data["tables"]["notes"]["n1"]["text"] = "changed"
    assert env.call("get_note", {"note_id": "n1"})["text"] == "buy milk"
    assert NotesEnv(data).call("get_note", {"note_id": "n1"})["text"] == "changed"
    with pytest.raises(ValueError):
        env.reset({"no": "tables"})


# -- observations, specs, class wiring ---------------------------------------------------------------
def test_error_observation_and_is_error() -> None:
    observation = error_observation("code_x", "Something failed.")
    assert observation == {"error": {"code": "code_x", "message": "Something failed."}}
    assert is_error(observation)
    assert not is_error({"error": "text"})
    assert not is_error({"error": {"message": "no code"}})
    assert not is_error({"error": {"code": "c"}, "result": 1})
    assert not is_error({"result": 1})
    assert not is_error([observation])
    assert not is_error(None)
    assert not is_error("error")


def test_specs_and_openai_tools() -> None:
    assert list(NotesEnv.tool_specs) == ["get_note", "count_notes", "add_note", "delete_note", "bump", "store", "explode"]
    assert NotesEnv.tool_specs["add_note"].parameters["required"] == ["text"]
    assert NotesEnv.tool_specs["delete_note"].writes and not NotesEnv.tool_specs["get_note"].writes
    chosen = NotesEnv.openai_tools(["bump", "get_note"])
    assert [t["function"]["name"] for t in chosen] == ["bump", "get_note"]
    assert len(NotesEnv.openai_tools()) == 7


def test_subclasses_inherit_tools_and_keep_their_own_validators() -> None:
    class Loose(Environment):
        @tool
        def t(self, value: str) -> dict:
            """T.

            Args:
                value: A string.
            """
            return {"got": value}

    class Strict(Environment):
        @tool
        def t(self, value: int) -> dict:
            """T.

            Args:
                value: A number.
            """
            return {"got": value}

    class MoreNotes(NotesEnv):
        @tool
        def hello(self) -> dict:
            """Say hello."""
            return {"hello": True}

    assert Loose().call("t", {"value": "a"}) == {"got": "a"}
    assert is_error(Strict().call("t", {"value": "a"}))
    assert Strict().call("t", {"value": 3}) == {"got": 3}
    assert Loose().call("t", {"value": "b"}) == {"got": "b"}
    more = MoreNotes(State.from_dict(STORED))
    assert list(MoreNotes.tool_specs)[-1] == "hello"
    assert more.call("hello") == {"hello": True}
    assert more.call("get_note", {"note_id": "n1"})["note_id"] == "n1"
    assert "hello" not in NotesEnv.tool_specs


# -- from_row --------------------------------------------------------------------------------------
def test_from_row_with_dict_and_json_state() -> None:
    state = get_builder("retail").state(0, 0)
    order_id = state.ids("orders")[0]
    for initial in (state.to_dict(), state.to_json().decode(), state.to_json()):
        env = from_row({"environment": "retail", "extra_info": {"initial_state": initial}})
        assert env.name == "retail"
        assert env.state.hash() == state.hash()
        assert env.call("get_order_details", {"order_id": order_id})["order_id"] == order_id
    env = from_row({"builder": "retail", "initial_state": state.to_dict()})
    assert env.state.hash() == state.hash()
    env = from_row({"environment": "retail", "extra_info": None, "initial_state": state.to_json().decode()})
    assert env.state.hash() == state.hash()
    with pytest.raises(ValueError, match="initial state"):
        from_row({"environment": "retail", "extra_info": {}})
    with pytest.raises(ValueError, match="environment name"):
        from_row({"extra_info": {"initial_state": state.to_dict()}})


def test_from_row_json_state_answers_like_dict_state() -> None:
    """Replaying a row must give the observations the row was generated with, whichever way the state is
    stored. With a JSON-string ``initial_state`` the records come back in sorted-id order (see
    ``test_json_round_trip_keeps_record_order``), so listing tools answer in a different order.
    """
    state = get_builder("retail").state(0, 0)
    as_dict = from_row({"environment": "retail", "extra_info": {"initial_state": state.to_dict()}})
    as_json = from_row({"environment": "retail", "extra_info": {"initial_state": state.to_json().decode()}})
    assert as_dict.call("list_products") == as_json.call("list_products")
