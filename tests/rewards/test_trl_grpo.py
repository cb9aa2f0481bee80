"""covert's environments and reward inside TRL's own GRPOTrainer, on CPU.

A tiny random Qwen3 model with TRL's Qwen3 chat template (a tokenizer trained here, no download)
trains for two steps. Its ``generate`` is scripted: for each prompt it emits, in the template's
``<tool_call>`` format, the next message of the row's oracle (or of a corrupted copy of it), so the
tool calls are parsed and executed by TRL's own tool loop on covert's environment methods, and
covert's reward scores what TRL collected.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")
torch = pytest.importorskip("torch")

from trl import GRPOConfig, GRPOTrainer  # noqa: E402
from trl.chat_template_utils import qwen3_chat_template  # noqa: E402

from covert.io.reader import iter_rows  # noqa: E402
from covert.rewards import environment_factory, score, trl_dataset, trl_reward  # noqa: E402
from covert.rewards.trl import USER_TOOL, user_turns  # noqa: E402

_TOOLS_BLOCK = re.compile(r"<tools>\n(.*?)\n</tools>", re.DOTALL)


def _sft(data: Path, config: str) -> dict[str, dict[str, Any]]:
    return {row["task_id"]: row for row in iter_rows(data, config)}


def _first(ds: Any, predicate: Any) -> Any:
    """The first row of ``ds`` that ``predicate`` accepts, as a one-row dataset."""
    return ds.select([next(i for i, row in enumerate(ds) if predicate(row))])


# ---------------------------------------------------------------- the tiny model and its script


def _tokenizer(corpus: list[str]) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>",
               "</tool_response>", "<think>", "</think>"]
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=3000, special_tokens=special, show_progress=False,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, chat_template=qwen3_chat_template,
                                        eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.padding_side = "left"
    return tokenizer


class Script:
    """The next assistant message for a rendered prompt: its row's oracle plan, or for every second
    copy of a prompt in a generation batch, the row's corrupted plan (which differs from the first
    message on). It records the tools each prompt showed."""

    def __init__(self, plans: dict[str, tuple[list[str], list[str]]]) -> None:
        assert all(oracle[0] != corrupted[0] for oracle, corrupted in plans.values())
        self.plans = plans  # user query -> (oracle messages, corrupted messages)
        self.shown: dict[str, list[dict[str, Any]]] = {}
        self.calls = 0

    def batch(self, prompts: list[str]) -> list[str]:
        self.calls += 1
        seen: Counter[str] = Counter()
        out = []
        for prompt in prompts:
            query = next(q for q in self.plans if f"<|im_start|>user\n{q}<|im_end|>" in prompt)
            oracle, corrupted = self.plans[query]
            step = prompt.count("<|im_start|>assistant") - 1
            if step == 0:
                block = _TOOLS_BLOCK.search(prompt)
                self.shown[query] = [json.loads(line) for line in block.group(1).split("\n")] if block else []
                plan = corrupted if seen[query] % 2 else oracle
                seen[query] += 1
            else:  # the plans differ from their first message on
                plan = corrupted if corrupted[0] in prompt else oracle
            out.append(plan[step] if step < len(plan) else "Done.<|im_end|>")
        return out


def _scripted_model(tokenizer: Any, script: Script) -> Any:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    class ScriptedQwen3(Qwen3ForCausalLM):
        def generate(self, input_ids: Any = None, attention_mask: Any = None, **_: Any) -> Any:
            prompts = [tokenizer.decode(ids[mask.bool()]) for ids, mask in zip(input_ids, attention_mask)]
            texts = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in script.batch(prompts)]
            width = max(len(t) for t in texts)
            tail = torch.tensor([t + [tokenizer.pad_token_id] * (width - len(t)) for t in texts], dtype=input_ids.dtype)
            return torch.cat([input_ids, tail], dim=1)

    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=8, max_position_embeddings=32768,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                         tie_word_embeddings=True)
    torch.manual_seed(0)
    model = ScriptedQwen3(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def _call_text(calls: list[dict[str, Any]]) -> str:
    return "\n".join(f'<tool_call>\n{{"name": "{c["name"]}", "arguments": {json.dumps(c["arguments"])}}}\n</tool_call>'
                     for c in calls) + "<|im_end|>"


def trl_plan(messages: list[dict[str, Any]]) -> list[str]:
    """The oracle conversation after the prompt as the assistant messages a TRL policy generates:
    tool calls in Qwen3's format, and each question to the user as an ``ask_user`` call."""
    start = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
    rest = messages[start:]
    plan = []
    for i, message in enumerate(rest):
        if message["role"] != "assistant":
            continue
        if message.get("tool_calls"):
            plan.append(_call_text([c["function"] for c in message["tool_calls"]]))
        elif i + 1 < len(rest) and rest[i + 1]["role"] == "user":
            plan.append(_call_text([{"name": USER_TOOL, "arguments": {"question": message["content"]}}]))
        else:
            plan.append(message["content"] + "<|im_end|>")
    return plan


def corrupt(plan: list[str], replace_first_call: dict[str, Any] | None = None) -> list[str]:
    """``plan`` with its first tool call broken: another call, or its first string argument altered."""
    out = list(plan)
    index = next(i for i, text in enumerate(out) if "<tool_call>" in text and f'"{USER_TOOL}"' not in text)
    body = json.loads(out[index].split("<tool_call>\n", 1)[1].split("\n</tool_call>", 1)[0])
    if replace_first_call is not None:
        body = replace_first_call
    else:
        key = next(k for k, v in body["arguments"].items() if isinstance(v, str))
        body["arguments"][key] += "X"
    out[index] = _call_text([body])
    return out


def _expected_schema(spec: dict[str, Any]) -> dict[str, Any]:
    """A row's tool spec less what a method signature cannot carry (what TRL shows of it):
    parameter ``default`` values, descriptions of array items, an empty ``required`` list."""
    spec = copy.deepcopy(spec)
    parameters = spec["function"]["parameters"]
    for prop in parameters["properties"].values():
        prop.pop("default", None)
        if isinstance(prop.get("items"), dict):
            prop["items"].pop("description", None)
    if not parameters.get("required"):
        parameters.pop("required", None)
    return spec


def _train(train: Any, plans: dict[str, tuple[list[str], list[str]]], tmp_path: Path, corpus: list[str]):
    tokenizer = _tokenizer(corpus)
    script = Script(plans)
    model = _scripted_model(tokenizer, script)
    before = [p.detach().clone() for p in model.parameters()]
    seen: list[tuple[str, Any, float]] = []

    def reward(completions: list[Any], **columns: Any) -> list[float]:
        values = trl_reward(completions, **columns)
        seen.extend(zip(columns["task_id"], completions, values))
        return values

    reward.__name__ = "covert_reward"
    args = GRPOConfig(output_dir=str(tmp_path / "grpo"), per_device_train_batch_size=2 * len(train), num_generations=2,
                      max_steps=2, max_completion_length=4096, learning_rate=1e-2, logging_steps=1,
                      report_to="none", save_strategy="no", use_cpu=True, shuffle_dataset=False,
                      dataloader_num_workers=0, seed=0)
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=args, train_dataset=train,
                          processing_class=tokenizer, environment_factory=environment_factory(train))
    trainer.train()
    changed = any(not torch.equal(a, b.detach()) for a, b in zip(before, model.parameters()))
    return trainer, script, seen, changed


def _corpus(rows: Any, sft: dict[str, dict[str, Any]]) -> list[str]:
    texts = []
    for row in rows:
        texts += [m["content"] for m in row["prompt"]] + [json.dumps(t) for t in row["tools"]]
        texts += [json.dumps(m, ensure_ascii=False) for m in sft[row["task_id"]]["messages"]]
    return texts * 3


# ---------------------------------------------------------------- the tests


def test_grpo_shows_each_row_its_own_tools_and_rewards_the_oracle(conversations: Path, tmp_path: Path) -> None:
    data = conversations
    rl = datasets.load_dataset(str(data), "rl-augmented", split="train")
    base = datasets.load_dataset(str(data), "rl", split="train")
    one_tool = _first(base, lambda r: len(r["tools"]) == 1 and r["num_calls"] >= 1)
    distractor = _first(rl, lambda r: r["num_calls"] >= 1
                        and any(a["kind"] == "distractors" for a in r["augmentations"] or []))
    train = trl_dataset(datasets.concatenate_datasets([one_tool, distractor.cast(one_tool.features)]))
    sft = {**_sft(data, "sft"), **_sft(data, "sft-augmented")}
    plans = {}
    for row in train:
        oracle = trl_plan(sft[row["task_id"]]["messages"])
        added = next((a["added"] for a in row["augmentations"] or [] if a["kind"] == "distractors"), None)
        # the distractor row's corrupted rollout calls a distractor instead of the right tool
        wrong = {"name": added[0], "arguments": {}} if added else None
        plans[row["prompt"][-1]["content"]] = (oracle, corrupt(oracle, wrong))

    trainer, script, seen, changed = _train(train, plans, tmp_path, _corpus(train, sft))

    assert trainer.state.global_step == 2 and changed  # it trained: oracle and corrupted rollouts differ in reward
    for row in train:
        shown = script.shown[row["prompt"][-1]["content"]]
        want = sorted(row["tools"], key=lambda t: t["function"]["name"])  # TRL lists methods by name
        assert [t["function"]["name"] for t in shown] == [t["function"]["name"] for t in want]
        assert shown == [_expected_schema(t) for t in want]
    assert len(script.shown[one_tool[0]["prompt"][-1]["content"]]) == 1
    by_task = {row["task_id"]: row for row in train}
    oracle_values, corrupted_values = [], []
    for task_id, completion, value in seen:
        row = by_task[task_id]
        calls = [c["function"] for m in completion if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        results = [m for m in completion if m["role"] == "tool"]
        sft_results = [m["content"] for m in sft[task_id]["messages"] if m["role"] == "tool"]
        if calls == [c for g in row["reward_model"]["ground_truth"]["calls"] for c in g]:
            oracle_values.append(value)
            # TRL's loop ran covert's tools: the results are the recorded ones
            assert [m["content"] for m in results] == sft_results
        else:
            corrupted_values.append(value)
            if by_task[task_id]["augmentations"]:
                assert json.loads(results[0]["content"])["error"]["code"] == "unknown_tool"
    assert oracle_values and corrupted_values
    assert oracle_values == [1.0] * len(oracle_values)
    assert max(corrupted_values) < 1.0


def test_grpo_multiturn_row_is_solved_through_ask_user(conversations: Path, tmp_path: Path) -> None:
    data = conversations
    rl = datasets.load_dataset(str(data), "rl-multiturn", split="train")
    needs_user = _first(rl, lambda r: r["extra_info"]["user_scenario"]["known"] and r["num_calls"] >= 2)
    train = trl_dataset(needs_user)
    sft = _sft(data, "sft-multiturn")
    row = train[0]
    oracle = trl_plan(sft[row["task_id"]]["messages"])
    assert f'"{USER_TOOL}"' in oracle[0]
    # the corrupted rollout does not ask: it guesses the value the user holds
    plans = {row["prompt"][-1]["content"]: (oracle, corrupt(oracle[1:]))}

    trainer, script, seen, changed = _train(train, plans, tmp_path, _corpus(train, sft))

    assert trainer.state.global_step == 2 and changed
    shown = [t["function"]["name"] for t in script.shown[row["prompt"][-1]["content"]]]
    assert shown == sorted([t["function"]["name"] for t in row["tools"]] + [USER_TOOL])
    known = [k["text"] for k in row["extra_info"]["user_scenario"]["known"]]
    users = [m["content"] for m in sft[row["task_id"]]["messages"] if m["role"] == "user"][1:]
    values = {True: [], False: []}
    for _, completion, value in seen:
        answers = [m["content"] for m in completion if m["role"] == "tool" and m["name"] == USER_TOOL]
        is_oracle = len(answers) == len(users)
        values[is_oracle].append(value)
        if is_oracle:
            # covert's template user answered inside TRL's tool loop, as in the recorded conversation
            assert answers == users and any(k.lower() in answers[0].lower() for k in known)
            # scored with the ask_user calls read as user turns; as plain calls, they cost reward
            assert score(row | {"environment": row["builder"]}, completion).value < 1.0
            assert score(row | {"environment": row["builder"]}, user_turns(completion)).value == 1.0
    assert values[True] and values[True] == [1.0] * len(values[True])
    assert values[False] and max(values[False]) < 1.0
