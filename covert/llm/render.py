"""Rendering one chat request into a prompt with the tokenizer's chat template, with that request's tools.

vLLM's ``LLM.chat`` takes one tools list for a whole batch; covert's rows each offer their own tools,
so the local backends render every request themselves and hand the engine token ids.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from covert.llm.base import ChatRequest


def template_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as chat templates expect them: assistant tool-call ``arguments`` as dicts, not JSON text."""
    out = []
    for message in messages:
        calls = message.get("tool_calls")
        if calls and any(isinstance((c.get("function") or {}).get("arguments"), str) for c in calls):
            message = copy.deepcopy(message)
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                if isinstance(function.get("arguments"), str):
                    function["arguments"] = json.loads(function["arguments"] or "{}")
        out.append(message)
    return out


def render_prompt(tokenizer: Any, request: ChatRequest) -> str:
    """The prompt text for ``request``: its messages and its own tools through the chat template."""
    return tokenizer.apply_chat_template(template_messages(request.messages), tools=request.tools or None,
                                         add_generation_prompt=True, tokenize=False)


def render_prompt_ids(tokenizer: Any, request: ChatRequest) -> list[int]:
    """Token ids of :func:`render_prompt` (the template already holds any BOS, so none is added)."""
    return list(tokenizer(render_prompt(tokenizer, request), add_special_tokens=False)["input_ids"])
