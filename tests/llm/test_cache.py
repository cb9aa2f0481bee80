"""The content-addressed completion cache: no request is paid for twice, interrupted runs resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from covert.llm import (
    CachedBackend,
    ChatRequest,
    Completion,
    DiskCache,
    SamplingParams,
    backend_from_spec,
    open_backend,
    request_key,
)
from tests.llm.tiny_models import JSON_PROMPT, QUERY_SCHEMA, TOOL_PROMPT, TOOLS


def _requests() -> list[ChatRequest]:
    return [ChatRequest(TOOL_PROMPT, tools=TOOLS, sampling=SamplingParams(max_tokens=60)),
            ChatRequest(JSON_PROMPT, json_schema=QUERY_SCHEMA, sampling=SamplingParams(max_tokens=30)),
            ChatRequest([{"role": "user", "content": "Anything"}], json_schema=QUERY_SCHEMA,
                        sampling=SamplingParams(max_tokens=8, temperature=1.0, seed=1)),
            ChatRequest([{"role": "user", "content": "Anything"}], json_schema=QUERY_SCHEMA,
                        sampling=SamplingParams(max_tokens=8, temperature=1.0, seed=2)),
            ChatRequest([{"role": "user", "content": "Something else"}], sampling=SamplingParams(max_tokens=8))]


def test_keys_cover_backend_model_request_and_seed() -> None:
    request = ChatRequest([{"role": "user", "content": "hi", "name": "u"}], json_schema={"type": "object"})
    reordered = ChatRequest([{"name": "u", "content": "hi", "role": "user"}], json_schema={"type": "object"})
    key = request_key("hf", "/m", request)
    assert len(key) == 64 and key == request_key("hf", "/m", reordered)
    assert key != request_key("vllm", "/m", request)
    assert key != request_key("hf", "/other", request)
    assert key != request_key("hf", "/m", ChatRequest(request.messages, json_schema={"type": "array"}))
    reseeded = ChatRequest(request.messages, json_schema={"type": "object"}, sampling=SamplingParams(seed=1))
    assert key != request_key("hf", "/m", reseeded)


def test_entries_are_sharded_and_written_atomically(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    key = request_key("hf", "/m", ChatRequest(JSON_PROMPT))
    completion = Completion(text="x", finish_reason="stop", completion_tokens=1)
    cache.put(key, completion)
    path = tmp_path / key[:2] / key[2:4] / f"{key}.json"
    assert cache.path(key) == path and json.loads(path.read_text())["key"] == key
    assert cache.get(key) == completion and len(cache) == 1
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind
    path.write_text('{"key": "' + key + '", "completion": {"te')  # a torn file (not written by put)
    assert cache.get(key) is None
    assert cache.get("0" * 64) is None


@pytest.mark.slow
def test_second_run_makes_no_backend_calls(trained_model_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    inner = backend_from_spec(f"hf:{trained_model_dir}")
    cached = CachedBackend(inner, tmp_path / "cache")
    requests = _requests()
    first = cached.generate([*requests, requests[1]])  # a repeat inside the batch is sent once
    assert inner.stats["requests"] == len(requests)
    assert cached.stats == {"requests": 6, "hits": 0, "misses": 5, "duplicates": 1}
    assert first[1] == first[5] and first[1].parsed == {"query": "where is my order"}
    assert first[0].tool_calls[0].arguments == {"order_id": "#W123"}
    assert first[2].error is not None  # rejected outputs are cached too: asking again gives the same

    again = open_backend(f"hf:{trained_model_dir}", cache_dir=tmp_path / "cache")
    assert isinstance(again, CachedBackend)
    second = again.generate(requests)
    assert again.backend.stats["requests"] == 0 and again.stats["hits"] == len(requests)
    assert [c.to_dict() for c in second] == [c.to_dict() for c in first[:5]]


@pytest.mark.slow
def test_interrupted_run_resumes_without_paying_again(trained_model_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    requests = _requests()
    interrupted = CachedBackend(backend_from_spec(f"hf:{trained_model_dir}"), tmp_path / "cache")

    def stop_after_two(index: int, completion: Completion) -> None:
        if index == 1:
            raise KeyboardInterrupt  # what Ctrl-C does in the middle of a batch

    with pytest.raises(KeyboardInterrupt):
        interrupted.generate(requests, on_complete=stop_after_two)
    assert len(interrupted.cache) == 2
    # a write that died half-way leaves only a temporary file, which is ignored
    shard = interrupted.cache.path(request_key("hf", interrupted.model_id, requests[2])).parent
    shard.mkdir(parents=True, exist_ok=True)
    (shard / ".partial.123.0.tmp").write_text('{"key": ')

    resumed = CachedBackend(backend_from_spec(f"hf:{trained_model_dir}"), tmp_path / "cache")
    completions = resumed.generate(requests)
    assert resumed.stats["hits"] == 2 and resumed.stats["misses"] == 3
    assert resumed.backend.stats["requests"] == 3 and len(resumed.cache) == 5
    fresh = backend_from_spec(f"hf:{trained_model_dir}").generate(requests)
    assert [c.to_dict() for c in completions] == [c.to_dict() for c in fresh]


def test_transient_failures_are_not_cached(tmp_path: Path) -> None:
    pytest.importorskip("httpx")
    import socket

    with socket.socket() as sock:  # bound, not listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        inner = backend_from_spec(f"openai:http://127.0.0.1:{sock.getsockname()[1]}/v1", max_attempts=1)
        cached = CachedBackend(inner, tmp_path / "cache")
        (first,) = cached.generate([ChatRequest(JSON_PROMPT)])
        (second,) = cached.generate([ChatRequest(JSON_PROMPT)])
    assert first.reason == second.reason == "connection_error"
    assert len(cached.cache) == 0 and cached.stats["misses"] == 2 and inner.stats["requests"] == 2
