"""covert on verifiers 0.4 (``verifiers.v1``): the taskset loaded by its id, real rollouts (verifiers'
env server, interception, ``null`` chat harness and covert's MCP tool server, all as verifiers runs them)
against a scripted OpenAI-compatible server, and verifiers' own ``vf-validate`` CLI.

The chat harness is a PEP 723 script that verifiers prepares with ``uv`` (downloading its declared
dependencies); here it runs on this interpreter, which holds them all (openai, mcp 2, httpx, httpx2,
tenacity, certifi), so no download happens. Everything else runs as in a user's eval.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

vf_root = pytest.importorskip("verifiers")

from covert.integrations.verifiers.version import V1, verifiers_api  # noqa: E402

if verifiers_api() != V1:
    pytest.skip("verifiers 0.3 is installed: test_verifiers_other_version.py runs this file in a venv with "
                "verifiers 0.4", allow_module_level=True)

import verifiers.v1 as vf  # noqa: E402
from verifiers.v1.clients import ModelContext  # noqa: E402
from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE  # noqa: E402
from verifiers.v1.runtimes.subprocess import SubprocessRuntime  # noqa: E402

from covert.rewards import oracle_completion  # noqa: E402
from tests.integrations.conftest import load  # noqa: E402
from tests.integrations.scripted_chat import (  # noqa: E402
    ChatServer,
    assistant_turns,
    corrupted_turns,
    first_query,
    pick_rows,
)

ROWS_PER_CONFIG = 4
CONCURRENT_EPISODES = 6


@pytest.fixture(scope="module", autouse=True)
def chat_program_on_this_interpreter() -> None:
    data = CHAT_PROGRAM_SOURCE.encode()
    path = Path(SubprocessRuntime.scripts_dir) / f"{hashlib.sha256(data).hexdigest()}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    SubprocessRuntime._interpreters[str(path)] = sys.executable


@pytest.fixture(scope="module")
def datasets(covert_data: Path, augmented_data: Path, procgen_data: Path) -> dict[str, Path]:
    return {"rl": covert_data, "rl-multiturn": covert_data, "rl-augmented": augmented_data,
            "rl-procgen": procgen_data}


def _env(dataset: Path, config: str, cache: Path, **taskset: Any) -> Any:
    return vf.load_environment(vf.resolve_env_config({"taskset": {
        "id": "covert_verifiers", "dataset": str(dataset), "config": config, "cache_dir": str(cache), **taskset}}))


def _episodes(env: Any, tasks: list[Any], server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """One episode of each task, as verifiers' eval runs them; ``{task key: trace}``."""
    monkeypatch.setenv("COVERT_TEST_KEY", "scripted")
    ctx = ModelContext(model="scripted", client=vf.EvalClientConfig(base_url=server.url, api_key_var="COVERT_TEST_KEY"))

    async def run() -> dict[str, Any]:
        gate = asyncio.Semaphore(CONCURRENT_EPISODES)

        async def one(task: Any) -> tuple[str, Any]:
            async with gate:
                episode = await env.run_episode(task, ctx)
            assert episode.ok and len(episode.traces) == 1, [e.message for e in episode.errors]
            trace = episode.traces[0]
            assert not trace.errors, [e.message[:500] for e in trace.errors]
            return task.key, trace

        async with env.serving():
            return dict(await asyncio.gather(*[one(task) for task in tasks]))

    return asyncio.run(run())


def test_the_taskset_loads_by_its_id_with_the_rows_load_dataset_gives(covert_data: Path, tmp_path: Path) -> None:
    env = _env(covert_data, "rl-multiturn", tmp_path / "cache", num_examples=5)
    assert type(env).__name__ == "CovertEnv" and env.config.agent.harness.id == "null"
    tasks = list(env.taskset)
    rows = load(covert_data, "rl-multiturn", tmp_path)[:5]
    assert [t.data.row for t in tasks] == rows
    assert [t.key for t in tasks] == [r["task_id"] for r in rows]
    assert [[m.model_dump(exclude_none=True) for m in t.data.prompt] for t in tasks] == [r["prompt"] for r in rows]
    assert all(asyncio.run(t.validate(None)) for t in tasks)


@pytest.mark.parametrize("config", ["rl", "rl-multiturn", "rl-augmented", "rl-procgen"])
def test_rollouts_of_the_oracle_score_one_and_corrupted_ones_less(
        config: str, datasets: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(datasets[config], config, tmp_path / "cache")
    rows = pick_rows(load(datasets[config], config, tmp_path), ROWS_PER_CONFIG)
    assert len(rows) >= 3
    wanted = {r["task_id"] for r in rows}
    tasks = [t for t in env.taskset if t.key in wanted]
    good = ChatServer({first_query(r["prompt"]): assistant_turns(oracle_completion(r)) for r in rows}).start()
    try:
        traces = _episodes(env, tasks, good, monkeypatch)
    finally:
        good.stop()
    rewards = {key: trace.reward for key, trace in traces.items()}
    assert rewards == dict.fromkeys(wanted, 1.0), {k: traces[k].info.get("covert") for k, v in rewards.items() if v != 1}
    # every request showed the model the row's own tools (with their schemas), and no others
    tools = {first_query(r["prompt"]): sorted(json.dumps(t["function"], sort_keys=True) for t in r.get("tools") or [])
             for r in rows}
    for request in good.requests:
        shown = sorted(json.dumps(t["function"], sort_keys=True) for t in request.get("tools") or [])
        assert shown == tools[first_query(request["messages"])]
    bad = ChatServer({first_query(r["prompt"]): corrupted_turns(r) for r in rows}).start()
    try:
        traces = _episodes(env, tasks, bad, monkeypatch)
    finally:
        bad.stop()
    assert all(trace.reward < 1.0 for trace in traces.values()), {k: t.reward for k, t in traces.items()}


def test_the_template_user_answers_questions_in_multiturn_rollouts(
        covert_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(covert_data, "rl-multiturn", tmp_path / "cache")
    rows = pick_rows(load(covert_data, "rl-multiturn", tmp_path), 2)
    asking = {first_query(r["prompt"]): [{"content": "Could you tell me your favourite colour?"},
                                         *assistant_turns(oracle_completion(r))] for r in rows}
    server = ChatServer(asking).start()
    try:
        traces = _episodes(env, [t for t in env.taskset if t.key in {r["task_id"] for r in rows}], server, monkeypatch)
    finally:
        server.stop()
    second = [r for r in server.requests if sum(m["role"] == "assistant" for m in r["messages"]) == 1]
    assert len(second) == 2
    assert all(r["messages"][-1]["role"] == "user" and r["messages"][-1]["content"] for r in second)
    assert [t.reward for t in traces.values()] == [1.0, 1.0]  # a question on the way costs nothing


def test_vf_validate_replays_every_oracle_through_verifiers_cli(augmented_data: Path, tmp_path: Path) -> None:
    cli = Path(sys.executable).parent / "vf-validate"
    out = subprocess.run([str(cli), "covert_verifiers", "--taskset.dataset", str(augmented_data),
                          "--taskset.config", "rl-augmented", "--taskset.num-examples", "40",
                          "--taskset.cache-dir", str(tmp_path / "cache"), "--only-gold", "True", "--rich", "False",
                          "--runtime.type", "subprocess", "-o", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=600, env={**os.environ})
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(next((tmp_path / "out").rglob("summary.json")).read_text())
    assert summary["outcomes"]["valid"] == summary["total"] == 40, summary
