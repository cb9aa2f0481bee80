"""An OpenAI-compatible chat completions client (``vllm serve``, ``transformers serve``, hosted APIs).

Async with ``httpx`` (the ``covert[openai]`` extra): ``concurrency`` asyncio workers share the batch, so
at most that many requests are in flight; retries with exponential backoff on 429, 5xx, timeouts and
dropped connections (``max_attempts`` in all, ``Retry-After`` honoured up to ``max_backoff``);
``response_format`` JSON schema; tool calls whose ``arguments`` come back as JSON strings parsed into
dicts. The API key, if any, is read from ``OPENAI_API_KEY``.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from covert.llm.base import Backend, BackendUnavailable, ChatRequest, Completion, OnComplete, one_line
from covert.llm.parse import finalize

try:
    import httpx
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise BackendUnavailable("the openai backend needs httpx: pip install 'covert[openai]'") from exc


def http_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as the OpenAI API expects them: assistant tool-call ``arguments`` as JSON strings."""
    out = []
    for message in messages:
        calls = message.get("tool_calls")
        if calls and any(not isinstance((c.get("function") or {}).get("arguments"), str) for c in calls):
            message = copy.deepcopy(message)
            for call in message["tool_calls"]:
                function = call.setdefault("function", {})
                if not isinstance(function.get("arguments"), str):
                    function["arguments"] = json.dumps(function.get("arguments") or {}, ensure_ascii=False)
        out.append(message)
    return out


class OpenAIBackend(Backend):
    """Chat completions over HTTP at ``base_url`` (for example ``http://127.0.0.1:8000/v1``).

    ``model`` is sent as the request's ``model``; without one the field is left out and the server's
    only model answers. ``structured=False`` leaves ``response_format`` out (the output is still
    validated against the schema here).
    """

    kind = "openai"

    def __init__(self, base_url: str, model: str | None = None, *, concurrency: int = 8, max_attempts: int = 5,
                 timeout: float = 120.0, connect_timeout: float = 2.0, backoff: float = 0.5,
                 max_backoff: float = 30.0, structured: bool = True, api_key: str | None = None) -> None:
        super().__init__()
        if concurrency < 1 or max_attempts < 1:
            raise ValueError("concurrency and max_attempts must be at least 1")
        self.base_url = base_url.rstrip("/")
        self.model = model or None
        self.model_id = model or self.base_url
        self.concurrency = concurrency
        self.max_attempts = max_attempts
        self.timeout = httpx.Timeout(timeout, connect=connect_timeout)
        self.connect_timeout = connect_timeout
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.structured = structured
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.stats.update(retries=0, peak_in_flight=0)
        self._in_flight = 0

    # -- public API ---------------------------------------------------------------------------------

    def check_reachable(self) -> None:
        """``GET {base_url}/models`` with a short timeout; any HTTP answer but 401/403 counts as reachable."""
        try:
            response = httpx.get(f"{self.base_url}/models", headers=self.headers,
                                 timeout=httpx.Timeout(self.connect_timeout * 3, connect=self.connect_timeout))
        except httpx.TimeoutException:
            raise BackendUnavailable(f"LLM server at {self.base_url} did not answer within "
                                     f"{self.connect_timeout * 3:g} s") from None
        except httpx.HTTPError as exc:
            raise BackendUnavailable(f"cannot reach the LLM server at {self.base_url}: "
                                     f"{one_line(str(exc) or type(exc).__name__, 160)}") from None
        if response.status_code in (401, 403):
            raise BackendUnavailable(f"LLM server at {self.base_url} refused the API key "
                                     f"(HTTP {response.status_code}); set OPENAI_API_KEY")

    def generate(self, requests: Sequence[ChatRequest], on_complete: OnComplete | None = None) -> list[Completion]:
        """Send every request (bounded concurrency, retries) and validate every answer."""
        coroutine = self._run(list(requests), on_complete)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coroutine)
        with ThreadPoolExecutor(max_workers=1) as pool:  # called from inside an event loop
            return pool.submit(asyncio.run, coroutine).result()

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of the chat completion request."""
        s = request.sampling
        body: dict[str, Any] = {"messages": http_messages(request.messages), "temperature": s.temperature,
                                "top_p": s.top_p, "max_tokens": s.max_tokens}
        if self.model is not None:
            body["model"] = self.model
        if s.seed is not None:
            body["seed"] = s.seed
        if s.stop:
            body["stop"] = list(s.stop)
        if request.tools:
            body["tools"] = request.tools
        if request.json_schema is not None and self.structured:
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "output", "schema": request.json_schema, "strict": True}}
        return body

    # -- internals ----------------------------------------------------------------------------------

    async def _run(self, requests: list[ChatRequest], on_complete: OnComplete | None) -> list[Completion]:
        results: list[Completion] = [Completion()] * len(requests)
        todo = iter(range(len(requests)))
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        async with httpx.AsyncClient(timeout=self.timeout, limits=limits, headers=self.headers) as client:

            # `concurrency` workers share one queue of indices: at most that many requests are in flight,
            # and a batch of any size costs `concurrency` tasks, not one per request.
            async def worker() -> None:
                for i in todo:
                    self._in_flight += 1
                    self.stats["peak_in_flight"] = max(self.stats["peak_in_flight"], self._in_flight)
                    try:
                        completion = await self._complete(client, requests[i])
                    except Exception as exc:  # never raise for one request
                        completion = Completion.failure(f"backend_error: {type(exc).__name__}: {exc}")
                    finally:
                        self._in_flight -= 1
                    self.stats["requests"] += 1
                    results[i] = completion
                    if on_complete is not None:
                        on_complete(i, completion)

            await asyncio.gather(*(worker() for _ in range(min(self.concurrency, len(requests)))))
        return results

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        delay = self.backoff * 2 ** (attempt - 1)
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, self.max_backoff)

    async def _complete(self, client: httpx.AsyncClient, request: ChatRequest) -> Completion:
        body = self.body(request)
        url = f"{self.base_url}/chat/completions"
        failure = "backend_error"
        retry_after: float | None = None
        for attempt in range(self.max_attempts):
            if attempt:
                self.stats["retries"] += 1
                await asyncio.sleep(self._delay(attempt, retry_after))
            retry_after = None
            try:
                response = await client.post(url, json=body)
            except httpx.TimeoutException:
                failure = "timeout"
                continue
            except httpx.TransportError as exc:
                failure = f"connection_error: {type(exc).__name__}"
                continue
            status = response.status_code
            if status == 429 or status >= 500:
                failure = f"http_{status}: {response.text[:200]}"
                retry_after = _retry_after(response.headers.get("retry-after"))
                continue
            if status >= 400:
                return Completion.failure(f"http_{status}: {response.text[:200]}")
            return _from_response(request, response)
        return Completion.failure(f"{failure} (after {self.max_attempts} attempts)")


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _from_response(request: ChatRequest, response: httpx.Response) -> Completion:
    """Validate one chat completion response body."""
    try:
        data = response.json()
        choice = data["choices"][0]
        message = choice.get("message") or {}
        raw_calls, ids = [], []
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            raw_calls.append((str(function.get("name", "")), function.get("arguments", "")))
            ids.append(str(call.get("id") or f"call_{len(ids)}"))
        usage = data.get("usage") or {}
        text = message.get("content") or ""
        if not isinstance(text, str):
            raise TypeError("message content is not text")
        finish = str(choice.get("finish_reason") or "")
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        completion_tokens = int(usage.get("completion_tokens") or 0)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        return Completion.failure(f"bad_response: {type(exc).__name__}: {exc}")
    return finalize(request, text, raw_calls=raw_calls, call_ids=ids, finish_reason=finish,
                    prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
