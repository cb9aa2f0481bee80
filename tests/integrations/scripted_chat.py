"""A scripted OpenAI-compatible chat server for the verifiers tests: each row's assistant turns, in order.

The row is the one whose first user message opens the request; turn k answers the request that already
holds k assistant messages. Tool calls go out with JSON-text arguments, as a model's do.
"""

from __future__ import annotations

import json
from typing import Any

from covert.rewards import oracle_completion
from tests.loopback import LoopbackServer, QuietHandler


def first_query(messages: list[dict[str, Any]]) -> str:
    """The text of the first user message."""
    return next(_text(m["content"]) for m in messages if m["role"] == "user")


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content


def assistant_turns(completion: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in completion if m["role"] == "assistant"]


def corrupted_turns(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The oracle's turns without its questions (a clarify row's right move), every argument value
    wrong, and an answer that states nothing."""
    oracle = json.loads(json.dumps(assistant_turns(oracle_completion(row))))
    turns = [turn for turn in oracle[:-1] if turn.get("tool_calls")] + oracle[-1:]
    for turn in turns:
        for call in turn.get("tool_calls") or []:
            call["function"]["arguments"] = {k: "ZZ-wrong" for k in call["function"]["arguments"]}
    turns[-1]["content"] = "I could not find anything."
    return turns


class ChatServer(LoopbackServer):
    """``POST /v1/chat/completions``: turn k of the script of the row whose query opens the request."""

    def __init__(self, scripts: dict[str, list[dict[str, Any]]]) -> None:
        super().__init__(ChatHandler)
        self.scripts = scripts
        self.requests: list[dict[str, Any]] = []


class ChatHandler(QuietHandler):
    server: ChatServer

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        self.server.requests.append(request)
        script = self.server.scripts[first_query(request["messages"])]
        turn = sum(1 for m in request["messages"] if m["role"] == "assistant")
        step = script[min(turn, len(script) - 1)]
        message: dict[str, Any] = {"role": "assistant", "content": step.get("content") or ""}
        if step.get("tool_calls"):
            message["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["function"]["name"],
                                                   "arguments": json.dumps(c["function"]["arguments"])}}
                                     for c in step["tool_calls"]]
        finish = "tool_calls" if step.get("tool_calls") else "stop"
        head = {"id": f"chatcmpl-{len(self.server.requests)}", "created": 0, "model": request.get("model", "scripted")}
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if request.get("stream"):
            self._stream(head, message, finish, usage)
            return
        body = {**head, "object": "chat.completion", "usage": usage,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, head: dict[str, Any], message: dict[str, Any], finish: str, usage: dict[str, Any]) -> None:
        """The reply as server-sent events: the whole message in one delta, the finish, the usage, [DONE]."""
        delta = {**message, "tool_calls": [{"index": k, **call} for k, call in enumerate(message.get("tool_calls") or [])]}
        if not delta["tool_calls"]:
            del delta["tool_calls"]
        chunks = [{**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**head, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                  {**head, "object": "chat.completion.chunk", "choices": [], "usage": usage}]
        data = b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks) + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def pick_rows(rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` rows, one per kind (augmentation kind and expected behaviour, else builder), each
    opening with a query no other picked row has (the server finds a row's script by its query)."""
    picked: dict[tuple[Any, ...], dict[str, Any]] = {}
    queries: set[str] = set()
    for row in rows:
        kinds = tuple(a.get("kind") for a in row.get("augmentations") or [] if isinstance(a, dict))
        truth = (row.get("reward_model") or {}).get("ground_truth") or {}
        kind = (kinds, truth.get("behaviour")) if kinds else (row.get("environment"),)
        query = first_query(row["prompt"])
        if kind not in picked and query not in queries:
            picked[kind] = row
            queries.add(query)
    return list(picked.values())[:limit]
