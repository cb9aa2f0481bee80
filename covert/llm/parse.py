"""Parsing and validating model output: JSON against a schema, tool calls against their tools.

Every backend funnels its raw result through :func:`finalize`, so every output is checked the same
way and a bad one comes back with a reason instead of raising.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import fastjsonschema

from covert.llm.base import ChatRequest, Completion, ToolCall, canonical_json, one_line

RawCall = tuple[str, Any]
"""A tool call as a backend saw it: ``(name, arguments)`` with arguments a dict or a JSON string."""

_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*\n(.*?)\n?```$", re.DOTALL)


class OutputError(ValueError):
    """A model output that does not parse or validate; ``str()`` is ``"code: detail"``."""


@lru_cache(maxsize=1024)
def _compiled(schema_text: str) -> Any:
    return fastjsonschema.compile(json.loads(schema_text), use_default=False)


def check_schema(value: Any, schema: dict[str, Any], code: str = "schema_violation") -> None:
    """Raise :class:`OutputError` ``code: message`` unless ``value`` validates against ``schema``."""
    try:
        check = _compiled(canonical_json(schema))
    except (fastjsonschema.JsonSchemaDefinitionException, TypeError, ValueError) as exc:
        raise OutputError(f"bad_schema: {exc}") from None
    try:
        check(value)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise OutputError(f"{code}: {exc.message}") from None


def parse_json_output(text: str, schema: dict[str, Any]) -> Any:
    """The JSON value of ``text`` (one optional Markdown code fence allowed), validated against ``schema``."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body:
        raise OutputError("empty")
    try:
        value = json.loads(body)
    except ValueError as exc:
        raise OutputError(f"invalid_json: {exc}") from None
    check_schema(value, schema)
    return value


def split_tool_calls(text: str) -> tuple[str, list[RawCall]]:
    """Split Hermes-style ``<tool_call>{"name": ..., "arguments": ...}</tool_call>`` blocks off ``text``.

    Returns the remaining content and the raw calls; raises :class:`OutputError` on an unterminated
    block or a block that is not a JSON object with a string ``name``.
    """
    calls: list[RawCall] = []
    for block in _TOOL_CALL.findall(text):
        try:
            data = json.loads(block.strip())
        except ValueError as exc:
            raise OutputError(f"invalid_tool_call: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise OutputError("invalid_tool_call: expected an object with a string 'name'")
        calls.append((data["name"], data.get("arguments", {})))
    content = _TOOL_CALL.sub("", text)
    if "<tool_call>" in content:
        raise OutputError("invalid_tool_call: unterminated <tool_call>")
    return content.strip(), calls


def parse_tool_calls(raw: list[RawCall], tools: list[dict[str, Any]] | None,
                     ids: list[str] | None = None) -> tuple[ToolCall, ...]:
    """Tool calls with ``arguments`` parsed (JSON strings decoded) and checked against the offered tools."""
    specs = {t["function"]["name"]: t["function"] for t in tools or () if isinstance(t.get("function"), dict)}
    calls = []
    for i, (name, arguments) in enumerate(raw):
        if specs and name not in specs:
            raise OutputError(f"unknown_tool: {name}")
        args = arguments
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError as exc:
                raise OutputError(f"invalid_tool_arguments: {name}: {exc}") from None
        if not isinstance(args, dict):
            raise OutputError(f"invalid_tool_arguments: {name}: expected a JSON object")
        parameters = specs.get(name, {}).get("parameters")
        if parameters:
            check_schema(args, parameters, code=f"tool_schema_violation: {name}")
        calls.append(ToolCall(name=name, arguments=args, id=ids[i] if ids else f"call_{i}"))
    return tuple(calls)


def finalize(request: ChatRequest, text: str, *, raw_calls: list[RawCall] | None = None,
             call_ids: list[str] | None = None, finish_reason: str = "", prompt_tokens: int = 0,
             completion_tokens: int = 0) -> Completion:
    """Turn a raw result into a validated :class:`Completion`.

    ``raw_calls`` are tool calls the server already separated from the text (OpenAI HTTP); when
    ``None`` and the request offered tools, ``<tool_call>`` blocks are split off the text. With tool
    calls present the output is a tool-use turn; otherwise, with a ``json_schema``, the text must be
    JSON that validates. An output with neither text nor tool calls is ``"empty"``.
    """
    usage = {"finish_reason": finish_reason, "prompt_tokens": prompt_tokens,
             "completion_tokens": completion_tokens}
    text = text or ""
    try:
        if raw_calls is None:
            content, raw_calls = split_tool_calls(text) if request.tools else (text, [])
        else:
            content = text
        calls = parse_tool_calls(raw_calls, request.tools, call_ids)
        parsed = None
        if not calls and request.json_schema is not None:
            try:
                parsed = parse_json_output(content, request.json_schema)
            except OutputError as exc:
                if finish_reason == "length" and str(exc).startswith("invalid_json"):
                    raise OutputError("invalid_json: truncated at max_tokens") from None
                raise
        if not calls and not content.strip():
            raise OutputError("empty")
    except OutputError as exc:
        return Completion(text=text, error=one_line(str(exc)), **usage)
    return Completion(text=content, tool_calls=calls, parsed=parsed, **usage)
