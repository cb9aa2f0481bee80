"""The OpenAI-compatible HTTP backend against real servers on loopback.

- ``transformers serve`` on the tiny trained model: generation, JSON output, tool calls whose
  ``arguments`` the server sends as JSON strings, bounded concurrency.
- A small ``http.server`` endpoint that answers 429/5xx/slowly first: retries and backoff only.
- A port with nothing listening: fail fast with one line.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from covert.llm import (
    BackendUnavailable,
    ChatRequest,
    SamplingParams,
    backend_from_spec,
    open_backend,
)
from tests.llm.tiny_models import JSON_PROMPT, QUERY_SCHEMA, TOOL_PROMPT, TOOLS
from tests.loopback import LoopbackServer, QuietHandler

httpx = pytest.importorskip("httpx")

GREEDY = SamplingParams(max_tokens=60)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- a real OpenAI-compatible server: transformers serve ---------------------------------------------


@pytest.fixture(scope="module")
def served_model(trained_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``transformers serve`` on the tiny trained model at a loopback port; yields the base URL."""
    for module in ("fastapi", "uvicorn", "openai"):
        if __import__("importlib").util.find_spec(module) is None:
            pytest.skip(f"transformers serve needs {module}: pip install 'transformers[serving]'")
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_UPDATE_CHECK": "1", "OMP_NUM_THREADS": "1",
           "TOKENIZERS_PARALLELISM": "false"}
    command = [sys.executable, "-m", "transformers.cli.transformers", "serve", str(trained_model_dir),
               "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", "--log-level", "warning"]
    with open(log, "wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                pytest.skip(f"transformers serve exited ({server.returncode}): {log.read_text()[-500:]}")
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.skip(f"transformers serve did not come up in 120 s: {log.read_text()[-500:]}")
            time.sleep(0.25)
        yield f"{base}/v1"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=20)


@pytest.mark.slow
def test_generation_and_tool_calls_against_transformers_serve(served_model: str) -> None:
    raw = httpx.post(f"{served_model}/chat/completions", timeout=60, json={
        "messages": TOOL_PROMPT, "tools": TOOLS, "temperature": 0.0, "max_tokens": 60}).json()
    sent_arguments = raw["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(sent_arguments, str)  # the server sends arguments as JSON text

    backend = backend_from_spec(f"openai:{served_model}", concurrency=2, backoff=0.05)
    backend.check_reachable()
    requests = [ChatRequest(TOOL_PROMPT, tools=TOOLS, sampling=GREEDY),
                ChatRequest(JSON_PROMPT, json_schema=QUERY_SCHEMA, sampling=GREEDY),
                ChatRequest(JSON_PROMPT, json_schema={"type": "object", "required": ["intent"]}, sampling=GREEDY),
                ChatRequest([{"role": "user", "content": "Something else entirely."}], json_schema=QUERY_SCHEMA,
                            sampling=SamplingParams(max_tokens=12))] * 2
    completions = backend.generate(requests)
    for offset in (0, 4):
        tool, query, wrong, garbage = completions[offset:offset + 4]
        assert tool.ok and tool.finish_reason == "tool_calls"
        assert [(c.name, c.arguments) for c in tool.tool_calls] == [("get_order", json.loads(sent_arguments))]
        assert tool.tool_calls[0].arguments == {"order_id": "#W123"} and tool.tool_calls[0].id
        assert query.ok and query.parsed == {"query": "where is my order"} and query.prompt_tokens > 0
        assert wrong.reason == "schema_violation" and not wrong.transient
        assert garbage.reason in {"invalid_json", "empty", "schema_violation"}
    assert backend.stats["requests"] == len(requests)
    assert 1 <= backend.stats["peak_in_flight"] <= 2
    assert backend.stats["retries"] == 0


@pytest.mark.slow
def test_history_with_tool_results_is_sent_as_openai_messages(served_model: str) -> None:
    history = [*TOOL_PROMPT,
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "c0", "type": "function", "function": {"name": "get_order",
                                                                 "arguments": {"order_id": "#W123"}}}]},
               {"role": "tool", "tool_call_id": "c0", "name": "get_order", "content": '{"status": "shipped"}'}]
    backend = backend_from_spec(f"openai:{served_model}")
    (completion,) = backend.generate([ChatRequest(history, tools=TOOLS, sampling=SamplingParams(max_tokens=8))])
    assert completion.reason != "http_422" and not completion.transient, completion.error
    assert completion.completion_tokens > 0


# -- retries and backoff: a small real HTTP endpoint scripted to fail first --------------------------

OK_BODY = {"choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": '{"query": "hello"}'}}],
           "usage": {"prompt_tokens": 5, "completion_tokens": 4}}


class Scripted(LoopbackServer):
    """Answers POSTs from a script of (status, delay seconds) per request number; then 200."""

    def __init__(self, script: list[tuple[int, float]], hold_for: int = 0) -> None:
        super().__init__(Handler)
        self.script = script
        self.posts = 0
        self.active = 0
        self.max_active = 0
        self.hold_for = hold_for
        self.lock = threading.Condition()


class Handler(QuietHandler):
    server: Scripted

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": []})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        server = self.server
        with server.lock:
            number = server.posts
            server.posts += 1
            server.active += 1
            server.max_active = max(server.max_active, server.active)
            server.lock.notify_all()
            # Hold each request until `hold_for` are in flight together (or a guard time passes), so a
            # client that overshoots its concurrency bound is seen doing so.
            server.lock.wait_for(lambda: server.active >= server.hold_for, timeout=2)
        status, delay = server.script[number] if number < len(server.script) else (200, 0.0)
        time.sleep(delay)
        try:
            if status == 200:
                self._send(200, OK_BODY)
            elif status == 299:  # a 200 whose body is not JSON
                self._send(200, None)
            else:
                self._send(status, {"error": {"message": f"scripted {status}"}}, {"Retry-After": "0"})
        except OSError:
            pass  # the client gave up on a slow answer
        finally:
            with server.lock:
                server.active -= 1

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = b"not json" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def scripted() -> Iterator[Any]:
    servers: list[Scripted] = []

    def start(script: list[tuple[int, float]], hold_for: int = 0) -> Scripted:
        servers.append(Scripted(script, hold_for).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def _one(url: str, **options: Any) -> Any:
    backend = backend_from_spec(f"openai:{url}#tiny", backoff=0.01, **options)
    return backend, backend.generate([ChatRequest(JSON_PROMPT, json_schema=QUERY_SCHEMA)])[0]


def test_retries_429_and_5xx_then_succeeds(scripted: Any) -> None:
    server = scripted([(429, 0.0), (503, 0.0)])
    backend, completion = _one(server.url, max_attempts=4)
    assert completion.ok and completion.parsed == {"query": "hello"}
    assert server.posts == 3 and backend.stats["retries"] == 2


def test_retries_are_bounded(scripted: Any) -> None:
    server = scripted([(500, 0.0)] * 10)
    backend, completion = _one(server.url, max_attempts=3)
    assert completion.reason == "http_500" and "after 3 attempts" in completion.error and completion.transient
    assert server.posts == 3 and backend.stats["retries"] == 2


def test_timeouts_are_retried(scripted: Any) -> None:
    server = scripted([(200, 1.5)])
    backend, completion = _one(server.url, max_attempts=3, timeout=0.3)
    assert completion.ok and server.posts == 2 and backend.stats["retries"] == 1


def test_client_errors_and_bad_bodies_are_not_retried(scripted: Any) -> None:
    server = scripted([(400, 0.0), (299, 0.0)])
    _, bad_request = _one(server.url, max_attempts=4)
    _, bad_body = _one(server.url, max_attempts=4)
    assert bad_request.reason == "http_400" and "scripted 400" in bad_request.error
    assert bad_body.reason == "bad_response"
    assert server.posts == 2


def test_concurrency_is_bounded(scripted: Any) -> None:
    server = scripted([], hold_for=2)
    backend = backend_from_spec(f"openai:{server.url}", concurrency=2)
    completions = backend.generate([ChatRequest(JSON_PROMPT, json_schema=QUERY_SCHEMA)] * 6)
    assert all(c.ok for c in completions) and server.posts == 6
    assert server.max_active == 2 and backend.stats["peak_in_flight"] == 2


def test_request_body(scripted: Any) -> None:
    backend = backend_from_spec("openai:http://127.0.0.1:1/v1#m")
    request = ChatRequest([{"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "get_order", "arguments": {"order_id": "#W1"}}}]}],
        tools=TOOLS, json_schema=QUERY_SCHEMA, sampling=SamplingParams(seed=4, stop=["END"]))
    body = backend.body(request)
    assert body["model"] == "m" and body["seed"] == 4 and body["stop"] == ["END"] and body["tools"] == TOOLS
    assert body["messages"][0]["tool_calls"][0]["function"]["arguments"] == '{"order_id": "#W1"}'
    assert body["response_format"]["json_schema"]["schema"] == QUERY_SCHEMA
    assert "response_format" not in backend_from_spec("openai:http://h/v1", structured=False).body(request)


# -- an unreachable server --------------------------------------------------------------------------


@pytest.fixture()
def refused_url() -> Iterator[str]:
    """A loopback port that is bound but not listening: connections to it are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_unreachable_server_fails_fast_with_one_line(refused_url: str) -> None:
    with pytest.raises(BackendUnavailable) as info:
        open_backend(f"openai:{refused_url}")
    message = str(info.value)
    assert "\n" not in message and refused_url in message and "refused" in message.lower()


def test_unreachable_server_during_generate_returns_errors(refused_url: str) -> None:
    backend = backend_from_spec(f"openai:{refused_url}", max_attempts=2, backoff=0.01)
    completions = backend.generate([ChatRequest(JSON_PROMPT)] * 3)
    assert [c.reason for c in completions] == ["connection_error"] * 3
    assert all(c.transient for c in completions)


def test_generate_works_inside_a_running_event_loop(scripted: Any) -> None:
    import asyncio

    server = scripted([])
    backend = backend_from_spec(f"openai:{server.url}")

    async def main() -> Any:
        return backend.generate([ChatRequest(JSON_PROMPT, json_schema=QUERY_SCHEMA)])

    assert asyncio.run(main())[0].ok
