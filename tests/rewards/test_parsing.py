"""Reading completions in every supported format, and never raising on the rest."""

from __future__ import annotations

import json

from covert.rewards import (
    ToolCall,
    ToolMessage,
    UserMessage,
    parse_completion,
    parse_hermes,
    parse_python_calls,
)


def test_openai_messages_with_dict_and_string_arguments() -> None:
    transcript = parse_completion([
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": '{"y": "z"}'}},
        ]},
        {"role": "tool", "tool_call_id": "a", "name": "f", "content": "{}"},
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": [{"type": "text", "text": "All done."}]},
    ])
    assert transcript.calls == [ToolCall("f", {"x": 1}), ToolCall("g", {"y": "z"})]
    assert isinstance(transcript.steps[1], ToolMessage) and isinstance(transcript.steps[2], UserMessage)
    assert transcript.final_text == "All done."
    assert transcript.reasons == []


def test_hermes_text_over_several_turns() -> None:
    text = (
        "<think>plan</think>Let me look.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call>"
        "<tool_call>{\"name\": \"g\", \"arguments\": \"{\\\"y\\\": 2}\"}</tool_call><|im_end|>\n"
        "<|im_start|>user\n<tool_response>\n{\"ok\": true}\n</tool_response>\n<tool_response>{}</tool_response>"
        "<|im_end|>\n<|im_start|>assistant\nThe answer is 42.<|im_end|>"
    )
    transcript = parse_completion(text)
    turns = transcript.turns
    assert [t.calls for t in turns] == [(ToolCall("f", {"x": 1}), ToolCall("g", {"y": 2})), ()]
    assert turns[0].text == "Let me look."
    assert transcript.final_text == "The answer is 42."
    assert sum(isinstance(s, ToolMessage) for s in transcript.steps) == 2


def test_role_headers_split_a_rendered_conversation() -> None:
    text = ("Which payee do you mean?<|im_end|>\n<|im_start|>user\nThe landlord, payee_7.<|im_end|>\n"
            "<|im_start|>assistant\n<tool_call>{\"name\": \"pay\", \"arguments\": {}}</tool_call><|im_end|>\n"
            "<|im_start|>user\n<tool_response>{}</tool_response><|im_end|>\n<|im_start|>assistant\nPaid.<|im_end|>")
    steps = parse_completion(text).steps
    assert [type(s).__name__ for s in steps] == ["AssistantTurn", "UserMessage", "AssistantTurn", "ToolMessage",
                                                "AssistantTurn"]
    assert steps[1].text == "The landlord, payee_7." and steps[-1].text == "Paid."
    llama = ("<|start_header_id|>assistant<|end_header_id|>\n\nHi?<|eot_id|><|start_header_id|>user<|end_header_id|>"
             "\n\nYes<|eot_id|><|start_header_id|>ipython<|end_header_id|>\n\n{\"ok\": 1}<|eot_id|>")
    assert [type(s).__name__ for s in parse_completion(llama).steps] == ["AssistantTurn", "UserMessage", "ToolMessage"]
    ends_on_a_result = parse_completion("<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"
                                        "<tool_response>{}</tool_response>")
    assert ends_on_a_result.final_text == ""


def test_python_style_calls_take_literals_only() -> None:
    calls, invalid, reasons = parse_python_calls('[get_weather(city="Porto", days=(1, 2)), math.sqrt(x=-4.0), noop()]')
    assert calls == [ToolCall("get_weather", {"city": "Porto", "days": [1, 2]}), ToolCall("math.sqrt", {"x": -4.0}),
                     ToolCall("noop", {})]
    assert invalid == 0 and reasons == []
    calls, invalid, reasons = parse_python_calls('[f(a=open("x")), g(1), h(b={1, 2}), 3]')
    assert calls == [] and invalid == 4
    assert [r.split(":")[1] for r in reasons] == ["not_a_literal", "positional_arguments", "arguments_not_json",
                                                  "not_a_call"]
    assert parse_completion("[f(a=1)]").calls == [ToolCall("f", {"a": 1})]


def test_json_call_lists_are_read() -> None:
    text = json.dumps([{"name": "f", "arguments": {"a": 1}}, {"name": "g", "parameters": {}}])
    assert parse_completion(text).calls == [ToolCall("f", {"a": 1}), ToolCall("g", {})]


def test_malformed_calls_are_counted_and_explained() -> None:
    calls, invalid, rest, reasons = parse_hermes('<tool_call>{"name": "f", "arguments": {bad}</tool_call> hi '
                                                 '<tool_call>{"arguments": {}}</tool_call><tool_call>{"name": "x"')
    assert calls == [] and invalid == 3 and rest == "hi"
    assert [r.split(":")[1] for r in reasons] == ["invalid_json", "bad_name", "invalid_json"]
    transcript = parse_completion([
        "not a message",
        {"role": "wizard"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "[1]"}},
                                             {"function": {"name": "", "arguments": {}}},
                                             {"function": {"name": "g", "arguments": {"k": {1, 2}}}}]},
        {"role": "assistant", "tool_calls": "f()"},
    ])
    assert transcript.calls == []
    assert transcript.invalid_calls == 4
    assert {r.split(":")[1] for r in transcript.reasons} == {
        "bad_message", "arguments_not_object", "bad_name", "arguments_not_json", "bad_tool_calls"}


def test_unsupported_completions_are_unreadable_not_errors() -> None:
    for completion in (None, 42, 3.5, object(), b"bytes"):
        transcript = parse_completion(completion)
        assert not transcript.readable and transcript.reasons[0].startswith("parse:bad_completion")
    assert parse_completion("").steps == [] and parse_completion("").final_text == ""
    assert parse_completion([]).steps == []


def test_huge_and_deep_inputs_are_rejected_cleanly() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    assert parse_completion(f'<tool_call>{{"name": "f", "arguments": {{"a": {deep}}}}}</tool_call>').invalid_calls == 1
    assert parse_completion("[f(a=" + "(" * 5000 + "1" + ")" * 5000 + ")]").invalid_calls == 1
    assert parse_completion("[f(a='" + "x" * 300_000 + "')]").invalid_calls == 1
    nested: dict = {}
    current = nested
    for _ in range(5000):
        current["k"] = {}
        current = current["k"]
    transcript = parse_completion([{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": nested}}]}])
    assert transcript.invalid_calls == 1
    big = "y" * 2_000_000
    transcript = parse_completion(f'<tool_call>{{"name": "f", "arguments": {{"a": "{big}"}}}}</tool_call>')
    assert transcript.calls[0].arguments["a"] == big


def test_a_role_header_glued_to_its_text_keeps_the_texts_first_word() -> None:
    """A detokenizer that drops the newline after the role ("<|im_start|>assistantMR7SVX is cancelled")
    still gives the assistant the whole text: the role is a known name, not the whole word."""
    from covert.rewards.parsing import parse_text

    glued = parse_text("<|im_start|>assistantMR7SVX is now cancelled.<|im_end|><|im_start|>userThanks<|im_end|>")
    assert [(type(s).__name__, s.text) for s in glued.steps] == [
        ("AssistantTurn", "MR7SVX is now cancelled."), ("UserMessage", "Thanks")]
    spaced = parse_text("<|im_start|>assistant\nMR7SVX is now cancelled.<|im_end|>")
    assert spaced.steps[0].text == "MR7SVX is now cancelled."


def test_a_role_name_left_by_skipped_special_tokens_is_not_the_answers_first_word() -> None:
    """verl decodes a rollout with ``skip_special_tokens``: "</tool_response>assistantMR7SVX is cancelled"."""
    from covert.rewards.parsing import parse_text

    text = ('<tool_call>\n{"name": "cancel", "arguments": {"id": "MR7SVX"}}\n</tool_call>user\n<tool_response>\n'
            '{"status": "cancelled"}\n</tool_response>assistantMR7SVX is now cancelled.')
    steps = parse_text(text).steps
    assert [type(s).__name__ for s in steps] == ["AssistantTurn", "ToolMessage", "AssistantTurn"]
    assert steps[-1].text == "MR7SVX is now cancelled."
    plain = parse_text('<tool_response>\n{"a": 1}\n</tool_response>\nuser123 is the login you asked for.')
    assert plain.steps[-1].text == "user123 is the login you asked for."
