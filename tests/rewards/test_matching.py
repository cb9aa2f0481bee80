"""Reference matching of predicted calls against oracle calls."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from covert.rewards import EXACT, ToolCall, expect_call, match_turns

TOOL = {"type": "function", "function": {"name": "transfer", "parameters": {
    "type": "object",
    "properties": {
        "account_id": {"type": "string"},
        "amount": {"type": "number"},
        "memo": {"type": "string", "default": ""},
        "urgent": {"type": "boolean", "default": False},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["account_id", "amount"],
}}}


def m(arguments, **extra):
    return expect_call({"name": "transfer", "arguments": arguments, **extra}, TOOL)


def c(**arguments):
    return ToolCall("transfer", arguments)


def code(matcher, call):
    found = matcher.check(call)
    return None if found is None else found.code


def test_required_optional_and_defaults() -> None:
    matcher = m({"account_id": "A1", "amount": 20.0})
    assert code(matcher, c(account_id="a1", amount=20)) is None
    assert code(matcher, c(account_id="A1", amount=20, memo="")) is None  # the default, spelled out
    assert code(matcher, c(account_id="A1", amount=20, memo="rent")) == "wrong_value"
    assert code(matcher, c(account_id="A1")) == "missing_argument"
    assert code(matcher, c(account_id="A1", amount="20")) == "wrong_type"
    assert code(matcher, c(account_id="A1", amount=20, bogus=1)) == "unexpected_argument"
    assert code(matcher, c(account_id="A1", amount=20, tags=["x"])) == "unexpected_argument"
    assert code(matcher, ToolCall("pay", {"account_id": "A1", "amount": 20})) == "wrong_function"
    # a non-default optional value the oracle gave must be given
    matcher = m({"account_id": "A1", "amount": 20.0, "urgent": True})
    assert code(matcher, c(account_id="A1", amount=20)) == "missing_argument"
    assert code(m({"account_id": "A1", "amount": 20.0, "urgent": False}), c(account_id="A1", amount=20)) is None


def test_ignored_arguments_and_alternatives() -> None:
    matcher = m({"account_id": "A1", "amount": 20.0, "memo": "rent for May"}, ignore=["memo"],
                alternatives={"account_id": ["A-1"]})
    assert code(matcher, c(account_id="A-1", amount=20, memo="whatever")) is None
    assert code(matcher, c(account_id="A1", amount=20)) is None
    assert code(matcher, c(account_id="A2", amount=20)) == "wrong_value"
    strict = expect_call({"name": "transfer", "arguments": {"account_id": "A1", "amount": 20.0}}, TOOL, EXACT)
    assert code(strict, c(account_id="a1", amount=20)) == "wrong_value"


def test_parallel_calls_match_order_free() -> None:
    expected = [[m({"account_id": "A", "amount": 1.0}), m({"account_id": "B", "amount": 2.0})]]
    result = match_turns([[c(account_id="B", amount=2), c(account_id="A", amount=1)]], expected)
    assert result.exact and result.f1 == 1.0
    # a parallel turn may be spread over several predicted turns
    assert match_turns([[c(account_id="B", amount=2)], [c(account_id="A", amount=1)]], expected).exact


def test_optimal_pairing_where_greedy_fails() -> None:
    # the first expected call accepts both predicted calls; greedy gives it the first and strands the second
    first = expect_call({"name": "transfer", "arguments": {"account_id": "A", "amount": 1.0},
                         "alternatives": {"account_id": ["B"]}}, TOOL)
    second = m({"account_id": "A", "amount": 1.0})
    result = match_turns([[c(account_id="A", amount=1), c(account_id="B", amount=1)]], [[first, second]])
    assert result.exact


def test_sequential_turns_keep_their_order() -> None:
    lookup = expect_call({"name": "find", "arguments": {"q": "x"}}, None)
    act = m({"account_id": "A", "amount": 1.0})
    expected = [[lookup], [act]]
    find = ToolCall("find", {"q": "x"})
    assert match_turns([[find], [c(account_id="A", amount=1)]], expected).exact
    swapped = match_turns([[c(account_id="A", amount=1)], [find]], expected)
    assert swapped.matched == 1 and not swapped.exact
    assert any(r.startswith("calls:out_of_order") for r in swapped.reasons)
    # independent calls of two oracle turns may share one predicted turn
    assert match_turns([[find, c(account_id="A", amount=1)]], expected).exact


def test_partial_credit_and_reasons() -> None:
    expected = [[m({"account_id": "A", "amount": 1.0}), m({"account_id": "B", "amount": 2.0})]]
    result = match_turns([[c(account_id="A", amount=1), c(account_id="B", amount=3), ToolCall("rm", {})]], expected,
                         invalid=1, offered=frozenset({"transfer"}))
    assert (result.matched, result.predicted, result.expected) == (1, 4, 2)
    assert result.precision == 0.25 and result.recall == 0.5
    assert abs(result.f1 - 1 / 3) < 1e-9 and not result.exact
    assert "calls:wrong_value: transfer.amount" in result.reasons
    assert "calls:unknown_tool: rm" in result.reasons
    missing = match_turns([], expected)
    assert missing.f1 == 0.0 and missing.reasons == ("calls:missing_call: transfer", "calls:missing_call: transfer")
    duplicate = match_turns([[c(account_id="A", amount=1)], [c(account_id="A", amount=1)]], [[expected[0][0]]])
    assert duplicate.reasons == ("calls:extra_call: transfer",)
    assert match_turns([], []).exact and match_turns([], []).f1 == 1.0
    assert match_turns([[ToolCall("x", {})]], []).f1 == 0.0


def test_too_many_calls_are_not_aligned() -> None:
    result = match_turns([[c(account_id="A", amount=1)] for _ in range(100)], [[m({"account_id": "A", "amount": 1.0})]])
    assert result.matched == 0 and result.reasons[0].startswith("calls:too_many_calls")


values = st.recursive(st.none() | st.booleans() | st.integers(-3, 25) | st.floats(-3, 25) | st.sampled_from(
    ["A1", "a1", " A1 ", "rent", "x", ""]), lambda inner: st.lists(inner, max_size=3), max_leaves=6)
arguments = st.dictionaries(st.sampled_from(["account_id", "amount", "memo", "urgent", "tags", "other"]), values,
                            max_size=5)
MATCHERS = [
    m({"account_id": "A1", "amount": 20.0}),
    m({"account_id": "A1", "amount": 20.0, "urgent": True, "tags": ["x", "rent"]}),
    m({"account_id": "A1", "amount": 20.0, "memo": "rent"}, ignore=["memo"], alternatives={"amount": [21]}),
    expect_call({"name": "transfer", "arguments": {"account_id": "A1", "tags": [1, "x"]}}, None),
]


@settings(max_examples=400, deadline=None)
@given(arguments=arguments)
def test_fast_verdict_agrees_with_the_explained_one(arguments) -> None:
    for matcher in MATCHERS:
        assert matcher.matches(arguments) is (matcher.check(ToolCall("transfer", arguments)) is None)


def _best_block(turns, groups) -> int:
    """Most one-to-one pairs between the calls of some predicted and some expected turns (brute force)."""
    from itertools import permutations

    calls = [call for turn in turns for call in turn]
    wanted = [matcher for group in groups for matcher in group]
    if len(calls) < len(wanted):
        return max((sum(wanted[j].check(calls[i]) is None for i, j in zip(p, range(len(wanted))) if i is not None)
                    for p in permutations([*range(len(calls)), *[None] * (len(wanted) - len(calls))], len(wanted))),
                   default=0)
    return max((sum(wanted[j].check(calls[i]) is None for j, i in enumerate(p))
                for p in permutations(range(len(calls)), len(wanted))), default=0)


def _best_alignment(turns, groups) -> int:
    """The most pairs over every monotone alignment (the definition match_turns optimises), exhaustively."""
    from functools import cache

    @cache
    def best(i: int, j: int) -> int:
        if i == len(turns) or j == len(groups):
            return 0
        options = [best(i + 1, j), best(i, j + 1)]
        options += [_best_block(turns[i:i + 1], groups[j:j + k]) + best(i + 1, j + k) for k in range(1, len(groups) - j + 1)]
        options += [_best_block(turns[i:i + k], groups[j:j + 1]) + best(i + k, j + 1) for k in range(2, len(turns) - i + 1)]
        return max(options)

    return best(0, 0)


_NAMES = st.sampled_from(["a", "b"])
_CALL = st.builds(lambda n, v: ToolCall(n, {"v": v}), _NAMES, st.integers(0, 1))
_EXPECTED = st.builds(lambda n, v: expect_call({"name": n, "arguments": {"v": v}}, None), _NAMES, st.integers(0, 1))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_CALL, min_size=1, max_size=2), max_size=4),
       st.lists(st.lists(_EXPECTED, min_size=1, max_size=2), min_size=1, max_size=3))
def test_alignment_is_optimal(turns, groups) -> None:
    assert match_turns(turns, groups).matched == _best_alignment(turns, groups)
