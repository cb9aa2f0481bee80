"""Malformed predictions score 0 with a reason and never raise; random inputs never break ``score``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from covert.rewards import Score, oracle_completion, score


def _pick(pairs, *, writes: bool) -> dict[str, Any]:
    for rl, _ in pairs:
        truth = rl["reward_model"]["ground_truth"]
        if truth["behaviour"] == "tool_use" and bool(truth["state_diff"]) == writes and truth["answer_facts"]:
            return rl
    raise AssertionError("no such row")


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"k": [value]}
    return value


def malformed(row: dict[str, Any]) -> dict[str, Any]:
    calls = [c for g in row["reward_model"]["ground_truth"]["calls"] for c in g]
    name = calls[0]["name"]
    megabyte = "m" * 1_000_000
    wrong_types = [{"type": "function", "function": {
        "name": c["name"], "arguments": {k: {"nested": [v]} for k, v in c["arguments"].items()} or {"x": [1]}}}
        for c in calls]
    return {
        "invalid_json_hermes": '<tool_call>{"name": "' + name + '", "arguments": {oops}</tool_call>',
        "invalid_json_arguments": [{"role": "assistant", "tool_calls": [{"function": {"name": name, "arguments": "{not json"}}]}],
        "unknown_tools": [{"role": "assistant", "tool_calls": [{"function": {"name": "format_disk", "arguments": {}}},
                                                               {"function": {"name": "x" * 500, "arguments": {}}}]}],
        "wrong_types": [{"role": "assistant", "tool_calls": wrong_types}, {"role": "assistant", "content": "ok"}],
        "megabyte_strings": [{"role": "assistant", "tool_calls": [{"function": {
            "name": c["name"], "arguments": {k: megabyte for k in c["arguments"]} or {"q": megabyte}}} for c in calls]},
            {"role": "assistant", "content": megabyte}],
        "deeply_nested_arguments": [{"role": "assistant", "tool_calls": [{"function": {"name": name, "arguments": _deep(3000)}}]}],
        "deeply_nested_text": "<tool_call>" + json.dumps({"name": name, "arguments": {"a": "[" * 20_000}}) + "[" * 20_000 + "</tool_call>",
        "python_garbage": "[" + name + "(a=1,, b=)]",
        "number": 42,
        "none": None,
        "dict_without_role": {"tool_calls": "everything"},
        "list_of_numbers": [1, 2, 3],
        "bytes": b"\x00\xff",
        "wrong_shape_tool_calls": [{"role": "assistant", "tool_calls": {"name": name}}],
        "empty": "",
    }


@pytest.mark.parametrize("writes", [True, False])
def test_malformed_predictions_score_zero_with_a_reason(pairs, writes: bool) -> None:
    row = _pick(pairs, writes=writes)
    for label, completion in malformed(row).items():
        result = score(row, completion)
        assert isinstance(result, Score)
        assert result.value == 0.0, (label, result)
        assert result.reasons, label
        assert not any(r.startswith("internal_error") for r in result.reasons), (label, result.reasons)


def test_bad_rows_score_zero_with_a_reason(pairs) -> None:
    row = pairs[0][0]
    for bad in (None, {}, {"reward_model": {"ground_truth": "{broken"}}, {**row, "environment": "atlantis", "builder": "atlantis"},
                {**row, "extra_info": {**row["extra_info"], "initial_state": {"tables": 3}}},
                {**row, "reward_model": {"style": "rule", "ground_truth": {**row["reward_model"]["ground_truth"], "calls": [[{"arguments": {}}]]}}}):
        result = score(bad, "anything")
        assert result.value == 0.0 and result.reasons[0].startswith("row:bad_row"), result


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
names = st.sampled_from(["", "find_user_id_by_email", "get_order_details", "cancel_pending_order", "transfer_funds",
                         "list_events", "nope", "reset"]) | st.text(max_size=12)
tool_calls = st.fixed_dictionaries({
    "type": st.just("function"),
    "function": st.fixed_dictionaries({"name": names, "arguments": json_values | st.text(max_size=40)}),
}) | json_values
messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["assistant", "tool", "user", "system", "robot"])},
    optional={"content": st.text(max_size=60) | json_values, "tool_calls": st.lists(tool_calls, max_size=3) | json_values,
              "name": names},
)
fragments = st.sampled_from(["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<|im_end|>",
                             "<|im_start|>assistant\n", '{"name": "get_order_details", "arguments": {"order_id": "#W1"}}',
                             "[f(a=1)]", "(", "[", "sorry", "?", "<think>"])
texts = st.lists(fragments | st.text(max_size=20), max_size=12).map("".join)
completions = texts | st.lists(messages, max_size=6) | json_values


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_random_inputs_never_break_score(pairs, data) -> None:
    row = data.draw(st.sampled_from(pairs))[0]
    completion = data.draw(completions)
    first = score(row, completion)
    assert 0.0 <= first.value <= 1.0
    assert not any(r.startswith("internal_error") for r in first.reasons), first.reasons
    if first.value < 1.0:
        assert first.reasons
    assert score(row, completion) == first


@pytest.mark.parametrize("attempts", [0, -1, 9, 10**9, 2.5, True, "3"])
def test_out_of_range_failure_attempts_are_a_bad_row_not_a_loop(pairs, attempts) -> None:
    row = next(r for r, _ in pairs if r["reward_model"]["ground_truth"]["calls"])
    truth = {**row["reward_model"]["ground_truth"],
             "failure": [{"call": 0, "transient": True, "attempts": attempts}]}
    bad = {**row, "reward_model": {**row["reward_model"], "ground_truth": truth}}
    result = score(bad, oracle_completion(row))
    assert result.value == 0.0 and result.reasons[0].startswith("row:bad_row: a failure's attempts"), result


def test_oversized_ground_truths_are_a_bad_row(pairs) -> None:
    row = next(r for r, _ in pairs if r["reward_model"]["ground_truth"]["calls"])
    truth = row["reward_model"]["ground_truth"]
    call = truth["calls"][0][0]
    for change in ({"calls": [[call]] * 300}, {"answer_facts": [{"value": "x"}] * 300},
                   {"failure": [{"call": 0}] * (sum(map(len, truth["calls"])) + 1)}):
        bad = {**row, "reward_model": {**row["reward_model"], "ground_truth": {**truth, **change}}}
        result = score(bad, "anything")
        assert result.value == 0.0 and result.reasons[0].startswith("row:bad_row"), (change.keys(), result)


def test_a_text_of_thousands_of_calls_is_refused_unread(pairs) -> None:
    row = pairs[0][0]
    text = '<tool_call>{"name": "x", "arguments": {}}</tool_call>' * 20_000
    result = score(row, text)
    assert result.value == 0.0 and result.reasons == ["parse:too_many_calls: 20000 tool-call blocks (at most 256 are read)"]


class _Hostile(dict):
    """An ``extra_info`` whose every read raises (issue 32: compute_score raised through it)."""

    def get(self, *args, **kwargs):
        raise RuntimeError("get")

    def __getitem__(self, key):
        raise RuntimeError("getitem")

    def __contains__(self, key):
        raise RuntimeError("contains")

    def __iter__(self):
        raise RuntimeError("iter")


def test_verl_compute_score_never_raises_whatever_extra_info_does(pairs) -> None:
    from covert.rewards.verl import compute_score

    rl, _sft = pairs[0]
    truth = rl["reward_model"]["ground_truth"]
    for extra in (_Hostile(environment=rl["environment"], tool_selection=["x"]), _Hostile(), object(), None):
        assert compute_score(rl["data_source"], "Done.", truth, extra) == 0.0
