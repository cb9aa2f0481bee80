"""Per-request prompt rendering with a real (tiny) tokenizer and its tool-aware chat template."""

from __future__ import annotations

from typing import Any

from covert.llm import ChatRequest
from covert.llm.render import render_prompt, render_prompt_ids, template_messages
from tests.llm.tiny_models import OTHER_TOOLS, TOOL_PROMPT, TOOLS


def test_each_request_is_rendered_with_its_own_tools(tiny_tokenizer: Any) -> None:
    requests = [ChatRequest(TOOL_PROMPT, tools=TOOLS), ChatRequest(TOOL_PROMPT, tools=OTHER_TOOLS),
                ChatRequest(TOOL_PROMPT)]
    first, second, plain = (render_prompt(tiny_tokenizer, r) for r in requests)
    assert '"get_order"' in first and "cancel_booking" not in first
    assert '"cancel_booking"' in second and "get_order" not in second
    assert "<tools>" not in plain and "Where is my order #W123?" in plain
    for prompt in (first, second, plain):
        assert prompt.endswith("<|im_start|>assistant")
    expected = tiny_tokenizer.apply_chat_template(TOOL_PROMPT, tools=OTHER_TOOLS, add_generation_prompt=True,
                                                  tokenize=False)
    assert second == expected


def test_prompt_ids_add_no_second_bos(tiny_tokenizer: Any) -> None:
    request = ChatRequest(TOOL_PROMPT, tools=TOOLS)
    ids = render_prompt_ids(tiny_tokenizer, request)
    assert ids == tiny_tokenizer(render_prompt(tiny_tokenizer, request), add_special_tokens=False)["input_ids"]
    assert tiny_tokenizer.decode(ids) == render_prompt(tiny_tokenizer, request)


def test_history_with_json_string_arguments_renders_like_dict_arguments(tiny_tokenizer: Any) -> None:
    def history(arguments: Any) -> list[dict[str, Any]]:
        return [*TOOL_PROMPT,
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c0", "type": "function", "function": {"name": "get_order", "arguments": arguments}}]},
                {"role": "tool", "tool_call_id": "c0", "name": "get_order", "content": '{"status": "shipped"}'}]

    as_text = history('{"order_id": "#W123"}')
    as_dict = history({"order_id": "#W123"})
    assert template_messages(as_text) == as_dict
    assert as_text[1]["tool_calls"][0]["function"]["arguments"] == '{"order_id": "#W123"}'  # input untouched
    rendered = render_prompt(tiny_tokenizer, ChatRequest(as_text, tools=TOOLS))
    assert rendered == render_prompt(tiny_tokenizer, ChatRequest(as_dict, tools=TOOLS))
    assert '"arguments": {"order_id": "#W123"}' in rendered
