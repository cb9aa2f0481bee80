"""The transformers backend on tiny local models: garbage is rejected and counted, good output parses."""

from __future__ import annotations

from pathlib import Path

import pytest

from covert.llm import ChatRequest, SamplingParams, ToolCall, backend_from_spec, count_errors
from tests.llm.tiny_models import JSON_PROMPT, QUERY_SCHEMA, TOOL_PROMPT, TOOLS

pytest.importorskip("torch")
pytestmark = pytest.mark.slow

REASONS = {"invalid_json", "empty", "schema_violation"}


def test_random_model_garbage_is_rejected_with_reasons(random_model_dir: Path) -> None:
    backend = backend_from_spec(f"hf:{random_model_dir}")
    backend.check_reachable()
    requests = [ChatRequest([{"role": "user", "content": f"Write query number {i} as JSON."}],
                            json_schema=QUERY_SCHEMA, sampling=SamplingParams(max_tokens=24, temperature=t, seed=i))
                for i, t in enumerate([0.0, 0.0, 1.0, 1.0, 0.7, 1.3])]
    seen = []
    completions = backend.generate(requests, on_complete=lambda i, c: seen.append(i))
    assert seen == list(range(len(requests)))
    assert all(not c.ok and c.parsed is None and not c.transient for c in completions)
    counts = count_errors(completions)
    assert sum(counts.values()) == len(requests) and set(counts) <= REASONS
    assert all(c.completion_tokens > 0 and c.prompt_tokens > 0 for c in completions)
    assert backend.stats["requests"] == len(requests)


def test_trained_model_answers_parse_and_validate(trained_model_dir: Path) -> None:
    backend = backend_from_spec(f"hf:{trained_model_dir}")
    greedy = SamplingParams(max_tokens=60)
    tool, query, wrong = backend.generate([
        ChatRequest(TOOL_PROMPT, tools=TOOLS, sampling=greedy),
        ChatRequest(JSON_PROMPT, json_schema=QUERY_SCHEMA, sampling=greedy),
        ChatRequest(JSON_PROMPT, json_schema={"type": "object", "required": ["intent"]}, sampling=greedy),
    ])
    assert tool.ok and tool.tool_calls == (ToolCall("get_order", {"order_id": "#W123"}, "call_0"),)
    assert tool.finish_reason == "stop"
    assert query.ok and query.parsed == {"query": "where is my order"}
    assert wrong.reason == "schema_violation" and "intent" in wrong.error


def test_seeded_sampling_is_reproducible(random_model_dir: Path) -> None:
    backend = backend_from_spec(f"hf:{random_model_dir}")

    def sample(seed: int) -> str:
        request = ChatRequest(JSON_PROMPT, sampling=SamplingParams(temperature=1.0, max_tokens=16, seed=seed))
        return backend.generate([request])[0].text

    first = [sample(seed) for seed in (1, 2, 3)]
    assert [sample(seed) for seed in (1, 2, 3)] == first
    assert len(set(first)) > 1


def test_stop_strings_and_max_tokens(trained_model_dir: Path) -> None:
    backend = backend_from_spec(f"hf:{trained_model_dir}")
    stopped, cut = backend.generate([
        ChatRequest(JSON_PROMPT, sampling=SamplingParams(max_tokens=60, stop=["my"])),
        ChatRequest(JSON_PROMPT, json_schema=QUERY_SCHEMA, sampling=SamplingParams(max_tokens=5)),
    ])
    assert stopped.ok and stopped.text == '{"query": "where is ' and stopped.finish_reason == "stop"
    assert cut.error == "invalid_json: truncated at max_tokens" and cut.completion_tokens == 5


def test_one_bad_request_does_not_sink_the_batch(trained_model_dir: Path) -> None:
    broken_history = [*TOOL_PROMPT, {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c0", "type": "function", "function": {"name": "get_order", "arguments": "{not json"}}]}]
    backend = backend_from_spec(f"hf:{trained_model_dir}")
    bad, good = backend.generate([ChatRequest(broken_history, tools=TOOLS),
                                  ChatRequest(JSON_PROMPT, json_schema=QUERY_SCHEMA)])
    assert bad.reason == "backend_error" and bad.transient
    assert good.ok


def test_missing_model_fails_every_request_without_raising(tmp_path: Path) -> None:
    backend = backend_from_spec(f"hf:{tmp_path}")
    completions = backend.generate([ChatRequest(JSON_PROMPT), ChatRequest(TOOL_PROMPT)])
    assert [c.reason for c in completions] == ["backend_error", "backend_error"]
