"""covert on OpenEnv: the real server (a subprocess on loopback) and the real client (WebSocket)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

pytest.importorskip("openenv.core")

from covert.integrations.openenv import CovertAction, CovertEnv, serve  # noqa: E402
from covert.integrations.openenv.rollout import env_reward, rollout_func  # noqa: E402
from covert.rewards import oracle_completion  # noqa: E402
from tests.integrations.conftest import load  # noqa: E402


@pytest.fixture(scope="module")
def rows(covert_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("openenv-cache")
    return {"rl": load(covert_data, "rl", tmp), "rl-multiturn": load(covert_data, "rl-multiturn", tmp)}


@pytest.fixture(scope="module")
def server(covert_data: Path):
    with serve([str(covert_data)], max_sessions=16) as running:
        yield running


def _one_per_builder(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for row in rows:
        seen.setdefault(row["environment"], row)
    return list(seen.values())


def _actions(completion: list[dict[str, Any]]) -> list[CovertAction]:
    return [CovertAction(content=m.get("content") or "", tool_calls=m.get("tool_calls"))
            for m in completion if m["role"] == "assistant"]


def _play(env: Any, row: dict[str, Any], actions: list[CovertAction]) -> Any:
    result = env.reset(row=row)
    assert result.observation.messages == row["prompt"] and result.observation.tools == row["tools"]
    for action in actions:
        result = env.step(action)
        if result.done:
            return result
    return result


@pytest.mark.parametrize("config", ["rl", "rl-multiturn"])
def test_oracle_trajectories_replay_to_one_on_every_builder(server: Any, rows: dict, config: str) -> None:
    picked = _one_per_builder(rows[config])
    assert len(picked) >= 5
    with CovertEnv(base_url=server.url).sync() as env:
        for row in picked:
            result = _play(env, row, _actions(oracle_completion(row)))
            assert result.done, row["task_id"]
            assert result.reward == 1.0, (row["task_id"], result.observation.reasons)
            assert env.state().done and env.state().reward == 1.0


def test_tool_results_are_the_oracle_outputs_and_user_replies_come_back(server: Any, rows: dict) -> None:
    row = next(r for r in rows["rl-multiturn"] if r["reward_model"]["ground_truth"]["calls"])
    oracle = oracle_completion(row)
    with CovertEnv(base_url=server.url).sync() as env:
        env.reset(row=row)
        first = next(m for m in oracle if m.get("tool_calls"))
        result = env.step(CovertAction(tool_calls=first["tool_calls"]))
        expected = [m for m in oracle if m["role"] == "tool"][: len(first["tool_calls"])]
        assert [m["content"] for m in result.observation.messages] == [m["content"] for m in expected]
        assert not result.done and result.reward is None
        result = env.step(CovertAction(content="Could you tell me your favourite colour?"))
        assert not result.done
        assert result.observation.messages[0]["role"] == "user"
        assert result.observation.messages[0]["content"]


def test_reset_by_index_reads_the_served_dataset(server: Any, rows: dict) -> None:
    with CovertEnv(base_url=server.url).sync() as env:
        result = env.reset(index=3, config="rl")
        assert result.observation.task_id == rows["rl"][3]["task_id"]
        with pytest.raises(RuntimeError, match="not served"):
            env.reset(index=0, dataset="/etc")


def test_a_wrong_trajectory_scores_below_one(server: Any, rows: dict) -> None:
    row = next(r for r in rows["rl"] if len([c for g in r["reward_model"]["ground_truth"]["calls"] for c in g]) >= 2)
    oracle = oracle_completion(row)
    dropped = [m for m in oracle if not m.get("tool_calls")]  # no calls at all, same final answer
    wrong_arguments = orjson.loads(orjson.dumps(oracle))
    call = next(m for m in wrong_arguments if m.get("tool_calls"))["tool_calls"][0]["function"]
    call["arguments"] = {k: "ZZ-not-a-value" for k in call["arguments"]} or {"bogus": 1}
    with CovertEnv(base_url=server.url).sync() as env:
        for completion in (dropped, wrong_arguments, [{"role": "assistant", "content": "I could not find anything."}]):
            result = _play(env, row, _actions(completion))
            assert result.done and result.reward < 1.0, result.observation.components
            assert result.observation.reasons


def test_concurrent_sessions_do_not_share_state(server: Any, rows: dict) -> None:
    writers = [r for r in rows["rl"] if r["reward_model"]["ground_truth"].get("state_diff")][:4]
    assert writers

    async def episode(row: dict[str, Any], act: bool) -> tuple[str, str, float | None]:
        async with CovertEnv(base_url=server.url) as env:
            await env.reset(row=row)
            start = (await env.state()).state_hash
            actions = _actions(oracle_completion(row)) if act else [CovertAction(content="Nothing to do.")]
            result = None
            for action in actions:
                result = await env.step(action)
                await asyncio.sleep(0)
                if result.done:
                    break
            state = await env.state()
            return start, state.state_hash, result.reward

    async def both() -> list[Any]:
        return await asyncio.gather(*[episode(row, act) for row in writers for act in (True, False, True)])

    results = asyncio.run(both())
    for k, row in enumerate(writers):
        acted, idle, acted_again = results[3 * k: 3 * k + 3]
        assert acted[2] == acted_again[2] == 1.0
        assert acted[1] == acted_again[1] == row["reward_model"]["ground_truth"]["final_state_hash"]
        assert acted[0] == idle[0] == idle[1] != acted[1]  # the idle session's state never moved


def test_a_malformed_action_gets_an_error_observation(server: Any, rows: dict) -> None:
    row = rows["rl"][0]
    with CovertEnv(base_url=server.url).sync() as env:
        result = env.step(CovertAction(content="hello"))
        assert result.observation.error and "reset" in result.observation.error
        env.reset(row=row)
        for bad in (CovertAction(tool_calls="get_order"), CovertAction(content=7),
                    CovertAction(tool_calls=[{}] * 65),
                    CovertAction(content="<tool_call>{\"name\": \"x\", \"arguments\": {}}</tool_call>" * 65)):
            result = env.step(bad)
            assert result.observation.error and not result.done
        result = env.step(CovertAction(tool_calls=[{"id": "c1", "type": "function",
                                                    "function": {"name": "get_x", "arguments": "{not json"}}]))
        assert "invalid_arguments_json" in result.observation.error and not result.done
        assert orjson.loads(result.observation.messages[0]["content"])["error"]["code"] == "invalid_tool_call"
        result = env.step(CovertAction(tool_calls=[{"name": "no_such_tool", "arguments": {}}]))
        assert orjson.loads(result.observation.messages[0]["content"])["error"]["code"] == "unknown_tool"
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):  # not an action at all: the protocol says so
            env._run(env.async_client._send_and_receive({"type": "step", "data": {"colour": "blue"}}))
        result = _play(env, row, _actions(oracle_completion(row)))  # the session is still usable
        assert result.reward == 1.0
        result = _play(env, row, [CovertAction(tool_calls=[{"name": "x", "arguments": "{"}]),
                                  *_actions(oracle_completion(row))])
        assert result.done and result.reward < 1.0  # the unreadable call counts against the episode


# --- rollout_func, called as GRPOTrainer calls it -------------------------------------------------


def _tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen3_chat_template

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer, bpe.decoder = pre_tokenizers.ByteLevel(add_prefix_space=False), decoders.ByteLevel()
    bpe.train_from_iterator([], trainers.BpeTrainer(special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                                    initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return PreTrainedTokenizerFast(tokenizer_object=bpe, chat_template=qwen3_chat_template, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", padding_side="left")


def _turn_text(message: dict[str, Any]) -> str:
    calls = "".join("<tool_call>\n" + orjson.dumps({"name": c["function"]["name"],
                                                     "arguments": c["function"]["arguments"]}).decode()
                    + "\n</tool_call>" for c in message.get("tool_calls") or [])
    return (message.get("content") or "") + calls


class ScriptedGeneration:
    """Plays each row's script: turn k of the row whose query the context holds."""

    def __init__(self, tokenizer: Any, scripts: dict[str, list[str]]) -> None:
        self.tokenizer, self.scripts, self.turns = tokenizer, scripts, 0

    def __call__(self, trainer: Any, context: list[int]) -> tuple[list[int], list[float]]:
        text = self.tokenizer.decode(context)
        script = next(s for query, s in self.scripts.items() if query in text)
        turn = text.count("<|im_start|>assistant") - 1
        self.turns += 1
        ids = self.tokenizer(script[min(turn, len(script) - 1)] + "<|im_end|>", add_special_tokens=False)["input_ids"]
        return ids, [-0.5] * len(ids)


def _query(row: dict[str, Any]) -> str:
    return [m for m in row["prompt"] if m["role"] == "user"][-1]["content"]


def test_rollout_func_plays_episodes_as_grpo_trainer_calls_it(server: Any, rows: dict) -> None:
    tokenizer = _tokenizer()
    train = _one_per_builder(rows["rl-multiturn"])[:2] + _one_per_builder(rows["rl"])[:1]
    scripts = {_query(r): [_turn_text(m) for m in oracle_completion(r) if m["role"] == "assistant"] for r in train}
    trainer = SimpleNamespace(processing_class=tokenizer, args=SimpleNamespace(max_completion_length=100_000))
    generation = ScriptedGeneration(tokenizer, scripts)
    rollout = rollout_func(server.url, train, generate=generation)
    prompts = [r["prompt"] for r in train for _ in range(2)]  # RepeatSampler: num_generations copies
    out = rollout(prompts, trainer)
    assert set(out) >= {"prompt_ids", "completion_ids", "logprobs"}
    assert all(len(out[k]) == len(prompts) for k in out)
    assert out["env_reward"] == [1.0] * len(prompts)
    assert env_reward([None] * len(prompts), **{"env_reward": out["env_reward"]}) == out["env_reward"]
    for ids, mask, logprobs in zip(out["completion_ids"], out["env_mask"], out["logprobs"]):
        assert len(ids) == len(mask) == len(logprobs)
        assert 0 in mask and 1 in mask  # tool results / user replies are environment tokens
        assert all(lp == (-0.5 if m else 0.0) for lp, m in zip(logprobs, mask))
    text = tokenizer.decode(out["completion_ids"][0])
    assert "<tool_response>" in text  # the environment's tokens are the chat template's tool turns
    first = oracle_completion(train[0])
    assert next(m for m in first if m["role"] == "tool")["content"] in text

    wrong = {q: ["I am not sure, sorry."] for q in scripts}
    out = rollout_func(server.url, train, generate=ScriptedGeneration(tokenizer, wrong))(prompts[:2], trainer)
    assert all(r < 1.0 for r in out["env_reward"])


def test_grpo_trainer_trains_with_the_rollout_func(server: Any, rows: dict, tmp_path: Path) -> None:
    from datasets import Dataset
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    tokenizer = _tokenizer()
    train_rows = _one_per_builder(rows["rl"])[:2]
    model = Qwen3ForCausalLM(Qwen3Config(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                                         head_dim=8, max_position_embeddings=32768))
    train = Dataset.from_list([{"prompt": r["prompt"]} for r in train_rows])
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, train_dataset=train, reward_funcs=env_reward,
        rollout_func=rollout_func(server.url, train_rows, max_turns=2),
        args=GRPOConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                        max_completion_length=8, report_to="none", use_cpu=True, save_strategy="no"),
    )
    trainer.train()
    assert trainer.state.global_step == 1
    assert trainer.state.log_history and "reward" in trainer.state.log_history[0]


def test_idle_sessions_end_and_free_their_slots(rows: dict) -> None:
    """Issue 32: 64 idle websockets held every slot indefinitely (``session_timeout=None``) and new clients
    got CAPACITY_REACHED. Sessions idle past ``--idle-timeout`` end; the server stays reachable."""
    row = rows["rl"][0]

    async def scenario(url: str) -> tuple[bool, float | None]:
        idle = [CovertEnv(base_url=url) for _ in range(64)]
        for env in idle:
            await env.connect()
        try:
            refused = False
            try:
                async with CovertEnv(base_url=url) as late:
                    await late.reset(row=row)
            except Exception as exc:  # noqa: BLE001 - the server sends CAPACITY_REACHED and closes the socket
                refused = "capacity" in str(exc).lower() or "ConnectionClosed" in type(exc).__name__
            deadline = asyncio.get_running_loop().time() + 60
            while True:  # the reaper looks every max(timeout / 4, 5 s)
                await asyncio.sleep(1)
                try:
                    async with CovertEnv(base_url=url) as late:
                        await late.reset(row=row)
                        return refused, (await late.step(CovertAction(content="Hello."))).reward
                except Exception:  # noqa: BLE001 - still full: wait for the reaper
                    if asyncio.get_running_loop().time() > deadline:
                        raise
        finally:
            for env in idle:
                with contextlib.suppress(Exception):  # the server ended it already
                    await env.close()

    with serve(max_sessions=64, idle_timeout=8.0) as running:
        refused, reward = asyncio.run(scenario(running.url))
    assert refused  # all 64 slots were held while the clients were within the timeout
    assert reward is not None  # a new client got a session once the idle ones were ended
