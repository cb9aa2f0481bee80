"""The backend seam without any model: specs, requests, output parsing, vLLM params, import cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from covert.llm import (
    SPEC_FORMS,
    BackendUnavailable,
    ChatRequest,
    Completion,
    SamplingParams,
    ToolCall,
    backend_from_spec,
    count_errors,
)
from covert.llm.parse import finalize
from covert.llm.vllm_backend import sampling_kwargs
from tests.fresh_python import run_json
from tests.llm.tiny_models import QUERY_SCHEMA, TOOLS

# -- specs ------------------------------------------------------------------------------------------


def test_specs_pick_the_backend() -> None:
    hf = backend_from_spec("hf:/models/tiny")
    assert (hf.kind, hf.model_id) == ("hf", "/models/tiny")
    vllm = backend_from_spec("vllm:Qwen/Qwen3-0.6B", max_model_len=4096)
    assert (vllm.kind, vllm.model_id, vllm.engine_kwargs) == ("vllm", "Qwen/Qwen3-0.6B", {"max_model_len": 4096})
    pytest.importorskip("httpx")
    with_model = backend_from_spec("openai:http://127.0.0.1:8000/v1#my-model")
    assert (with_model.kind, with_model.base_url, with_model.model) == ("openai", "http://127.0.0.1:8000/v1", "my-model")
    without = backend_from_spec("openai:https://api.example.org/v1/")
    assert (without.base_url, without.model, without.model_id) == ("https://api.example.org/v1", None,
                                                                    "https://api.example.org/v1")


@pytest.mark.parametrize("spec", ["", "vllm", "vllm:", "gpt4", "ollama:llama3", "openai:localhost:8000",
                                  "openai:http://", "hf:  "])
def test_bad_spec_is_a_one_line_value_error(spec: str) -> None:
    with pytest.raises(ValueError) as info:
        backend_from_spec(spec)
    message = str(info.value)
    assert "\n" not in message and SPEC_FORMS in message


def test_vllm_backend_is_unavailable_without_vllm() -> None:
    backend = backend_from_spec("vllm:some/model")
    if __import__("importlib").util.find_spec("vllm") is not None:
        pytest.skip("vLLM is installed here")
    with pytest.raises(BackendUnavailable, match="pip install 'covert\\[vllm\\]'"):
        backend.check_reachable()


def test_vllm_backend_without_vllm_fails_each_request_without_raising() -> None:
    if __import__("importlib").util.find_spec("vllm") is not None:
        pytest.skip("vLLM is installed here")
    seen: list[int] = []
    completions = backend_from_spec("vllm:some/model").generate(
        [ChatRequest([{"role": "user", "content": "q"}])] * 2, on_complete=lambda i, c: seen.append(i))
    assert [c.reason for c in completions] == ["backend_error"] * 2 and seen == [0, 1]
    assert all(c.transient and "pip install" in c.error for c in completions)


def test_hf_backend_without_a_model_dir_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match="no transformers model"):
        backend_from_spec(f"hf:{tmp_path / 'missing'}").check_reachable()


def test_import_is_light_and_only_the_chosen_backend_loads_its_library() -> None:
    script = (
        "import json, sys\n"
        "import covert.llm\n"
        "from covert.llm import backend_from_spec\n"
        "heavy = ('torch', 'vllm', 'httpx', 'transformers', 'ray')\n"
        "loaded = lambda: sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy})\n"
        "after_import = loaded()\n"
        "backend_from_spec('hf:/nowhere'); backend_from_spec('vllm:some/model')\n"
        "after_local = loaded()\n"
        "try:\n"
        "    backend_from_spec('openai:http://127.0.0.1:9/v1')\n"
        "except covert.llm.BackendUnavailable:\n"
        "    pass  # httpx not installed\n"
        "print(json.dumps([after_import, after_local, loaded()]))\n"
    )
    after_import, after_local, after_openai = run_json(script)
    assert after_import == [] and after_local == []
    assert "torch" not in after_openai and "vllm" not in after_openai


# -- requests and completions -----------------------------------------------------------------------


def test_sampling_params_normalise_and_reject_nonsense() -> None:
    assert SamplingParams(temperature=0, stop=["x"]) == SamplingParams(temperature=0.0, stop=("x",))
    assert SamplingParams(stop="END").stop == ("END",)
    for bad in ({"temperature": -1}, {"top_p": 0}, {"max_tokens": 0}):
        with pytest.raises(ValueError):
            SamplingParams(**bad)
    with pytest.raises(ValueError):
        ChatRequest(messages=[])
    with pytest.raises(ValueError):
        ChatRequest(messages=[{"content": "no role"}])


def test_completion_round_trips_through_json() -> None:
    completion = Completion(text="", tool_calls=(ToolCall("get_order", {"order_id": "#W1"}, "c0"),),
                            finish_reason="tool_calls", prompt_tokens=3, completion_tokens=4)
    again = Completion.from_dict(json.loads(json.dumps(completion.to_dict())))
    assert again == completion
    failed = Completion.failure("http_500: line one\nline two")
    assert failed.error == "http_500: line one line two" and failed.reason == "http_500" and failed.transient


# -- output parsing ---------------------------------------------------------------------------------

JSON_REQUEST = ChatRequest([{"role": "user", "content": "q"}], json_schema=QUERY_SCHEMA)
TOOL_REQUEST = ChatRequest([{"role": "user", "content": "q"}], tools=TOOLS)


@pytest.mark.parametrize(("text", "finish", "reason"), [
    ('{"query": "hi"}', "stop", None),
    ('```json\n{"query": "hi"}\n```', "stop", None),
    ('{"query": 3}', "stop", "schema_violation"),
    ('{"query": "hi", "extra": 1}', "stop", "schema_violation"),
    ('{"query": "hi"', "stop", "invalid_json"),
    ('{"query": "h', "length", "invalid_json"),
    ("", "stop", "empty"),
    ("   ", "length", "empty"),
    ("sure, here it is", "stop", "invalid_json"),
])
def test_json_outputs_are_parsed_and_validated(text: str, finish: str, reason: str | None) -> None:
    completion = finalize(JSON_REQUEST, text, finish_reason=finish)
    assert completion.reason == reason
    if reason is None:
        assert completion.parsed == {"query": "hi"}
    else:
        assert completion.parsed is None and "\n" not in completion.error
    if finish == "length" and reason == "invalid_json":
        assert completion.error == "invalid_json: truncated at max_tokens"


def test_tool_calls_from_text_blocks() -> None:
    text = 'Let me check.\n<tool_call>\n{"name": "get_order", "arguments": {"order_id": "#W1"}}\n</tool_call>'
    completion = finalize(TOOL_REQUEST, text)
    assert completion.ok and completion.text == "Let me check."
    assert completion.tool_calls == (ToolCall("get_order", {"order_id": "#W1"}, "call_0"),)


@pytest.mark.parametrize(("raw", "reason"), [
    ([("get_order", '{"order_id": "#W1"}')], None),
    ([("get_order", {"order_id": "#W1"})], None),
    ([("get_order", '{"order_id": ')], "invalid_tool_arguments"),
    ([("get_order", "[1, 2]")], "invalid_tool_arguments"),
    ([("get_order", '{"order_id": 7}')], "tool_schema_violation"),
    ([("get_order", "{}")], "tool_schema_violation"),
    ([("delete_everything", "{}")], "unknown_tool"),
])
def test_server_tool_calls_with_json_string_arguments(raw: list, reason: str | None) -> None:
    completion = finalize(TOOL_REQUEST, "", raw_calls=raw, call_ids=["abc"])
    assert completion.reason == reason
    if reason is None:
        assert completion.tool_calls == (ToolCall("get_order", {"order_id": "#W1"}, "abc"),)


@pytest.mark.parametrize("text", ['<tool_call>{"name": "get_order", "arguments": {"order_id": "#W1"}}',
                                  "<tool_call>not json</tool_call>", '<tool_call>["get_order"]</tool_call>'])
def test_broken_tool_call_blocks_are_rejected(text: str) -> None:
    assert finalize(TOOL_REQUEST, text).reason == "invalid_tool_call"


def test_a_bad_schema_is_a_reason_not_a_crash() -> None:
    request = ChatRequest([{"role": "user", "content": "q"}], json_schema={"type": "no-such-type"})
    assert finalize(request, "{}").reason == "bad_schema"


def test_count_errors() -> None:
    completions = [Completion(text="x"), Completion.failure("invalid_json: a"), Completion.failure("empty"),
                   Completion.failure("invalid_json: b")]
    assert count_errors(completions) == {"invalid_json": 2, "empty": 1}


# -- vLLM sampling params -----------------------------------------------------------------------------


def test_vllm_sampling_kwargs() -> None:
    request = ChatRequest([{"role": "user", "content": "q"}], json_schema=QUERY_SCHEMA,
                          sampling=SamplingParams(temperature=0.7, top_p=0.9, max_tokens=64, seed=5, stop=["\n\n"]))
    assert sampling_kwargs(request) == {"temperature": 0.7, "top_p": 0.9, "max_tokens": 64, "seed": 5,
                                        "stop": ["\n\n"]}
    assert sampling_kwargs(ChatRequest([{"role": "user", "content": "q"}]))["stop"] is None


def test_vllm_structured_outputs_params() -> None:
    pytest.importorskip("vllm")
    from covert.llm.vllm_backend import make_sampling_params

    request = ChatRequest([{"role": "user", "content": "q"}], json_schema=QUERY_SCHEMA,
                          sampling=SamplingParams(temperature=0.5, max_tokens=32, seed=3))
    params = make_sampling_params(request)
    assert params.structured_outputs.json == QUERY_SCHEMA
    assert (params.temperature, params.max_tokens, params.seed) == (0.5, 32, 3)
    assert make_sampling_params(ChatRequest([{"role": "user", "content": "q"}])).structured_outputs is None
