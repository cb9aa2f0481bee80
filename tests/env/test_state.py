"""The copy-on-write State: content hashing, forks, private edits, find, diff, canonical JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from covert.env import State, StateChange, canonical_bytes, copy_json
from covert.env.state import DELETED


def rec(color: str = "red", n: int = 0, v: int = 0, tags: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"color": color, "n": n, "nested": {"v": v, "deep": [{"w": v}]}, "tags": list(tags)}


BASE = {
    "tables": {
        "users": {"u1": rec("red", 1), "u2": rec("blue", 2), "u3": rec("red", 3)},
        "orders": {"o1": rec("green", 1, tags=("a",)), "o2": rec("red", 2, tags=("b",))},
    },
    "counters": {"returns": 2},
}


def base() -> State:
    return State.from_dict(BASE)


# -- hashing ----------------------------------------------------------------------------------------
def test_hash_is_deterministic_and_hex() -> None:
    h = base().hash()
    assert h == base().hash()
    assert len(h) == 32
    int(h, 16)


def test_hash_ignores_insertion_order() -> None:
    records = {f"k{i}": rec("red" if i % 2 else "blue", i, i * 7) for i in range(10)}
    forward = State.from_dict({"tables": {"t": {}}})
    for key in records:
        forward.insert("t", key, copy_json(records[key]))
    backward = State.from_dict({"tables": {"t": {}}})
    for key in reversed(list(records)):
        backward.insert("t", key, copy_json(records[key]))
    stored = State.from_dict({"tables": {"t": dict(reversed(list(records.items())))}})
    assert forward.hash() == backward.hash() == stored.hash()
    # the same content reached through a fork of a partially stored state
    half = State.from_dict({"tables": {"t": {k: records[k] for k in list(records)[:5]}}})
    rest = half.fork()
    for key in list(records)[5:]:
        rest.insert("t", key, copy_json(records[key]))
    assert rest.hash() == stored.hash()
    # field order inside a record does not matter either
    shuffled = State.from_dict({"tables": {"t": {k: dict(reversed(list(r.items()))) for k, r in records.items()}}})
    assert shuffled.hash() == stored.hash()


def test_hash_returns_after_edits_are_reverted() -> None:
    state = base()
    before = state.hash()
    record = state.edit("users", "u1")
    record["nested"]["v"] = 99
    record["extra"] = True
    assert state.hash() != before
    record["nested"]["v"] = 0
    del record["extra"]
    assert state.hash() == before
    state.insert("orders", "o9", rec())
    state.delete("users", "u2")
    assert state.hash() != before
    state.delete("orders", "o9")
    state.insert("users", "u2", rec("blue", 2))
    assert state.hash() == before
    assert state.changed_keys() == {"users": ["u1", "u2"], "orders": ["o9"]}


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.edit("users", "u1")["nested"].__setitem__("v", 1),
        lambda s: s.edit("users", "u1")["nested"]["deep"][0].__setitem__("w", 1),
        lambda s: s.edit("users", "u1")["tags"].append("x"),
        lambda s: s.edit("users", "u1").__setitem__("n", 1.5),
        lambda s: s.edit("users", "u1").pop("color"),
        lambda s: s.insert("users", "u9", rec()),
        lambda s: s.insert("new_table", "x", {}),
        lambda s: s.delete("orders", "o2"),
        lambda s: s.next_id("returns"),
        lambda s: s.next_id("fresh"),
    ],
    ids=["nested", "deep-list", "list", "scalar", "drop-field", "insert", "new-table", "delete", "counter",
         "new-counter"],
)
def test_hash_changes_on_any_change(change: Any) -> None:
    state = base()
    before = state.hash()
    change(state)
    assert state.hash() != before
    assert State.from_dict(state.to_dict()).hash() == state.hash()


def test_record_moved_between_tables_or_keys_changes_hash() -> None:
    a = State.from_dict({"tables": {"t": {"x": {"v": 1}}, "s": {}}})
    b = State.from_dict({"tables": {"t": {}, "s": {"x": {"v": 1}}}})
    c = State.from_dict({"tables": {"t": {"y": {"v": 1}}, "s": {}}})
    assert len({a.hash(), b.hash(), c.hash()}) == 3


def test_zero_counter_is_no_counter() -> None:
    assert State.from_dict({"tables": {}, "counters": {"c": 0}}).hash() == State.from_dict({"tables": {}}).hash()
    state = State.from_dict({"tables": {}})
    assert state.counter("c") == 0
    assert state.next_id("c") == 1
    assert state.next_id("c") == 2
    assert state.counter("c") == 2
    assert state.to_dict()["counters"] == {"c": 2}


# -- forks ------------------------------------------------------------------------------------------
def test_fork_is_independent() -> None:
    parent = base()
    snapshot_json = State(parent._snapshot).to_json()
    parent_json = parent.to_json()
    first, second = parent.fork(), parent.fork()
    assert first._snapshot is parent._snapshot
    first.edit("users", "u1")["nested"]["v"] = 5
    first.insert("users", "u7", rec("pink"))
    first.delete("orders", "o1")
    first.next_id("returns")
    assert parent.to_json() == parent_json
    assert second.to_json() == parent_json
    assert second.hash() == parent.hash() != first.hash()
    assert parent.get("users", "u1")["nested"]["v"] == 0
    assert not parent.has("users", "u7") and parent.has("orders", "o1")
    assert parent.counter("returns") == 2 and first.counter("returns") == 3
    # writes in the parent after forking do not reach the forks either
    parent.edit("users", "u2")["color"] = "black"
    assert first.get("users", "u2")["color"] == "blue" == second.get("users", "u2")["color"]
    # a fork of a fork with pending changes
    grandchild = first.fork()
    grandchild.edit("users", "u1")["nested"]["v"] = 6
    assert first.get("users", "u1")["nested"]["v"] == 5
    assert State(parent._snapshot).to_json() == snapshot_json, "the shared snapshot is never written"


def test_fork_after_pending_edit_of_same_key() -> None:
    parent = base()
    parent.edit("users", "u1")["n"] = 10
    child = parent.fork()
    child.edit("users", "u1")["n"] = 20
    assert parent.get("users", "u1")["n"] == 10
    assert child.get("users", "u1")["n"] == 20


# -- edit returns a private copy --------------------------------------------------------------------
def test_edit_returns_private_copy() -> None:
    state = base()
    shared = state.get("users", "u1")
    edited = state.edit("users", "u1")
    assert edited is not shared and edited == shared
    edited["nested"]["v"] = 42
    edited["tags"].append("t")
    assert shared["nested"]["v"] == 0 and shared["tags"] == []
    assert state.get("users", "u1") is edited
    assert State(state._snapshot).get("users", "u1")["nested"]["v"] == 0


def test_object_returned_before_edit_is_not_mutated_by_later_edit() -> None:
    state = base()
    first = state.edit("users", "u1")
    first["n"] = 1
    seen = state.get("users", "u1")
    second = state.edit("users", "u1")
    second["n"] = 2
    second["nested"]["v"] = 2
    assert first["n"] == 1 and seen["n"] == 1 and seen["nested"]["v"] == 0
    assert state.get("users", "u1")["n"] == 2


def test_write_preconditions() -> None:
    state = base()
    with pytest.raises(KeyError):
        state.edit("users", "nope")
    with pytest.raises(KeyError):
        state.edit("nope", "u1")
    with pytest.raises(KeyError):
        state.insert("users", "u1", {})
    with pytest.raises(KeyError):
        state.delete("users", "nope")
    state.delete("users", "u1")
    with pytest.raises(KeyError):
        state.delete("users", "u1")
    with pytest.raises(KeyError):
        state.edit("users", "u1")
    assert state.get("users", "u1") is None and not state.has("users", "u1")
    state.insert("users", "u1", rec("white"))
    assert state.get("users", "u1")["color"] == "white"


def test_reads() -> None:
    state = base()
    assert state.ids("users") == ["u1", "u2", "u3"]
    assert state.ids("missing") == []
    assert state.get("missing", "x") is None
    assert state.count("users") == 3
    assert [k for k, _ in state.records("orders")] == ["o1", "o2"]
    assert state.tables() == ["orders", "users"]
    assert state.find_one("users", color="red")["n"] == 1
    assert state.find_one("users", color="none") is None
    assert state.find("users") == [state.get("users", k) for k in ("u1", "u2", "u3")]
    assert state.find("users", color="red", n=3) == [state.get("users", "u3")]


def test_construction_errors_and_copying() -> None:
    with pytest.raises(ValueError, match="tables"):
        State.from_dict({"nope": {}})
    with pytest.raises(ValueError, match="tables"):
        State.from_dict([])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'t'"):
        State.from_dict({"tables": {"t": []}})
    data = copy_json(BASE)
    state = State.from_dict(data)
    data["tables"]["users"]["u1"]["n"] = 1000
    assert state.get("users", "u1")["n"] == 1


# -- find versus a naive scan, and the whole State versus a plain-dict model -----------------------
KEYS = [f"k{i}" for i in range(8)]
TABLES = ["a", "b"]
COLORS = ["red", "blue", "green"]

records_st = st.builds(rec, st.sampled_from(COLORS), st.integers(0, 3), st.integers(0, 2))
op_st = st.one_of(
    st.tuples(st.just("insert"), st.sampled_from(TABLES), st.sampled_from(KEYS), records_st),
    st.tuples(st.just("edit"), st.sampled_from(TABLES), st.sampled_from(KEYS),
              st.sampled_from(["color", "n", "v", "tag", "drop", "revert"]), st.integers(0, 3)),
    st.tuples(st.just("delete"), st.sampled_from(TABLES), st.sampled_from(KEYS)),
    st.tuples(st.just("next_id"), st.sampled_from(["c1", "c2"])),
    st.tuples(st.just("fork")),
    st.tuples(st.just("hash")),
    st.tuples(st.just("freeze")),
)
initial_st = st.fixed_dictionaries(
    {t: st.dictionaries(st.sampled_from(KEYS), records_st, max_size=6) for t in TABLES}
)


class Model:
    """The plain-dict meaning of a State: records in first-appearance order, deleted ones dropped."""

    def __init__(self, tables: dict[str, dict[str, Any]]) -> None:
        self.records = {t: copy_json(rows) for t, rows in tables.items()}
        self.order = {t: list(rows) for t, rows in tables.items()}
        self.counters: dict[str, int] = {}

    def ids(self, table: str) -> list[str]:
        # State keeps records in id order, so the order depends on content alone.
        return sorted(k for k in self.order[table] if k in self.records[table])

    def to_dict(self) -> dict[str, Any]:
        return {
            "tables": {t: {k: self.records[t][k] for k in self.ids(t)} for t in sorted(self.records)},
            "counters": dict(sorted(self.counters.items())),
        }

    def find(self, table: str, **equals: Any) -> list[dict[str, Any]]:
        rows = [self.records[table][k] for k in self.ids(table)]
        return [r for r in rows if all(r.get(f) == v for f, v in equals.items())]


def apply(state: State, model: Model, op: tuple) -> State:
    kind = op[0]
    if kind == "insert":
        _, table, key, record = op
        if key in model.records[table]:
            with pytest.raises(KeyError):
                state.insert(table, key, copy_json(record))
        else:
            state.insert(table, key, copy_json(record))
            model.records[table][key] = copy_json(record)
            if key not in model.order[table]:
                model.order[table].append(key)
    elif kind == "edit":
        _, table, key, what, value = op
        if key not in model.records[table]:
            with pytest.raises(KeyError):
                state.edit(table, key)
            return state
        shared = state.get(table, key)
        snapshot = copy_json(shared)
        record = state.edit(table, key)
        target = model.records[table][key]
        for r in (record, target):
            if what == "color":
                r["color"] = COLORS[value % 3]
            elif what == "n":
                r["n"] = value
            elif what == "v":
                r.setdefault("nested", {})["v"] = value
            elif what == "tag":
                r.setdefault("tags", []).append(str(value))
            elif what == "drop":
                r.pop("color", None)
            elif what == "revert":
                r.clear()
                r.update(copy_json(snapshot))
        assert shared == snapshot, "edit must not mutate the record get() returned"
    elif kind == "delete":
        _, table, key = op
        if key in model.records[table]:
            state.delete(table, key)
            del model.records[table][key]
        else:
            with pytest.raises(KeyError):
                state.delete(table, key)
    elif kind == "next_id":
        name = op[1]
        model.counters[name] = model.counters.get(name, 0) + 1
        assert state.next_id(name) == model.counters[name]
    elif kind == "fork":
        before = state.to_json()
        child = state.fork()
        child.insert("a", "probe", {"color": "probe"})  # a write the parent must never see
        assert state.to_json() == before
        state = state.fork()
    elif kind == "hash":
        state.hash()
    elif kind == "freeze":
        frozen = state.freeze()
        assert frozen.hash() == state.hash() and frozen.changed_keys() == {}
        model.order = {t: model.ids(t) for t in model.order}  # a frozen state forgets deleted ids
        state = frozen
    return state


def check(state: State, model: Model) -> None:
    assert state.to_dict() == model.to_dict()
    expected = model.to_dict()
    assert State.from_dict(expected).hash() == state.hash()
    for table in TABLES:
        assert state.ids(table) == model.ids(table)
        assert [k for k, _ in state.records(table)] == model.ids(table)
        assert state.count(table) == len(model.ids(table))
        assert list(state.to_dict()["tables"][table]) == model.ids(table)
        assert state.find(table) == model.find(table)
        for color in [*COLORS, None]:
            assert state.find(table, color=color) == model.find(table, color=color)
            for n in range(4):
                assert state.find(table, color=color, n=n) == model.find(table, color=color, n=n)
        for n in range(4):
            assert state.find(table, n=n) == model.find(table, n=n)
            assert state.find(table, n=n, color="red") == model.find(table, n=n, color="red")
        for key in KEYS:
            assert state.get(table, key) == model.records[table].get(key)
    for name in ("c1", "c2"):
        assert state.counter(name) == model.counters.get(name, 0)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(initial=initial_st, ops=st.lists(op_st, max_size=40))
def test_state_matches_plain_dict_model(initial: dict[str, dict[str, Any]], ops: list[tuple]) -> None:
    stored = State.from_dict({"tables": initial})
    stored_json = stored.to_json()
    stored_hash = stored.hash()
    model = Model(initial)
    state = stored.fork()
    for op in ops:
        state = apply(state, model, op)
    check(state, model)
    # the stored state is untouched, whatever happened to its forks
    assert stored.to_json() == stored_json and stored.hash() == stored_hash
    # and the diff from the stored state describes exactly the change
    replay = stored.fork()
    for change in stored.diff(state):
        if change.op == "add":
            replay.insert(change.table, change.key, copy_json(change.after))
        elif change.op == "remove":
            replay.delete(change.table, change.key)
        elif change.op == "change":
            record = replay.edit(change.table, change.key)
            for name in change.fields:
                if change.after.get(name) is None and name not in state.get(change.table, change.key):
                    record.pop(name, None)
                else:
                    record[name] = copy_json(change.after[name])
        else:
            while replay.counter(change.key) < change.after:
                replay.next_id(change.key)
    assert replay.hash() == state.hash()
    # same_content is exactly an empty diff, both ways, and for states of their own
    assert stored.same_content(state) == (not stored.diff(state)) == state.same_content(stored)
    assert state.same_content(replay) and state.same_content(State.from_dict(state.to_dict()))
    # keeping the ids a table lists is hiding the others
    for table in TABLES:
        ids = state.ids(table)
        kept = [*ids[::2], "absent-id"]
        hidden = {(table, k) for k in ids[1::2]}
        assert state.keeping({table: kept}).to_dict() == state.without(hidden).to_dict()


@settings(max_examples=100, deadline=None, database=None)
@given(initial=initial_st, ops=st.lists(op_st, max_size=25))
def test_equal_content_equal_hash_for_any_history(initial: dict[str, dict[str, Any]], ops: list[tuple]) -> None:
    state = State.from_dict({"tables": initial})
    model = Model(initial)
    for op in ops:
        state = apply(state, model, op)
    rebuilt = State.from_dict({"tables": {t: {} for t in TABLES}})
    for table in TABLES:
        for key in reversed(model.ids(table)):
            rebuilt.insert(table, key, copy_json(model.records[table][key]))
    for name, value in model.counters.items():
        for _ in range(value):
            rebuilt.next_id(name)
    assert rebuilt.hash() == state.hash()


# -- diff ------------------------------------------------------------------------------------------
def _changes_of(parent: State, child: State) -> list[dict[str, Any]]:
    return [c.to_dict() for c in parent.diff(child)]


def _mutate(state: State) -> None:
    record = state.edit("users", "u1")
    record["nested"]["v"] = 7
    record["color"] = "teal"
    state.insert("users", "u9", {"color": "new"})
    state.delete("orders", "o2")
    state.next_id("returns")
    state.next_id("fresh")


EXPECTED_DIFF = [
    {"op": "remove", "table": "orders", "id": "o2", "before": rec("red", 2, tags=("b",))},
    {
        "op": "change", "table": "users", "id": "u1", "fields": ["color", "nested"],
        "before": {"color": "red", "nested": {"v": 0, "deep": [{"w": 0}]}},
        "after": {"color": "teal", "nested": {"v": 7, "deep": [{"w": 0}]}},
    },
    {"op": "add", "table": "users", "id": "u9", "after": {"color": "new"}},
    {"op": "counter", "table": "", "id": "fresh", "before": 0, "after": 1},
    {"op": "counter", "table": "", "id": "returns", "before": 2, "after": 3},
]


def test_diff_sharing_a_snapshot() -> None:
    parent = base()
    child = parent.fork()
    _mutate(child)
    assert _changes_of(parent, child) == EXPECTED_DIFF
    change = parent.diff(child)[1]
    assert isinstance(change, StateChange)
    assert change.fields == ("color", "nested")
    reverse = child.diff(parent)
    assert [c.op for c in reverse] == ["add", "change", "remove", "counter", "counter"]
    assert parent.diff(parent.fork()) == []


def test_diff_of_unrelated_states() -> None:
    parent = base()
    changed = base()
    _mutate(changed)
    other = State.from_dict(changed.to_dict())
    assert other._snapshot is not parent._snapshot
    assert _changes_of(parent, other) == EXPECTED_DIFF
    assert _changes_of(parent, changed) == EXPECTED_DIFF
    assert base().diff(base()) == []


def test_diff_ignores_edits_that_change_nothing() -> None:
    parent = base()
    child = parent.fork()
    child.edit("users", "u1")
    record = child.edit("users", "u2")
    record["n"] = 5
    record["n"] = 2
    assert parent.diff(child) == []


def test_diff_reports_a_removed_field_whose_value_was_none() -> None:
    """A field that disappears (or appears) with value None is a real change and must be named.

    Today ``diff`` compares ``before.get(f) != after.get(f)``, so such a field is invisible: the change is
    reported with ``fields=()`` and empty ``before``/``after``.
    """
    parent = State.from_dict({"tables": {"t": {"k": {"a": 1, "x": None}}}})
    child = parent.fork()
    del child.edit("t", "k")["x"]
    (change,) = parent.diff(child)
    assert change.op == "change"
    assert change.fields == ("x",)


# -- canonical JSON, round trips, freeze ---------------------------------------------------------
def test_to_json_is_canonical() -> None:
    one = State.from_dict({"tables": {"t": {"b": {"z": 1, "a": [2, {"y": 1, "x": 2}]}, "a": {}}}, "counters": {"q": 1, "p": 2}})
    two = State.from_dict({"tables": {"t": {"a": {}, "b": {"a": [2, {"x": 2, "y": 1}], "z": 1}}}, "counters": {"p": 2, "q": 1}})
    assert one.to_json() == two.to_json()
    assert one.to_json() == json.dumps(one.to_dict(), sort_keys=True, separators=(",", ":")).encode()
    assert one.to_json() == canonical_bytes(one.to_dict())
    assert one.to_json().startswith(b'{"counters":{"p":2,"q":1},"tables":{"t":{"a":{},"b":{"a":[2,{"x":2,"y":1}],"z":1}}}}')


def test_json_round_trip() -> None:
    state = base()
    _mutate(state)
    payload = state.to_json()
    for loaded in (State.from_json(payload), State.from_json(payload.decode())):
        assert loaded.to_dict() == state.to_dict()
        assert loaded.hash() == state.hash()
        assert loaded.to_json() == payload
    assert json.loads(payload) == state.to_dict()


def test_json_round_trip_keeps_record_order() -> None:
    """``ids()`` order is observable (``records``, ``find``, ``find_one``, list tools) but JSON loses it.

    ``to_json`` sorts every level, including record ids, so a state reloaded from its JSON (as
    ``covert.env.from_row`` does for a JSON-string ``initial_state``) iterates its records in sorted-id
    order instead of stored order. Tools that list records then answer differently after a round trip,
    while ``hash()`` (order-free) says the states are equal.
    """
    state = State.from_dict({"tables": {"t": {"b": {"v": 1}, "a": {"v": 1}}}})
    loaded = State.from_json(state.to_json())
    assert loaded.hash() == state.hash()
    assert loaded.ids("t") == state.ids("t")
    assert loaded.find("t", v=1) == state.find("t", v=1)


def test_find_with_unhashable_value_matches_a_scan() -> None:
    """``find`` must agree with a naive scan for any JSON value; a list or dict value raises TypeError today."""
    state = base()
    assert state.find("orders", tags=["a"]) == [state.get("orders", "o1")]
    assert state.find("orders", nested={"v": 0, "deep": [{"w": 0}]}) == [state.get("orders", k) for k in ("o1", "o2")]
    state.edit("orders", "o2")["tags"] = ["a"]
    assert state.find("orders", tags=["a"]) == [state.get("orders", k) for k in ("o1", "o2")]


def test_freeze() -> None:
    state = base()
    unchanged = state.freeze()
    assert unchanged._snapshot is state._snapshot and unchanged.changed_keys() == {}
    _mutate(state)
    frozen = state.freeze()
    assert frozen._snapshot is not state._snapshot
    assert frozen.to_dict() == state.to_dict() and frozen.hash() == state.hash()
    assert frozen.changed_keys() == {} and frozen.fork().changed_keys() == {}
    assert frozen.ids("users") == state.ids("users")
    frozen.edit("users", "u9")["color"] = "changed"
    assert state.get("users", "u9")["color"] == "new"
    assert State.from_dict(BASE).hash() == base().hash()


def test_helpers() -> None:
    value = {"a": [1, {"b": [2, 3]}], "c": None}
    copied = copy_json(value)
    assert copied == value
    copied["a"][1]["b"].append(4)
    assert value["a"][1]["b"] == [2, 3]
    assert canonical_bytes({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()
    assert repr(DELETED) == "<deleted>"
    assert StateChange("counter", "", "c", before=0, after=1).to_dict() == {
        "op": "counter", "table": "", "id": "c", "before": 0, "after": 1,
    }


def test_copy_json_is_deep_and_walks_what_orjson_cannot_carry() -> None:
    nested = {"a": [1, 2.5, {"b": None, "c": True}], "d": "x"}
    copied = copy_json(nested)
    assert copied == nested and copied["a"] is not nested["a"] and copied["a"][2] is not nested["a"][2]
    odd = {"huge": 2**70, 7: ["int key"]}
    copied = copy_json(odd)
    assert copied == odd and copied[7] is not odd[7]
    assert copy_json("scalar") == "scalar"


def test_without_equals_a_fork_with_those_records_deleted() -> None:
    """``State.without`` (a state of its own) reads, hashes and serializes exactly as a fork with the
    hidden records deleted, also after the source state was changed."""
    state = State.from_dict({"tables": {"a": {"1": {"v": 1, "k": "x"}, "2": {"v": 2, "k": "y"}, "3": {"v": 3, "k": "x"}},
                                        "b": {"9": {"v": 9}}, "c": {"8": {"v": 8}, "7": {"v": 7}}},
                             "counters": {"a": 3, "z": 0}})
    state.edit("a", "2")["v"] = 20
    state.insert("a", "4", {"v": 4, "k": "x"})
    state.delete("b", "9")
    hidden = {("a", "1"), ("a", "4")}
    fork = state.fork()
    for table, key in hidden:
        fork.delete(table, key)
    view = state.without(hidden)
    assert view.to_dict() == fork.to_dict()
    assert view.hash() == fork.hash()
    assert view.tables() == fork.tables()
    for table in ("a", "b", "c"):
        assert view.ids(table) == fork.ids(table)
        assert list(view.records(table)) == list(fork.records(table))
    assert view.find("a", k="x") == fork.find("a", k="x") == [{"v": 3, "k": "x"}]
    assert view.counter("a") == 3
    assert view.find("c", v=7) == [{"v": 7}] and view.ids("c") == ["7", "8"]
    view.edit("a", "3")["v"] = 30  # the view is independent of its source
    view.delete("c", "7")
    assert state.get("a", "3") == {"v": 3, "k": "x"} and state.ids("c") == ["7", "8"]
    assert view.hash() != fork.hash() and state.without(set()).hash() == state.hash()


def test_hash_of_an_unchanged_state_is_its_snapshots_and_stays_right_after_changes() -> None:
    state = State.from_dict({"tables": {"a": {"1": {"v": 1}}}, "counters": {"a": 1}})
    first = state.hash()
    fork = state.fork()
    assert fork.hash() == first  # from the snapshot's cache
    fork.edit("a", "1")["v"] = 2
    changed = fork.hash()
    assert changed != first and state.hash() == first
    fork.next_id("b")
    assert fork.hash() not in (first, changed)
    other = state.fork()
    other.next_id("a")  # counters alone differ from the snapshot's
    assert other.hash() != first
    assert State.from_dict(other.to_dict()).hash() == other.hash()


def test_recalled_states_share_one_snapshot_and_stay_independent() -> None:
    first, second = State.recalled(copy_json(BASE)), State.recalled(copy_json(BASE))
    assert first._snapshot is second._snapshot  # built once: record digests and indexes too
    assert first.hash() == second.hash() == base().hash()
    first.edit("users", "u1")["color"] = "black"
    assert second.get("users", "u1")["color"] == "red" and State.recalled(copy_json(BASE)).hash() == base().hash()
    other = copy_json(BASE)
    other["tables"]["users"]["u1"]["n"] = 1.0  # the same number, another type: another state
    assert State.recalled(other)._snapshot is not first._snapshot
    imprecise = {"tables": {"t": {"a": {"price": 0.30000000000000004}}}}
    assert State.recalled(copy_json(imprecise)).hash() == State.from_dict({"tables": {"t": {"a": {"price": 0.3}}}}).hash()
    with pytest.raises(ValueError):
        State.recalled({"tables": []})


def test_a_recalled_copy_shares_nothing_with_the_data() -> None:
    data = copy_json(BASE)
    data["tables"]["users"]["u9"] = rec("white", 9)  # a state no other test recalled
    state = State.recalled(data, copy=True)
    expected = state.hash()
    data["tables"]["users"]["u9"]["color"] = "changed after"
    assert state.hash() == expected and state.get("users", "u9")["color"] == "white"


def test_the_least_recently_recalled_state_is_forgotten_first() -> None:
    from covert.env import state as state_module

    kept = copy_json(BASE)
    kept["tables"]["users"]["u8"] = rec("kept", 8)  # a state no other test recalled
    first = State.recalled(copy_json(kept))._snapshot
    for i in range(state_module._RECALLED_STATES * 2):  # more states than are kept, recalling the first between
        other = copy_json(BASE)
        other["tables"]["users"]["u7"] = rec("other", i)
        State.recalled(other)
        assert State.recalled(copy_json(kept))._snapshot is first
