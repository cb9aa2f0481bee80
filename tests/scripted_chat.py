"""An OpenAI-compatible chat server on loopback whose replies a test scripts: a function of the request's
last user message. The real ``covert.llm`` OpenAI backend talks to it, so what is tested is the whole seam
(request, JSON schema, parsing), with the model's answers chosen by the test."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.loopback import LoopbackServer, QuietHandler


class ScriptedChat(LoopbackServer):
    """``POST /v1/chat/completions`` answers ``reply(user_text)``; ``requests`` keeps every request body."""

    def __init__(self, reply: Callable[[str], str]) -> None:
        super().__init__(_Handler)
        self.reply = reply
        self.requests: list[dict[str, Any]] = []

    def backend(self) -> Any:
        """The real OpenAI-compatible backend pointed at this server."""
        from covert.llm import backend_from_spec

        return backend_from_spec(f"openai:{self.url}#scripted", backoff=0.01)


class _Handler(QuietHandler):
    server: ScriptedChat

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        self.server.requests.append(request)
        user = next((m["content"] for m in reversed(request["messages"]) if m["role"] == "user"), "")
        content = self.server.reply(user)
        self._send({"id": f"chatcmpl-{len(self.server.requests)}", "object": "chat.completion", "created": 0,
                    "model": request.get("model", "scripted"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    def _send(self, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
