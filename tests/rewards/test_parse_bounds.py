"""A completion's parse work is bounded before the expensive part, in every call syntax (issue 32: a
140 KB text of 20,000 python-style calls took 15-18 s to score). Counts and sizes are checked first;
what exceeds them is refused with its reason and never parsed. Timings: benchmarks/reward_parse_bench.py."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from covert.rewards import parsing
from covert.rewards.parsing import MAX_MESSAGES, MAX_TEXT_CALLS, parse_completion, tagged, without_tagged

MANY = 20_000
CALL = {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
FLOODS: dict[str, Any] = {
    "python": "[" + ", ".join(["f(a=1)"] * MANY) + "]",
    "python_names_only": "[" + ", ".join(["f()"] * MANY) + "]",
    "json": json.dumps([{"name": "f", "arguments": {"a": 1}}] * MANY),
    "hermes": '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>' * MANY,
    "messages_one": [{"role": "assistant", "content": "", "tool_calls": [CALL] * MANY}],
    "messages_many": [{"role": "assistant", "content": "", "tool_calls": [CALL]}] * MANY,
    "headers": "<|im_start|>user\nhi<|im_end|>" * MANY,
    "python_numbers": "[f(a=[" + ", ".join(["1"] * 60_000) + "])]",
    "python_chain": "[f(a=" + "1+" * 60_000 + "1)]",
    "python_fstring": "[f(a=f'{" + "1+" * 60_000 + "1}')]",
}


@pytest.fixture
def no_expensive_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a flood reaches the parsers whose cost grows with the calls in it."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a flood reached the expensive parse")

    monkeypatch.setattr(parsing.ast, "parse", refuse)
    monkeypatch.setattr(parsing, "_collect", refuse)
    monkeypatch.setattr(parsing, "parse_hermes", refuse)


@pytest.mark.parametrize("name", sorted(FLOODS))
def test_a_flood_is_refused_before_it_is_parsed(name: str, no_expensive_parse: None) -> None:
    transcript = parse_completion(FLOODS[name])
    reasons = " ".join(transcript.reasons)
    assert ("too_many_calls" in reasons or "too_many_messages" in reasons or "too_long" in reasons), reasons
    assert not transcript.calls


def test_the_most_that_is_read_is_still_read() -> None:
    python = parse_completion("[" + ", ".join(["f(a=(1, 2), b=[3])"] * MAX_TEXT_CALLS) + "]")
    assert len(python.calls) == MAX_TEXT_CALLS and python.calls[0].arguments == {"a": [1, 2], "b": [3]}
    hermes = parse_completion('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>' * MAX_TEXT_CALLS)
    assert len(hermes.calls) == MAX_TEXT_CALLS
    as_json = parse_completion(orjson.dumps([{"name": "f", "arguments": {"name": "x"}}] * MAX_TEXT_CALLS).decode())
    assert len(as_json.calls) == MAX_TEXT_CALLS
    turns = parse_completion([{"role": "assistant", "content": "", "tool_calls": [CALL]}] * MAX_TEXT_CALLS)
    assert len(turns.calls) == MAX_TEXT_CALLS
    assert parse_completion([{"role": "user", "content": "hi"}] * MAX_MESSAGES).readable
    long_string = parse_completion("[f(note='" + "many words, " * 10_000 + "')]")
    assert len(long_string.calls) == 1  # one string literal is one token, however long


def test_tagged_blocks_read_as_the_lazy_regex_did() -> None:
    import re

    lazy = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
    for text in ["", "plain", "<tool_call>a</tool_call>", "x<tool_call>a</tool_call>y<tool_call>b", "<tool_call>",
                 "<tool_call><tool_call>a</tool_call></tool_call>", "a</tool_call><tool_call>b</tool_call>c"]:
        assert [(m.start(), m.end(), m.group(1)) for m in lazy.finditer(text)] == \
            list(tagged(text, "<tool_call>", "</tool_call>")), text
        assert lazy.sub(" ", text) == without_tagged(text, "<tool_call>", "</tool_call>", " "), text
