"""covert on verifiers: verifiers' own rollout code against a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

vf = pytest.importorskip("verifiers")
pytest.importorskip("verifiers.legacy")

from covert.rewards import oracle_completion  # noqa: E402
from tests.integrations.conftest import load  # noqa: E402
from tests.loopback import LoopbackServer, QuietHandler  # noqa: E402


def _query(messages: list[dict[str, Any]]) -> str:
    return next(m["content"] for m in messages if m["role"] == "user")


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
        script = self.server.scripts[_query(request["messages"])]
        turn = sum(1 for m in request["messages"] if m["role"] == "assistant")
        step = script[min(turn, len(script) - 1)]
        message: dict[str, Any] = {"role": "assistant", "content": step.get("content") or ""}
        if step.get("tool_calls"):
            message["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["function"]["name"],
                                                   "arguments": json.dumps(c["function"]["arguments"])}}
                                     for c in step["tool_calls"]]
        body = {"id": f"chatcmpl-{len(self.server.requests)}", "object": "chat.completion", "created": 0,
                "model": request.get("model", "scripted"),
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if step.get("tool_calls") else "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _assistant_turns(completion: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in completion if m["role"] == "assistant"]


def _corrupt(row: dict[str, Any]) -> list[dict[str, Any]]:
    turns = json.loads(json.dumps(_assistant_turns(oracle_completion(row))))
    for turn in turns:
        for call in turn.get("tool_calls") or []:
            call["function"]["arguments"] = {k: "ZZ-wrong" for k in call["function"]["arguments"]}
    turns[-1]["content"] = "I could not find anything."
    return turns


@pytest.fixture()
def chat(request: pytest.FixtureRequest):
    servers: list[ChatServer] = []

    def start(scripts: dict[str, list[dict[str, Any]]]) -> ChatServer:
        servers.append(ChatServer(scripts).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def _client(url: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("COVERT_TEST_KEY", "scripted")
    return vf.ClientConfig(api_base_url=url, api_key_var="COVERT_TEST_KEY", max_retries=0, timeout=30)


@pytest.mark.parametrize("config", ["rl", "rl-multiturn"])
def test_verifiers_rollouts_of_the_oracle_score_one_and_corrupted_ones_less(
        config: str, covert_data: Path, tmp_path: Path, chat: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    env = vf.load_environment("covert.integrations.verifiers", dataset=str(covert_data), config=config,
                              eval_split="train", num_examples=12, cache_dir=str(tmp_path / "cache"))
    rows = load(covert_data, config, tmp_path)[:12]
    assert len(env.eval_dataset) == 12
    good = chat({_query(r["prompt"]): _assistant_turns(oracle_completion(r)) for r in rows})
    out = env.evaluate_sync(client=_client(good.url, monkeypatch), model="scripted", num_examples=12,
                            rollouts_per_example=1, max_concurrent=4)
    rewards = [o["reward"] for o in out["outputs"]]
    assert rewards == [1.0] * 12, rewards
    # every request showed the model its row's own tools, and no others
    by_query = {_query(r["prompt"]): {t["function"]["name"] for t in r["tools"]} for r in rows}
    for request in good.requests:
        assert {t["function"]["name"] for t in request["tools"]} == by_query[_query(request["messages"])]
    assert any(m["role"] == "tool" for m in good.requests[-1]["messages"]) or len(good.requests) > 12

    bad = chat({_query(r["prompt"]): _corrupt(r) for r in rows})
    out = env.evaluate_sync(client=_client(bad.url, monkeypatch), model="scripted", num_examples=12,
                            rollouts_per_example=1, max_concurrent=4)
    assert all(o["reward"] < 1.0 for o in out["outputs"]), [o["reward"] for o in out["outputs"]]


def test_the_template_user_answers_questions_in_multiturn_rollouts(
        covert_data: Path, tmp_path: Path, chat: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from covert.integrations.verifiers import load_environment

    env = load_environment(str(covert_data), "rl-multiturn", eval_split="train", num_examples=2,
                           cache_dir=str(tmp_path / "cache"))
    rows = load(covert_data, "rl-multiturn", tmp_path)[:2]
    asking = {_query(r["prompt"]): [{"content": "Could you tell me your favourite colour?"},
                                    *_assistant_turns(oracle_completion(r))] for r in rows}
    server = chat(asking)
    out = env.evaluate_sync(client=_client(server.url, monkeypatch), model="scripted", num_examples=2,
                            rollouts_per_example=1, max_concurrent=2)
    second = [r for r in server.requests if sum(m["role"] == "assistant" for m in r["messages"]) == 1]
    assert len(second) == 2
    assert all(r["messages"][-1]["role"] == "user" and r["messages"][-1]["content"] for r in second)
    assert [o["reward"] for o in out["outputs"]] == [1.0, 1.0]  # a question on the way costs nothing
