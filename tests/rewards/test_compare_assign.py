"""Value comparison rules and the assignment solver."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from covert.rewards import BFCL, EXACT, LENIENT, OPTIONAL, DictPattern, StringNorm, assign, compile_value
from covert.rewards.compare import _compile_array, _compile_by_kind, pattern_of


def check(alternatives, schema, value, norm=LENIENT):
    return compile_value(alternatives, schema, norm)(value)


def test_int_is_accepted_for_a_number_but_a_string_never_is() -> None:
    schema = {"type": "number"}
    assert check([2.0], schema, 2) is None
    assert check([2.5], schema, 2.5) is None
    assert check([2.0], schema, "2") == "wrong_type"
    assert check([2.0], schema, "2.0") == "wrong_type"
    assert check([2.0], schema, 3) == "wrong_value"


def test_bool_is_not_an_int_and_an_int_not_a_bool() -> None:
    assert check([1], {"type": "integer"}, True) == "wrong_type"
    assert check([True], {"type": "boolean"}, 1) == "wrong_type"
    assert check([True], {"type": "boolean"}, True) is None
    assert check([1], None, True) == "wrong_type"  # untyped: still kept apart
    assert check([2], {"type": "integer"}, 2.0) == "wrong_type"  # draft-04: 2.0 is not an integer


def test_string_normalisation_is_configurable() -> None:
    assert check(["New York"], {"type": "string"}, "new  york ") is None
    assert check(["New York"], {"type": "string"}, "new york", EXACT) == "wrong_value"
    assert check(["New York"], {"type": "string"}, "New-York", LENIENT) == "wrong_value"
    assert check(["New York"], {"type": "string"}, "new-york", BFCL) is None
    assert check(["it's"], {"type": "string"}, 'IT"S', BFCL) is None
    custom = StringNorm(casefold=False, whitespace="remove", remove="!")
    assert custom("A b!") == "Ab"
    with pytest.raises(ValueError):
        StringNorm(whitespace="squash")


def test_lists_compare_in_order_with_typed_items() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    assert check([["a", "B"]], schema, ["A", "b"]) is None
    assert check([["a", "b"]], schema, ["b", "a"]) == "wrong_value"
    assert check([["a", "b"]], schema, "a,b") == "wrong_type"
    assert check([[1.5, 2.0]], {"type": "array", "items": {"type": "number"}}, [1.5, 2]) is None


def test_objects_compare_by_key_with_optional_keys() -> None:
    pattern = DictPattern({"city": ("Porto",), "unit": ("celsius", OPTIONAL)})
    assert check([pattern], {"type": "object"}, {"city": "porto"}) is None
    assert check([pattern], {"type": "object"}, {"city": "Porto", "unit": "celsius"}) is None
    assert check([pattern], {"type": "object"}, {"city": "Porto", "extra": 1}) == "wrong_value"
    assert check([pattern], {"type": "object"}, {"unit": "celsius"}) == "wrong_value"
    assert check([{"a": [1, {"b": True}]}], None, {"a": [1, {"b": True}]}) is None
    assert check([{"a": [1, {"b": True}]}], None, {"a": [1, {"b": 1}]}) == "wrong_value"


def test_alternatives_and_variables() -> None:
    assert check(["NYC", "New York"], {"type": "string"}, "new york") is None
    # BFCL writes variables as strings for numeric parameters: they compare exactly, by their own type
    assert check(["x_value"], {"type": "integer"}, "x_value") is None
    assert check(["x_value"], {"type": "integer"}, "X_VALUE") == "wrong_type"
    assert check([OPTIONAL], {"type": "string"}, "anything") == "wrong_value"


def test_deeply_nested_values_do_not_recurse_past_the_pattern() -> None:
    deep = current = []
    for _ in range(100_000):
        current.append([])
        current = current[0]
    assert check(["a"], {"type": "string"}, deep) == "wrong_type"
    assert check([["a"]], {"type": "array"}, deep) == "wrong_value"


def _best(weights: list[list[float]]) -> float:
    rows, cols = len(weights), len(weights[0])
    best = 0.0
    if rows <= cols:
        for perm in itertools.permutations(range(cols), rows):
            best = max(best, sum(max(weights[i][j], 0) for i, j in enumerate(perm)))
    else:
        for perm in itertools.permutations(range(rows), cols):
            best = max(best, sum(max(weights[i][j], 0) for j, i in enumerate(perm)))
    return best


def test_assignment_is_optimal_against_exhaustive_search() -> None:
    rng = random.Random(7)
    for _ in range(400):
        rows, cols = rng.randint(1, 5), rng.randint(1, 5)
        weights = [[rng.choice([0.0, 1.0, 1.0, 2.0, rng.random()]) for _ in range(cols)] for _ in range(rows)]
        pairs = assign(weights)
        assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
        assert sum(weights[i][j] for i, j in pairs) == pytest.approx(_best(weights))


def test_assignment_beats_greedy() -> None:
    # greedy takes (0, 0) and strands row 1; the optimum pairs both
    weights = [[1.0, 1.0], [1.0, 0.0]]
    assert assign(weights) == [(0, 1), (1, 0)]
    assert assign([]) == []


_scalars = st.none() | st.booleans() | st.integers(-2, 3) | st.floats(-2, 3, width=16) | st.sampled_from(
    ["NYC", "nyc", " N.Y.C ", "a", "A", ""])
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2), max_leaves=6)
_patterns = _values | _values.map(pattern_of)
_norms = st.sampled_from([BFCL, LENIENT, EXACT])


@settings(max_examples=600, deadline=None)
@given(alts=st.lists(_patterns, min_size=1, max_size=3), value=_values, norm=_norms)
def test_untyped_check_with_one_kind_is_the_general_untyped_check(alts, value, norm) -> None:
    """Acceptable values of one kind and no declared type are checked as if the kind were declared:
    the same verdict and code as the general check that groups them by kind."""
    for schema in (None, {}, {"description": "x"}):
        assert compile_value(alts, schema, norm)(value) == _compile_by_kind(alts, schema, norm)(value)


@settings(max_examples=600, deadline=None)
@given(alts=st.lists(st.lists(_scalars, max_size=3), min_size=1, max_size=3), value=_values, norm=_norms)
def test_arrays_with_undeclared_items_compare_element_by_element(alts, value, norm) -> None:
    """Arrays whose elements are all of one scalar kind, items undeclared: checked as arrays of that
    kind, with the verdict and code of comparing element by element."""
    if type(value) is not list:
        expected = "wrong_type"
    else:
        expected = None if any(_compile_array(a, None, norm)(value) for a in alts) else "wrong_value"
    for schema in ({"type": "array"}, {"type": "array", "items": {}}, {"type": "array", "items": {"description": "x"}}):
        assert compile_value(alts, schema, norm)(value) == expected
