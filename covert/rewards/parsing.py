"""Reading a completion: OpenAI-style message lists, hermes ``<tool_call>`` text, python-style
``[f(a=1), g()]`` text and JSON call lists, all into one :class:`Transcript`.

Parsing never raises: whatever cannot be read is dropped, counted (an unreadable tool call still
counts as a call that matches nothing) and explained in ``Transcript.reasons``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Union

import orjson

MAX_NAME = 200
MAX_PYTHON_TEXT = 200_000
MAX_TEXT_CALLS = 256  # calls read from one completion, in any syntax; more score 0 unread
MAX_MESSAGES = 512  # messages (or role headers and tool-response blocks of a raw text) read from one completion
# a name followed by "(": an upper bound on the calls of a python-style list, counted before it is parsed
# (a name in a string argument counts too; a list with more than four per call read is refused unread)
_CALL_LIKE = re.compile(r"[A-Za-z_][\w.]*[ \t]*\(")
# operators, brackets and separators of a python-style list, counted before it is parsed: the parse and
# the literal reading cost about 3 us per token (a string literal is one token, however long)
_STRUCTURE = ",:+-*/%[](){}.=<>|&^~@"
MAX_PYTHON_STRUCTURE = 8192
# string literals, left out of that count (a quote inside is escaped); an f-string's braces hold code the
# parser reads, so a text with one is counted whole
_STRING = re.compile(r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'|\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\"")
_FSTRING = re.compile(r"(?<!\w)(?:[fF][rRbB]?|[rRbB][fF])['\"]")
# a role header; a detokenizer may drop the newline after the role, so the role is a known name, not the whole
# word ("<|im_start|>assistantMR7SVX is cancelled" is the assistant saying "MR7SVX is cancelled")
_ROLES = r"(?:assistant|user|tool|system|ipython|developer)(?=[\sA-Z<\[{\"']|$)"
_ROLE_HEADER = re.compile(rf"<\|im_start\|>[ \t]*({_ROLES}|\w+)|<\|start_header_id\|>[ \t]*(\w+)[ \t]*<\|end_header_id\|>")
# a chat-template token, with the role name that may follow it (<|im_start|>assistant)
_SPECIAL = re.compile(rf"<\|[^|<>\s]{{1,40}}\|>(?:\s*{_ROLES})?")


@dataclass(frozen=True)
class ToolCall:
    """One call an assistant made."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class AssistantTurn:
    """One assistant message: its text, the calls it made, and how many calls could not be read."""

    text: str
    calls: tuple[ToolCall, ...] = ()
    invalid: int = 0


@dataclass(frozen=True)
class ToolMessage:
    """A tool result that appeared in the completion."""

    name: str
    content: str


@dataclass(frozen=True)
class UserMessage:
    """A user message inside the completion (a simulated user's reply)."""

    text: str


Step = Union[AssistantTurn, ToolMessage, UserMessage]


@dataclass
class Transcript:
    """A completion, read: its steps in order and what could not be read."""

    steps: list[Step] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    readable: bool = True

    @property
    def turns(self) -> list[AssistantTurn]:
        """The assistant turns."""
        return [s for s in self.steps if isinstance(s, AssistantTurn)]

    @property
    def calls(self) -> list[ToolCall]:
        """Every readable call, in order."""
        return [c for t in self.turns for c in t.calls]

    @property
    def invalid_calls(self) -> int:
        """Calls that could not be read."""
        return sum(t.invalid for t in self.turns)

    @property
    def final_text(self) -> str:
        """The final answer: the text of the last step if it is an assistant turn, else ""."""
        last = self.steps[-1] if self.steps else None
        return last.text if isinstance(last, AssistantTurn) else ""


def parse_completion(completion: Any, max_calls: int = MAX_TEXT_CALLS, max_messages: int = MAX_MESSAGES) -> Transcript:
    """Read a completion: a list of OpenAI-style messages, one message dict, or raw assistant text. A
    completion with more than ``max_calls`` calls or ``max_messages`` messages is refused unread."""
    if isinstance(completion, str):
        return parse_text(completion, max_calls, max_messages)
    if isinstance(completion, dict):
        return parse_messages([completion], max_calls, max_messages)
    if isinstance(completion, (list, tuple)):
        return parse_messages(list(completion), max_calls, max_messages)
    return Transcript(reasons=[f"parse:bad_completion: a completion is text or a list of messages, not {type(completion).__name__}"],
                      readable=False)


def parse_messages(messages: list[Any], max_calls: int = MAX_TEXT_CALLS, max_messages: int = MAX_MESSAGES) -> Transcript:
    """Read OpenAI-style messages (``assistant`` with ``tool_calls``, ``tool``, ``user``; ``system`` is skipped).

    At most ``max_messages`` messages and ``max_calls`` listed calls are read: more are refused (score
    0) after counting them, before anything is parsed."""
    if len(messages) > max_messages:
        return Transcript(reasons=[f"parse:too_many_messages: {len(messages)} messages (at most {max_messages} "
                                   "are read)"], readable=False)
    listed = sum(len(m["tool_calls"]) for m in messages
                 if isinstance(m, dict) and isinstance(m.get("tool_calls"), list))
    if listed > max_calls:
        return _too_many_calls(f"{listed} tool calls", max_calls)
    transcript = Transcript()
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            transcript.reasons.append(f"parse:bad_message: message {index} is not an object")
            continue
        role = message.get("role")
        if role == "assistant":
            transcript.steps.extend(_assistant_message(message, transcript.reasons, max_calls))
        elif role in ("tool", "function", "ipython"):
            name = message.get("name")
            transcript.steps.append(ToolMessage(name if isinstance(name, str) else "", _text_of(message.get("content"))))
        elif role == "user":
            transcript.steps.append(UserMessage(_text_of(message.get("content"))))
        elif role != "system":
            transcript.reasons.append(f"parse:bad_message: message {index} has role {_short(role)}")
    return transcript


def parse_text(text: str, max_calls: int = MAX_TEXT_CALLS, max_messages: int = MAX_MESSAGES) -> Transcript:
    """Read raw assistant text, possibly a whole multi-turn rollout rendered by a chat template.

    Role headers (``<|im_start|>user``, ``<|start_header_id|>user<|end_header_id|>``) split the text
    into messages; ``<tool_response>`` blocks are tool results (they also separate assistant turns when
    there are no headers); a user block without them is a user message. Each assistant turn's calls are
    hermes ``<tool_call>`` blocks, a python-style list ``[f(a=1)]`` or a JSON list of
    ``{"name", "arguments"}``.
    """
    blocks = text.count("<tool_call>")
    if blocks > max_calls:
        # counted before anything is parsed: a text of thousands of calls costs one scan, not a parse
        return _too_many_calls(f"{blocks} tool-call blocks", max_calls)
    messages = sum(text.count(marker) for marker in ("<|im_start|>", "<|start_header_id|>", "<tool_response>"))
    if messages > max_messages:
        return Transcript(reasons=[f"parse:too_many_messages: {messages} role headers and tool responses "
                                   f"(at most {max_messages} are read)"], readable=False)
    transcript = Transcript()
    position, role = 0, "assistant"
    for match in _ROLE_HEADER.finditer(text):
        _add_block(transcript, role, text[position:match.start()], max_calls)
        role = (match.group(1) or match.group(2)).lower()
        position = match.end()
    _add_block(transcript, role, text[position:], max_calls)
    return transcript


def tagged(text: str, opening: str, closing: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, body)`` of each ``opening ... closing`` block of ``text`` in order (an unclosed
    block runs to the end), found with ``str.find``: linear, and at C speed (a lazy regex over a
    megabyte costs tens of milliseconds)."""
    position = 0
    while True:
        start = text.find(opening, position)
        if start < 0:
            return
        body = start + len(opening)
        stop = text.find(closing, body)
        if stop < 0:
            yield start, len(text), text[body:]
            return
        yield start, stop + len(closing), text[body:stop]
        position = stop + len(closing)


def without_tagged(text: str, opening: str, closing: str, replacement: str) -> str:
    """``text`` with each block of :func:`tagged` replaced by ``replacement``."""
    if opening not in text:
        return text
    parts, position = [], 0
    for start, end, _body in tagged(text, opening, closing):
        parts.append(text[position:start])
        position = end
    parts.append(text[position:])
    return replacement.join(parts)


def _too_many_calls(what: str, max_calls: int) -> Transcript:
    return Transcript(reasons=[f"parse:too_many_calls: {what} (at most {max_calls} are read)"], readable=False)


def _add_block(transcript: Transcript, role: str, block: str, max_calls: int = MAX_TEXT_CALLS) -> None:
    if role == "system":
        return
    position = 0
    for start, end, body in tagged(block, "<tool_response>", "</tool_response>"):
        if role == "assistant":
            _add_segment(transcript, _after_tool(block[position:start], position), max_calls)
        transcript.steps.append(ToolMessage("", body.strip()))
        position = end
    rest = block[position:]
    if role == "assistant":
        _add_segment(transcript, _after_tool(rest, position), max_calls)
    elif role == "user" and position == 0:
        cleaned = _clean(rest)
        if cleaned:
            transcript.steps.append(UserMessage(cleaned))
    elif role != "user" and position == 0 and _clean(rest):
        transcript.steps.append(ToolMessage("", _clean(rest)))


# what a chat template's role header leaves after a tool response once its special tokens are skipped
# ("</tool_response>assistantMR7SVX is cancelled"): the role name, glued to the turn's text
_BARE_ROLE = re.compile(rf"^\s*{_ROLES}[ \t]*\n?")


def _after_tool(segment: str, position: int) -> str:
    """A text that follows a tool response (``position`` > 0) without the role name a decoder that skips
    special tokens leaves at its start."""
    return _BARE_ROLE.sub("", segment, count=1) if position else segment


def _add_segment(transcript: Transcript, segment: str, max_calls: int = MAX_TEXT_CALLS) -> None:
    cleaned = _clean(segment)
    if not cleaned:
        return
    calls, invalid, rest, reasons = parse_calls_in_text(cleaned, max_calls)
    transcript.reasons.extend(reasons)
    transcript.steps.append(AssistantTurn(rest, tuple(calls), invalid))


def _clean(segment: str) -> str:
    return _SPECIAL.sub("\n", without_tagged(segment, "<think>", "</think>", "")).strip()


def parse_calls_in_text(text: str, max_calls: int = MAX_TEXT_CALLS) -> tuple[list[ToolCall], int, str, list[str]]:
    """The calls in one assistant text, how many could not be read, the text without them, and reasons."""
    if "<tool_call>" in text:
        return parse_hermes(text)
    stripped = text.strip()
    if stripped[:1] == "[" and stripped[-1:] == "]" and "(" in stripped:
        calls, invalid, reasons = parse_python_calls(stripped, max_calls)
        if calls or invalid:
            return calls, invalid, "", reasons
    if stripped[:1] in "[{" and stripped[-1:] in "]}" and '"name"' in stripped:
        calls, invalid, reasons = _json_calls(stripped, max_calls)
        if calls or invalid:
            return calls, invalid, "", reasons
    return [], 0, stripped, []


def parse_hermes(text: str) -> tuple[list[ToolCall], int, str, list[str]]:
    """Hermes-style calls: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks.

    Returns the calls, the number of blocks that could not be read, the text outside the blocks and
    the reasons.
    """
    calls: list[ToolCall] = []
    reasons: list[str] = []
    invalid = 0
    for _start, _end, body in tagged(text, "<tool_call>", "</tool_call>"):
        body = body.strip()
        try:
            payload = orjson.loads(body)
        except (orjson.JSONDecodeError, RecursionError):
            invalid += 1
            reasons.append(f"parse:invalid_json: {_short(body)}")
            continue
        call, reason = _call_from_object(payload)
        if call is None:
            invalid += 1
            reasons.append(reason)
        else:
            calls.append(call)
    rest = without_tagged(text, "<tool_call>", "</tool_call>", " ").strip()
    return calls, invalid, rest, reasons


def parse_python_calls(text: str, max_calls: int = MAX_TEXT_CALLS) -> tuple[list[ToolCall], int, list[str]]:
    """Python-style calls ``[f(a=1, b="x"), pkg.g()]``: keyword arguments whose values are literals.

    Returns the calls, the number of calls that could not be read and the reasons.
    """
    if len(text) > MAX_PYTHON_TEXT:
        return [], 1, [f"parse:too_long: python-style call text of {len(text)} characters"]
    code = text if _FSTRING.search(text) else _STRING.sub("", text)
    structure = sum(code.count(mark) for mark in _STRUCTURE)
    if structure > MAX_PYTHON_STRUCTURE:
        return [], 1, [f"parse:too_long: python-style call text with {structure} operators, brackets and separators "
                       f"(at most {MAX_PYTHON_STRUCTURE} are read)"]
    call_like = sum(1 for _ in _CALL_LIKE.finditer(text))
    if call_like > 4 * max_calls:  # counted before the parse, which costs far more per call
        return [], 1, [f"parse:too_many_calls: {call_like} calls in a python-style list (at most "
                       f"{max_calls} are read)"]
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return [], 1, [f"parse:python_syntax: {type(exc).__name__}"]
    body = tree.body
    nodes = body.elts if isinstance(body, (ast.List, ast.Tuple)) else [body]
    if len(nodes) > max_calls:
        return [], 1, [f"parse:too_many_calls: {len(nodes)} calls in a python-style list (at most "
                       f"{max_calls} are read)"]
    return _collect(nodes, _python_call)


def _python_call(node: ast.AST) -> tuple[ToolCall | None, str]:
    if not isinstance(node, ast.Call):
        return None, "parse:not_a_call: a python-style list holds only calls"
    name = _dotted(node.func)
    if name is None:
        return None, "parse:bad_name: a call's function must be a (dotted) name"
    if node.args:
        return None, f"parse:positional_arguments: {name} takes keyword arguments only"
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return None, f"parse:bad_arguments: {name} uses **"
        try:
            value = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return None, f"parse:not_a_literal: {name}.{keyword.arg}"
        arguments[keyword.arg] = value
    return _checked_call(name, arguments)


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


_NOT_JSON = object()


def _jsonable(value: Any) -> Any:
    """Python literals as JSON data: tuples become lists; anything JSON cannot hold is refused."""
    try:
        return orjson.loads(orjson.dumps(value, default=_tuple_default))
    except (TypeError, orjson.JSONEncodeError, orjson.JSONDecodeError, RecursionError):
        return _NOT_JSON


def _tuple_default(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    raise TypeError


def _json_calls(text: str, max_calls: int = MAX_TEXT_CALLS) -> tuple[list[ToolCall], int, list[str]]:
    names = text.count('"name"')  # every call has one (as do some arguments): counted before the parse
    if names > 4 * max_calls:
        return [], 1, [f"parse:too_many_calls: {names} names in a JSON list (at most {max_calls} calls are read)"]
    try:
        payload = orjson.loads(text)
    except (orjson.JSONDecodeError, RecursionError):
        return [], 0, []
    items = payload if isinstance(payload, list) else [payload]
    if len(items) > max_calls:
        return [], 1, [f"parse:too_many_calls: {len(items)} calls in a JSON list (at most {max_calls} are read)"]
    if not all(isinstance(i, dict) and "name" in i for i in items):
        return [], 0, []
    return _collect(items, _call_from_object)


def _call_from_object(payload: Any) -> tuple[ToolCall | None, str]:
    """A call from ``{"name", "arguments"}`` (``parameters`` is read as ``arguments``)."""
    if not isinstance(payload, dict):
        return None, "parse:bad_call: a tool call is an object with name and arguments"
    if "function" in payload and isinstance(payload["function"], dict):
        payload = payload["function"]
    arguments = payload.get("arguments", payload.get("parameters"))
    return _checked_call(payload.get("name"), arguments)


def _checked_call(name: Any, arguments: Any) -> tuple[ToolCall | None, str]:
    if not isinstance(name, str) or not name or len(name) > MAX_NAME:
        return None, f"parse:bad_name: {_short(name)}"
    if arguments is None:
        return ToolCall(name, {}), ""
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = orjson.loads(arguments)
        except (orjson.JSONDecodeError, RecursionError):
            return None, f"parse:invalid_arguments_json: {name}"
    elif isinstance(arguments, dict):
        arguments = _jsonable(arguments)
        if arguments is _NOT_JSON:
            return None, f"parse:arguments_not_json: {name}"
    if not isinstance(arguments, dict):
        return None, f"parse:arguments_not_object: {name}"
    return ToolCall(name, arguments), ""


def _assistant_message(message: dict[str, Any], reasons: list[str], max_calls: int = MAX_TEXT_CALLS) -> Iterator[AssistantTurn]:
    text = _text_of(message.get("content"))
    raw_calls = message.get("tool_calls")
    if raw_calls is None and isinstance(message.get("function_call"), dict):
        raw_calls = [{"function": message["function_call"]}]
    if raw_calls is None or raw_calls == []:
        calls, invalid, rest, found = parse_calls_in_text(_clean(text), max_calls)
        reasons.extend(found)
        yield AssistantTurn(rest, tuple(calls), invalid)
        return
    if not isinstance(raw_calls, list):
        reasons.append("parse:bad_tool_calls: tool_calls must be a list")
        yield AssistantTurn(_clean(text), (), 1)
        return
    calls, invalid, why = _collect(raw_calls, _call_from_object)
    reasons.extend(why)
    yield AssistantTurn(_clean(text), tuple(calls), invalid)


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    try:
        return orjson.dumps(content).decode()
    except (TypeError, orjson.JSONEncodeError):
        return ""


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:  # noqa: BLE001 - an unprintable value must not escape
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


def _collect(items: Any, read: Any) -> tuple[list[ToolCall], int, list[str]]:
    """Read each item with ``read(item) -> (call | None, reason)``: the calls, how many failed, why."""
    calls: list[ToolCall] = []
    reasons: list[str] = []
    for item in items:
        call, reason = read(item)
        if call is None:
            reasons.append(reason)
        else:
            calls.append(call)
    return calls, len(reasons), reasons
