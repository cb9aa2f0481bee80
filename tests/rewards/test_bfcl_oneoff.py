"""match_bfcl's one-off path: scores read straight off the entry, nothing compiled.

``match_bfcl`` must give exactly the score of ``compile_bfcl(...).score(calls)``, reasons included,
whichever way it gets there (accepted or rejected straight from the entry, paired and explained with
:class:`DirectMatcher` objects, or compiled for irregular entries). Checked here on generated entries
(no BFCL data needed; the BFCL-data versions are in test_bfcl.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from covert.rewards import BFCL, LENIENT, compile_bfcl, match_bfcl, match_turns
from covert.rewards.bfcl import read_calls
from covert.rewards.bfcl_direct import accepts_directly, direct_matchers, score_directly
from covert.rewards.bfcl_turn import check_turn
from covert.rewards.matching import CallsResult
from covert.rewards.parsing import ToolCall

TYPES = ["string", "integer", "float", "number", "boolean", "array", "tuple", "dict", "any", None, "weird"]
STRINGS = ["NYC", "nyc", "New York", "new-york", "x_value", "", "it's", 'IT"S', "a", "b"]
scalars = (st.none() | st.booleans() | st.integers(-2, 3) | st.floats(-2, 3, allow_nan=False, width=16)
           | st.sampled_from(STRINGS))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["a", "b"]), st.lists(inner, min_size=1, max_size=2), max_size=2),
                      max_leaves=5)


def _typed(kind: str | None, items: str | None) -> st.SearchStrategy[Any]:
    """Acceptable values of roughly the declared kind (BFCL data mostly has them)."""
    by_kind: dict[str | None, st.SearchStrategy[Any]] = {
        "string": st.sampled_from(STRINGS), "any": st.sampled_from(STRINGS), "integer": st.integers(-2, 3),
        "float": st.integers(-2, 3) | st.floats(-2, 3, allow_nan=False, width=16),
        "number": st.floats(-2, 3, allow_nan=False, width=16), "boolean": st.booleans(),
    }
    if kind in ("array", "tuple"):
        element = by_kind.get(items, values)
        return st.lists(element, max_size=3)
    if kind == "dict":
        return st.dictionaries(st.sampled_from(["a", "b"]), st.lists(st.sampled_from(STRINGS) | scalars, min_size=1,
                                                                      max_size=2), max_size=2)
    return by_kind.get(kind, values)


def _plain(value: Any) -> Any:
    """A value an acceptable value stands for (dicts: each key's first acceptable value)."""
    if isinstance(value, dict):
        return {k: _plain(v[0]) for k, v in value.items() if v and v[0] != ""}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@st.composite
def entries(draw: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], str]:
    """(functions, possible answer, calls, category): random specs and answers, and calls that are
    often acceptable (values taken from the answer) and often slightly off."""
    functions = []
    kinds: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for name in ("f", "g"):
        properties: dict[str, Any] = {}
        for param in ("p", "q", "r"):
            if draw(st.integers(0, 4)) == 0:
                continue
            kind = draw(st.sampled_from(TYPES))
            items = draw(st.sampled_from(["string", "integer", "float", "boolean", "dict", None, "absent"]))
            schema: dict[str, Any] = {"description": "a parameter"}
            if kind is not None:
                schema["type"] = kind
            if kind in ("array", "tuple") and items != "absent":
                schema["items"] = {"type": items} if items is not None else {}
            if kind == "dict" and draw(st.booleans()):
                schema["properties"] = {"a": {"type": draw(st.sampled_from(TYPES[:5]))}}
            properties[param] = schema
            kinds[name, param] = (kind, items)
        required = draw(st.lists(st.sampled_from(["p", "q", "r"]), unique=True, max_size=2))
        functions.append({"name": name, "description": "a function",
                          "parameters": {"type": "dict", "properties": properties, "required": required}})
    answer = []
    calls = []
    clean = draw(st.booleans())  # calls made of acceptable values only (still often rejected: types, specs)
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(["f", "g"]))
        answers = {}
        arguments = {}
        params = draw(st.lists(st.sampled_from(["p", "q", "r", "r", "s"]), unique=True, max_size=3))
        if draw(st.integers(0, 9)):  # mostly, the answer lists the required parameters
            required = next(f for f in functions if f["name"] == name)["parameters"]["required"]
            params = list(dict.fromkeys([*required, *params]))
        for param in params:
            kind, items = kinds.get((name, param), (None, None))
            alts = draw(st.lists(_typed(kind, items) if draw(st.integers(0, 5)) else values, min_size=int(clean),
                                 max_size=3))
            if draw(st.booleans()):
                alts.append("")
            answers[param] = alts
            how = "answer" if clean else draw(st.sampled_from(["answer"] * 6 + ["random", "absent"]))
            given = [a for a in alts if a != ""]
            if how == "answer" and given:
                value = _plain(draw(st.sampled_from(given)))
                if isinstance(value, str) and not clean and draw(st.integers(0, 3)) == 0:
                    value = draw(st.sampled_from([value.upper(), f" {value}.", value + "!"]))
                arguments[param] = value
            elif how == "random":
                arguments[param] = _plain(draw(values))
        if not clean and draw(st.integers(0, 9)) == 0:
            arguments["extra"] = 1
        answer.append({name: answers})
        calls.append({name if clean or draw(st.integers(0, 9)) else "h": arguments})
    calls = draw(st.permutations(calls))
    if not clean and draw(st.integers(0, 9)) == 0:
        calls = calls[:-1]
    category = draw(st.sampled_from(["simple", "live_simple", "multiple"] if len(answer) == 1 else
                                    ["parallel", "parallel_multiple", "live_parallel"]))
    return functions, answer, list(calls), category


@settings(max_examples=600, deadline=None)
@given(entry=entries(), mode=st.sampled_from(["exact", "partial"]), norm=st.sampled_from([BFCL, LENIENT]))
def test_one_off_score_is_the_compiled_score(entry, mode, norm) -> None:
    functions, answer, calls, category = entry
    reference = compile_bfcl(functions, answer, category, mode, norm)
    expected = reference.score(calls)
    assert match_bfcl(functions, calls, answer, category, mode, norm) == expected
    assert match_bfcl(functions, calls, {"id": "x", "ground_truth": answer}, category, mode, norm) == expected
    # the compiled fast verdict is the verdict of an optimal pairing, computed here independently
    predicted, invalid, _ = read_calls(calls)
    aligned = match_turns([predicted], [list(reference.expected)], invalid)
    assert reference.accepts(calls) is aligned.exact
    # one turn checked straight off the calls: the alignment's pairs and reasons, BFCL's count reason first
    count, n = len(calls), len(answer)
    wanted = CallsResult(aligned.matched, aligned.predicted, aligned.expected,
                         (*([f"calls:wrong_count: {count} calls, expected {n}"] if count != n else []), *aligned.reasons))
    assert check_turn(reference.expected, calls) == wanted
    assert check_turn(direct_matchers(functions, answer, norm), calls) == wanted
    scored = score_directly(functions, calls, answer, norm)
    assert scored in (None, expected)
    if len(answer) == 1 and len(calls) == 1:  # one well-formed call, one expected: always scored directly
        assert scored is not None
    direct = accepts_directly(functions, calls, answer, norm)
    if direct:  # the direct verdict never accepts what the compiled reference rejects
        assert reference.accepts(calls)
    if len(answer) == 1:  # and for one expected call it is complete
        assert direct is reference.accepts(calls)
    # the direct matchers give the compiled matchers' verdicts and mismatches
    matchers = direct_matchers(functions, answer, norm)
    assert matchers is not None and len(matchers) == len(reference.expected)
    for mine, theirs in zip(matchers, reference.expected):
        for call in calls:
            ((name, arguments),) = call.items()
            assert mine.matches(arguments) is theirs.matches(arguments)
            assert mine.check(ToolCall(name, arguments)) == theirs.check(ToolCall(name, arguments))


def test_direct_path_handles_the_common_shapes() -> None:
    """Scalars and arrays of scalars are decided without the compiled reference; parallel calls in
    any order that greedy pairing can pair are too."""
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {
        "city": {"type": "string"}, "n": {"type": "integer"}, "x": {"type": "float"},
        "flag": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}},
        "nums": {"type": "tuple", "items": {"type": "float"}}}, "required": ["city"]}}]
    answer = [{"f": {"city": ["New York", "NYC"], "n": [2, ""], "x": [1.5], "flag": [True, ""],
                     "tags": [["a", "B"]], "nums": [[1.0, 2.5], ""]}}]
    call = {"city": "new-york", "x": 1.5, "tags": ["A", "b"], "nums": [1, 2.5]}
    assert accepts_directly(functions, [{"f": call}], answer, BFCL)
    assert not accepts_directly(functions, [{"f": {**call, "n": True}}], answer, BFCL)  # a bool is not an int
    assert not accepts_directly(functions, [{"f": {**call, "x": "1.5"}}], answer, BFCL)
    assert not accepts_directly(functions, [{"f": {"x": 1.5}}], answer, BFCL)  # city is required
    # one call rejected for one expected call: scored directly too, with the compiled reference's reason
    for calls in ([{"f": {**call, "n": True}}], [{"f": {"x": 1.5}}], [{"g": call}], [{"f": {**call, "y": 1}}]):
        direct = score_directly(functions, calls, answer, BFCL)
        assert direct is not None and direct == compile_bfcl(functions, answer, "simple").score(calls)
    assert score_directly(functions, [{"f": {"x": 1.5}}], answer, BFCL).reasons == ["calls:missing_argument: f.city"]
    assert match_bfcl(functions, [{"f": {**call, "n": True}}], answer, "simple").reasons == ["calls:wrong_type: f.n"]
    two = [{"f": {"city": ["Paris"], "n": [1]}}, {"f": {"city": ["Rome"], "n": [2]}}]
    assert accepts_directly(functions, [{"f": {"city": "rome", "n": 2}}, {"f": {"city": "Paris", "n": 1}}], two, BFCL)
    assert match_bfcl(functions, [{"f": {"city": "rome", "n": 2}}, {"f": {"city": "Paris", "n": 1}}], two,
                      "parallel").value == 1.0


def test_nothing_is_kept_between_calls() -> None:
    """Each call is scored by its own content: the same task with another answer, an answer or a
    spec changed in place, and answers that differ only in type (1, 1.0, True, "1") all get their
    own score."""
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {"city": {"type": "string"}},
                                               "required": ["city"]}}]
    calls = [{"f": {"city": "NYC"}}, {"f": {"city": "New York"}}]  # greedy pairing fails, optimal does not
    accepting = [{"f": {"city": ["NYC", "New York"]}}, {"f": {"city": ["NYC"]}}]
    rejecting = [{"f": {"city": ["NYC", "New York"]}}, {"f": {"city": ["Boston"]}}]
    assert not accepts_directly(functions, calls, accepting, BFCL)
    assert match_bfcl(functions, calls, accepting, "parallel").value == 1.0
    assert match_bfcl(functions, calls, rejecting, "parallel").value == 0.0
    assert match_bfcl(functions, calls, accepting, "parallel", mode="partial").value == 1.0
    accepting[1]["f"]["city"] = ["Chicago"]
    assert match_bfcl(functions, calls, accepting, "parallel") == compile_bfcl(functions, accepting, "parallel").score(calls)
    assert match_bfcl(functions, calls, accepting, "parallel").value == 0.0
    spec = [{"name": "g", "parameters": {"type": "dict", "properties": {"x": {"type": "any"}}, "required": []}}]
    pair = [{"g": {"x": 1}}, {"g": {"x": "q"}}]
    scores = [match_bfcl(spec, pair, [{"g": {"x": [v]}}, {"g": {"x": ["z"]}}], "parallel", mode="partial").value
              for v in (1, 1.0, True, "1")]
    assert scores == [0.5, 0.0, 0.0, 0.0]  # only the int 1 is the "variable" x=1 (compared exactly, by type)
    del spec[0]["parameters"]["properties"]["x"]
    assert match_bfcl(spec, pair, [{"g": {"x": [1]}}, {"g": {"x": ["z"]}}], "parallel", mode="partial").value == 0.0


def test_irregular_entries_are_compiled() -> None:
    """Answers or specs that are not plain lists and dicts (built in Python rather than read from
    JSON) are left to the compiled reference, with its scores."""
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}}}]
    for answer, calls in (
        ([{"f": {"n": (1, 2)}}], [{"f": {"n": 1}}]),  # a tuple is one acceptable value, not a list of them
        ([{"f": {"n": [1]}}, {"f": {"n": (2,)}}], [{"f": {"n": 1}}, {"f": {"n": 2}}]),
        ([{"f": {"n": [1]}}], ({"f": {"n": 1}},)),
        ([{"f": {"n": [1]}}], [{"f": {"n": 1}}, {"f": {"n": 1}}]),
    ):
        for category in ("simple", "parallel"):
            expected = compile_bfcl(functions, answer, category).score(calls)
            assert match_bfcl(functions, calls, answer, category) == expected
    assert direct_matchers(functions, [{"f": {"n": (1, 2)}}], BFCL) is None
    odd_spec = [{"name": "f", "parameters": {"type": "dict", "properties": {"n": {"type": ["integer"]}}}}]
    assert direct_matchers(odd_spec, [{"f": {"n": [1]}}], BFCL) is None
    with pytest.raises(TypeError):  # an unhashable type name: the compiled reference's error
        match_bfcl(odd_spec, [{"f": {"n": 2}}, {"f": {"n": 3}}], [{"f": {"n": [1]}}], "simple")


def test_one_off_errors_are_the_compiled_ones() -> None:
    with pytest.raises(ValueError, match="mode is exact or partial"):
        match_bfcl([], [{"f": {}}], [{"f": {}}], "simple", mode="strict")
    with pytest.raises(ValueError, match="not an AST category"):
        match_bfcl([], [{"f": {}}], [{"f": {}}], "simple_java")
    assert match_bfcl([], "not calls", [], "simple") == compile_bfcl([], [], "simple").score("not calls")
    assert "parse:bad_completion" in match_bfcl([], "not calls", [], "simple").reasons[1]


def test_one_turn_reads_plain_calls_only() -> None:
    """check_turn scores a plain list of well-formed calls (pairs, counts, reasons); anything else is
    read by read_calls, with the compiled reference's score either way."""
    functions = [{"name": "f", "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}},
                                               "required": ["n"]}}]
    answer = [{"f": {"n": [1]}}, {"f": {"n": [2]}}]
    matchers = direct_matchers(functions, answer, BFCL)
    assert check_turn(matchers, [{"f": {"n": 2}}, {"f": {"n": 1}}]) == CallsResult(2, 2, 2)
    assert check_turn(matchers, [{"f": {"n": 2}}, {"f": {"n": 2}}, {"g": {}}]) == CallsResult(
        1, 3, 2, ("calls:wrong_count: 3 calls, expected 2", "calls:wrong_value: f.n", "calls:extra_call: g"))
    assert check_turn(matchers, [{"f": {"n": "1"}}]) == CallsResult(
        0, 1, 2, ("calls:wrong_count: 1 calls, expected 2", "calls:wrong_type: f.n", "calls:wrong_type: f.n"))
    for calls in (({"f": {"n": 1}}, {"f": {"n": 2}}), [{"f": {1: 1}}, {"f": {"n": 2}}], ["oops", {"f": {"n": 2}}],
                  [{"f": {"n": 1}, "g": {}}], [{"f": {"n": 1}}] * 65, [{"f": [("n", 1)]}]):
        assert check_turn(matchers, calls) is None
        for mode in ("exact", "partial"):
            expected = compile_bfcl(functions, answer, "parallel", mode).score(calls)
            assert match_bfcl(functions, calls, answer, "parallel", mode) == expected
