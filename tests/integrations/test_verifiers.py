"""covert on verifiers 0.3 (classic API): verifiers' own rollout code against a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

vf = pytest.importorskip("verifiers")

from covert.integrations.verifiers.version import CLASSIC, verifiers_api  # noqa: E402

if verifiers_api() != CLASSIC:
    pytest.skip("verifiers 0.4 is installed: tests/integrations/test_verifiers_v1.py tests it (and "
                "test_verifiers_other_version.py runs this file in a venv with verifiers 0.3)", allow_module_level=True)

from covert.rewards import oracle_completion  # noqa: E402
from tests.integrations.conftest import load  # noqa: E402
from tests.integrations.scripted_chat import (  # noqa: E402
    ChatServer,
    assistant_turns,
    corrupted_turns,
    first_query,
    pick_rows,
)


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


@pytest.fixture(scope="module")
def datasets(covert_data: Path, augmented_data: Path, procgen_data: Path) -> dict[str, Path]:
    return {"rl": covert_data, "rl-multiturn": covert_data, "rl-augmented": augmented_data,
            "rl-procgen": procgen_data}


@pytest.mark.parametrize(("config", "module"), [("rl", "covert.integrations.verifiers"), ("rl-multiturn", "covert_verifiers"),
                                                ("rl-augmented", "covert_verifiers"), ("rl-procgen", "covert_verifiers")])
def test_verifiers_rollouts_of_the_oracle_score_one_and_corrupted_ones_less(
        config: str, module: str, datasets: dict[str, Path], tmp_path: Path, chat: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from covert.integrations.verifiers import CovertMultiTurnEnv, verifiers_dataset

    env = vf.load_environment(module, dataset=str(datasets[config]), config=config,
                              eval_split="train", num_examples=12, cache_dir=str(tmp_path / "cache"))
    every = load(datasets[config], config, tmp_path)
    assert len(env.eval_dataset) == 12 and [r["task_id"] for r in every[:12]] == [
        json.loads(e["info"])["covert_row"]["task_id"] for e in env.eval_dataset]
    rows = pick_rows(every, 12)  # one row per kind, each with its own query (the server's script key)
    env = CovertMultiTurnEnv(dataset=verifiers_dataset(rows), eval_dataset=verifiers_dataset(rows), rubric=env.rubric)
    n = len(rows)
    assert n >= 4
    good = chat({first_query(r["prompt"]): assistant_turns(oracle_completion(r)) for r in rows})
    out = env.evaluate_sync(client=_client(good.url, monkeypatch), model="scripted", num_examples=n,
                            rollouts_per_example=1, max_concurrent=4)
    rewards = [o["reward"] for o in out["outputs"]]
    assert rewards == [1.0] * n, rewards
    # every request showed the model its row's own tools, and no others
    by_query = {first_query(r["prompt"]): {t["function"]["name"] for t in r.get("tools") or []} for r in rows}
    for request in good.requests:
        assert {t["function"]["name"] for t in request.get("tools") or []} == by_query[first_query(request["messages"])]

    bad = chat({first_query(r["prompt"]): corrupted_turns(r) for r in rows})
    out = env.evaluate_sync(client=_client(bad.url, monkeypatch), model="scripted", num_examples=n,
                            rollouts_per_example=1, max_concurrent=4)
    assert all(o["reward"] < 1.0 for o in out["outputs"]), [o["reward"] for o in out["outputs"]]


def test_the_template_user_answers_questions_in_multiturn_rollouts(
        covert_data: Path, tmp_path: Path, chat: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from covert.integrations.verifiers import load_environment

    env = load_environment(str(covert_data), "rl-multiturn", eval_split="train", num_examples=2,
                           cache_dir=str(tmp_path / "cache"))
    rows = load(covert_data, "rl-multiturn", tmp_path)[:2]
    asking = {first_query(r["prompt"]): [{"content": "Could you tell me your favourite colour?"},
                                    *assistant_turns(oracle_completion(r))] for r in rows}
    server = chat(asking)
    out = env.evaluate_sync(client=_client(server.url, monkeypatch), model="scripted", num_examples=2,
                            rollouts_per_example=1, max_concurrent=2)
    second = [r for r in server.requests if sum(m["role"] == "assistant" for m in r["messages"]) == 1]
    assert len(second) == 2
    assert all(r["messages"][-1]["role"] == "user" and r["messages"][-1]["content"] for r in second)
    assert [o["reward"] for o in out["outputs"]] == [1.0, 1.0]  # a question on the way costs nothing
