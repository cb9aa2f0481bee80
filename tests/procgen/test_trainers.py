"""Procedural rows through the trainers' own entry points: verl's dataset class and reward manager with
``covert.rewards.verl.compute_score``, and TRL's GRPOTrainer with ``covert.rewards.trl_reward``, on rows
written by ``covert procgen`` and loaded with ``datasets.load_dataset``."""

from __future__ import annotations

import asyncio
import pickle
from pathlib import Path
from typing import Any

import pytest

datasets = pytest.importorskip("datasets")
torch = pytest.importorskip("torch")

from covert.io.reader import iter_rows  # noqa: E402
from covert.procgen.dataset import ProcgenConfig, build_procgen  # noqa: E402
from covert.rewards import score, trl_reward  # noqa: E402

ENVS = ["knapsack", "sat", "sudoku", "edit_distance"]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pgt") / "ds"
    build_procgen(ProcgenConfig(envs=ENVS, num_tasks=16, seed=5, split_ratios=(1.0, 0.0, 0.0)), out)
    return out


@pytest.fixture(scope="module")
def answers(data: Path) -> dict[str, str]:
    return {row["task_id"]: row["messages"][-1]["content"] for row in iter_rows(data, "sft-procgen")}


def test_verl_reward_manager_scores_procgen_rows(data: Path, answers: dict[str, str]) -> None:
    verl = pytest.importorskip("verl")
    import numpy as np
    from hydra import compose, initialize_config_dir
    from tensordict import TensorDict
    from verl import DataProto
    from verl.trainer.ppo.reward import load_reward_manager
    from verl.utils.dataset.rl_dataset import get_dataset_class

    from tests.tiny_tokenizer import tiny_tool_tokenizer

    tokenizer = tiny_tool_tokenizer()
    train = str(data / "rl-procgen" / "train-00000-of-00001.parquet")
    overrides = [f"data.train_files={train}", f"data.val_files={train}",
                 "reward.custom_reward_function.path=pkg://covert.rewards.verl",
                 "reward.custom_reward_function.name=compute_score", "data.max_prompt_length=16384"]
    with initialize_config_dir(config_dir=str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        config = compose(config_name="ppo_trainer", overrides=overrides)
    dataset = get_dataset_class(config.data)(data_files=config.data.train_files, tokenizer=tokenizer,
                                             config=config.data)
    rows = [dataset[i] for i in range(len(dataset))]
    assert len(rows) == 16
    assert all(row["data_source"].startswith("covert/procgen/") for row in rows)

    def batch(row: dict[str, Any], text: str) -> Any:
        messages = row.get("raw_prompt", row.get("prompt"))
        prompts = torch.tensor(tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, tokenize=True,
                                                             return_dict=False), dtype=torch.int64)
        responses = torch.tensor(tokenizer.encode(text + "<|im_end|>", add_special_tokens=False), dtype=torch.int64)
        ids = torch.cat([prompts, responses])
        tensors = TensorDict({"prompts": prompts[None], "responses": responses[None], "input_ids": ids[None],
                              "attention_mask": torch.ones_like(ids)[None]}, batch_size=1)
        non_tensor = {k: np.array([v]) for k, v in row.items() if not isinstance(v, torch.Tensor)}
        return pickle.loads(pickle.dumps(DataProto(batch=tensors, non_tensor_batch=non_tensor)))

    async def run() -> list[tuple[float, float]]:
        manager = load_reward_manager(config, tokenizer)
        out = []
        for row in rows:
            answer = answers[row["extra_info"]["task_id"]]
            good = (await manager.run_single(batch(row, answer)))["reward_score"]
            bad = (await manager.run_single(batch(row, "Answer: [99]")))["reward_score"]
            out.append((good, bad))
        return out

    results = asyncio.run(run())
    assert results == [(1.0, 0.0)] * len(rows)


def _tokenizer(corpus: list[str]) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen3_chat_template

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=2000, special_tokens=special, show_progress=False,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, chat_template=qwen3_chat_template,
                                        eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.padding_side = "left"
    return tokenizer


def test_trl_grpo_rewards_procgen_rows(data: Path, answers: dict[str, str], tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    train = datasets.load_dataset(str(data), "rl-procgen", split="train", cache_dir=str(tmp_path / "cache"))
    train = train.select(range(4))
    by_prompt = {row["prompt"][-1]["content"]: answers[row["task_id"]] for row in train}
    tokenizer = _tokenizer([*by_prompt, *by_prompt.values(), "Answer: wrong"] * 3)
    calls = {"n": 0}

    class Scripted(Qwen3ForCausalLM):
        """Each prompt's first copy answers with the reference, its second with a wrong answer."""

        def generate(self, input_ids: Any = None, attention_mask: Any = None, **_: Any) -> Any:
            calls["n"] += 1
            seen: dict[str, int] = {}
            texts = []
            for ids, mask in zip(input_ids, attention_mask):
                prompt = tokenizer.decode(ids[mask.bool()])
                key = next(p for p in by_prompt if p in prompt)
                seen[key] = seen.get(key, 0) + 1
                text = by_prompt[key] if seen[key] == 1 else "Answer: wrong"
                texts.append(tokenizer(text + "<|im_end|>", add_special_tokens=False)["input_ids"])
            width = max(len(t) for t in texts)
            tail = torch.tensor([t + [tokenizer.pad_token_id] * (width - len(t)) for t in texts], dtype=input_ids.dtype)
            return torch.cat([input_ids, tail], dim=1)

    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=8, max_position_embeddings=32768,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                         tie_word_embeddings=True)
    torch.manual_seed(0)
    model = Scripted(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    seen: list[tuple[str, Any, float]] = []

    def reward(completions: list[Any], **columns: Any) -> list[float]:
        values = trl_reward(completions, **columns)
        seen.extend(zip(columns["task_id"], completions, values))
        return values

    reward.__name__ = "covert_reward"
    args = GRPOConfig(output_dir=str(tmp_path / "grpo"), per_device_train_batch_size=8, num_generations=2,
                      max_steps=2, max_completion_length=2048, learning_rate=1e-2, logging_steps=1, report_to="none",
                      save_strategy="no", use_cpu=True, shuffle_dataset=False, dataloader_num_workers=0, seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=args, train_dataset=train, processing_class=tokenizer)
    trainer.train()
    assert trainer.state.global_step == 2
    assert any(not torch.equal(a, b.detach()) for a, b in zip(before, model.parameters()))
    right = [v for tid, c, v in seen if "wrong" not in c[-1]["content"]]
    wrong = [v for tid, c, v in seen if "wrong" in c[-1]["content"]]
    assert right and wrong and set(right) == {1.0} and set(wrong) == {0.0}
    for task_id, completion, value in seen:
        row = next(r for r in train if r["task_id"] == task_id)
        assert score(row, completion).value == value
